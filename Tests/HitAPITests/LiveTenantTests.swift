import Foundation
import Glibc
import HTTPServer
import TestSupport
import XCTest

@testable import HitAPI

/// Tenant keys (`scenes=<prefix>`, SPEC §8) over real sockets: another
/// prefix's scenes are 404 to them (never 403, so existence does not leak)
/// and missing from their listings; they create only their own.
final class LiveTenantTests: XCTestCase {
    let adminKey = "admin-key-0123456789abcdef"
    let teamAKey = "team-a-key-0123456789abcdef"
    let teamBReadKey = "team-b-read-0123456789abcd"
    let square = #"{"layers":[{"id":"b","shape":{"type":"rect","x":0,"y":0,"width":100,"height":100}}]}"#

    var keyFile: String {
        """
        write \(adminKey)
        write \(teamAKey) scenes=team-a-
        read \(teamBReadKey)\tscenes=team-b-
        """
    }

    func bearer(_ key: String) -> [(String, String)] { [("Authorization", "Bearer \(key)")] }

    func testATenantKeySeesAndChangesOnlyItsPrefix() throws {
        let access = try AccessControl(file: try writeKeyFile(keyFile, in: self))
        try withLiveService(access: access) { s in
            for id in ["team-a-1", "team-b-1", "other"] {
                XCTAssertEqual(try s.send("PUT", "/scenes/\(id)", square, headers: bearer(adminKey)).status, 201)
            }
            let a = bearer(teamAKey)
            // Listing: its own scenes only.
            let listed = (json(try s.send("GET", "/scenes", headers: a))["scenes"] as? [[String: Any]] ?? []).compactMap {
                $0["id"] as? String
            }
            XCTAssertEqual(listed, ["team-a-1"])
            let listedB = (json(try s.send("GET", "/scenes", headers: bearer(teamBReadKey)))["scenes"] as? [[String: Any]] ?? [])
                .compactMap { $0["id"] as? String }
            XCTAssertEqual(listedB, ["team-b-1"])
            // Its own: read, hit, audit, change.
            XCTAssertEqual(try s.send("GET", "/scenes/team-a-1", headers: a).status, 200)
            XCTAssertEqual(try s.send("GET", "/scenes/team-a-1/audit?resolution=10", headers: a).status, 200)
            XCTAssertEqual(try s.send("GET", "/scenes/team-a-1/diff?against=team-a-1&resolution=10", headers: a).status, 200)
            XCTAssertEqual(try s.send("POST", "/scenes/team-a-1/hit", #"{"x":5,"y":5}"#, headers: a).status, 200)
            XCTAssertEqual(try s.send("PATCH", "/scenes/team-a-1/layers/b", #"{"hidden":true}"#, headers: a).status, 200)
            // Another prefix's scene and a scene that does not exist answer alike: 404.
            for id in ["team-b-1", "team-b-missing"] {
                let requests: [(String, String, String)] = [
                    ("GET", "/scenes/\(id)", ""), ("HEAD", "/scenes/\(id)", ""),
                    ("GET", "/scenes/\(id)/hit?x=5&y=5", ""), ("POST", "/scenes/\(id)/hit", #"{"x":5,"y":5}"#),
                    ("POST", "/scenes/\(id)/hits", #"{"points":[{"x":5,"y":5}]}"#), ("GET", "/scenes/\(id)/render.svg", ""),
                    ("PATCH", "/scenes/\(id)/layers/b", #"{"hidden":true}"#),
                    ("GET", "/scenes/\(id)/audit?resolution=10", ""), ("GET", "/scenes/\(id)/layers/b/reach?resolution=10", ""),
                    ("GET", "/scenes/\(id)/diff?against=team-a-1&resolution=10", ""),
                    // A scene of its own compared with another's: as if the other were absent.
                    ("GET", "/scenes/team-a-1/diff?against=\(id)&resolution=10", ""), ("GET", "/scenes/team-a-1/render.svg?diff=\(id)", ""),
                    ("DELETE", "/scenes/\(id)", ""),
                ]
                for (method, target, body) in requests {
                    let r = try s.send(method, target, body, headers: a)
                    XCTAssertEqual(r.status, 404, "\(method) \(target)")
                    if method != "HEAD" {
                        XCTAssertEqual(json(r)["detail"] as? String, "no scene \"\(id)\"", "\(method) \(target)")
                    }
                }
                // Creating or replacing outside the prefix: 403, existing or not.
                let put = try s.send("PUT", "/scenes/\(id)", square, headers: a)
                XCTAssertEqual(put.status, 403, put.text)
                XCTAssertEqual(json(put)["type"] as? String, "/problems/outside-key-scenes")
            }
            XCTAssertEqual(try s.send("POST", "/scenes", #"{"id":"team-b-2","layers":[]}"#, headers: a).status, 403)
            // Creating inside: named, or named for it.
            XCTAssertEqual(try s.send("PUT", "/scenes/team-a-2", square, headers: a).status, 201)
            XCTAssertEqual(try s.send("POST", "/scenes", #"{"id":"team-a-3","layers":[]}"#, headers: a).status, 201)
            let generated = try s.send("POST", "/scenes", square, headers: a)
            XCTAssertEqual(generated.status, 201)
            XCTAssertTrue(generated["Location"]?.hasPrefix("/scenes/team-a-") ?? false, generated["Location"] ?? "")
            // Nothing of team b's changed; the admin key sees everything.
            XCTAssertEqual(try s.send("GET", "/scenes/team-b-1", headers: bearer(adminKey))["ETag"], "\"1\"")
            let all = (json(try s.send("GET", "/scenes", headers: bearer(adminKey)))["scenes"] as? [[String: Any]] ?? [])
            XCTAssertEqual(all.count, 6)
            // A tenant's read key still needs its scope.
            XCTAssertEqual(try s.send("PUT", "/scenes/team-b-1", square, headers: bearer(teamBReadKey)).status, 403)
            XCTAssertEqual(try s.send("GET", "/scenes/team-b-1", headers: bearer(teamBReadKey)).status, 200)
        }
    }

    /// The refusal comes on the head: a tenant's PUT outside its prefix
    /// reads none of its body.
    func testATenantsForeignWriteIsRefusedOnTheHead() throws {
        let access = try AccessControl(file: try writeKeyFile(keyFile, in: self))
        try withLiveService(access: access) { s in
            let c = try TestClient(port: s.port)
            try c.send(
                "PUT /scenes/team-b-9 HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer \(teamAKey)\r\nExpect: 100-continue\r\nContent-Length: 1000000\r\n\r\n"
            )
            XCTAssertEqual(try c.readResponse().status, 403)
            XCTAssertTrue(c.isClosedByPeer())
        }
    }

    /// SIGHUP reloads tenant lines like any other.
    func testReloadKeepsTenants() throws {
        let path = try writeKeyFile("write \(adminKey)\n", in: self)
        let access = try AccessControl(file: path)
        try withLiveService(access: access) { s in
            XCTAssertEqual(try s.send("PUT", "/scenes/team-b-1", square, headers: bearer(adminKey)).status, 201)
            XCTAssertEqual(try s.send("GET", "/scenes/team-b-1", headers: bearer(teamAKey)).status, 401)
            try keyFile.write(toFile: path, atomically: true, encoding: .utf8)
            guard case .success(3) = access.reload() else { return XCTFail("reload failed") }
            XCTAssertEqual(try s.send("GET", "/scenes/team-b-1", headers: bearer(teamAKey)).status, 404)
            XCTAssertEqual(try s.send("GET", "/scenes/team-b-1", headers: bearer(teamBReadKey)).status, 200)
        }
    }
}

final class APIKeyLookupTests: XCTestCase {
    /// The one-step lookup finds every key of a large file and nothing
    /// else: near misses (one byte changed, a byte more or less) included.
    func testHashedLookupFindsEveryKeyAndNothingElse() throws {
        var rng = SplitMix64(seed: 11)
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var lines: [String] = []
        var keys: [(String, Scope, String?)] = []
        for i in 0..<500 {
            let length = Int.random(in: 16...64, using: &rng)
            let key = String(decoding: (0..<length).map { _ in alphabet.randomElement(using: &rng)! }, as: UTF8.self) + "\(i)"
            let scope = Scope.allCases[i % 3]
            let prefix: String? = i % 4 == 0 ? "t\(i)-" : nil
            keys.append((key, scope, prefix))
            lines.append("\(scope.name) \(key)" + (prefix.map { " scenes=\($0)" } ?? ""))
        }
        let parsed = try APIKeys(parsing: lines.joined(separator: "\n"))
        func grant(_ s: String) -> Grant? {
            var s = s
            return s.withUTF8 { parsed.grant(of: $0) }
        }
        for (key, scope, prefix) in keys {
            XCTAssertEqual(grant(key), Grant(scope: scope, scenePrefix: prefix), key)
            var bytes = Array(key.utf8)
            bytes[bytes.count / 2] ^= 1
            XCTAssertNil(grant(String(decoding: bytes, as: UTF8.self)))
            XCTAssertNil(grant(key + "x"))
            XCTAssertNil(grant(String(key.dropLast())))
        }
        XCTAssertNil(grant(""))
    }

    func testGrantReachesItsPrefixOnly() {
        let g = Grant(scope: .read, scenePrefix: "team-a-")
        XCTAssertTrue(g.reaches("team-a-"))
        XCTAssertTrue(g.reaches("team-a-1"))
        XCTAssertFalse(g.reaches("team-a"))
        XCTAssertFalse(g.reaches("team-b-1"))
        XCTAssertTrue(Grant.all.reaches("anything"))
    }
}
