import XCTest

@testable import HitRouting

/// `Layer` keeps rarely given fields out of line; it must still behave as a value.
final class LayerTests: XCTestCase {
    func testCopiesAreIndependent() {
        let original = Layer(id: "a", transform: .parts(TransformParts(translate: Point(1, 2))), zIndex: 3, color: "red")
        var copy = original
        copy.transform = .matrix(.identity)
        copy.zIndex = nil
        copy.hidden = true
        XCTAssertEqual(original.transform, .parts(TransformParts(translate: Point(1, 2))))
        XCTAssertEqual(original.zIndex, 3)
        XCTAssertNil(original.hidden)
        XCTAssertEqual(copy.transform, .matrix(.identity))
        XCTAssertEqual(copy.color, "red")
        XCTAssertEqual(copy.hidden, true)
    }

    func testFieldsNotGivenStayNil() {
        var layer = Layer(id: "plain")
        XCTAssertNil(layer.transform)
        layer.opacity = 0.5
        layer.opacity = nil
        XCTAssertNil(layer.opacity)
        XCTAssertNil(layer.hitSlop)
        XCTAssertNil(layer.pointerEvents)
    }

    func testNestedUpdatesReachOnlyTheirPath() {
        var scene = Scene(layers: [Layer(id: "p", children: [Layer(id: "c", zIndex: 1)])])
        let before = scene
        scene.updateLayer(at: [0, 0]) { $0.zIndex = 2 }
        XCTAssertEqual(before.layer(at: [0, 0]).zIndex, 1)
        XCTAssertEqual(scene.layer(at: [0, 0]).zIndex, 2)
    }
}
