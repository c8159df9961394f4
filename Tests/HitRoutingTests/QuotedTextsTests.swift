import XCTest

@testable import HitRouting

final class QuotedTextsTests: XCTestCase {
    private func text(_ t: QuotedTexts, _ n: Int) -> String {
        t.withText(n) { String(decoding: $0, as: UTF8.self) }
    }

    func testTextsAreQuotedAndEscapedAndNoneIsEmpty() {
        let t = QuotedTexts(["button", nil, "a\"b\n\u{1}", ""])
        XCTAssertEqual(text(t, 0), #""button""#)
        XCTAssertFalse(t.hasText(1))
        XCTAssertEqual(text(t, 1), "")
        XCTAssertEqual(text(t, 2), #""a\"b\n\u0001""#)
        XCTAssertTrue(t.hasText(3))
        XCTAssertEqual(text(t, 3), #""""#)
    }

    func testReplacedTextsStayRightThroughRebuilds() {
        var all: [String?] = (0..<8).map { "layer-\($0)" }
        var t = QuotedTexts(all)
        for round in 0..<2_000 {
            let n = round % all.count
            all[n] = round % 5 == 0 ? nil : String(repeating: "x", count: round % 37) + "\(round)"
            t.replace(n, with: all[n], all: all)
            for k in all.indices {
                XCTAssertEqual(text(t, k), all[k].map { "\"\($0)\"" } ?? "")
            }
        }
    }

    func testACompiledScenesAnswerTextsFollowAnActionPatch() {
        var scene = CompiledScene(
            Scene(layers: [Layer(id: "a", action: "press", shape: rect(0, 0, 10, 10))]))
        XCTAssertEqual(text(scene.quotedIDs, 0), #""a""#)
        XCTAssertEqual(text(scene.quotedActions, 0), #""press""#)
        XCTAssertEqual(scene.actionLayer(for: 0), 0)
        scene.update(0, to: Layer(id: "a", shape: rect(0, 0, 10, 10)))
        XCTAssertNil(scene.actionLayer(for: 0))
        scene.update(0, to: Layer(id: "a", action: "tap", shape: rect(0, 0, 10, 10)))
        XCTAssertEqual(text(scene.quotedActions, 0), #""tap""#)
    }
}
