import Foundation
import TestSupport
import XCTest

@testable import HitAPI

/// Request ids and the access log (SPEC §8) over real sockets.
final class LiveRequestIDTests: XCTestCase {
    func isGenerated(_ id: String?) -> Bool {
        guard let id else { return false }
        return id.utf8.count == 20 && id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    func testAValidIdIsKeptAndAnyOtherReplaced() throws {
        try withLiveService { s in
            let given = try s.send("GET", "/scenes/none", headers: [("X-Request-Id", "client-42/a:b")])
            XCTAssertEqual(given.status, 404)
            XCTAssertEqual(given["X-Request-Id"], "client-42/a:b")
            XCTAssertEqual(json(given)["requestId"] as? String, "client-42/a:b")
            let longest = String(repeating: "~", count: 128)
            XCTAssertEqual(try s.send("GET", "/healthz", headers: [("x-request-id", longest)])["X-Request-Id"], longest)

            // None, too long, a space inside, non-ASCII, empty: a fresh id each time.
            var seen = Set<String>()
            for header in [nil, String(repeating: "a", count: 129), "two words", "caf\u{E9}", ""] as [String?] {
                let r = try s.send("GET", "/healthz", headers: header.map { [("X-Request-Id", $0)] } ?? [])
                XCTAssertEqual(r.status, 200)
                XCTAssertTrue(isGenerated(r["X-Request-Id"]), "\(String(describing: r["X-Request-Id"])) for \(String(describing: header))")
                seen.insert(r["X-Request-Id"] ?? "")
            }
            XCTAssertEqual(seen.count, 5, "generated ids repeat: \(seen)")
            // One id, even if the handler's answer carried another field of that name: exactly one field.
            let r = try s.send("GET", "/healthz", headers: [("X-Request-Id", "abc")])
            XCTAssertEqual(r.headers.filter { $0.0.lowercased() == "x-request-id" }.count, 1)
        }
    }

    func testTheServersOwnProblemsCarryTheIdToo() throws {
        try withLiveService({ $0.server.limits.maxHeaderBytes = 512 }) { s in
            let r = try s.send("GET", "/healthz", headers: [("X-Big", String(repeating: "a", count: 600))])
            XCTAssertEqual(r.status, 431)
            XCTAssertTrue(isGenerated(r["X-Request-Id"]))
            XCTAssertEqual(json(r)["requestId"] as? String, r["X-Request-Id"])
            let client = try TestClient(port: s.port)
            try client.send("GET /healthz HTTP/1.1\r\nHost test\r\n\r\n")
            let malformed = try client.readResponse()
            XCTAssertEqual(malformed.status, 400)
            XCTAssertEqual(json(malformed)["requestId"] as? String, malformed["X-Request-Id"])
        }
    }

    func testJSONLogLinesHoldEveryField() throws {
        let log = try withLiveService({
            $0.server.logRequests = true
            $0.server.logFormat = .json
        }) { s in
            XCTAssertEqual(try s.send("PUT", "/scenes/ring-demo", ringScene, headers: [("X-Request-Id", "put-1")]).status, 201)
            XCTAssertEqual(
                try s.send("POST", "/scenes/ring-demo/hit?ignored=1", #"{"x":1,"y":1}"#, headers: [("X-Request-Id", #"say"hi\"#)]).status,
                200)
        }
        let lines = log.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        XCTAssertEqual(lines.count, 2, log)
        // Each loop writes its own lines, and the upload is answered from a
        // worker: the two lines may come in either order.
        guard lines.count == 2, let put = lines.first(where: { $0?["method"] as? String == "PUT" }) ?? nil,
            let hit = lines.first(where: { $0?["method"] as? String == "POST" }) ?? nil
        else { return XCTFail("not two JSON lines, a PUT and a POST: \(log)") }
        XCTAssertEqual(
            Set(put.keys), ["time", "method", "path", "route", "status", "duration", "bytesIn", "bytesOut", "remote", "requestId"])
        XCTAssertEqual(put["method"] as? String, "PUT")
        XCTAssertEqual(put["path"] as? String, "/scenes/ring-demo")
        XCTAssertEqual(put["route"] as? String, "/scenes/{id}")
        XCTAssertEqual(put["status"] as? Int, 201)
        XCTAssertEqual(put["requestId"] as? String, "put-1")
        XCTAssertGreaterThan(put["bytesIn"] as? Int ?? 0, ringScene.utf8.count)
        XCTAssertGreaterThan(put["bytesOut"] as? Int ?? 0, 100)
        XCTAssertTrue((put["remote"] as? String ?? "").hasPrefix("127.0.0.1:"))
        let duration = put["duration"] as? Double ?? -1
        XCTAssertTrue(duration > 0 && duration.isFinite, "\(duration)")
        let time = put["time"] as? String ?? ""
        XCTAssertNotNil(
            ISO8601DateFormatter().date(from: time.replacingOccurrences(of: #"\.\d+"#, with: "", options: .regularExpression)), time)
        XCTAssertEqual(time.count, "2026-12-01T09:30:00.123456Z".count)
        XCTAssertEqual(hit["route"] as? String, "/scenes/{id}/hit")
        XCTAssertEqual(hit["path"] as? String, "/scenes/ring-demo/hit", "the query is not logged")
        // Quotes and backslashes are visible ASCII: kept, and escaped in the line.
        XCTAssertEqual(hit["requestId"] as? String, #"say"hi\"#, log)
    }

    func testTextLogLineEndsWithTheId() throws {
        let log = try withLiveService({ $0.server.logRequests = true }) { s in
            XCTAssertEqual(try s.send("GET", "/healthz", headers: [("X-Request-Id", "text-1")]).status, 200)
        }
        XCTAssertTrue(log.hasPrefix("GET /healthz 200 "), log)
        XCTAssertTrue(log.hasSuffix("B text-1\n"), log)
    }
}
