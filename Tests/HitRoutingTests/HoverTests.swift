import XCTest

@testable import HitRouting

/// SPEC §11.1: what each pointer is over, and the boundary events between
/// its answers, against sequences computed by hand.
final class HoverTests: XCTestCase {
    /// Back to front: a panel holding a card (with an icon) and a badge in
    /// front of the card, and a tooltip beside the panel.
    ///
    ///     panel   0…200 square      card 10…110   icon 20…50   badge 50…150
    ///     tooltip 300…350 × 0…50
    static func nested() -> Scene {
        Scene(layers: [
            Layer(
                id: "panel", shape: rect(0, 0, 200, 200),
                children: [
                    Layer(
                        id: "card", shape: rect(10, 10, 100, 100),
                        children: [
                            Layer(id: "icon", shape: rect(20, 20, 30, 30))
                        ]),
                    Layer(id: "badge", shape: rect(50, 50, 100, 100)),
                ]),
            Layer(id: "tooltip", shape: rect(300, 0, 50, 50)),
        ])
    }

    /// Back to front: a base, a container of two pass-through layers
    /// (glass below glare) and a pass-through overlay on top. At (10, 10)
    /// the receivers are overlay, glare, glass (front to back) and base is
    /// the target.
    static func passThrough() -> Scene {
        Scene(layers: [
            Layer(id: "base", action: "base.press", shape: rect(0, 0, 100, 100)),
            Layer(
                id: "group",
                children: [
                    Layer(id: "glass", shape: rect(0, 0, 100, 100), passThrough: true),
                    Layer(id: "glare", shape: rect(0, 0, 50, 50), passThrough: true),
                ]),
            Layer(id: "overlay", shape: rect(0, 0, 100, 100), passThrough: true),
        ])
    }

    var scene = LiveScene(HoverTests.nested())
    var sessions = PointerSessions(maxPointers: 8, idleTimeout: 30)

    @discardableResult
    func event(
        _ pointer: PointerKey, _ phase: PointerSessions.Phase, _ x: Double, _ y: Double,
        type: PointerType = .mouse, now: Double = 0
    ) throws -> PointerSessions.Outcome {
        try sessions.apply(pointer: pointer, phase: phase, type: type, at: Point(x, y), to: &scene, trace: false, all: false, now: now)
    }

    /// The boundary of one event, for comparing with a hand-written one.
    func boundary(
        _ pointer: PointerKey, _ phase: PointerSessions.Phase, _ x: Double, _ y: Double, type: PointerType = .mouse, now: Double = 0
    ) throws -> Boundary? {
        try event(pointer, phase, x, y, type: type, now: now).boundary
    }

    func b(_ out: String?, _ leave: [String], _ over: String?, _ enter: [String], removed: [String] = []) -> Boundary {
        Boundary(out: out, leave: leave, over: over, enter: enter, removed: removed)
    }

    // MARK: - Nested layers

    func testHoveringAcrossNestedLayersIsTheDOMSequence() throws {
        XCTAssertEqual(try boundary("m", .hover, 25, 25), b(nil, [], "icon", ["panel", "card", "icon"]))
        XCTAssertEqual(try boundary("m", .hover, 60, 60), b("icon", ["icon", "card"], "badge", ["badge"]))
        XCTAssertNil(try boundary("m", .hover, 61, 61))  // still the badge: nothing to say
        XCTAssertEqual(try boundary("m", .hover, 160, 160), b("badge", ["badge"], "panel", []))
        XCTAssertEqual(try boundary("m", .hover, 320, 10), b("panel", ["panel"], "tooltip", ["tooltip"]))
        XCTAssertEqual(try boundary("m", .hover, 500, 500), b("tooltip", ["tooltip"], nil, []))
        XCTAssertNil(try boundary("m", .hover, 600, 600))
        XCTAssertEqual(try boundary("m", .hover, 40, 40), b(nil, [], "icon", ["panel", "card", "icon"]))
        // From the icon to its own parent: only the icon is left.
        XCTAssertEqual(try boundary("m", .hover, 15, 15), b("icon", ["icon"], "card", []))
        XCTAssertEqual(try boundary("m", .leave, 15, 15), b("card", ["card", "panel"], nil, []))
        XCTAssertNil(sessions.pointers["m"])
    }

