import Foundation
import RESP
import RESPClient
import TestSupport
import XCTest

@testable import HitAPI
@testable import HitStore

/// Issue 14 in Redis mode, against a real `redis-server`: what bounds a
/// replica's memory is its cache (`--cache-bytes`), so the cache weighs a
/// scene's decoded masks beside its document on upload, load and patch,
/// and a write whose scene alone would pass the cache is a 507 that
/// writes nothing.
extension RedisReplicaTests {
    /// A replica (see `replica`) and its store.
    func replicaAndStore(cacheBytes: Int = 1 << 30, _ edit: (inout Configuration) -> Void = { _ in }) throws -> (
        Application, RedisSceneStore
    ) {
        let app = try replica(cacheBytes: cacheBytes, edit)
        return (app, stores[stores.count - 1])
    }

    /// The version Redis holds for scene `id`, asked directly.
    func redisVersion(_ store: RedisSceneStore, _ id: String) throws -> Int? {
        try store.client.send([Array("GET".utf8), store.keys.version(id)]).int
    }

    func testTheCacheWeighsMasksOnUploadLoadAndPatch() throws {
        let masked =
            #"{"layers":[{"id":"m","shape":{"type":"mask","x":0,"y":0,"width":10,"height":10,"png":"\#(tinyBigPNG)","stroke":1}}]}"#
        let (a, storeA) = try replicaAndStore()
        let (b, storeB) = try replicaAndStore()
        XCTAssertEqual(a.call("PUT", "/scenes/s", masked).status, 201)
        let uploaded = storeA.cacheUsage.bytes
        XCTAssertGreaterThanOrEqual(uploaded, tinyBigPNGStrokedBytes, "upload: the mask's pixels and table are counted")
        XCTAssertEqual(b.call("GET", "/scenes/s/hit?x=5&y=5&trace=0").object["layer"] as? String, "m")
        XCTAssertEqual(storeB.cacheUsage.bytes, uploaded, "load: the same weight")
        XCTAssertEqual(a.call("PATCH", "/scenes/s/layers/m", #"{"shape":{"type":"rect","png":null,"stroke":null}}"#).status, 200)
        XCTAssertLessThan(storeA.cacheUsage.bytes, 1_000, "patch: the mask's bytes are given back")
        XCTAssertEqual(b.call("GET", "/scenes/s", headers: [("X-Min-Version", "2")]).status, 200)
        XCTAssertEqual(storeB.cacheUsage.bytes, storeA.cacheUsage.bytes, "refresh: the same weight")
    }

    /// A patch that would make the scene heavier than a replica's cache is
    /// a 507: nothing reaches Redis, the cached copy and its weight stay.
    func testAPatchPastTheCacheIs507AndWritesNothing() throws {
        let (app, store) = try replicaAndStore(cacheBytes: 100_000)
        XCTAssertEqual(app.call("PUT", "/scenes/s", budgetScene).status, 201)
        let before = app.call("GET", "/scenes/s").text
        let usage = store.cacheUsage
        let refused = app.call("PATCH", "/scenes/s/layers/m", growToMask)
        XCTAssertEqual(refused.status, 507, refused.text)
        XCTAssertEqual(refused.object["type"] as? String, "/problems/store-full")
        XCTAssertTrue((refused.object["detail"] as? String ?? "").contains("--cache-bytes"), refused.text)
        XCTAssertEqual(try redisVersion(store, "s"), 1)
        XCTAssertEqual(app.call("GET", "/scenes/s").text, before)
        XCTAssertEqual(store.cacheUsage.bytes, usage.bytes)
        // Another replica loads the scene as it was.
        let (other, _) = try replicaAndStore(cacheBytes: 100_000)
        XCTAssertEqual(other.call("GET", "/scenes/s").text, before)
        // An upload of such a scene is refused alike; a small patch is taken.
        let masked =
            #"{"layers":[{"id":"m","shape":{"type":"mask","x":0,"y":0,"width":10,"height":10,"png":"\#(tinyBigPNG)","stroke":1}}]}"#
        XCTAssertEqual(app.call("PUT", "/scenes/t", masked).status, 507)
        XCTAssertNil(try redisVersion(store, "t"))
        XCTAssertEqual(
            app.call("PATCH", "/scenes/s/layers/m", #"{"shape":{"type":"mask","alpha":"/wD/AA==","columns":2,"rows":2}}"#).status, 200)
        XCTAssertEqual(try redisVersion(store, "s"), 2)
    }

    /// Patches cannot build a document no upload could carry (which other
    /// replicas could then not even fetch): 413, nothing written.
    func testPatchesCannotGrowADocumentBeyondTheBodyLimit() throws {
        let (app, store) = try replicaAndStore { $0.server.limits.maxBodyBytes = 1_000 }
        XCTAssertEqual(app.call("PUT", "/scenes/s", #"{"layers":[{"id":"a"},{"id":"b"},{"id":"c"}]}"#).status, 201)
        let points = (0..<40).map { "[\($0),\($0 * 3)]" }.joined(separator: ",")
        let big = #"{"action":"x","shape":{"type":"polygon","points":[\#(points)]}}"#
        XCTAssertEqual(app.call("PATCH", "/scenes/s/layers/a", big).status, 200)
        XCTAssertEqual(app.call("PATCH", "/scenes/s/layers/b", big).status, 200)
        let refused = app.call("PATCH", "/scenes/s/layers/c", big)
        XCTAssertEqual(refused.status, 413, refused.text)
        XCTAssertEqual(refused.pointers, ["/shape"])
        XCTAssertEqual(try redisVersion(store, "s"), 3)
    }
}
