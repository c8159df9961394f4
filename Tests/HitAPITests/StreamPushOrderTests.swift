import Foundation
import HTTPServer
import HitRouting
import SceneCodec
import Synchronization
import TestSupport
import XCTest

@testable import HitAPI
@testable import HitStore

/// SPEC §11.2: a stream's boundary pushes follow the scene push of the
/// same version, even when another change lands while the push is made.
final class StreamPushOrderTests: XCTestCase {
    /// A memory store whose first refresh of a namespace's pointers is
    /// preceded by one more patch: a change landing between the stream's
    /// read of the version and its routing of its pointers.
    final class ChangeDuringRefresh: ForwardingStore, @unchecked Sendable {
        let patchOnRefresh = Mutex<LayerPatch?>(nil)

        override func refreshPointers(_ id: String, namespace: UInt64) -> (SceneSnapshot, [PointerSessions.Change])? {
            if let patch = patchOnRefresh.withLock({ p in
                defer { p = nil }
                return p
            }) {
                _ = try? inner.patch(id, patch)
            }
            return inner.refreshPointers(id, namespace: namespace)
        }
    }

    func testABoundaryPushCarriesTheVersionOfTheScenePushBeforeIt() throws {
        let store = ChangeDuringRefresh()
        let (server, app) = Application.makeServer(.live(eventLoops: 1), store: store)
        let service = LiveService(port: try server.start(), app: app)
        defer {
            server.shutdown()
            server.waitUntilStopped()
        }
        XCTAssertEqual(try service.send("PUT", "/scenes/ring-demo", ringScene).status, 201)
        let c = try TestClient(port: service.port)
        XCTAssertEqual(try c.openWebSocket("/scenes/ring-demo/stream", protocols: ["hitroute.v1"]).status, 101)
        try c.sendText(#"{"x":210,"y":120,"pointer":"mouse","phase":"hover","trace":false}"#)
        XCTAssertNotNil(try c.readFrame())
        // Version 2 changes nothing under the mouse; version 3, patched while the push is made, hides the ring.
        store.patchOnRefresh.withLock {
            $0 = try? LayerPatch(layerID: "ring", json: Array(#"{"hidden":true}"#.utf8), ifMatch: nil, limits: SceneLimits())
        }
        XCTAssertEqual(try service.send("PATCH", "/scenes/ring-demo/layers/button", #"{"action":"x"}"#).status, 200)
        XCTAssertEqual(try c.readFrame()?.text, #"{"type":"scene","version":3}"#)
        XCTAssertEqual(
            try c.readFrame()?.text,
            #"{"type":"boundary","pointer":"mouse","version":3,"layer":"button","boundary":{"out":"ring","leave":["ring"],"over":"button","enter":["button"],"removed":[]}}"#
        )
    }
}
