import Foundation
import HTTPServer
import TestSupport
import XCTest

@testable import HitAPI
@testable import HitStore

/// Pointer streams in Redis mode (SPEC §10, §11.2) over real sockets and a
/// real `redis-server`: replicas are Applications with stores of their own
/// over one Redis; a stream opens on one of them, changes come through it
/// or through another.
final class RedisStreamTests: XCTestCase {
    var redis: RedisServerProcess!
    var stores: [RedisSceneStore] = []
    var servers: [HTTPServer] = []

    /// A card holding an icon, and a draggable badge in front of the card.
    static let scene = """
        {"layers": [
          {"id": "card", "shape": {"type": "rect", "x": 0, "y": 0, "width": 100, "height": 100},
           "children": [{"id": "icon", "shape": {"type": "rect", "x": 10, "y": 10, "width": 20, "height": 20}}]},
          {"id": "badge", "draggable": true, "shape": {"type": "rect", "x": 50, "y": 50, "width": 40, "height": 40}}
        ]}
        """

    override func setUpWithError() throws {
        guard let r = try RedisServerProcess.start() else { throw XCTSkip(RedisServerProcess.skipMessage) }
        redis = r
    }

    override func tearDown() {
        for s in servers {
            s.shutdown()
            s.waitUntilStopped()
        }
        servers = []
        for s in stores { s.close() }
        stores = []
        redis?.shutdown()
    }

    /// A replica's Application over its own store, subscribed before it returns.
    func replica() throws -> Application {
        let (config, store) = try replicaStore()
        return Application(configuration: config, store: store)
    }

    /// A replica serving on an ephemeral port of 127.0.0.1.
    func liveReplica() throws -> LiveService {
        let (base, store) = try replicaStore()
        var config = Configuration.live(eventLoops: 2)
        config.storeURL = base.storeURL
        let (server, app) = Application.makeServer(config, store: store)
        servers.append(server)
        return LiveService(port: try server.start(), app: app)
    }

    private func replicaStore() throws -> (Configuration, RedisSceneStore) {
        var config = Configuration()
        config.storeURL = redis.url
        let store = try XCTUnwrap(try StoreFactory.make(config.storeConfiguration) as? RedisSceneStore)
        stores.append(store)
        let deadline = Date().addingTimeInterval(300)  // bounds a hang; it does not measure speed
        while store.health() != .ready {
            guard Date() < deadline else { throw NotSubscribed() }
            usleep(2_000)
        }
        return (config, store)
    }

    func open(_ service: LiveService, _ scene: String = "s") throws -> TestClient {
        let c = try TestClient(port: service.port)
        let r = try c.openWebSocket("/scenes/\(scene)/stream", protocols: ["hitroute.v1"])
        XCTAssertEqual(r.status, 101, r.text)
        return c
    }

    /// Sends `message` and returns its answer, as an object.
    func ask(_ c: TestClient, _ message: String) throws -> [String: Any] {
        try c.sendText(message)
        return try object(XCTUnwrap(try c.readFrame()).text)
    }

    func object(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }

