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
    final class HeldPointerEvent: ForwardingStore, @unchecked Sendable {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let first = Atomic<Bool>(true)

        override var capabilities: StoreCapabilities {
            var c = inner.capabilities
            c.writesMayBlock = true
            return c
        }
        override func pointerEvent(_ id: String, _ event: PointerEvent) throws(StoreError) -> (PointerSessions.Outcome, SceneSnapshot) {
            let answered = try inner.pointerEvent(id, event)
            if first.exchange(false, ordering: .acquiringAndReleasing) {
                entered.signal()
                release.wait()
            }
            return answered
        }
    }

    func testTheDeleteCloseWaitsForTheAnswerOnAWorker() throws {
        let store = HeldPointerEvent()
        let (server, app) = Application.makeServer(.live(eventLoops: 1), store: store)
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
        // 300 s bounds a hang; it does not measure speed.
        XCTAssertEqual(store.entered.wait(timeout: .now() + 300), .success, "the hover is on a worker")
        // Deleted while the answer is computed: the stream hears of it on its loop at once.
        XCTAssertEqual(try store.inner.delete("ring-demo"), true)
        app.streams.sceneDeleted("ring-demo")
        // Usually the loop has run the delete's job after this pause; on a slow
        // machine it may not have, and the order below is the same (no wall-clock bound).
        Thread.sleep(forTimeInterval: 0.3)
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
