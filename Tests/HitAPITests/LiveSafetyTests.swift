import Foundation
import Glibc
import HTTPServer
import TestSupport
import XCTest

@testable import HitAPI

/// Safe defaults (SPEC §2, §6, §8) over real sockets: refusal on the head,
/// safe methods, other sites' pages, `OPTIONS *`, unreachable ids.
final class LiveSafetyTests: XCTestCase {
    let writeKey = "write-key-0123456789abcdef"
    let square = #"{"layers":[{"id":"b","shape":{"type":"rect","x":0,"y":0,"width":100,"height":100}}]}"#

    /// Keyless heads announcing big bodies with `Expect: 100-continue`
    /// are refused on the head (no `100`, nothing reserved, closed), so a
    /// keyed writer still finds the whole body budget.
    func testKeylessHeadsAreRefusedBeforeAnyOfTheirBodyIsReserved() throws {
        let access = AccessControl(keys: try APIKeys(parsing: "write \(writeKey)\n"))
        try withLiveService(
            {
                $0.server.limits.maxBodyBytes = 16 << 20
                $0.server.maxBufferedBodyBytes = 32 << 20
            }, access: access
        ) { s in
            var idle: [TestClient] = []
            for credential in ["", "Authorization: Bearer not-a-key-0123456789\r\n"] {
                for _ in 0..<2 {
                    let c = try TestClient(port: s.port)
                    try c.send(
                        "PUT /scenes/x HTTP/1.1\r\nHost: test\r\n\(credential)Expect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: \(16 << 20)\r\n\r\n"
                    )
                    let r = try c.readResponse()
                    XCTAssertEqual(r.status, 401, "refused on its head, not 100 Continue")
                    XCTAssertNotNil(r["WWW-Authenticate"])
                    XCTAssertEqual(r["Connection"], "close")
                    XCTAssertTrue(c.isClosedByPeer())
                    idle.append(c)
                }
            }
            // A keyed write of 34 KB goes through.
            let layers = (0..<300).map { #"{"id":"l\#($0)","shape":{"type":"rect","x":\#($0),"y":0,"width":1,"height":1}}"# }
            let body = #"{"layers":["# + layers.joined(separator: ",") + "]}"
            XCTAssertGreaterThan(body.utf8.count, 16 * 1024, "past the bodies the budget does not count")
            let r = try s.send("PUT", "/scenes/x", body, headers: [("Authorization", "Bearer \(writeKey)")])
            XCTAssertEqual(r.status, 201, r.text)
            let (_, parsed) = try s.scrape(key: writeKey)
            XCTAssertEqual(parsed.value("hitroute_http_rejected_requests_total", ["reason": "body_buffer_full"]), 0)
            XCTAssertEqual(parsed.value("hitroute_http_body_buffer_bytes"), 0)
        }
    }

    /// A read key's head on a write route is refused on the head too (403).
    func testTooSmallAScopeIsRefusedOnTheHead() throws {
        let readKey = "read-key-0123456789abcdef"
        let access = AccessControl(keys: try APIKeys(parsing: "read \(readKey)\n"))
        try withLiveService(access: access) { s in
            let c = try TestClient(port: s.port)
            try c.send(
                "PUT /scenes/x HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer \(readKey)\r\nExpect: 100-continue\r\nContent-Length: 100000\r\n\r\n"
            )
            let r = try c.readResponse()
            XCTAssertEqual(r.status, 403)
            XCTAssertTrue(r["WWW-Authenticate"]?.contains("insufficient_scope") ?? false)
            XCTAssertTrue(c.isClosedByPeer())
        }
    }

    /// GET and HEAD with a pointer or a phase are a 422 naming it, and
    /// leave the scene's version as it was; POST carries pointer phases.
    func testSafeMethodsRefusePointerPhases() throws {
        try withLiveService { s in
            XCTAssertEqual(try s.send("PUT", "/scenes/a", square).status, 201)
            for method in ["GET", "HEAD"] {
                for query in ["pointer=h&phase=down", "pointer=h", "phase=move"] {
                    let r = try s.send(method, "/scenes/a/hit?x=5&y=5&\(query)")
                    XCTAssertEqual(r.status, 422, "\(method) \(query)")
                    if method == "GET" {
                        let issues = json(r)["errors"] as? [[String: Any]] ?? []
                        let pointers = Set(issues.compactMap { $0["pointer"] as? String })
                        for name in ["pointer", "phase"] where query.contains("\(name)=") {
                            XCTAssertTrue(pointers.contains("/\(name)"), "\(query): \(r.text)")
                        }
                    }
                }
            }
            let scene = try s.send("GET", "/scenes/a")
            XCTAssertEqual(scene["ETag"], "\"1\"", "nothing changed the scene")
            // POST still carries pointer phases.
            XCTAssertEqual(try s.send("POST", "/scenes/a/hit", #"{"x":5,"y":5,"pointer":"h","phase":"down"}"#).status, 200)
        }
    }

    /// An open service refuses a state-changing simple (`text/plain`)
    /// request from another site's page with 403.
    func testForeignPagesCannotChangeAnOpenService() throws {
        try withLiveService({ $0.corsOrigins = ["*"] }) { s in
            let evil = [("Origin", "http://evil.example"), ("Content-Type", "text/plain")]
            let refused = try s.send("POST", "/scenes", square, headers: evil)
            XCTAssertEqual(refused.status, 403, refused.text)
            XCTAssertEqual(json(refused)["type"] as? String, "/problems/foreign-origin")
            XCTAssertEqual(refused["Connection"], "close", "refused on its head, the body unread")
            XCTAssertEqual(try s.send("PUT", "/scenes/a", square, headers: evil).status, 403)
            XCTAssertEqual(try s.send("GET", "/scenes").text, #"{"scenes":[]}"#)
            // curl (no Origin) and the service's own pages (Origin = Host) write.
            XCTAssertEqual(try s.send("PUT", "/scenes/a", square).status, 201)
            XCTAssertEqual(try s.send("PUT", "/scenes/b", square, headers: [("Origin", "http://test")]).status, 201)
            XCTAssertEqual(try s.send("PUT", "/scenes/c", square, headers: [("Origin", "https://TEST:443")]).status, 201)
            // Reads and plain hits stay open to every origin under *.
            let hit = try s.send("POST", "/scenes/a/hit", #"{"x":5,"y":5}"#, headers: evil)
            XCTAssertEqual(hit.status, 200)
            XCTAssertEqual(hit["Access-Control-Allow-Origin"], "*")
            XCTAssertEqual(try s.send("GET", "/scenes/a", headers: evil).status, 200)
            // Pointer phases and batches with them change state.
            XCTAssertEqual(try s.send("POST", "/scenes/a/hit", #"{"x":5,"y":5,"pointer":"p","phase":"down"}"#, headers: evil).status, 403)
            XCTAssertEqual(
                try s.send("POST", "/scenes/a/hits", #"{"points":[{"x":5,"y":5,"pointer":"p","phase":"down"}]}"#, headers: evil).status, 403
            )
            XCTAssertEqual(try s.send("DELETE", "/scenes/a", headers: evil).status, 403)
            XCTAssertEqual(try s.send("PATCH", "/scenes/a/layers/b", #"{"hidden":true}"#, headers: evil).status, 403)
        }
        // An origin named in --cors-origin may write.
        try withLiveService({ $0.corsOrigins = ["http://app.example"] }) { s in
            XCTAssertEqual(try s.send("PUT", "/scenes/a", square, headers: [("Origin", "http://app.example")]).status, 201)
            XCTAssertEqual(try s.send("PUT", "/scenes/b", square, headers: [("Origin", "http://evil.example")]).status, 403)
        }
        // With keys the origin rule is the keys' business.
        let access = AccessControl(keys: try APIKeys(parsing: "write \(writeKey)\n"))
        try withLiveService(access: access) { s in
            let r = try s.send(
                "PUT", "/scenes/a", square, headers: [("Origin", "http://evil.example"), ("Authorization", "Bearer \(writeKey)")])
            XCTAssertEqual(r.status, 201)
        }
    }

    /// Against DNS rebinding, the executable's default for a loopback bind
    /// answers loopback names only (403 `host-not-allowed` for others).
    func testRebindingHostsAreRefusedByTheLoopbackDefault() throws {
        let parsed = try Configuration.parse(arguments: ["--host", "127.0.0.1"], environment: [:])
        XCTAssertEqual(parsed.allowedHosts, .loopback)
        XCTAssertEqual(try Configuration.parse(arguments: ["--host", "0.0.0.0"], environment: [:]).allowedHosts, .any)
        XCTAssertEqual(
            try Configuration.parse(arguments: ["--allowed-hosts", "hit.example.com, .corp"], environment: [:]).allowedHosts,
            AllowedHosts(["hit.example.com", ".corp"]))
        XCTAssertEqual(try Configuration.parse(arguments: ["--allowed-hosts", "*"], environment: [:]).allowedHosts, .any)
        XCTAssertThrowsError(try Configuration.parse(arguments: ["--allowed-hosts", ","], environment: [:]))
        XCTAssertEqual(try Configuration.parse(arguments: ["--body-timeout", "5"], environment: [:]).server.bodyReadTimeout, .seconds(5))
        XCTAssertEqual(Configuration().server.bodyReadTimeout, .seconds(60))
        try withLiveService({ $0.allowedHosts = parsed.allowedHosts }) { s in
            func get(host: String) throws -> TestClient.Response {
                let c = try TestClient(port: s.port)
                try c.send("GET /scenes HTTP/1.1\r\nHost: \(host)\r\n\r\n")
                return try c.readResponse()
            }
            XCTAssertEqual(try get(host: "127.0.0.1:\(s.port)").status, 200)
            XCTAssertEqual(try get(host: "localhost:\(s.port)").status, 200)
            let r = try get(host: "rebind.evil.example:\(s.port)")
            XCTAssertEqual(r.status, 403)
            XCTAssertEqual(json(r)["type"] as? String, "/problems/host-not-allowed")
        }
    }

    /// Ids `.` and `..`, which no URL reaches, are a 422 naming `/id`.
    func testDotIdsAre422() throws {
        try withLiveService { s in
            for id in [".", ".."] {
                XCTAssertEqual(try s.send("PUT", "/scenes/\(id)", square).status, 422, id)
                let body = #"{"id":"\#(id)","layers":[]}"#
                let r = try s.send("POST", "/scenes", body)
                XCTAssertEqual(r.status, 422, id)
                XCTAssertTrue(r.text.contains(#""pointer":"/id""#), r.text)
            }
            XCTAssertEqual(try s.send("PUT", "/scenes/...", square).status, 201, "three dots are a name")
            XCTAssertEqual(try s.send("GET", "/scenes").text.contains(#""id":"..""#), false)
        }
    }

    /// `OPTIONS *` is answered for the server as a whole.
    func testOptionsAsteriskIsAnswered() throws {
        try withLiveService { s in
            let r = try s.send("OPTIONS", "*")
            XCTAssertEqual(r.status, 204)
            XCTAssertEqual(r["Allow"], "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS")
        }
    }
}