    /// The next two frames: the scene push of `version`, then the boundary push of `boundary` at that version.
    func expectPushes(_ c: TestClient, version: Int, layer: String, _ boundary: String, line: UInt = #line) throws {
        XCTAssertEqual(try c.readFrame()?.text, #"{"type":"scene","version":\#(version)}"#, line: line)
        XCTAssertEqual(
            try c.readFrame()?.text,
            #"{"type":"boundary","pointer":"mouse","version":\#(version),"layer":"\#(layer)","boundary":\#(boundary)}"#, line: line)
    }

    static let hover = #"{"x":60,"y":60,"pointer":"mouse","phase":"hover","trace":false}"#

    /// A patch, a drag and a replacement through replica B reach a stream
    /// open on replica A: each version, then the boundary of A's still pointer.
    func testChangesOnAnotherReplicaArePushedWithTheirBoundaries() throws {
        let a = try liveReplica()
        let b = try replica()
        XCTAssertEqual(b.call("PUT", "/scenes/s", Self.scene).status, 201)
        let c = try open(a)
        XCTAssertEqual(try ask(c, Self.hover)["layer"] as? String, "badge")

        XCTAssertEqual(b.call("PATCH", "/scenes/s/layers/badge", #"{"hidden":true}"#).status, 200)
        try expectPushes(
            c, version: 2, layer: "card", #"{"out":"badge","leave":["badge"],"over":"card","enter":["card"],"removed":[]}"#)
        XCTAssertEqual(b.call("PATCH", "/scenes/s/layers/badge", #"{"hidden":false}"#).status, 200)
        try expectPushes(
            c, version: 3, layer: "badge", #"{"out":"card","leave":["card"],"over":"badge","enter":["badge"],"removed":[]}"#)

        // B's pointer drags the badge from under A's still mouse.
        XCTAssertEqual(b.call("POST", "/scenes/s/hit", #"{"x":60,"y":60,"pointer":"hand","phase":"down"}"#).status, 200)
        XCTAssertEqual(
            b.call("POST", "/scenes/s/hit", #"{"x":260,"y":60,"pointer":"hand","phase":"move"}"#).object["version"] as? Int, 4)
        try expectPushes(
            c, version: 4, layer: "card", #"{"out":"badge","leave":["badge"],"over":"card","enter":["card"],"removed":[]}"#)

        // A replacement without the card.
        XCTAssertEqual(
            b.call("PUT", "/scenes/s", #"{"layers":[{"id":"plate","shape":{"type":"rect","x":0,"y":0,"width":100,"height":100}}]}"#)
                .status, 200)
        try expectPushes(
            c, version: 5, layer: "plate", #"{"out":"card","leave":["card"],"over":"plate","enter":["plate"],"removed":["card"]}"#)
        XCTAssertNil(try ask(c, Self.hover)["boundary"], "already pushed")
    }

    /// A delete closes every stream of the scene with 4404 after saying
    /// so: on the replica that deleted it and on the others.
    func testADeleteClosesStreamsOnEveryReplicaWith4404() throws {
        let a = try liveReplica()
        let b = try liveReplica()
        XCTAssertEqual(try a.send("PUT", "/scenes/s", Self.scene).status, 201)
        let onA = try open(a)
        let onB = try open(b)
        for c in [onA, onB] { XCTAssertEqual(try ask(c, Self.hover)["layer"] as? String, "badge") }  // both open
        XCTAssertEqual(try b.send("DELETE", "/scenes/s").status, 204)
        for (c, which) in [(onB, "the deleting replica"), (onA, "another replica")] {
            XCTAssertEqual(try c.readFrame()?.text, #"{"type":"scene","deleted":true}"#, which)
            let close = try c.readFrame()
            XCTAssertEqual(close?.opcode, 8, which)
            XCTAssertEqual(close?.closeCode, 4404, which)
        }
    }

    /// A replacement through the replica holding the pointers keeps them:
    /// the stream's pointer gets its boundary pushed, an HTTP pointer's
    /// next answer says what it left, and what of it was removed.
    func testAReplacementOnThisReplicaReportsWhatThePointersLeft() throws {
        let a = try liveReplica()
        XCTAssertEqual(try a.send("PUT", "/scenes/s", Self.scene).status, 201)
        let c = try open(a)
        XCTAssertEqual(try ask(c, Self.hover)["layer"] as? String, "badge")
        let hover = #"{"x":60,"y":60,"pointer":"h","phase":"hover","trace":false}"#
        XCTAssertEqual(object(try a.send("POST", "/scenes/s/hit", hover).text)["layer"] as? String, "badge")
        XCTAssertEqual(try a.send("PUT", "/scenes/s", #"{"layers":[\#(Self.plate)]}"#).status, 200)
        let expected = #"{"out":"badge","leave":["badge"],"over":"plate","enter":["plate"],"removed":["badge"]}"#
        try expectPushes(c, version: 2, layer: "plate", expected)
        let answer = object(try a.send("POST", "/scenes/s/hit", hover).text)
        let boundary = try JSONSerialization.data(withJSONObject: try XCTUnwrap(answer["boundary"]), options: [.sortedKeys])
        let wanted = try JSONSerialization.data(withJSONObject: object(expected), options: [.sortedKeys])
        XCTAssertEqual(String(decoding: boundary, as: UTF8.self), String(decoding: wanted, as: UTF8.self))
    }

    static let plate = #"{"id":"plate","shape":{"type":"rect","x":0,"y":0,"width":100,"height":100}}"#

    /// Opening a stream on a scene this replica does not hold fetches it:
    /// on a worker, as any read that waits on Redis; the 101 comes from
    /// there and the stream works.
    func testOpeningAStreamOnASceneNotHeldHereRunsOnAWorker() throws {
        let a = try liveReplica()
        let b = try replica()
        XCTAssertEqual(b.call("PUT", "/scenes/s", Self.scene).status, 201)
        XCTAssertFalse(stores[0].isCached("s"))
        let handshake = [
            ("Host", "127.0.0.1"), ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Key", TestClient.exampleKey),
            ("Sec-WebSocket-Version", "13"), ("Sec-WebSocket-Protocol", "hitroute.v1"),
        ]
        XCTAssertNil(a.app.callOnLoop("GET", "/scenes/s/stream", headers: handshake), "a fetch is not made on the loop")
        XCTAssertFalse(stores[0].isCached("s"), "nothing of it ran")
        let c = try open(a)
        XCTAssertTrue(stores[0].isCached("s"))
        XCTAssertEqual(try ask(c, Self.hover)["layer"] as? String, "badge")
        XCTAssertEqual(try a.send("PATCH", "/scenes/s/layers/badge", #"{"action":"go"}"#).status, 200)
        XCTAssertEqual(try c.readFrame()?.text, #"{"type":"scene","version":2}"#)
        // Held now: opened on the loop.
        XCTAssertEqual(a.app.callOnLoop("GET", "/scenes/s/stream", headers: handshake)?.status, 101)
    }
}

/// A store that never subscribed to Redis: a failure, not a skip.
private struct NotSubscribed: Error {}
