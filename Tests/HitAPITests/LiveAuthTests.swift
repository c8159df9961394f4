import Foundation
import Glibc
import HTTPServer
import TestSupport
import XCTest

@testable import HitAPI

/// API keys and scopes (SPEC §8) over real sockets.
final class LiveAuthTests: XCTestCase {
    let readKey = "read-key-0123456789abcdef"
    let interactKey = "interact-key-0123456789ab"
    let writeKey = "write-key-0123456789abcdef"

    var keyFile: String {
        """
        # test keys
        read \(readKey)

           interact\t\(interactKey)
        write \(writeKey)   
        """
    }

    func bearer(_ key: String) -> [(String, String)] { [("Authorization", "Bearer \(key)")] }

    func assertProblem(
        _ r: TestClient.Response, _ status: Int, _ type: String, authenticate: String?,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(r.status, status, r.text, file: file, line: line)
        XCTAssertEqual(r["Content-Type"], "application/problem+json", file: file, line: line)
        XCTAssertEqual(r["WWW-Authenticate"], authenticate, file: file, line: line)
        let body = json(r)
        XCTAssertEqual(body["type"] as? String, type, file: file, line: line)
        XCTAssertEqual(body["status"] as? Int, status, file: file, line: line)
        XCTAssertEqual(body["requestId"] as? String, r["X-Request-Id"], file: file, line: line)
    }

