import Foundation
import HitRouting
import HitStore
import SceneCodec
import Synchronization
import XCTest

/// The contract every `SceneStoring` backend keeps, written once against
/// the protocol and run against each backend (`MemoryStoreContractTests`,
/// `JournalStoreContractTests`, `RedisStoreContractTests`). A backend is
/// made by `make(limits)`; what differs between backends is asked of its
/// `capabilities`, never of its type.
struct StoreContract {
    let make: (SceneStore.Limits) throws -> any SceneStoring

    static let squares = #"""
        {"layers": [
          {"id": "a", "draggable": true, "shape": {"type": "rect", "x": 0, "y": 0, "width": 100, "height": 100}},
          {"id": "b", "shape": {"type": "rect", "x": 200, "y": 0, "width": 100, "height": 100}}
        ]}
        """#

    func upload(_ json: String, id: String? = nil) throws -> SceneUpload {
        var text = json
        if let id { text = text.replacingOccurrences(of: #"{"layers""#, with: #"{"id": "\#(id)", "layers""#) }
        let bytes = Array(text.utf8)
        let scene = try bytes.withUnsafeBufferPointer { try SceneDecoder.decode($0, limits: SceneLimits()) }
        return SceneUpload(scene: scene, json: bytes, weight: bytes.count)
    }

    func patch(_ layer: String, _ json: String, ifMatch: String? = nil) throws -> LayerPatch {
        try LayerPatch(layerID: layer, json: Array(json.utf8), ifMatch: ifMatch, limits: SceneLimits())
    }

    func assertThrows<T>(
        _ body: @autoclosure () throws -> T, file: StaticString = #filePath, line: UInt = #line, _ check: (StoreError) -> Bool
    ) {
        do {
            _ = try body()
            XCTFail("no error", file: file, line: line)
        } catch let e as StoreError {
            XCTAssertTrue(check(e), "\(e)", file: file, line: line)
        } catch {
            XCTFail("\(error) is not a StoreError", file: file, line: line)
        }
    }

    /// Create, read, replace, list, delete; versions grow by one per change.
    func createReadReplaceDelete() throws {
        let store = try make(SceneStore.Limits())
        defer { store.close() }
        let created = try store.create(upload(Self.squares, id: "s"))
        XCTAssertEqual(created.id, "s")
        XCTAssertEqual(created.version, 1)
        XCTAssertEqual(try store.snapshot("s")?.version, 1)
        XCTAssertEqual(store.residentSnapshot("s")?.version, 1, "a store holds what it just wrote")
        let (replaced, wasCreated) = try store.put(upload(Self.squares), id: "s")
        XCTAssertFalse(wasCreated)
        XCTAssertEqual(replaced.version, 2)
        let (other, otherCreated) = try store.put(upload(Self.squares), id: "r")
        XCTAssertTrue(otherCreated)
        XCTAssertEqual(other.version, 1)
        XCTAssertEqual(try store.summaries().map(\.id), ["r", "s"], "ordered by id")
        XCTAssertTrue(try store.delete("s"))
        XCTAssertNil(try store.snapshot("s"))
        XCTAssertFalse(try store.delete("s"), "a second delete finds nothing")
        XCTAssertEqual(try store.summaries().map(\.id), ["r"])
    }

    /// A resident read, repeated (as hits repeat it), follows every write
    /// of this store at once: patches, replacements, a delete and a
    /// create of the same id; a reader on another thread, reading while a
    /// writer patches, sees versions only grow and never a scene without
    /// its layers, and the last version once the writer is done.
    func residentReadsFollowWrites() throws {
        let store = try make(SceneStore.Limits())
        defer { store.close() }
        _ = try store.create(upload(Self.squares, id: "s"))
        for _ in 0..<3 { XCTAssertEqual(store.residentSnapshot("s")?.version, 1) }
        _ = try store.patch("s", patch("b", #"{"action": "go"}"#))
        XCTAssertEqual(store.residentSnapshot("s")?.version, 2)
        XCTAssertEqual(store.residentSnapshot("s")?.compiled.layerCount, 2)
        _ = try store.put(upload(Self.squares), id: "s")
        XCTAssertEqual(store.residentSnapshot("s")?.version, 3)
        XCTAssertTrue(try store.delete("s"))
        XCTAssertNil(store.residentSnapshot("s"), "a deleted scene is not read")
        XCTAssertNil(try store.snapshot("s"))
        _ = try store.create(upload(Self.squares, id: "s"))
        XCTAssertEqual(store.residentSnapshot("s")?.version, 1, "the new scene, not the deleted one")

        let patches = 200
        let done = DispatchSemaphore(value: 0)
        let seen = Mutex<(versions: Int, regressions: Int, emptied: Int, last: Int)>((0, 0, 0, 0))
        let writing = Atomic<Bool>(true)
        Thread.detachNewThread {
            var last = 0
            var counts = (versions: 0, regressions: 0, emptied: 0)
            repeat {
                guard let s = store.residentSnapshot("s") else { continue }
                if s.version < last { counts.regressions += 1 }
                if s.version != last { counts.versions += 1 }
                if s.compiled.layerCount != 2 { counts.emptied += 1 }
                last = s.version
            } while writing.load(ordering: .acquiring)
            let final = store.residentSnapshot("s")?.version ?? 0
            seen.withLock { $0 = (counts.versions, counts.regressions, counts.emptied, final) }
            done.signal()
        }
        for k in 0..<patches { _ = try store.patch("s", patch("b", #"{"action": "go\#(k)"}"#)) }
        writing.store(false, ordering: .releasing)
        done.wait()
        let result = seen.withLock { $0 }
        XCTAssertEqual(result.regressions, 0, "versions only grow")
        XCTAssertEqual(result.emptied, 0, "never a scene changing in place")
        XCTAssertEqual(result.last, 1 + patches, "the reader sees the last write")
    }

    /// A create of an id that exists is a conflict; without an id the store makes distinct ones.
    func createConflictsAndGeneratesIDs() throws {
        let store = try make(SceneStore.Limits())
        defer { store.close() }
        _ = try store.create(upload(Self.squares, id: "s"))
        assertThrows(try store.create(upload(Self.squares, id: "s"))) { if case .conflict = $0 { return true } else { return false } }
        let a = try store.create(upload(Self.squares))
        let b = try store.create(upload(Self.squares))
        XCTAssertFalse(a.id.isEmpty)
        XCTAssertNotEqual(a.id, b.id)
    }

    /// A patch publishes the next version; If-Match, unknown layers and scenes are refused, changing nothing.
    func patchesAndTheirRefusals() throws {
        let store = try make(SceneStore.Limits())
        defer { store.close() }
        _ = try store.create(upload(Self.squares, id: "s"))
        let (after, layer) = try store.patch("s", patch("b", #"{"action": "go"}"#, ifMatch: #""1""#))
        XCTAssertEqual(after.version, 2)
        XCTAssertEqual(layer.action, "go")
        assertThrows(try store.patch("s", patch("b", #"{"action": "x"}"#, ifMatch: #""1""#))) {
            if case .preconditionFailed = $0 { return true } else { return false }
        }
        assertThrows(try store.patch("s", patch("nope", #"{"action": "x"}"#))) {
            if case .notFound = $0 { return true } else { return false }
        }
        assertThrows(try store.patch("none", patch("b", #"{"action": "x"}"#))) {
            if case .notFound = $0 { return true } else { return false }
        }
        XCTAssertEqual(try store.snapshot("s")?.version, 2, "refusals changed nothing")
    }

    /// A down captures, a move drags (the next version), an up releases.
    func pointerEventsCaptureAndDrag() throws {
        let store = try make(SceneStore.Limits())
        defer { store.close() }
        _ = try store.create(upload(Self.squares, id: "s"))
        func event(_ phase: PointerSessions.Phase, _ x: Double) throws -> (PointerSessions.Outcome, SceneSnapshot) {
            try store.pointerEvent("s", PointerEvent(pointer: "p", phase: phase, point: Point(x, 50), trace: false, all: false))
        }
        let (down, v1) = try event(.down, 50)
        XCTAssertTrue(down.captured)
        XCTAssertEqual(v1.version, 1)
        let (move, v2) = try event(.move, 80)
        XCTAssertTrue(move.moved)
        XCTAssertEqual(v2.version, 2, "a drag publishes the next version")
        let (up, _) = try event(.up, 80)
        XCTAssertTrue(up.captured)
        XCTAssertEqual(try store.snapshot("s")?.version, 2)
        assertThrows(try store.pointerEvent("none", PointerEvent(pointer: "p", phase: .down, point: Point(1, 1), trace: false, all: false)))
        {
            if case .notFound = $0 { return true } else { return false }
        }
    }

    /// A replacement (SPEC §5, §11.1) drops every capture, each pointer's
    /// next event saying so, and keeps what each pointer is over: its next
    /// answer, or its namespace's refresh (a stream's push), reports the
    /// whole change, `removed` included.
    func replacementKeepsPointersAndReportsTheChange() throws {
        let store = try make(SceneStore.Limits())
        defer { store.close() }
        _ = try store.create(upload(Self.squares, id: "s"))
        func event(_ key: PointerKey, _ phase: PointerSessions.Phase, _ x: Double) throws -> PointerSessions.Outcome {
            try store.pointerEvent("s", PointerEvent(pointer: key, phase: phase, point: Point(x, 50), trace: true, all: false)).0
        }
        let http = PointerKey("mouse")
        let streamed = PointerKey("mouse", namespace: 7)
        XCTAssertEqual(try event(http, .hover, 50).boundary?.enter, ["a"])
        XCTAssertEqual(try event(streamed, .hover, 50).boundary?.enter, ["a"])
        XCTAssertTrue(try event("finger", .down, 250).captured)
        // "a" is gone, "n" lies under both mice; "b" stays.
        let replacement = #"""
            {"layers": [
              {"id": "n", "shape": {"type": "rect", "x": 0, "y": 0, "width": 100, "height": 100}},
              {"id": "b", "shape": {"type": "rect", "x": 200, "y": 0, "width": 100, "height": 100}}
            ]}
            """#
        let (replaced, created) = try store.put(upload(replacement), id: "s")
        XCTAssertFalse(created)
        XCTAssertEqual(replaced.version, 2)
        let expected = Boundary(out: "a", leave: ["a"], over: "n", enter: ["n"], removed: ["a"])
        let (current, changes) = try XCTUnwrap(store.refreshPointers("s", namespace: 7))
        XCTAssertEqual(current.version, 2)
        XCTAssertEqual(changes.map(\.pointer), ["mouse"])
        XCTAssertEqual(changes.first?.boundary, expected, "the stream's pointer: pushed")
        XCTAssertNil(try event(streamed, .hover, 50).boundary, "already pushed")
        XCTAssertEqual(try event(http, .hover, 50).boundary, expected, "the HTTP pointer: in its next answer")
        let move = try event("finger", .move, 250)
        XCTAssertFalse(move.captured, "a replacement drops every capture")
        let dropped = move.result.trace.compactMap { entry -> TraceDetail.DropReason? in
            if case .captureDropped(_, "b", let why)? = entry.detail { return why } else { return nil }
        }
        XCTAssertEqual(dropped, [.sceneReplaced], "and the pointer's next event says so")
    }

    /// Past `maxScenes` a create is refused as full of scenes.
    func fullOfScenes() throws {
        var limits = SceneStore.Limits()
        limits.maxScenes = 2
        let store = try make(limits)
        defer { store.close() }
        _ = try store.create(upload(Self.squares, id: "a"))
        _ = try store.create(upload(Self.squares, id: "b"))
        assertThrows(try store.create(upload(Self.squares, id: "c"))) {
            if case .full(.scenes, _) = $0 { return true } else { return false }
        }
        XCTAssertEqual(try store.summaries().count, 2)
    }

    /// Health, statistics and capabilities agree with what the store holds.
    func reportsWhatItHolds() throws {
        let store = try make(SceneStore.Limits())
        defer { store.close() }
        XCTAssertEqual(store.health(), .ready)
        _ = try store.create(upload(Self.squares, id: "s"))
        let stats = store.stats()
        XCTAssertEqual(stats.scenes, 1)
        XCTAssertEqual(stats.layers, 2)
        XCTAssertGreaterThan(stats.bytes, 0)
        let c = store.capabilities
        XCTAssertFalse(c.backend.isEmpty)
        XCTAssertEqual(c.honoursMinVersion, c.shared, "only a shared store can be behind")
        XCTAssertEqual(store.cacheStats != nil, c.shared, "a shared store reports its cache")
        XCTAssertEqual(try store.snapshot("s", minVersion: 1)?.version, 1)
    }
}