    func testAPointerNotSeenIsOverNothingAndALeaveOfItSaysNothing() throws {
        XCTAssertNil(try boundary("new", .leave, 25, 25))
        XCTAssertNil(try boundary("new", .hover, 500, 500))  // over nothing, as before
        XCTAssertNotNil(sessions.pointers["new"])  // but remembered, with its point
    }

    func testTheAnswerOfAHoverIsAPlainHit() throws {
        let o = try sessions.apply(pointer: "m", phase: .hover, at: Point(25, 25), to: &scene, trace: true, all: true, now: 0)
        let plain = scene.compiled.hit(Point(25, 25), trace: true, all: true)
        XCTAssertEqual(o.result.target, plain.target)
        XCTAssertEqual(o.result.trace, plain.trace)
        XCTAssertEqual(o.result.stack, plain.stack)
        XCTAssertFalse(o.captured)
        XCTAssertFalse(o.moved)
        XCTAssertNil(sessions.capture(of: "m"))
    }

    // MARK: - Pass-through receivers

    func testReceiversPathsAreHoveredInTheStatedOrders() throws {
        scene = LiveScene(HoverTests.passThrough())
        XCTAssertEqual(scene.compiled.hit(Point(10, 10)).receivers.map { scene.compiled.ids[$0] }, ["overlay", "glare", "glass"])
        // Leave order: glare, glass (depth 1, front to back), overlay, group, base (depth 0, front to back).
        XCTAssertEqual(try boundary("m", .hover, 10, 10), b(nil, [], "base", ["base", "group", "overlay", "glass", "glare"]))
        XCTAssertEqual(sessions.pointers["m"]?.reported.layers, ["glare", "glass", "overlay", "group", "base"])
        // Out of the glare only: the target stays, so no out or over.
        XCTAssertEqual(try boundary("m", .hover, 70, 70), b(nil, ["glare"], nil, []))
        XCTAssertEqual(try boundary("m", .hover, 10, 10), b(nil, [], nil, ["glare"]))
        XCTAssertEqual(try boundary("m", .hover, 200, 200), b("base", ["glare", "glass", "overlay", "group", "base"], nil, []))
    }

    func testReceiversWithNoTarget() throws {
        var model = HoverTests.passThrough()
        model.layers.remove(at: 0)  // no base: only receivers
        scene = LiveScene(model)
        XCTAssertEqual(try boundary("m", .hover, 10, 10), b(nil, [], nil, ["group", "overlay", "glass", "glare"]))
        XCTAssertEqual(try boundary("m", .hover, 70, 70), b(nil, ["glare"], nil, []))
        XCTAssertEqual(try boundary("m", .hover, 200, 200), b(nil, ["glass", "overlay", "group"], nil, []))
    }

    func testACaptureHoversTheCapturingPathAloneAndTheUpHoversWhatIsThere() throws {
        scene = LiveScene(HoverTests.passThrough())
        XCTAssertEqual(try boundary("m", .down, 10, 10), b(nil, [], "base", ["base"]))
        XCTAssertNil(try boundary("m", .move, 500, 500))  // captured: still the base, wherever it is
        XCTAssertEqual(try boundary("m", .up, 10, 10), b(nil, [], nil, ["group", "overlay", "glass", "glare"]))
        // Once hovering the receivers, a down keeps the capture's path alone.
        XCTAssertEqual(try boundary("m", .down, 10, 10), b(nil, ["glare", "glass", "overlay", "group"], nil, []))
    }

    // MARK: - Capture