    func testEveryStatusAndChallenge() throws {
        let access = try AccessControl(file: try writeKeyFile(keyFile, in: self))
        XCTAssertEqual(access.keyCount, 3)
        try withLiveService(access: access) { s in
            // Probes, the API document and preflights need no key.
            XCTAssertEqual(try s.send("GET", "/healthz").status, 200)
            XCTAssertEqual(try s.send("GET", "/readyz").status, 200)
            XCTAssertEqual(try s.send("GET", "/openapi.yaml").status, 200)
            let preflight = try s.send(
                "OPTIONS", "/scenes/a",
                headers: [
                    ("Origin", "http://example.test"), ("Access-Control-Request-Method", "PUT"),
                ])
            XCTAssertEqual(preflight.status, 204)
            XCTAssertTrue(preflight["Access-Control-Allow-Headers"]?.contains("Authorization") ?? false)

            // No credentials: a plain challenge.
            let challenge = #"Bearer realm="hitroute""#
            assertProblem(try s.send("GET", "/scenes"), 401, "/problems/unauthorized", authenticate: challenge)
            assertProblem(try s.send("GET", "/metrics"), 401, "/problems/unauthorized", authenticate: challenge)
            // Another scheme is no credential either (RFC 6750 §3.1).
            assertProblem(
                try s.send("GET", "/scenes", headers: [("Authorization", "Basic \(writeKey)")]), 401,
                "/problems/unauthorized", authenticate: challenge)
            // "Bearer" alone is no credential (the trailing space is not part of the field).
            assertProblem(
                try s.send("GET", "/scenes", headers: [("Authorization", "Bearer ")]), 401,
                "/problems/unauthorized", authenticate: challenge)
            // An unknown key, near misses.
            let invalid = #"Bearer realm="hitroute", error="invalid_token""#
            for wrong in ["not-a-key-at-all-0000000", String(writeKey.dropLast()), writeKey + "x"] {
                assertProblem(
                    try s.send("GET", "/scenes", headers: [("Authorization", "Bearer \(wrong)")]), 401,
                    "/problems/invalid-token", authenticate: invalid)
            }

            // write: everything.
            XCTAssertEqual(try s.send("PUT", "/scenes/ring-demo", ringScene, headers: bearer(writeKey)).status, 201)
            XCTAssertEqual(try s.send("GET", "/scenes", headers: [("authorization", "bearer  \(writeKey) ")]).status, 200)

            // read: GET scenes, hits without pointers, metrics; nothing else.
            XCTAssertEqual(try s.send("GET", "/scenes/ring-demo", headers: bearer(readKey)).status, 200)
            XCTAssertEqual(try s.send("GET", "/scenes/ring-demo/hit?x=1&y=1", headers: bearer(readKey)).status, 200)
            XCTAssertEqual(try s.send("POST", "/scenes/ring-demo/hit", #"{"x":1,"y":1}"#, headers: bearer(readKey)).status, 200)
            XCTAssertEqual(
                try s.send("POST", "/scenes/ring-demo/hits", #"{"points":[{"x":1,"y":1}]}"#, headers: bearer(readKey)).status, 200)
            XCTAssertEqual(try s.send("GET", "/metrics", headers: bearer(readKey)).status, 200)
            let needsWrite = #"Bearer realm="hitroute", error="insufficient_scope", scope="write""#
            let needsInteract = #"Bearer realm="hitroute", error="insufficient_scope", scope="interact""#
            assertProblem(
                try s.send("PUT", "/scenes/ring-demo", ringScene, headers: bearer(readKey)), 403,
                "/problems/insufficient-scope", authenticate: needsWrite)
            assertProblem(
                try s.send("DELETE", "/scenes/ring-demo", headers: bearer(readKey)), 403,
                "/problems/insufficient-scope", authenticate: needsWrite)
            assertProblem(
                try s.send("POST", "/scenes", ringScene, headers: bearer(readKey)), 403,
                "/problems/insufficient-scope", authenticate: needsWrite)
            assertProblem(
                try s.send("PATCH", "/scenes/ring-demo/layers/ring", #"{"hidden":true}"#, headers: bearer(readKey)), 403,
                "/problems/insufficient-scope", authenticate: needsWrite)
            assertProblem(
                try s.send("POST", "/scenes/ring-demo/hit", #"{"x":1,"y":1,"pointer":"p","phase":"down"}"#, headers: bearer(readKey)),
                403, "/problems/insufficient-scope", authenticate: needsInteract)
            // A GET never carries pointer phases, whatever the key (SPEC §8: safe methods).
            XCTAssertEqual(try s.send("GET", "/scenes/ring-demo/hit?x=1&y=1&pointer=p&phase=down", headers: bearer(writeKey)).status, 422)
            assertProblem(
                try s.send(
                    "POST", "/scenes/ring-demo/hits", #"{"points":[{"x":1,"y":1,"pointer":"p","phase":"down"}]}"#,
                    headers: bearer(readKey)), 403, "/problems/insufficient-scope", authenticate: needsInteract)

            // interact: read plus pointer phases, not writes.
            XCTAssertEqual(
                try s.send(
                    "POST", "/scenes/ring-demo/hit", #"{"x":210,"y":120,"pointer":"p","phase":"down"}"#,
                    headers: bearer(interactKey)
                ).status, 200)
            XCTAssertEqual(
                try s.send(
                    "POST", "/scenes/ring-demo/hits", #"{"points":[{"x":1,"y":1,"pointer":"p","phase":"up"}]}"#,
                    headers: bearer(interactKey)
                ).status, 200)
            assertProblem(
                try s.send("PUT", "/scenes/ring-demo", ringScene, headers: bearer(interactKey)), 403,
                "/problems/insufficient-scope", authenticate: needsWrite)
            XCTAssertEqual(try s.send("DELETE", "/scenes/ring-demo", headers: bearer(writeKey)).status, 204)

            // Rejections are counted, keys never shown.
            let (metrics, parsed) = try s.scrape(key: readKey)
            XCTAssertEqual(parsed.value("hitroute_http_rejected_requests_total", ["reason": "unauthorized"]), 7)
            XCTAssertEqual(parsed.value("hitroute_http_rejected_requests_total", ["reason": "forbidden"]), 7)
            XCTAssertEqual(parsed.value("hitroute_auth_keys"), 3)
            XCTAssertEqual(parsed.value("hitroute_auth_enabled"), 1)
            for key in [readKey, interactKey, writeKey] { XCTAssertFalse(metrics.text.contains(key)) }
        }
    }

    func testKeysNeverReachTheLogInEitherFormat() throws {
        let access = try AccessControl(file: try writeKeyFile(keyFile, in: self))
        for format in LogFormat.allCases {
            let log = try withLiveService(
                {
                    $0.server.logRequests = true
                    $0.server.logFormat = format
                }, access: access
            ) { s in
                XCTAssertEqual(try s.send("PUT", "/scenes/a", #"{"layers":[]}"#, headers: bearer(writeKey)).status, 201)
                XCTAssertEqual(try s.send("GET", "/scenes/a", headers: bearer(readKey)).status, 200)
                XCTAssertEqual(try s.send("GET", "/scenes/a", headers: bearer("wrong-key-but-long-enough")).status, 401)
                // Even a key sent where a request id goes is not echoed: it is not a valid id (spaces).
                XCTAssertEqual(try s.send("GET", "/metrics", headers: bearer(interactKey)).status, 200)
            }
            XCTAssertEqual(log.split(separator: "\n").count, 4, log)
            for secret in [readKey, interactKey, writeKey, "wrong-key-but-long-enough", "Bearer", "Authorization"] {
                XCTAssertFalse(log.contains(secret), "\(format) log holds \(secret):\n\(log)")
            }
        }
    }

    /// A head admitted with its key hands its request the key's grant
    /// (no second lookup), only while the key set it was admitted under is
    /// in force: after a reload that drops the key, the request is refused.
    func testAdmittedHeadsGrantHoldsOnlyUnderItsKeySet() throws {
        let path = try writeKeyFile("read \(readKey)\nwrite \(writeKey)\n", in: self)
        let access = try AccessControl(file: path)
        let head = HTTPRequest(method: "POST", target: "/scenes/a/hit", headers: HTTPHeaders(bearer(writeKey)))
        let (grant, admission) = try access.authorizeHead(head, needs: .interact)
        XCTAssertEqual(grant.scope, .write)
        XCTAssertNotEqual(admission, 0)
        var request = head
        request.admission = admission
        XCTAssertEqual(try access.authorize(request, needs: .interact).scope, .write)
        // The same index now holds another key: the old admission must not name it.
        try "read \(readKey)\nwrite \(interactKey)\n".write(toFile: path, atomically: true, encoding: .utf8)
        guard case .success = access.reload() else { return XCTFail("reload failed") }
        XCTAssertThrowsError(try access.authorize(request, needs: .interact)) { error in
            XCTAssertEqual((error as? Problem)?.status, 401)
        }
        // An open service looks nothing up and notes nothing.
        XCTAssertEqual(try AccessControl.open.authorizeHead(head, needs: .write).admission, 0)
    }

    func testSIGHUPReloadsTheKeyFile() throws {
        let path = try writeKeyFile("read \(readKey)\n", in: self)
        let access = try AccessControl(file: path)
        try SignalWatcher.watch(SIGHUP) { access.reload() }
        try withLiveService(access: access) { s in
            XCTAssertEqual(try s.send("GET", "/scenes", headers: bearer(readKey)).status, 200)
            XCTAssertEqual(try s.send("GET", "/scenes", headers: bearer(writeKey)).status, 401)
            try "write \(writeKey)\n".write(toFile: path, atomically: true, encoding: .utf8)
            XCTAssertEqual(kill(getpid(), SIGHUP), 0)
            // Poll until the reload lands (no fixed sleep; a deadline far beyond need).
            let deadline = Date().addingTimeInterval(30)
            while access.reloadCounts.succeeded < 1 && Date() < deadline { usleep(1000) }
            XCTAssertEqual(access.reloadCounts.succeeded, 1)
            XCTAssertEqual(try s.send("GET", "/scenes", headers: bearer(writeKey)).status, 200)
            XCTAssertEqual(try s.send("GET", "/scenes", headers: bearer(readKey)).status, 401)
            // A broken file keeps the keys in force.
            try "write short\n".write(toFile: path, atomically: true, encoding: .utf8)
            XCTAssertEqual(kill(getpid(), SIGHUP), 0)
            while access.reloadCounts.failed < 1 && Date() < deadline { usleep(1000) }
            XCTAssertEqual(access.reloadCounts.failed, 1)
            XCTAssertEqual(try s.send("GET", "/scenes", headers: bearer(writeKey)).status, 200)
            let (_, parsed) = try s.scrape(key: writeKey)
            XCTAssertEqual(parsed.value("hitroute_auth_reloads_total", ["result": "success"]), 1)
            XCTAssertEqual(parsed.value("hitroute_auth_reloads_total", ["result": "failure"]), 1)
        }
    }

    func testAnOpenServiceNeedsNoKeyAndSaysSo() throws {
        try withLiveService { s in
            XCTAssertEqual(try s.send("DELETE", "/scenes/none").status, 404)
            XCTAssertEqual(try s.send("GET", "/metrics").status, 200)
        }
        XCTAssertEqual(Application.startupNotes(host: "127.0.0.1", access: .open).count, 1)
        XCTAssertEqual(Application.startupNotes(host: "::1", access: .open).count, 1)
        let wide = Application.startupNotes(host: "0.0.0.0", access: .open)
        XCTAssertEqual(wide.count, 2)
        XCTAssertEqual(wide[1].level, .warning)
        XCTAssertTrue(wide[1].message.contains("beyond loopback"))
        XCTAssertEqual(Application.startupNotes(host: "::", access: .open).count, 2)
        XCTAssertEqual(Application.startupNotes(host: "127.0.0.300", access: .open).count, 2)
        let closed = Application.startupNotes(host: "0.0.0.0", access: AccessControl(keys: try APIKeys(parsing: "read \(readKey)")))
        XCTAssertEqual(closed.count, 1)
        XCTAssertFalse(closed[0].message.contains(readKey))
    }
}

final class APIKeysTests: XCTestCase {
    func testParsing() throws {
        let keys = try APIKeys(parsing: "# c\n\nread aaaaaaaaaaaaaaaa\r\n  write\tbbbbbbbbbbbbbbbbbbbb  \n#write cccccccccccccccc\n")
        XCTAssertEqual(keys.count, 2)
        func scope(_ s: String) -> Scope? {
            var s = s
            return s.withUTF8 { keys.scope(of: $0) }
        }
        XCTAssertEqual(scope("aaaaaaaaaaaaaaaa"), .read)
        XCTAssertEqual(scope("bbbbbbbbbbbbbbbbbbbb"), .write)
        XCTAssertNil(scope("cccccccccccccccc"))
        XCTAssertNil(scope("aaaaaaaaaaaaaaa"))
        XCTAssertNil(scope("aaaaaaaaaaaaaaaaa"))
        XCTAssertNil(scope(""))
        XCTAssertEqual(try APIKeys(parsing: "").count, 0)
    }

    func testErrorsNameTheLineAndNeverTheKey() {
        let cases: [(String, String)] = [
            ("read\n", "line 1: expected"),
            ("read aaaaaaaaaaaaaaaa extra\n", "line 1: the third word must be scenes="),
            ("read aaaaaaaaaaaaaaaa scenes=a b\n", "line 1: expected"),
            ("read aaaaaaaaaaaaaaaa scenes=\n", "line 1: a scenes= prefix"),
            ("read aaaaaaaaaaaaaaaa scenes=a/b\n", "line 1: a scenes= prefix"),
            ("\nadmin aaaaaaaaaaaaaaaa\n", "line 2: unknown scope"),
            ("read secret-short\n", "line 1: the key is shorter than 16"),
            ("read aaaaaaaaaaaaaaaa\nwrite aaaaaaaaaaaaaaaa\n", "line 2: the same key as line 1"),
            ("read aaaaaaaa\u{7F}aaaaaaaaa\n", "line 1: a key is visible ASCII"),
        ]
        for (text, expected) in cases {
            do {
                _ = try APIKeys(parsing: text)
                XCTFail("accepted \(text.debugDescription)")
            } catch {
                XCTAssertTrue(error.message.hasPrefix(expected), "\(error.message) for \(text.debugDescription)")
                XCTAssertFalse(error.message.contains("aaaa") || error.message.contains("secret"), error.message)
            }
        }
    }

    func testConstantTimeEqualityAgreesWithEquality() {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<2000 {
            let a = (0..<Int.random(in: 0...5, using: &rng)).map { _ in UInt8.random(in: 0...2, using: &rng) }
            let b = (0..<Int.random(in: 0...5, using: &rng)).map { _ in UInt8.random(in: 0...2, using: &rng) }
            let equal = a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in APIKeys.constantTimeEqual(x, y) } }
            XCTAssertEqual(equal, a == b, "\(a) \(b)")
        }
    }

    func testBearerToken() {
        func token(_ s: String) -> String? {
            var s = s
            return s.withUTF8 { AccessControl.bearerToken($0).map { String(decoding: $0, as: UTF8.self) } }
        }
        XCTAssertEqual(token("Bearer abc"), "abc")
        XCTAssertEqual(token("bEaReR   abc  "), "abc")
        XCTAssertEqual(token("Bearer "), "")
        XCTAssertNil(token("Bearer"))
        XCTAssertNil(token("Bearerabc"))
        XCTAssertNil(token("Basic abc"))
        XCTAssertNil(token(""))
    }
}
