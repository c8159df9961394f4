import HitRouting
import RESP
import RESPClient
import TestSupport
import XCTest

@testable import HitAPI
@testable import HitStore

/// The summary keys behind `GET /scenes` in Redis mode, byte by byte.
final class RedisSceneSummaryTests: XCTestCase {
    func testRoundTripsExactly() {
        let bounds = Box(minX: -0.1, minY: 5e-324, maxX: 1e308, maxY: 240)
        let text = RedisSceneSummary.encode(layers: 3, bounds: bounds)
        XCTAssertEqual(String(decoding: text, as: UTF8.self), "3 -0.1 5e-324 1e+308 240.0")
        let s = RedisSceneSummary.decode(Array("7 ".utf8) + text, id: "a")
        XCTAssertEqual(s, SceneSummary(id: "a", version: 7, layers: 3, bounds: bounds))
        XCTAssertEqual(RedisSceneSummary.decode(Array("1 0".utf8), id: "e"), SceneSummary(id: "e", version: 1, layers: 0, bounds: nil))
    }

    func testAnythingElseIsNoSummary() {
        for bad in [
            "", "1", "0 3", "-1 3", "1 -3", "1 3 0 0 1", "1 3 0 0 1 1 1", "1 3 0 0 nan 1", "1 3 0 0 inf 1",
            "1 3 0 0 1e309 1", "1 1 -1e308 0.0 1e308 10.0", "1 1 0 -1e308 1 1e308", "1 1 5 0 1 1", "1 1 0 5 1 1", "1  3", " 1 3", "1 3 ",
            "x 3", "1 3.5", "99999999999999999999 1",
        ] {
            XCTAssertNil(RedisSceneSummary.decode(Array(bad.utf8), id: "a"), bad)
        }
        let good = Array("12 3 0.0 0.0 240.0 240.0".utf8)
        // Never traps.
        forEachEdit(of: good, replacements: Array(" 0-.e9x".utf8)) { edited in _ = RedisSceneSummary.decode(edited, id: "a") }
    }
}

/// `GET /scenes` against a real `redis-server`: it reads summaries, so a
/// listing compiles nothing and leaves the replica's cache alone.
extension RedisReplicaTests {
    func listed(_ app: Application) throws -> [[String: Any]] {
        let r = app.call("GET", "/scenes")
        XCTAssertEqual(r.status, 200)
        return try XCTUnwrap(r.object["scenes"] as? [[String: Any]])
    }

