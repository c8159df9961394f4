import Foundation
import RESP
import RESPClient
import TestSupport
import XCTest

@testable import HitAPI
@testable import HitStore

/// `X-Min-Version` against a real `redis-server` costs a version read, not
/// a document: a replica whose cached copy is current asks Redis for the
/// version only (issue 30, finding 3: 20 such requests on a 6.5 MB scene
/// moved 112–131 MB out of Redis). Counted by Redis itself
/// (`INFO stats`: `total_net_output_bytes`).
final class RedisMinVersionCostTests: XCTestCase {
    var redis: RedisServerProcess!
    var store: RedisSceneStore?

    override func setUpWithError() throws {
        guard let r = try RedisServerProcess.start() else { throw XCTSkip(RedisServerProcess.skipMessage) }
        redis = r
    }

    override func tearDown() {
        store?.close()
        redis?.shutdown()
    }

    /// Bytes Redis has sent to its clients so far.
    func bytesSent(_ client: RedisClient) throws -> Int {
        let info = String(decoding: try client.send("INFO", "stats").bytes ?? [], as: UTF8.self)
        let line = info.split(whereSeparator: \.isNewline).first { $0.hasPrefix("total_net_output_bytes:") } ?? ""
        return try XCTUnwrap(Int(line.split(separator: ":").last ?? ""), info)
    }

    func testACurrentCacheCostsAVersionReadNotADocument() throws {
        var config = Configuration()
        config.storeURL = redis.url
        let s = try XCTUnwrap(try StoreFactory.make(config.storeConfiguration) as? RedisSceneStore)
        store = s
        let deadline = Date().addingTimeInterval(60)
        while s.health() != .ready && Date() < deadline { usleep(1_000) }
        let app = Application(configuration: config, store: s)
        let layers = (0..<6_000).map { #"{"id":"r\#($0)","shape":{"type":"rect","x":\#($0),"y":0,"width":1,"height":1}}"# }
        let scene = #"{"layers":["# + layers.joined(separator: ",") + "]}"
        XCTAssertGreaterThan(scene.utf8.count, 400_000)
        XCTAssertEqual(app.call("PUT", "/scenes/big", scene).status, 201)
        XCTAssertEqual(app.call("GET", "/scenes/big/hit?x=1&y=1").status, 200)  // cached, version 1

        let client = RedisClient(try XCTUnwrap(RedisEndpoint(url: redis.url)))
        let before = try bytesSent(client)
        for _ in 0..<20 {
            let again = app.call("GET", "/scenes/big/hit?x=1&y=1", headers: [("X-Min-Version", "2")])
            XCTAssertEqual(again.status, 412, again.text)
        }
        let sent = try bytesSent(client) - before
        // 20 version reads and two INFO replies, against 20 documents of 400 KB and more.
        XCTAssertLessThan(sent, 40_000, "Redis sent \(sent) bytes for 20 X-Min-Version checks of a current scene")

        // A newer version in Redis is still fetched, once.
        let other = Application(configuration: config, store: s)
        XCTAssertEqual(other.call("PATCH", "/scenes/big/layers/r0", #"{"hidden":true}"#).status, 200)
        XCTAssertEqual(app.call("GET", "/scenes/big/hit?x=1&y=1", headers: [("X-Min-Version", "2")]).status, 200)
    }
}