    func testCaptureKeepsTheHoverAndAMouseUpRecomputesIt() throws {
        try event("m", .hover, 60, 60)
        XCTAssertEqual(try boundary("m", .down, 25, 25), b("badge", ["badge"], "icon", ["card", "icon"]))
        XCTAssertNil(try boundary("m", .move, 320, 10))  // over the tooltip, but captured by the icon
        XCTAssertNil(try boundary("m", .move, 60, 60))
        XCTAssertEqual(try boundary("m", .up, 320, 10), b("icon", ["icon", "card", "panel"], "tooltip", ["tooltip"]))
        XCTAssertNotNil(sessions.pointers["m"])  // a mouse stays remembered after its up
        XCTAssertEqual(try boundary("m", .down, 25, 25), b("tooltip", ["tooltip"], "icon", ["panel", "card", "icon"]))
        XCTAssertEqual(try boundary("m", .cancel, 60, 60), b("icon", ["icon", "card"], "badge", ["badge"]))
    }

    func testAHoverOfACapturedPointerReleasesIt() throws {
        try event("m", .down, 25, 25)
        let hover = try event("m", .hover, 60, 60)
        XCTAssertFalse(hover.captured)
        XCTAssertEqual(hover.result.target.map { scene.compiled.ids[$0] }, "badge")
        XCTAssertEqual(hover.boundary, b("icon", ["icon", "card"], "badge", ["badge"]))
        XCTAssertNil(sessions.capture(of: "m"))
    }

    func testALeaveReleasesTheCaptureAndForgetsThePointer() throws {
        try event("m", .down, 25, 25)
        let leave = try event("m", .leave, 60, 60)
        XCTAssertFalse(leave.captured)
        XCTAssertEqual(leave.boundary, b("icon", ["icon", "card", "panel"], nil, []))
        XCTAssertNil(sessions.pointers["m"])
        XCTAssertEqual(try boundary("m", .hover, 60, 60), b(nil, [], "badge", ["panel", "badge"]))
    }

    // MARK: - Touch

    func testATouchHasNoHover() throws {
        XCTAssertNil(try boundary("t", .hover, 25, 25, type: .touch))
        XCTAssertNil(try boundary("t", .move, 25, 25, type: .touch))
        XCTAssertNil(sessions.pointers["t"])  // nothing to remember before its down
        XCTAssertEqual(try boundary("t", .down, 25, 25, type: .touch), b(nil, [], "icon", ["panel", "card", "icon"]))
        XCTAssertNil(try boundary("t", .move, 320, 10, type: .touch))
        XCTAssertEqual(try boundary("t", .up, 320, 10, type: .touch), b("icon", ["icon", "card", "panel"], nil, []))
        XCTAssertNil(sessions.pointers["t"])  // lifted: forgotten
        XCTAssertNil(try boundary("t", .move, 60, 60, type: .touch))
    }

    func testATouchDownOnNothingFollowsWhatItSlidesOverUntilItsUp() throws {
        XCTAssertNil(try boundary("t", .down, 500, 500, type: .touch))
        XCTAssertNotNil(sessions.pointers["t"])  // pressed: remembered
        XCTAssertEqual(try boundary("t", .move, 60, 60, type: .touch), b(nil, [], "badge", ["panel", "badge"]))
        XCTAssertEqual(try boundary("t", .cancel, 60, 60, type: .touch), b("badge", ["badge", "panel"], nil, []))
    }

    func testAPenHoversLikeAMouse() throws {
        XCTAssertEqual(try boundary("p", .hover, 25, 25, type: .pen), b(nil, [], "icon", ["panel", "card", "icon"]))
        try event("p", .down, 25, 25, type: .pen)
        XCTAssertEqual(try boundary("p", .up, 60, 60, type: .pen), b("icon", ["icon", "card"], "badge", ["badge"]))
    }

    // MARK: - The scene changes under a still pointer