    func testListingReadsSummariesAndLeavesTheCacheAlone() throws {
        let a = try replica()
        let b = try replica(cacheBytes: 2_000)
        let memory = Application.testing()  // what the memory store lists for the same changes
        for app in [a, memory] {
            XCTAssertEqual(app.call("PUT", "/scenes/ring-demo", ringScene).status, 201)
            XCTAssertEqual(app.call("PUT", "/scenes/squares", squaresScene).status, 201)
            XCTAssertEqual(app.call("PUT", "/scenes/empty", #"{"layers":[]}"#).status, 201)
            XCTAssertEqual(app.call("PATCH", "/scenes/squares/layers/square1", #"{"hidden":true}"#).status, 200)
        }
        let expected = try listed(memory)
        XCTAssertEqual(expected.count, 3)
        // b holds one hot scene; listing the others must neither load nor evict.
        XCTAssertEqual(b.call("GET", "/scenes/ring-demo/hit?x=120&y=120").status, 200)
        let list = try listed(b)
        XCTAssertEqual(list.map { $0["id"] as? String }, ["empty", "ring-demo", "squares"])
        XCTAssertEqual(list.map { $0["version"] as? Int }, [1, 1, 2])
        XCTAssertEqual(list.map { $0["layers"] as? Int }, [0, 3, 3])
        XCTAssertTrue(list[0]["bounds"] is NSNull)
        XCTAssertEqual(list[1]["bounds"] as? [String: Double], ["x": -2, "y": -2, "width": 244, "height": 244])  // the frame's stroke of 4
        XCTAssertEqual(list[2]["bounds"] as? [String: Double], ["x": 75, "y": 75, "width": 250, "height": 250])  // square1 hidden
        for (got, want) in zip(list, expected) { XCTAssertEqual(got as NSDictionary, want as NSDictionary) }
        XCTAssertEqual(stores[1].cacheUsage.scenes, 1)
        XCTAssertTrue(stores[1].isCached("ring-demo"))
        XCTAssertEqual(stores[1].cacheEvictions, 0)
    }

    /// A version written without a summary (by a replica older than
    /// summary keys) is listed from the document, not from the stale summary.
    func testAStaleSummaryIsNotBelieved() throws {
        let a = try replica()
        XCTAssertEqual(a.call("PUT", "/scenes/ring-demo", ringScene).status, 201)
        let client = stores[0].client
        let oneLayer = #"{"id":"ring-demo","layers":[{"id":"dot","shape":{"type":"circle","cx":10,"cy":10,"r":10}}]}"#
        XCTAssertEqual(try client.send("SET", "hitroute:{ring-demo}:doc", oneLayer).errorMessage, nil)
        XCTAssertEqual(try client.send("INCR", "hitroute:{ring-demo}:version").int, 2)
        let list = try listed(a)
        XCTAssertEqual(list.first?["version"] as? Int, 2)
        XCTAssertEqual(list.first?["layers"] as? Int, 1)
        XCTAssertEqual(list.first?["bounds"] as? [String: Double], ["x": 0, "y": 0, "width": 20, "height": 20])
    }

    /// A summary key whose bounds are each finite but whose width is not
    /// (`-1e308 … 1e308`, put there by another writer) stopped the process
    /// at `GET /scenes` while writing that width. It is no summary: the
    /// scene is listed from its document.
    func testASummaryOfInfiniteWidthIsNotBelieved() throws {
        let a = try replica()
        XCTAssertEqual(a.call("PUT", "/scenes/ring-demo", ringScene).status, 201)
        XCTAssertEqual(try stores[0].client.send("SET", "hitroute:{ring-demo}:summary", "1 3 -1e308 0.0 1e308 10.0").errorMessage, nil)
        let list = try listed(a)
        XCTAssertEqual(list.first?["bounds"] as? [String: Double], ["x": -2, "y": -2, "width": 244, "height": 244])
    }

    /// A document in Redis that a live upload would be refused for (422,
    /// bounds overflow), written by another writer, is never compiled and
    /// served: every read of it is a 503 that names the scene and the field,
    /// the listing goes on, and DELETE removes it.
    func testADocumentInRedisWhoseBoundsOverflowIsRefusedNotServed() throws {
        let a = try replica()
        let doc =
            #"{"id":"big","layers":[{"id":"a","shape":{"type":"rect","x":-1e308,"y":0,"width":1e308,"height":10}},{"id":"b","shape":{"type":"rect","x":1e308,"y":0,"width":1,"height":1}}]}"#
        XCTAssertEqual(a.call("PUT", "/scenes/big", doc).status, 422)
        let client = stores[0].client
        XCTAssertEqual(try client.send("SET", "hitroute:{big}:doc", doc).errorMessage, nil)
        XCTAssertEqual(try client.send("SET", "hitroute:{big}:version", "1").errorMessage, nil)
        XCTAssertEqual(try client.send("SADD", "hitroute:scenes", "big").int, 1)
        for target in ["/scenes/big", "/scenes/big/hit?x=1&y=1", "/scenes"] {
            let r = a.call("GET", target)
            XCTAssertEqual(r.status, 503, target)
            XCTAssertTrue(r.text.contains(#"scene \"big\" in Redis is not valid: at /layers/1/shape"#), r.text)
        }
        XCTAssertEqual(a.call("DELETE", "/scenes/big").status, 204)
        XCTAssertEqual(try listed(a).count, 0)
    }

    /// One `SMEMBERS` read the whole index: past the reply parser's element
    /// cap (2^20 in production) every listing was a 503. `SSCAN` reads it a
    /// page at a time. Here the cap is 64, so 600 scenes are far past it, and
    /// each must be listed once, in order.
    func testAListingPagesThroughAnIndexFarPastTheReplyElementCap() throws {
        let endpoint = try XCTUnwrap(RedisEndpoint(url: redis.url, password: nil))
        let store = RedisSceneStore(endpoint, cacheBytes: 1 << 30, maxReplyElements: 64)
        stores.append(store)
        try waitUntil("the replica is subscribed") { store.health() == .ready }
        XCTAssertLessThanOrEqual(store.listPage, 8)
        let app = Application(configuration: Configuration(), store: store)
        let ids = (0..<600).map { "s" + String(1000 + $0) }
        for id in ids.shuffled() { XCTAssertEqual(app.call("PUT", "/scenes/\(id)", #"{"layers":[]}"#).status, 201) }
        XCTAssertEqual(try listed(app).map { $0["id"] as? String }, ids)
        // The reply cap holds: the whole index in one reply is refused.
        XCTAssertThrowsError(try store.client.send("SMEMBERS", "hitroute:scenes"))
    }
}
