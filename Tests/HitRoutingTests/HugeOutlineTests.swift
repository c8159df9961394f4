import XCTest

@testable import HitRouting

/// Outlines whose coordinates are finite but whose cross products are
/// not (beyond about 1e154): a point well inside is still inside.
final class HugeOutlineTests: XCTestCase {
    func testTheCentreOfATriangleAtPlusMinus1e200IsInside() {
        let triangle = Shape(.polygon([Point(-1e200, -1e200), Point(1e200, -1e200), Point(0, 1e200)]))
        XCTAssertEqual(region(triangle).test(Point(0, 0)), .inside)
        XCTAssertEqual(region(triangle).test(Point(0, -2e200)), .outside)
        XCTAssertEqual(region(triangle).test(Point(0.6e200, 0.1e200)), .outside, "right of the right edge")
        XCTAssertEqual(region(triangle).test(Point(0.4e200, -0.1e200)), .inside, "left of it")
    }

    /// Both terms of the cross product overflow alike (∞ − ∞): the sign
    /// comes from the differences scaled exactly, on either side of the edge.
    func testACrossProductWhoseTermsBothOverflowKeepsItsSign() {
        let (a, b) = (Point(-1e200, -1e200), Point(1e200, 1e200))
        XCTAssertTrue(((b.x - a.x) * (1 - a.y) - (0 - a.x) * (b.y - a.y)).isNaN)
        XCTAssertGreaterThan(Polyline.cross(a.x, a.y, b.x, b.y, 0, 1e190), 0)
        XCTAssertLessThan(Polyline.cross(a.x, a.y, b.x, b.y, 0, -1e190), 0)
        XCTAssertEqual(Polyline.crossing(a, b, Point(0, 1e190)), 1, "down across the ray, right of the point")
        XCTAssertEqual(Polyline.crossing(a, b, Point(0, -1e190)), 0, "left of it")
        XCTAssertEqual(Polyline.cross(0, 0, 2, 2, 0, 1), 2, "ordinary values are unchanged")
    }

    /// The same triangle under a scene: hit at its centre with and without
    /// a trace.
    func testAHugeTriangleInASceneTakesItsCentre() {
        let triangle = Layer(id: "t", shape: Shape(.polygon([Point(-1e200, -1e200), Point(1e200, -1e200), Point(0, 1e200)])))
        let scene = CompiledScene(Scene(layers: [triangle]))
        XCTAssertEqual(scene.hit(Point(0, 0)).target, 0)
        XCTAssertEqual(scene.hit(Point(0, 0), trace: true).target, 0)
        XCTAssertEqual(scene.hit(Point(0, 3e200)).target, nil)
    }
}
