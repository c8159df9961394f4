import XCTest

@testable import HitRouting

/// Refused and reverted events leave the sessions exactly as they were, and
/// expiry by the earliest-activity bound forgets exactly what a scan of
/// every pointer at every event would.
final class PointerSessionsEditsTests: XCTestCase {
    /// The whole table: every remembered pointer and every dropped-capture note.
    struct Table: Equatable {
        var pointers: [PointerKey: PointerSessions.Pointer]
        var dropped: [PointerKey: String]
        init(_ s: PointerSessions) {
            pointers = s.pointers
            dropped = s.dropped.mapValues { "\($0.layer) \($0.why)" }
        }
    }

    func testARefusedPointerLeavesTheSessionsAsTheyWereExpiryIncluded() throws {
        var scene = LiveScene(RouterTests.overlappingSquares())
        var sessions = PointerSessions(maxPointers: 2, idleTimeout: 30)
        _ = try sessions.apply(pointer: "a", phase: .hover, at: Point(100, 100), to: &scene, trace: false, all: false, now: 0)
        _ = try sessions.apply(pointer: "b", phase: .hover, at: Point(300, 300), to: &scene, trace: false, all: false, now: 20)
        _ = try sessions.apply(pointer: "c", phase: .hover, at: Point(300, 300), to: &scene, trace: false, all: false, now: 40)
        // At 55 "a" is long gone, "b" expires, and "d" would be the third pointer.
        XCTAssertEqual(Set(sessions.pointers.keys), ["b", "c"])
        let before = Table(sessions)
        var edits = PointerSessions.Edits()
        XCTAssertThrowsError(
            try sessions.apply(
                pointer: "d", phase: .hover, at: Point(1, 1), to: &scene, trace: false, all: false, now: 40, recording: &edits)
        ) { XCTAssertEqual($0 as? PointerSessions.Refusal, .tooManyPointers(limit: 2)) }
        XCTAssertEqual(Table(sessions), before)
        XCTAssertTrue(edits.isEmpty, "a refused event records nothing")
        _ = try sessions.apply(
            pointer: "d", phase: .hover, at: Point(1, 1), to: &scene, trace: false, all: false, now: 55, recording: &edits)
        XCTAssertEqual(Set(sessions.pointers.keys), ["c", "d"], "\"b\" expired, making room")
        sessions.revert(edits)
        XCTAssertEqual(Table(sessions), before, "reverting puts back the expired pointer and forgets the new one")
    }

    func testARefusedDragLeavesTheSessionsAndTheSceneAsTheyWere() throws {
        var model = RouterTests.overlappingSquares()
        model.layers[2].draggable = true
        var scene = LiveScene(model)
        var sessions = PointerSessions(maxPointers: 8, idleTimeout: 30)
        _ = try sessions.apply(pointer: "m", phase: .hover, at: Point(5, 5), to: &scene, trace: false, all: false, now: 0)
        _ = try sessions.apply(pointer: "a", phase: .down, at: Point(300, 300), to: &scene, trace: false, all: false, now: 10)
        sessions.noteDropped(pointer: "m", layer: "square1", why: .replicaLost)
        var refused = false
        // "m" is idle past the timeout from 30 on: a refused event there
        // must keep it too.
        for (now, x) in zip([20.0, 35, 36, 37], [1.5e308, -1.5e308, 1.5e308, -1.5e308]) {
            let before = Table(sessions)
            let transform = scene.model.layers[2].transform
            var edits = PointerSessions.Edits()
            do {
                _ = try sessions.apply(
                    pointer: "a", phase: .move, at: Point(x, 300), to: &scene, trace: true, all: false, now: now,
                    recording: &edits)
            } catch {
                guard case .moveOverflows(layer: "square3", _) = error else { return XCTFail("\(error)") }
                XCTAssertEqual(Table(sessions), before)
                XCTAssertEqual(scene.model.layers[2].transform, transform)
                XCTAssertTrue(edits.isEmpty)
                XCTAssertNotNil(sessions.pointers["m"], "kept, though a scan at \(now) would forget it")
                refused = true
                break
            }
        }
        XCTAssertTrue(refused, "some move past the finite range is refused")
    }

