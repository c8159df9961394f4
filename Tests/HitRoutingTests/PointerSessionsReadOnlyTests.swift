import TestSupport
import XCTest

@testable import HitRouting

/// An event that cannot drag, applied to a scene it only reads
/// (`apply(…in:…)`), has the outcome and leaves the sessions exactly as
/// the same event applied to a `LiveScene`.
final class PointerSessionsReadOnlyTests: XCTestCase {
    func testReadOnlyEventsMatchTheLiveSceneOnes() throws {
        var model = RouterTests.overlappingSquares()
        model.layers[2].draggable = true
        var scene = LiveScene(model)
        var live = PointerSessions(maxPointers: 3, idleTimeout: 30)
        var read = live
        var rng = SplitMix64(seed: 11)
        let phases = PointerSessions.Phase.allCases
        let types = PointerType.allCases
        for i in 0..<3_000 {
            let key = PointerKey(["a", "b", "c", "d"][Int(rng.next() % 4)], namespace: rng.next() % 2)
            let phase = phases[Int(rng.next() % UInt64(phases.count))]
            let type = types[Int(rng.next() % UInt64(types.count))]
            let point = Point(Double(rng.next() % 420), Double(rng.next() % 420))
            let now = Double(i) * 0.05
            let trace = rng.next() % 2 == 0
            if phase.mayDrag {
                // Both sides take it the one way: the scene may move.
                var other = scene
                let a = try? live.apply(pointer: key, phase: phase, type: type, at: point, to: &scene, trace: trace, all: false, now: now)
                let b = try? read.apply(pointer: key, phase: phase, type: type, at: point, to: &other, trace: trace, all: false, now: now)
                XCTAssertEqual(a?.boundary, b?.boundary)
                continue
            }
            var e1 = PointerSessions.Edits()
            var e2 = PointerSessions.Edits()
            let a = Result { () throws(PointerSessions.Refusal) in
                try live.apply(
                    pointer: key, phase: phase, type: type, at: point, to: &scene, trace: trace, all: true, now: now, recording: &e1)
            }
            let b = Result { () throws(PointerSessions.Refusal) in
                try read.apply(
                    pointer: key, phase: phase, type: type, at: point, in: scene.compiled, trace: trace, all: true, now: now,
                    recording: &e2)
            }
            switch (a, b) {
            case (.success(let x), .success(let y)):
                XCTAssertEqual(x.result.target, y.result.target, "event \(i)")
                XCTAssertEqual(x.result.local, y.result.local, "event \(i)")
                XCTAssertEqual(x.result.trace.count, y.result.trace.count, "event \(i)")
                XCTAssertEqual(x.result.stack, y.result.stack, "event \(i)")
                XCTAssertEqual(x.captured, y.captured, "event \(i)")
                XCTAssertEqual(x.moved, y.moved, "event \(i)")
                XCTAssertEqual(x.boundary, y.boundary, "event \(i)")
                XCTAssertEqual(x.work, y.work, "event \(i)")
            case (.failure(let x), .failure(let y)):
                XCTAssertEqual(x, y, "event \(i)")
            default:
                XCTFail("event \(i): \(a) against \(b)")
            }
            XCTAssertEqual(live.pointers, read.pointers, "event \(i)")
            XCTAssertEqual(live.earliestActive, read.earliestActive, "event \(i)")
            XCTAssertEqual(e1.pointers.count, e2.pointers.count, "event \(i)")
            XCTAssertEqual(e1.dropped.count, e2.dropped.count, "event \(i)")
            if i % 97 == 0 {
                live.noteDropped(pointer: key, layer: "square2", why: .replicaLost)
                read.noteDropped(pointer: key, layer: "square2", why: .replicaLost)
            }
        }
    }
}