    func testAPatchUnderAStillPointerIsReportedByItsNextAnswer() throws {
        try event("m", .hover, 25, 25)
        var card = scene.model.layers[0].children![0]
        card.hidden = true
        scene.replaceLayer(Int(scene.compiled.indexByID["card"]!), with: card)
        XCTAssertEqual(try boundary("m", .hover, 25, 25), b("icon", ["icon", "card"], "panel", []))
        XCTAssertNil(try boundary("m", .hover, 25, 25))
    }

    func testADragByAnotherPointerIsReportedToTheStillOne() throws {
        scene = LiveScene(
            Scene(layers: [
                Layer(id: "floor", shape: rect(0, 0, 500, 500)),
                Layer(id: "box", shape: rect(0, 0, 50, 50), draggable: true),
            ]))
        XCTAssertEqual(try boundary("still", .hover, 40, 40), b(nil, [], "box", ["box"]))
        XCTAssertEqual(try boundary("hand", .down, 10, 10), b(nil, [], "box", ["box"]))
        XCTAssertTrue(try event("hand", .move, 110, 10).moved)  // the box is now at 100…150
        XCTAssertNil(try boundary("hand", .up, 110, 10))  // still over the box it moved
        XCTAssertEqual(try boundary("still", .hover, 40, 40), b("box", ["box"], "floor", ["floor"]))
    }

    func testAReplacementWithoutTheHoveredLayerReportsItRemoved() throws {
        try event("m", .hover, 60, 60)
        var model = scene.model
        model.layers[0].children!.remove(at: 1)  // the badge
        scene = LiveScene(model)
        sessions.dropAllCaptures()
        XCTAssertEqual(try boundary("m", .hover, 60, 60), b("badge", ["badge"], "card", ["card"], removed: ["badge"]))
    }

    func testARemovedCapturingLayerIsLeftAndRemoved() throws {
        try event("m", .down, 60, 60)  // the badge captures
        var model = scene.model
        model.layers[0].children!.remove(at: 1)
        scene = LiveScene(model)
        sessions.dropCaptures(missingFrom: scene.compiled)
        let move = try event("m", .move, 60, 60)
        XCTAssertFalse(move.captured)
        XCTAssertEqual(move.boundary, b("badge", ["badge"], "card", ["card"], removed: ["badge"]))
    }

    func testRemovingAHoveredAncestorListsEveryLayerGoneDeepestFirst() throws {
        try event("m", .hover, 25, 25)
        scene = LiveScene(Scene(layers: [Layer(id: "tooltip", shape: rect(0, 0, 500, 500))]))
        XCTAssertEqual(
            try boundary("m", .hover, 25, 25),
            b("icon", ["icon", "card", "panel"], "tooltip", ["tooltip"], removed: ["icon", "card", "panel"]))
    }

    func testAReorderOfTheSameSetSaysNothing() throws {
        scene = LiveScene(HoverTests.passThrough())
        try event("m", .hover, 10, 10)
        var glass = scene.model.layers[1].children![0]
        glass.zIndex = 5  // now in front of the glare
        scene.replaceLayer(Int(scene.compiled.indexByID["glass"]!), with: glass)
        XCTAssertNil(try boundary("m", .hover, 10, 10))
        XCTAssertEqual(sessions.pointers["m"]?.reported.layers, ["glass", "glare", "overlay", "group", "base"])
        XCTAssertEqual(try boundary("m", .hover, 200, 200), b("base", ["glass", "glare", "overlay", "group", "base"], nil, []))
    }

    // MARK: - Pushes (refresh) and namespaces