    /// What a store does when an event's record fails after `apply`: revert
    /// it; and what a Redis drag does: revert at once, redo on commit.
    func testRevertAndRedoRestoreTheWholeTable() throws {
        var scene = LiveScene(RouterTests.overlappingSquares())
        var sessions = PointerSessions(maxPointers: 8, idleTimeout: 30)
        for (i, id) in ["a", "b", "c"].enumerated() {
            _ = try sessions.apply(
                pointer: PointerKey(id), phase: .down, at: Point(100 + 100 * Double(i), 100), to: &scene, trace: false, all: false,
                now: Double(i))
        }
        let before = Table(sessions)
        var edits = PointerSessions.Edits()
        sessions.noteDropped(pointer: "b", layer: "square2", why: .replicaLost, recording: &edits)
        _ = try sessions.apply(
            pointer: "b", phase: .hover, at: Point(5, 5), to: &scene, trace: true, all: false, now: 40, recording: &edits)
        let after = Table(sessions)
        XCTAssertNotEqual(after, before)
        XCTAssertEqual(Set(sessions.pointers.keys), ["b"], "\"a\" and \"c\" expired")
        let redo = sessions.revert(edits)
        XCTAssertEqual(Table(sessions), before)
        sessions.revert(redo)
        XCTAssertEqual(Table(sessions), after)
    }

    /// A seeded random sequence of events, with an injected clock that
    /// mostly advances and sometimes steps back, against a model that
    /// forgets idle pointers by scanning all of them before every event.
    func testExpiryMatchesAScanOfEveryPointerAtEveryEvent() throws {
        var rng = SplitMix(seed: 34)
        var scene = LiveScene(RouterTests.overlappingSquares())
        var fast = PointerSessions(maxPointers: 6, idleTimeout: 30)
        var model = PointerSessions(maxPointers: 6, idleTimeout: 30)
        var now = 0.0
        var expiries = 0
        for step in 0..<5_000 {
            now += rng.next() % 10 == 0 ? -Double(rng.next() % 5) : Double(rng.next() % 12)
            let key = PointerKey("p\(rng.next() % 9)", namespace: rng.next() % 2)
            let phase = PointerSessions.Phase.allCases[Int(rng.next() % UInt64(PointerSessions.Phase.allCases.count))]
            let type: PointerType = rng.next() % 4 == 0 ? .touch : .mouse
            let point = Point(Double(rng.next() % 400), Double(rng.next() % 400))
            let count = model.pointers.count
            model.pointers = model.pointers.filter { now - $0.value.lastActive <= model.idleTimeout }
            if model.pointers.count < count { expiries += 1 }
            var a = scene
            var b = scene
            let got = Result { () throws(PointerSessions.Refusal) in
                try fast.apply(pointer: key, phase: phase, type: type, at: point, to: &a, trace: false, all: false, now: now)
            }
            let want = Result { () throws(PointerSessions.Refusal) in
                try model.apply(pointer: key, phase: phase, type: type, at: point, to: &b, trace: false, all: false, now: now)
            }
            switch (got, want) {
            case (.success(let x), .success(let y)):
                XCTAssertEqual(x.result.target, y.result.target, "step \(step)")
                XCTAssertEqual(x.boundary, y.boundary, "step \(step)")
            case (.failure(let x), .failure(let y)): XCTAssertEqual(x, y, "step \(step)")
            default: XCTFail("step \(step): \(got) against \(want)")
            }
            XCTAssertEqual(Table(fast), Table(model), "step \(step)")
            if Table(fast) != Table(model) { break }
            scene = a
        }
        XCTAssertGreaterThan(expiries, 100, "the sequence exercises expiry")
    }

    /// Expiry visits no pointer while none can have expired, however many
    /// are remembered; one visit of each when one has.
    func testExpiryWorkDoesNotGrowWithThePointers() throws {
        var scene = LiveScene(RouterTests.overlappingSquares())
        var sessions = PointerSessions(maxPointers: 2_000, idleTimeout: 30)
        for i in 0..<1_000 {
            _ = try sessions.apply(
                pointer: PointerKey("p\(i)"), phase: .hover, at: Point(Double(i % 400), 100), to: &scene, trace: false, all: false,
                now: Double(i) / 100)
        }
        XCTAssertEqual(sessions.expiryVisits, 0)
        for i in 0..<1_000 {
            _ = try sessions.apply(
                pointer: PointerKey("p\(i)"), phase: .hover, at: Point(Double(i % 400), 200), to: &scene, trace: false, all: false,
                now: 20 + Double(i) / 100)
        }
        XCTAssertEqual(sessions.expiryVisits, 0, "no pointer idle for 30 s: nothing visited")
        _ = try sessions.apply(pointer: "p0", phase: .hover, at: Point(1, 1), to: &scene, trace: false, all: false, now: 50.005)
        XCTAssertEqual(sessions.expiryVisits, 1_000, "one scan when the earliest could have expired")
        XCTAssertEqual(sessions.pointers.count, 1_000)
        _ = try sessions.apply(pointer: "p1", phase: .hover, at: Point(1, 1), to: &scene, trace: false, all: false, now: 50.006)
        XCTAssertEqual(sessions.expiryVisits, 1_000, "the bound is exact again after a scan")
    }
}

/// SplitMix64: a small seeded generator, so that the sequence is the same on every run.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
