import Dispatch
import Foundation
import HTTPServer
import HitRouting
import SceneCodec
import Synchronization
import TestSupport
import XCTest

@testable import HitAPI
@testable import HitStore

/// SPEC §11.2: a deleted scene's push and its 4404 close come after the
/// answer to a message a worker was already computing, never before it.
final class StreamDeleteOrderTests: XCTestCase {
    /// A memory store whose pointer events may block (so `RunWhere` puts
    /// them on a worker), and whose first one, once applied, waits until
    /// released before it returns.
    final class HeldPointerEvent: SceneStoring {
        let inner = SceneStore()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let first = Atomic<Bool>(true)

        var capabilities: StoreCapabilities {
            var c = inner.capabilities
            c.writesMayBlock = true
            return c
        }
        var location: String { inner.location }
        func snapshot(_ id: String) -> SceneSnapshot? { inner.snapshot(id) }
        func residentSnapshot(_ id: String) -> SceneSnapshot? { inner.residentSnapshot(id) }
        func summaries() -> [SceneSummary] { inner.summaries() }
        func create(_ upload: SceneUpload) throws(StoreError) -> SceneSnapshot { try inner.create(upload) }
        func put(_ upload: SceneUpload, id: String) throws(StoreError) -> (SceneSnapshot, created: Bool) { try inner.put(upload, id: id) }
        func delete(_ id: String) throws(StoreError) -> Bool { try inner.delete(id) }
        func patch(_ id: String, _ patch: LayerPatch) throws(StoreError) -> (SceneSnapshot, Layer) { try inner.patch(id, patch) }
        func pointerEvent(_ id: String, _ event: PointerEvent) throws(StoreError) -> (PointerSessions.Outcome, SceneSnapshot) {
            let answered = try inner.pointerEvent(id, event)
            if first.exchange(false, ordering: .acquiringAndReleasing) {
                entered.signal()
                release.wait()
            }
            return answered
        }
        func refreshPointers(_ id: String, namespace: UInt64) -> (SceneSnapshot, [PointerSessions.Change])? {
            inner.refreshPointers(id, namespace: namespace)
        }
        func forgetPointers(_ id: String, namespace: UInt64) { inner.forgetPointers(id, namespace: namespace) }
        func health() -> StoreHealth { inner.health() }
        func stats() -> StoreStats { inner.stats() }
        var compileTimes: CompileTimes { inner.compileTimes }
        func start() {}
        func close() {}
    }

    func testTheDeleteCloseWaitsForTheAnswerOnAWorker() throws {
        let store = HeldPointerEvent()
        var config = Configuration()
        config.server.host = "127.0.0.1"
        config.server.port = 0
        config.server.eventLoops = 1
        config.server.shutdownGracePeriod = .seconds(2)
        config.server.logRequests = false
        let (server, app) = Application.makeServer(config, store: store)
        let service = LiveService(port: try server.start(), app: app)
        defer {
            store.release.signal()
            server.shutdown()
            server.waitUntilStopped()
        }
        XCTAssertEqual(try service.send("PUT", "/scenes/ring-demo", ringScene).status, 201)
        let c = try TestClient(port: service.port)
        XCTAssertEqual(try c.openWebSocket("/scenes/ring-demo/stream", protocols: ["hitroute.v1"]).status, 101)
        try c.sendText(#"{"x":210,"y":120,"pointer":"mouse","phase":"hover","trace":false,"seq":1}"#)
        XCTAssertEqual(store.entered.wait(timeout: .now() + 5), .success, "the hover is on a worker")
        // Deleted while the answer is computed: the stream hears of it on its loop at once.
        XCTAssertEqual(try store.inner.delete("ring-demo"), true)
        app.streams.sceneDeleted("ring-demo")
        Thread.sleep(forTimeInterval: 0.3)  // the loop has run the delete's job by now
        store.release.signal()
        let answer = try c.readFrame()?.text
        XCTAssertEqual(answer?.hasPrefix(#"{"scene":"ring-demo""#), true, answer ?? "no frame")
        XCTAssertEqual(answer?.hasSuffix(#","seq":1}"#), true, answer ?? "no frame")
        XCTAssertEqual(try c.readFrame()?.text, #"{"type":"scene","deleted":true}"#)
        let close = try c.readFrame()
        XCTAssertEqual(close?.opcode, 8)
        XCTAssertEqual(close?.closeCode, 4404)
    }
}
