import Dispatch
import Foundation
import HTTPServer
import RESP
import RESPClient
import Synchronization
import TestSupport
import XCTest

@testable import HitAPI
@testable import HitStore

/// SPEC §10 against a real `redis-server`: several in-process replicas
/// (Applications, each with its own RedisSceneStore and cache) over one
/// Redis, as several machines would be.
final class RedisReplicaTests: XCTestCase {
    var redis: RedisServerProcess!
    var stores: [RedisSceneStore] = []

    override func setUpWithError() throws {
        guard let r = try RedisServerProcess.start(arguments: ["--appendonly", "yes", "--appendfsync", "always"]) else {
            throw XCTSkip(RedisServerProcess.skipMessage)
        }
        redis = r
    }

    override func tearDown() {
        for s in stores { s.close() }
        stores = []
        redis?.shutdown()
    }

    /// A replica: an Application over its own store, subscribed before it returns.
    func replica(cacheBytes: Int = 1 << 30, _ edit: (inout Configuration) -> Void = { _ in }) throws -> Application {
        var config = Configuration()
        config.storeURL = redis.url
        config.cacheBytes = cacheBytes
        edit(&config)
        let store = try XCTUnwrap(try StoreFactory.make(config.storeConfiguration) as? RedisSceneStore)
        stores.append(store)
        try waitUntil("the replica is subscribed") { store.health() == .ready }
        return Application(configuration: config, store: store)
    }