    func testRefreshReportsEachChangedPointerOfOneNamespaceOnce() throws {
        let http = PointerKey("mouse")
        let a = PointerKey("mouse", namespace: 1)
        let a2 = PointerKey("pen", namespace: 1)
        let other = PointerKey("mouse", namespace: 2)
        for key in [http, a, other] { try event(key, .hover, 60, 60) }
        try event(a2, .hover, 320, 10)
        var model = scene.model
        model.layers[0].children!.remove(at: 1)  // the badge
        scene = LiveScene(model)
        let changes = sessions.refresh(namespace: 1, in: scene.compiled, now: 0)
        XCTAssertEqual(
            changes,
            [
                PointerSessions.Change(
                    pointer: "mouse", target: Int(scene.compiled.indexByID["card"]!),
                    boundary: b("badge", ["badge"], "card", ["card"], removed: ["badge"]))
            ])
        XCTAssertEqual(sessions.refresh(namespace: 1, in: scene.compiled, now: 0), [])  // said once
        XCTAssertNil(try boundary(a, .hover, 60, 60))  // nor repeated by the next answer
        // The other namespaces were not refreshed: their next answers say it.
        XCTAssertEqual(try boundary(http, .hover, 60, 60), b("badge", ["badge"], "card", ["card"], removed: ["badge"]))
        XCTAssertEqual(sessions.refresh(namespace: 2, in: scene.compiled, now: 0).map(\.boundary.removed), [["badge"]])
    }

    func testRefreshKeepsACaptureAndDropsOneWhoseLayerIsGone() throws {
        let a = PointerKey("f", namespace: 3)
        let c = PointerKey("g", namespace: 3)
        try event(a, .down, 25, 25)  // the icon
        try event(c, .down, 60, 60)  // the badge
        var badge = scene.model.layers[0].children![1]
        badge.transform = .parts(TransformParts(translate: Point(1000, 0)))
        scene.replaceLayer(Int(scene.compiled.indexByID["badge"]!), with: badge)
        XCTAssertEqual(sessions.refresh(namespace: 3, in: scene.compiled, now: 0), [])  // captured: the same paths
        var model = scene.model
        model.layers[0].children![0].children = []  // the icon goes
        scene = LiveScene(model)
        XCTAssertEqual(
            sessions.refresh(namespace: 3, in: scene.compiled, now: 0),
            [
                PointerSessions.Change(
                    pointer: "f", target: Int(scene.compiled.indexByID["card"]!),
                    boundary: b("icon", ["icon"], "card", [], removed: ["icon"]))
            ])
        XCTAssertNil(sessions.capture(of: a))
        XCTAssertNotNil(sessions.capture(of: c))
    }

    func testForgettingANamespaceCancelsItsPointersOnly() throws {
        let a = PointerKey("f", namespace: 4)
        try event(a, .down, 25, 25)
        try event("f", .down, 60, 60)
        sessions.forget(namespace: 4)
        XCTAssertNil(sessions.pointers[a])
        XCTAssertEqual(sessions.capture(of: "f")?.layer, "badge")
    }

    // MARK: - Limits

    func testRememberedPointersCountTowardTheLimitAndExpire() throws {
        sessions.maxPointers = 2
        try event("a", .hover, 25, 25, now: 0)
        try event("b", .hover, 500, 500, now: 0)  // over nothing, still remembered
        XCTAssertThrowsError(try event("c", .hover, 60, 60, now: 10)) { error in
            XCTAssertEqual(error as? PointerSessions.Refusal, .tooManyPointers(limit: 2))
        }
        XCTAssertNoThrow(try event("c", .hover, 60, 60, type: .touch, now: 10))  // a touch that is not pressed is not remembered
        XCTAssertNoThrow(try event("c", .leave, 60, 60, now: 10))
        XCTAssertNoThrow(try event("a", .down, 60, 60, now: 10))  // a remembered pointer may capture
        // At 35, "b" (seen at 0) has expired; "a" (seen at 10) has not.
        XCTAssertEqual(sessions.livePointerCount(now: 35), 1)
        XCTAssertEqual(try boundary("c", .hover, 25, 25, now: 35), b(nil, [], "icon", ["panel", "card", "icon"]))
        // An expired pointer starts over from nothing.
        XCTAssertEqual(try boundary("a", .hover, 25, 25, now: 41), b(nil, [], "icon", ["panel", "card", "icon"]))
    }
}
