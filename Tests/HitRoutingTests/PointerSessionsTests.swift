import XCTest

@testable import HitRouting

final class PointerSessionsTests: XCTestCase {
    var scene = LiveScene(RouterTests.overlappingSquares())
    var sessions = PointerSessions(maxPointers: 2, idleTimeout: 30)

    @discardableResult
    func event(
        _ pointer: String, _ phase: PointerSessions.Phase, _ x: Double, _ y: Double, now: Double = 0,
        trace: Bool = true
    ) throws -> (id: String?, captured: Bool, outcome: PointerSessions.Outcome) {
        let o = try sessions.apply(
            pointer: PointerKey(pointer), phase: phase, at: Point(x, y), to: &scene, trace: trace, all: false, now: now)
        return (o.result.target.map { scene.compiled.ids[$0] }, o.captured, o)
    }

    func testADragKeepsGoingToTheSquareItStartedOn() throws {
        XCTAssertEqual(try event("f1", .down, 300, 300).id, "square3")
        XCTAssertTrue(try event("f1", .down, 300, 300).captured)
        let move = try event("f1", .move, 100, 100)  // over square1's centre
        XCTAssertEqual(move.id, "square3")
        XCTAssertTrue(move.captured)
        XCTAssertEqual(move.outcome.result.trace.map(\.decision), [.captured])
        XCTAssertEqual(move.outcome.result.trace.first?.detail, .capturedBy(pointer: "f1", down: Point(300, 300)))
        XCTAssertEqual(move.outcome.result.local, Point(100, 100))
        XCTAssertEqual(try event("f1", .move, -1000, 5000).id, "square3")
        let up = try event("f1", .up, 100, 100)
        XCTAssertEqual(up.id, "square3")
        XCTAssertTrue(up.captured)
        let after = try event("f1", .move, 100, 100)
        XCTAssertEqual(after.id, "square1")
        XCTAssertFalse(after.captured)
    }

    func testTwoPointersHoldTwoLayers() throws {
        try event("a", .down, 100, 100)
        try event("b", .down, 300, 300)
        XCTAssertEqual(try event("a", .move, 300, 300).id, "square1")
        XCTAssertEqual(try event("b", .move, 100, 100).id, "square3")
        try event("a", .up, 0, 0)
        XCTAssertEqual(try event("b", .move, 100, 100).id, "square3")
    }

    func testDownOnNothingReleasesAndCancelReleasesWithoutMoving() throws {
        try event("a", .down, 100, 100)
        XCTAssertFalse(try event("a", .down, 5, 5).captured)
        XCTAssertEqual(try event("a", .move, 300, 300).id, "square3")
        try event("a", .down, 300, 300)
        XCTAssertTrue(try event("a", .cancel, 100, 100).captured)
        XCTAssertEqual(try event("a", .move, 100, 100).id, "square1")
    }

    func testCapturesExpireWhenIdle() throws {
        try event("a", .down, 100, 100, now: 0)
        XCTAssertEqual(try event("a", .move, 300, 300, now: 29).id, "square1")
        XCTAssertEqual(try event("a", .move, 300, 300, now: 58).id, "square1")  // 29 s idle: still held
        XCTAssertEqual(try event("a", .move, 300, 300, now: 88.5).id, "square3")  // 30.5 s idle: expired
    }

    /// Every remembered pointer counts (SPEC §11.1): a mouse is remembered
    /// after its up, and even when its down hits nothing.
    func testThePointerLimitRefusesAThirdPointer() throws {
        try event("a", .down, 100, 100)
        try event("b", .down, 300, 300)
        XCTAssertThrowsError(try event("c", .down, 200, 200)) { error in
            XCTAssertEqual(error as? PointerSessions.Refusal, .tooManyPointers(limit: 2))
        }
        try event("a", .down, 300, 300)  // an existing pointer may capture anew
        try event("b", .up, 0, 0)
        XCTAssertThrowsError(try event("c", .down, 5, 5))  // "b" hovers on after its up
        try event("b", .leave, 0, 0)
        XCTAssertNoThrow(try event("c", .down, 200, 200))
    }