    /// Polls `condition` with a deadline generous enough for a loaded
    /// machine (it bounds a hang, it does not measure speed).
    func waitUntil(_ what: String, seconds: Double = 60, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return }
            usleep(1_000)
        }
        XCTFail("timed out waiting until \(what)")
        throw XCTSkip("gave up")
    }

    func version(_ app: Application, _ id: String) -> Int? {
        (try? app.store.snapshot(id))??.version
    }

    func testThreeReplicasAnswerOneSceneAlike() throws {
        let apps = try (0..<3).map { _ in try replica() }
        XCTAssertEqual(apps[0].call("PUT", "/scenes/ring-demo", ringScene).status, 201)
        for app in apps {
            for (x, y, layer) in [(120, 120, "button"), (210, 120, "ring"), (10, 10, "button")] {
                let r = app.call("GET", "/scenes/ring-demo/hit?x=\(x)&y=\(y)&trace=0")
                XCTAssertEqual(r.status, 200)
                XCTAssertEqual(r.object["layer"] as? String, layer)
                XCTAssertEqual(r.object["version"] as? Int, 1)
            }
            XCTAssertEqual(app.call("GET", "/scenes/ring-demo").object["version"] as? Int, 1)
        }
        let list = apps[2].call("GET", "/scenes").object["scenes"] as? [[String: Any]]
        XCTAssertEqual(list?.map { $0["id"] as? String }, ["ring-demo"])
        XCTAssertEqual(apps[1].call("POST", "/scenes", ringScene).status, 409)
        let generated = apps[1].call("POST", "/scenes", #"{"layers":[]}"#)
        XCTAssertEqual(generated.status, 201)
        let id = try XCTUnwrap(generated.object["id"] as? String)
        XCTAssertEqual(apps[2].call("GET", "/scenes/\(id)").status, 200)
        XCTAssertEqual(apps[0].call("DELETE", "/scenes/\(id)").status, 204)
        try waitUntil("the others see the delete") { apps[1].call("GET", "/scenes/\(id)").status == 404 }
    }

    /// A patch on one replica reaches the others by announcement; the delay
    /// until another replica answers the new version is measured.
    func testPatchOnOneIsSeenByTheOthers() throws {
        let apps = try (0..<3).map { _ in try replica() }
        XCTAssertEqual(apps[0].call("PUT", "/scenes/ring-demo", ringScene).status, 201)
        for app in apps { XCTAssertEqual(version(app, "ring-demo"), 1) }  // cached everywhere
        var delays: [Double] = []
        for i in 0..<100 {
            let writer = apps[i % 3]
            let reader = apps[(i + 1) % 3]
            let start = DispatchTime.now().uptimeNanoseconds
            let r = writer.call("PATCH", "/scenes/ring-demo/layers/ring", #"{"action":"a\#(i)"}"#)
            XCTAssertEqual(r.status, 200)
            let v = i + 2
            try waitUntil("replica \((i + 1) % 3) sees version \(v)") { version(reader, "ring-demo") == v }
            delays.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            let hit = reader.call("GET", "/scenes/ring-demo/hit?x=210&y=120")
            XCTAssertEqual(hit.object["action"] as? String, "a\(i)")
        }
        delays.sort()
        print("patch → other replica sees it, ms (write included): p50 \(delays[49]) p99 \(delays[98]) max \(delays[99])")
    }

    /// Two replicas × hundreds of concurrent patches on one scene: each
    /// patch sets its own layer, so a lost update would undo another's.
    func testConcurrentPatchesFromTwoReplicasLoseNothing() throws {
        let apps = try (0..<2).map { _ in try replica() }
        let n = 300
        let layers = (0..<n).map { #"{"id":"l\#($0)","shape":{"type":"rect","x":\#($0),"y":0,"width":1,"height":1}}"# }
        XCTAssertEqual(apps[0].call("PUT", "/scenes/board", #"{"layers":[\#(layers.joined(separator: ","))]}"#).status, 201)
        let statuses = Mutex<[Int: Int]>([:])
        DispatchQueue.concurrentPerform(iterations: n) { i in
            let r = apps[i % 2].call("PATCH", "/scenes/board/layers/l\(i)", #"{"action":"by-\#(i % 2)-\#(i)"}"#)
            statuses.withLock { $0[r.status, default: 0] += 1 }
        }
        XCTAssertEqual(statuses.withLock { $0 }, [200: n])
        for app in apps {
            let doc = app.call("GET", "/scenes/board", headers: [("X-Min-Version", "\(n + 1)")])
            XCTAssertEqual(doc.object["version"] as? Int, n + 1, "every patch counted once")
            let actions = (doc.object["layers"] as? [[String: Any]] ?? []).map { $0["action"] as? String }
            XCTAssertEqual(actions, (0..<n).map { "by-\($0 % 2)-\($0)" }, "no patch lost")
        }
        let inRedis = try stores[0].client.send("GET", "hitroute:{board}:version").int
        XCTAssertEqual(inRedis, n + 1)
    }

    /// A replica that missed announcements answers its old copy, unless the
    /// client asks for at least a version (`X-Min-Version`).
    func testMinVersionMakesAnOlderCopyFetch() throws {
        let a = try replica()
        let b = try replica()
        XCTAssertEqual(a.call("PUT", "/scenes/ring-demo", ringScene).status, 201)
        XCTAssertEqual(version(b, "ring-demo"), 1)
        stores[1].close()  // b hears no more announcements
        try waitUntil("b's subscriber has stopped") { stores[1].health() != .ready }
        XCTAssertEqual(a.call("PATCH", "/scenes/ring-demo/layers/ring", #"{"action":"new"}"#).status, 200)
        let stale = b.call("GET", "/scenes/ring-demo/hit?x=210&y=120")
        XCTAssertEqual(stale.object["version"] as? Int, 1)
        XCTAssertEqual(stale.object["action"] as? String, "ring.select")
        // On an event loop the refresh is handed to a worker: it takes the
        // scene's writer lock, which a patch holds across round trips.
        let onLoop = b.onLoop("GET", "/scenes/ring-demo/hit?x=210&y=120", headers: [("X-Min-Version", "2")])
        XCTAssertEqual(onLoop, .worker)
        let fresh = b.call("GET", "/scenes/ring-demo/hit?x=210&y=120", headers: [("X-Min-Version", "2")])
        XCTAssertEqual(fresh.object["version"] as? Int, 2)
        XCTAssertEqual(fresh.object["action"] as? String, "new")
        XCTAssertEqual(b.call("GET", "/scenes/ring-demo/hit?x=1&y=1", headers: [("X-Min-Version", "3")]).status, 412)
        XCTAssertEqual(b.call("GET", "/scenes/ring-demo/hit?x=1&y=1", headers: [("X-Min-Version", "two")]).status, 400)
        XCTAssertEqual(b.call("GET", "/scenes/nope/hit?x=1&y=1", headers: [("X-Min-Version", "1")]).status, 404)
    }

    /// Redis stopped under load: cached hits never fail; writes and misses
    /// are 503 store-unavailable, /readyz 503; after the restart writes
    /// recover and the cache is revalidated.
    func testRedisStoppedAndRestartedUnderLoad() throws {
        let app = try replica()
        XCTAssertEqual(app.call("PUT", "/scenes/ring-demo", ringScene).status, 201)
        XCTAssertEqual(app.call("PUT", "/scenes/other", ringScene.replacingOccurrences(of: "ring-demo", with: "other")).status, 201)
        XCTAssertEqual(app.call("GET", "/readyz").status, 200)
        let stop = Atomic<Bool>(false)
        let hitFailures = Atomic<Int>(0)
        let hits = Atomic<Int>(0)
        let group = DispatchGroup()
        for _ in 0..<2 {
            DispatchQueue.global().async(group: group) {
                while !stop.load(ordering: .relaxed) {
                    let r = app.call("GET", "/scenes/ring-demo/hit?x=210&y=120&trace=0")
                    if r.status != 200 || r.object["layer"] as? String != "ring" { hitFailures.add(1, ordering: .relaxed) }
                    hits.add(1, ordering: .relaxed)
                }
            }
        }
        redis.stop()
        try waitUntil("/readyz says the store is away") { app.call("GET", "/readyz").status == 503 }
        let write = app.call("PATCH", "/scenes/ring-demo/layers/ring", #"{"action":"x"}"#)
        XCTAssertEqual(write.status, 503)
        XCTAssertEqual(write.object["type"] as? String, "/problems/store-unavailable")
        XCTAssertEqual(app.call("GET", "/readyz").object["type"] as? String, "/problems/store-unavailable")
        XCTAssertEqual(app.call("GET", "/scenes/never-cached/hit?x=1&y=1").status, 503)
        let hitsWhileDown = hits.load(ordering: .relaxed)
        try waitUntil("hits go on while Redis is down") { hits.load(ordering: .relaxed) > hitsWhileDown + 100 }
        try redis.launch()
        try waitUntil("a write succeeds again") {
            app.call("PATCH", "/scenes/ring-demo/layers/ring", #"{"action":"after"}"#).status == 200
        }
        try waitUntil("/readyz is 200 again") { app.call("GET", "/readyz").status == 200 }
        stop.store(true, ordering: .relaxed)
        group.wait()
        XCTAssertEqual(hitFailures.load(ordering: .relaxed), 0, "a cached hit failed while Redis was away")
        XCTAssertEqual(app.call("GET", "/scenes/ring-demo").object["version"] as? Int, 2)
        print("hits answered during the outage test: \(hits.load(ordering: .relaxed))")
    }

    /// The scenes a replica wrote are answered by the others once it is gone.
    func testAReplicaGoneLeavesItsScenesToTheOthers() throws {
        let a = try replica()
        let b = try replica()
        for k in 0..<5 {
            XCTAssertEqual(
                a.call("PUT", "/scenes/s\(k)", #"{"layers":[{"id":"x","shape":{"type":"circle","cx":0,"cy":0,"r":5}}]}"#).status, 201)
        }
        stores[0].close()
        for k in 0..<5 { XCTAssertEqual(b.call("GET", "/scenes/s\(k)/hit?x=1&y=1").object["layer"] as? String, "x") }
    }

    /// The cache keeps to --cache-bytes, least recently used out, and
    /// loads an evicted scene again on demand.
    func testCacheIsBoundedLeastRecentlyUsedOut() throws {
        let doc = #"{"layers":[{"id":"x","shape":{"type":"circle","cx":0,"cy":0,"r":5}}]}"#
        let app = try replica(cacheBytes: 250)  // room for two or three of these
        for k in 0..<6 { XCTAssertEqual(app.call("PUT", "/scenes/s\(k)", doc).status, 201) }
        let store = stores[0]
        XCTAssertLessThanOrEqual(store.cacheUsage.bytes, 250)
        XCTAssertFalse(store.isCached("s0"))
        XCTAssertTrue(store.isCached("s5"))
        XCTAssertEqual(app.call("GET", "/scenes/s0/hit?x=1&y=1").object["layer"] as? String, "x")  // loaded again
        XCTAssertTrue(store.isCached("s0"))
        XCTAssertLessThanOrEqual(store.cacheUsage.bytes, 250)
    }

    /// Captures stay in the replica that took the down; a drag is a change
    /// written through Redis, seen by the others.
    func testCapturesStayInTheirReplicaAndDragsAreChanges() throws {
        let a = try replica()
        let b = try replica()
        XCTAssertEqual(a.call("PUT", "/scenes/squares", squaresScene).status, 201)
        XCTAssertEqual(version(b, "squares"), 1)
        let down = a.call("POST", "/scenes/squares/hit", #"{"x":300,"y":300,"pointer":"p","phase":"down"}"#)
        XCTAssertEqual(down.object["layer"] as? String, "square3")
        XCTAssertEqual(down.object["captured"] as? Bool, true)
        // On b the pointer holds nothing: a move there is an ordinary hit.
        let elsewhere = b.call("POST", "/scenes/squares/hit", #"{"x":100,"y":100,"pointer":"p","phase":"move"}"#)
        XCTAssertEqual(elsewhere.object["captured"] as? Bool, false)
        XCTAssertEqual(elsewhere.object["layer"] as? String, "square1")
        let move = a.call("POST", "/scenes/squares/hit", #"{"x":310,"y":300,"pointer":"p","phase":"move"}"#)
        XCTAssertEqual(move.object["captured"] as? Bool, true)
        XCTAssertEqual(move.object["version"] as? Int, 2)
        try waitUntil("b sees the drag") { version(b, "squares") == 2 }
        let moved = b.call("GET", "/scenes/squares").object["layers"] as? [[String: Any]]
        let t = (moved?[2]["transform"] as? [String: Any])?["translate"] as? [Double]
        XCTAssertEqual(t, [10, 0])
    }

    /// A pointer event on one scene, traced.
    func pointer(_ app: Application, _ p: String, _ phase: String, _ x: Int, _ y: Int) -> (status: Int, object: [String: Any]) {
        let r = app.call("POST", "/scenes/squares/hit", #"{"x":\#(x),"y":\#(y),"pointer":"\#(p)","phase":"\#(phase)","trace":true}"#)
        return (r.status, r.object)
    }

    func pointerField(_ p: String) throws -> RESPValue {
        try stores[0].client.send("HGET", "hitroute:{squares}:pointers", p)
    }

    /// SPEC §10: a capture held by a replica that is gone is dropped, and
    /// the pointer's next event elsewhere says so once, as after a PUT.
    func testACaptureOfAGoneReplicaIsReportedDroppedOnce() throws {
        let a = try replica()
        let b = try replica()
        XCTAssertNotEqual(stores[0].replicaID, stores[1].replicaID)
        XCTAssertEqual(a.call("PUT", "/scenes/squares", squaresScene).status, 201)
        XCTAssertEqual(version(b, "squares"), 1)
        let down = pointer(a, "p", "down", 300, 300)
        XCTAssertEqual(down.object["layer"] as? String, "square3")
        XCTAssertEqual(down.object["captured"] as? Bool, true)
        stores[0].flushCaptureRecords()
        XCTAssertEqual(try pointerField("p").string, "\(stores[0].replicaID) square3")
        let ttl = try XCTUnwrap(try stores[1].client.send("PTTL", "hitroute:{squares}:pointers").int)
        XCTAssertGreaterThan(ttl, 0)
        XCTAssertLessThanOrEqual(ttl, Int(Configuration().store.captureTimeout * 1000))
        stores[0].close()  // a is gone

        let moved = pointer(b, "p", "move", 100, 100)
        XCTAssertEqual(moved.status, 200)
        XCTAssertEqual(moved.object["layer"] as? String, "square1")
        XCTAssertEqual(moved.object["captured"] as? Bool, false)
        let note = (moved.object["trace"] as? [[String: Any]])?.first
        XCTAssertEqual(note?["layer"] as? String, "square3")
        XCTAssertEqual(note?["decision"] as? String, "skip")
        XCTAssertEqual(note?["reason"] as? String, "captured")
        XCTAssertEqual(
            note?["detail"] as? String,
            "capture of pointer \"p\" by layer \"square3\" was dropped: it was held by another replica, which is gone (or no longer receives this scene)"
        )
        stores[1].flushCaptureRecords()
        XCTAssertEqual(try pointerField("p"), .bulk(nil), "the field is deleted once reported")

        let again = pointer(b, "p", "move", 100, 100)
        XCTAssertEqual(again.object["layer"] as? String, "square1")
        let entries = again.object["trace"] as? [[String: Any]] ?? []
        XCTAssertFalse(entries.isEmpty)
        XCTAssertFalse(entries.contains { $0["decision"] as? String == "skip" && $0["reason"] as? String == "captured" }, "reported once")
        // A pointer no replica captured: an ordinary hit, no note.
        let never = pointer(b, "q", "up", 100, 100)
        XCTAssertEqual(never.object["layer"] as? String, "square1")
        XCTAssertFalse((never.object["trace"] as? [[String: Any]] ?? []).contains { $0["reason"] as? String == "captured" })
    }

    /// Releases delete the field: up, cancel, a down that hits nothing, and
    /// the scene's delete; a replica's own stale field is no note.
    func testReleasedCapturesLeaveNoFieldBehind() throws {
        let a = try replica()
        XCTAssertEqual(a.call("PUT", "/scenes/squares", squaresScene).status, 201)
        let key = "hitroute:{squares}:pointers"
        for (release, x, y) in [("up", 300, 300), ("cancel", 300, 300), ("down", 0, 0)] {
            XCTAssertEqual(pointer(a, "p", "down", 300, 300).object["captured"] as? Bool, true)
            stores[0].flushCaptureRecords()
            XCTAssertEqual(try stores[0].client.send("HLEN", key).int, 1, "recorded before \(release)")
            let r = pointer(a, "p", release, x, y)
            XCTAssertEqual(r.status, 200)
            XCTAssertNil(
                (r.object["trace"] as? [[String: Any]])?.first {
                    $0["decision"] as? String == "skip" && $0["reason"] as? String == "captured"
                })
            stores[0].flushCaptureRecords()
            XCTAssertEqual(try stores[0].client.send("EXISTS", key).int, 0, "nothing left after \(release)")
        }
        XCTAssertEqual(pointer(a, "p", "down", 300, 300).object["captured"] as? Bool, true)
        XCTAssertEqual(a.call("DELETE", "/scenes/squares").status, 204)
        stores[0].flushCaptureRecords()
        XCTAssertEqual(try stores[0].client.send("EXISTS", key).int, 0, "nothing left after the delete")
    }

    /// SPEC §10: Redis paused (SIGSTOP) during a write on a live replica:
    /// the write is a 503 and /readyz goes 503; after SIGCONT /readyz is 200
    /// again with nothing but probes arriving (they run on an event loop,
    /// which never waits on Redis: the store's health check heals it).
    /// /metrics counts the timeout and the recovery.
    func testReadinessHealsAfterAPauseWithOnlyProbesArriving() throws {
        var config = Configuration()
        config.storeURL = redis.url
        config.server.port = 0
        config.server.logRequests = false
        let store = RedisSceneStore(try XCTUnwrap(RedisEndpoint(url: redis.url)), cacheBytes: 1 << 30, timeout: 0.5)
        stores.append(store)
        try waitUntil("subscribed") { store.health() == .ready }
        let (server, _) = Application.makeServer(config, store: store)
        let port = try server.start()
        defer {
            server.shutdown()
            server.waitUntilStopped()
        }
        let client = try TestClient(port: port)
        func status(_ method: String, _ path: String, _ body: String = "") throws -> Int {
            try client.send(request(method, path, body))
            return try client.readResponse().status
        }
        XCTAssertEqual(try status("PUT", "/scenes/ring-demo", ringScene), 201)
        XCTAssertEqual(try status("GET", "/readyz"), 200)
        redis.pause()
        XCTAssertEqual(try status("PATCH", "/scenes/ring-demo/layers/ring", #"{"action":"during"}"#), 503, "the write in flight")
        XCTAssertEqual(try status("GET", "/readyz"), 503)
        XCTAssertEqual(try status("GET", "/scenes/ring-demo/hit?x=210&y=120"), 200, "a cached hit goes on")
        redis.resume()
        try waitUntil("/readyz is 200 again, with only probes arriving") { try status("GET", "/readyz") == 200 }
        try client.send(request("GET", "/metrics"))
        let parsed = try ParsedExposition(String(decoding: try client.readResponse().body, as: UTF8.self))
        XCTAssertGreaterThanOrEqual(parsed.value("hitroute_redis_errors_total", ["kind": "timeout"]), 1)
        XCTAssertGreaterThanOrEqual(parsed.value("hitroute_redis_recoveries_total"), 1)
        XCTAssertGreaterThanOrEqual(parsed.value("hitroute_redis_exchange_duration_seconds_count"), 3)
        XCTAssertGreaterThanOrEqual(parsed.value("hitroute_redis_pubsub_messages_total"), 1, "its own PUT's announcement")
        XCTAssertGreaterThanOrEqual(parsed.value("hitroute_redis_subscriptions_total"), 1)
    }

    /// Through real sockets: writes, misses and drags, which must wait on
    /// Redis, are handed to a worker by the event loop (RunWhere)
    /// and answer as in-process; hits on cached scenes answer on the loop.
    func testLiveServersInRedisMode() throws {
        func live() throws -> (HTTPServer, Int) {
            var config = Configuration()
            config.storeURL = redis.url
            config.server.port = 0
            config.server.logRequests = false
            let store = try XCTUnwrap(try StoreFactory.make(config.storeConfiguration) as? RedisSceneStore)
            stores.append(store)
            try waitUntil("subscribed") { store.health() == .ready }
            let (server, _) = Application.makeServer(config, store: store)
            return (server, try server.start())
        }
        let (a, portA) = try live()
        let (b, portB) = try live()
        defer {
            for s in [a, b] {
                s.shutdown()
                s.waitUntilStopped()
            }
        }
        let clientA = try TestClient(port: portA)
        try clientA.send(request("PUT", "/scenes/squares", squaresScene))
        XCTAssertEqual(try clientA.readResponse().status, 201)
        try clientA.send(request("GET", "/scenes/squares/hit?x=300&y=300&trace=0"))
        XCTAssertEqual(json(try clientA.readResponse())["layer"] as? String, "square3")
        // b has never seen the scene: a miss, loaded on a worker.
        let clientB = try TestClient(port: portB)
        try clientB.send(request("POST", "/scenes/squares/hit", #"{"x":300,"y":300,"pointer":"p","phase":"down"}"#))
        XCTAssertEqual(json(try clientB.readResponse())["captured"] as? Bool, true)
        // A drag on b: a write, moved off the loop mid-event and run again.
        try clientB.send(request("POST", "/scenes/squares/hit", #"{"x":320,"y":300,"pointer":"p","phase":"move"}"#))
        let moved = json(try clientB.readResponse())
        XCTAssertEqual(moved["version"] as? Int, 2)
        XCTAssertEqual(moved["captured"] as? Bool, true)
        try clientA.send(
            request("GET", "/scenes/squares/hit?x=1&y=1", "").replacingOccurrences(of: "\r\n\r\n", with: "\r\nX-Min-Version: 2\r\n\r\n"))
        XCTAssertEqual(json(try clientA.readResponse())["version"] as? Int, 2)
        // A holds no capture of p, b does: the look-up in Redis moves the event off a's loop.
        stores[1].flushCaptureRecords()
        try clientA.send(request("POST", "/scenes/squares/hit", #"{"x":100,"y":100,"pointer":"p","phase":"move","trace":true}"#))
        let elsewhere = json(try clientA.readResponse())
        XCTAssertEqual(elsewhere["layer"] as? String, "square1")
        XCTAssertEqual(((elsewhere["trace"] as? [[String: Any]])?.first?["detail"] as? String)?.contains("another replica"), true)
        // A batch on b: p's up (b's capture, no round trip) then a pointer b
        // holds nothing of (a look-up): the up is applied once, on a worker.
        try clientB.send(
            request(
                "POST", "/scenes/squares/hits",
                #"{"points":[{"x":320,"y":300,"pointer":"p","phase":"up"},{"x":1,"y":1,"pointer":"z","phase":"move"}]}"#))
        let batch = json(try clientB.readResponse())["results"] as? [[String: Any]]
        XCTAssertEqual(batch?.first?["captured"] as? Bool, true, "the up released b's capture, not a replay's")
        XCTAssertEqual(batch?.first?["layer"] as? String, "square3")
        try clientA.send(request("DELETE", "/scenes/squares"))
        XCTAssertEqual(try clientA.readResponse().status, 204)
    }
}
