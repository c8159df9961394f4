import Dispatch
import Synchronization
import TestSupport
import XCTest

@testable import HitAPI

/// SPEC §8's "scenes, layers and bytes held; live pointer captures; scene
/// compile time" in Redis mode: each replica reports what it holds, its
/// cache, against a real `redis-server`.
extension RedisReplicaTests {
    func scrape(_ app: Application) throws -> ParsedExposition {
        let r = app.call("GET", "/metrics")
        XCTAssertEqual(r.status, 200)
        return try ParsedExposition(String(decoding: r.body, as: UTF8.self))
    }

    /// Bytes of scene `id`'s document in Redis (what a cached scene without masks weighs).
    func documentBytes(_ id: String) throws -> Double {
        Double(try XCTUnwrap(try stores[0].client.send("STRLEN", "hitroute:{\(id)}:doc").int))
    }

    func testEachReplicaReportsWhatItsCacheHolds() throws {
        let a = try replica()
        let b = try replica()
        let empty = try scrape(a)
        for name in [
            "hitroute_scenes", "hitroute_layers", "hitroute_store_bytes", "hitroute_pointer_captures", "hitroute_scene_compile_seconds",
        ] {
            XCTAssertNotNil(empty.family(name), name)
            XCTAssertEqual(empty.value(name == "hitroute_scene_compile_seconds" ? name + "_count" : name), 0, name)
        }
        XCTAssertEqual(empty.value("hitroute_cache_capacity_bytes"), Double(1 << 30))

        XCTAssertEqual(a.call("PUT", "/scenes/squares", squaresScene).status, 201)
        XCTAssertEqual(a.call("PUT", "/scenes/ring-demo", ringScene).status, 201)
        let down = a.call("POST", "/scenes/squares/hit", #"{"x":300,"y":300,"pointer":"p","phase":"down"}"#)
        XCTAssertEqual(down.object["captured"] as? Bool, true)
        let held = try scrape(a)
        XCTAssertEqual(held.value("hitroute_scenes"), 2)
        XCTAssertEqual(held.value("hitroute_layers"), 6)  // three squares; button, ring, label
        XCTAssertEqual(held.value("hitroute_store_bytes"), try documentBytes("squares") + documentBytes("ring-demo"))
        XCTAssertEqual(held.value("hitroute_pointer_captures"), 1)
        XCTAssertEqual(held.value("hitroute_scene_compile_seconds_count"), 2)

        // b has compiled nothing yet; a hit loads one scene (a load is not an upload).
        XCTAssertEqual(try scrape(b).value("hitroute_scenes"), 0)
        XCTAssertEqual(b.call("GET", "/scenes/ring-demo/hit?x=120&y=120").status, 200)
        let other = try scrape(b)
        XCTAssertEqual(other.value("hitroute_scenes"), 1)
        XCTAssertEqual(other.value("hitroute_layers"), 3)
        XCTAssertEqual(other.value("hitroute_store_bytes"), try documentBytes("ring-demo"))
        XCTAssertEqual(other.value("hitroute_pointer_captures"), 0)  // the capture stays in a
        XCTAssertEqual(other.value("hitroute_scene_compile_seconds_count"), 0)
        XCTAssertEqual(other.value("hitroute_cache_loads_total"), 1)
        XCTAssertEqual(held.value("hitroute_cache_loads_total"), 0)  // a's own writes are installed, not loaded

        XCTAssertEqual(a.call("POST", "/scenes/squares/hit", #"{"x":300,"y":300,"pointer":"p","phase":"up"}"#).status, 200)
        XCTAssertEqual(a.call("DELETE", "/scenes/ring-demo").status, 204)
        let after = try scrape(a)
        XCTAssertEqual(after.value("hitroute_scenes"), 1)
        XCTAssertEqual(after.value("hitroute_layers"), 3)
        XCTAssertEqual(after.value("hitroute_store_bytes"), try documentBytes("squares"))
        XCTAssertEqual(after.value("hitroute_pointer_captures"), 0)
    }

    func testEvictionsAreCountedAndTheCacheStaysWithinItsBound() throws {
        let doc = #"{"layers":[{"id":"x","shape":{"type":"circle","cx":0,"cy":0,"r":5}}]}"#
        let app = try replica(cacheBytes: 250)  // room for two or three of these
        for k in 0..<6 { XCTAssertEqual(app.call("PUT", "/scenes/s\(k)", doc).status, 201) }
        let m = try scrape(app)
        let held = m.value("hitroute_scenes")
        XCTAssertEqual(m.value("hitroute_cache_capacity_bytes"), 250)
        XCTAssertEqual(m.value("hitroute_cache_evictions_total"), 6 - held)
        XCTAssertEqual(m.value("hitroute_store_bytes"), held * (try documentBytes("s0")))
        XCTAssertLessThanOrEqual(m.value("hitroute_store_bytes"), 250)
        XCTAssertEqual(m.family("hitroute_cache_evictions_total")?.type, "counter")
    }

    /// A burst of misses on one scene loads it once (SingleFlight), however
    /// the threads interleave: later arrivals find it cached.
    func testConcurrentMissesOfOneSceneLoadItOnce() throws {
        let a = try replica()
        let b = try replica()
        let big = (0..<2_000).map { #"{"id":"r\#($0)","shape":{"type":"rect","x":\#($0),"y":0,"width":1,"height":1}}"# }
        XCTAssertEqual(a.call("PUT", "/scenes/big", #"{"layers":[\#(big.joined(separator: ","))]}"#).status, 201)
        let group = DispatchGroup()
        let statuses = Mutex<[Int]>([])
        for _ in 0..<8 {
            DispatchQueue.global().async(group: group) {
                let s = b.call("GET", "/scenes/big/hit?x=10.5&y=0.5").status
                statuses.withLock { $0.append(s) }
            }
        }
        group.wait()
        XCTAssertEqual(statuses.withLock { $0 }, Array(repeating: 200, count: 8))
        XCTAssertEqual(try scrape(b).value("hitroute_cache_loads_total"), 1)
    }
}