    func testDraggableSquareFollowsThePointer() throws {
        var model = RouterTests.overlappingSquares()
        model.layers[2].draggable = true
        scene = LiveScene(model)
        try event("a", .down, 300, 300)
        let move = try event("a", .move, 330, 300)
        XCTAssertTrue(move.outcome.moved)
        XCTAssertEqual(move.outcome.result.local, Point(300, 300))  // the finger stays on the same spot of the square
        try event("a", .up, 350, 300)
        XCTAssertEqual(scene.model.layers[2].transform, .parts(TransformParts(translate: Point(50, 0))))
        XCTAssertEqual(scene.compiled.targetID(370, 300), "square3")  // centre half now spans 225..375
        XCTAssertEqual(scene.compiled.targetID(180, 300), nil)  // no longer at its old place
        XCTAssertEqual(LiveScene(scene.model).compiled.targetID(370, 300), "square3")  // recompiled agrees
        XCTAssertFalse(try event("a", .down, 370, 300).outcome.moved)
        XCTAssertFalse(try event("a", .move, 370, 300).outcome.moved)  // a zero-length move changes nothing
    }

    func testDragInsideARotatedParentMovesTheLayerUnderTheFinger() throws {
        scene = LiveScene(
            Scene(layers: [
                Layer(
                    id: "turntable", transform: .parts(TransformParts(translate: Point(500, 0), rotate: 90)),
                    children: [
                        Layer(id: "puck", shape: rect(0, 0, 20, 20), draggable: true)
                    ])
            ]))
        // puck local (10, 10) → scene rotate (−10, 10) → + (500, 0) = (490, 10)
        XCTAssertEqual(try event("a", .down, 490, 10).id, "puck")
        try event("a", .up, 540, 10)  // +50 on screen x is −50 along the parent's y
        let puck = scene.model.layers[0].children![0]
        XCTAssertEqual(puck.transform, .parts(TransformParts(translate: Point(0, -50))))
        XCTAssertEqual(scene.compiled.targetID(540, 10), "puck")
        XCTAssertEqual(scene.compiled.targetID(490, 10), nil)
    }

    func testACaptureWhoseLayerDisappearsIsDroppedAndTheNextEventSaysSo() throws {
        try event("a", .down, 300, 300)
        var model = scene.model
        model.layers.remove(at: 2)
        scene = LiveScene(model)
        sessions.dropCaptures(missingFrom: scene.compiled)
        let next = try event("a", .move, 100, 100)
        XCTAssertEqual(next.id, "square1")
        XCTAssertFalse(next.captured)
        XCTAssertEqual(next.outcome.result.trace.first?.detail, .captureDropped(pointer: "a", layer: "square3", why: .layerRemoved))
        XCTAssertEqual(next.outcome.result.trace.first?.layer, -1)
        XCTAssertEqual(try event("a", .move, 100, 100).outcome.result.trace.count, 1)  // said once
    }

    /// A capture another replica held (SPEC §10): noted here, said once by
    /// the pointer's next event, and a local capture of it is replaced.
    func testACaptureDroppedElsewhereIsSaidOnceByTheNextEvent() throws {
        try event("a", .down, 300, 300)
        sessions.noteDropped(pointer: "a", layer: "square2", why: .replicaLost)
        XCTAssertNil(sessions.capture(of: "a"))
        let next = try event("a", .up, 100, 100)
        XCTAssertEqual(next.id, "square1")
        XCTAssertFalse(next.captured)
        let note = try XCTUnwrap(next.outcome.result.trace.first)
        XCTAssertEqual(note.detail, .captureDropped(pointer: "a", layer: "square2", why: .replicaLost))
        XCTAssertEqual(
            note.detail?.description,
            "capture of pointer \"a\" by layer \"square2\" was dropped: it was held by another replica, which is gone (or no longer receives this scene)"
        )
        XCTAssertEqual(try event("a", .move, 100, 100).outcome.result.trace.count, 1)  // said once
    }
}
