import Glibc
import TestSupport
import XCTest

@testable import HTTPServer

/// The server's own counters, through real sockets.
final class ServerMetricsTests: XCTestCase {
    func testCountsByRouteLabelAndBytesExactly() throws {
        let handler: HTTPHandler = { request in
            HTTPResponse(status: request.path == "/b" ? 404 : 200, body: Array("ok".utf8), routeLabel: request.path == "/a" ? 1 : 0)
        }
        try withServer(configure: { $0.routeLabels = ["unmatched", "/a"] }, handler: handler) { server, port in
            let client = try TestClient(port: port)
            var sent = 0
            for i in 0..<10 {
                let text = "GET /\(i % 2 == 0 ? "a" : "b") HTTP/1.1\r\nHost: x\r\n\r\n"
                sent += text.utf8.count
                try client.send(text)
                _ = try client.readResponse()
            }
            let stats = server.statistics()
            XCTAssertEqual(
                stats.requests,
                [
                    .init(route: "unmatched", method: "GET", code: "404", count: 5),
                    .init(route: "/a", method: "GET", code: "200", count: 5),
                ])
            XCTAssertEqual(stats.durations.map(\.route), ["unmatched", "/a"])
            XCTAssertEqual(stats.durations.map { "\($0.method) \($0.code)" }, ["GET 4xx", "GET 2xx"])
            XCTAssertEqual(stats.durations.map { $0.bucketCounts.reduce(0, +) }, [5, 5])
            XCTAssertEqual(stats.durations.first?.bucketCounts.count, stats.upperBounds.count + 1)
            XCTAssertEqual(stats.bytesIn, UInt64(sent))
            XCTAssertEqual(stats.inFlight, 0)
            XCTAssertEqual(stats.acceptedConnections, 1)
            XCTAssertEqual(stats.openConnections, 1)
        }
    }

    func testAnOutOfRangeLabelCountsAsUnmatchedAndEveryResponseHasAnID() throws {
        let handler: HTTPHandler = { _ in HTTPResponse(status: 200, headers: ["X-Request-Id": "from-handler"], routeLabel: 99) }
        try withServer(handler: handler) { server, port in
            let client = try TestClient(port: port)
            try client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            let r = try client.readResponse()
            XCTAssertEqual(r.headers.filter { $0.0 == "X-Request-Id" }.count, 1)
            XCTAssertNotEqual(r["X-Request-Id"], "from-handler")
            XCTAssertEqual(server.statistics().requests.first?.route, "unmatched")
        }
    }
}

/// Counting by method and by duration bucket without strings or loops.
final class ServerMetricsSlotTests: XCTestCase {
    func testEveryMethodIsCountedUnderItsOwnName() throws {
        try withServer(handler: { _ in HTTPResponse(status: 200) }) { server, port in
            let client = try TestClient(port: port)
            for method in ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "GET", "POST"] {
                try client.send("\(method) /m HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
                _ = try client.readResponse(head: method == "HEAD")
            }
            try client.send("CONNECT h:1 HTTP/1.1\r\nHost: h:1\r\n\r\n")
            _ = try client.readResponse()
            let bad = try TestClient(port: port)
            try bad.send("BREW /pot HTTP/1.1\r\nHost: x\r\n\r\n")
            XCTAssertEqual(try bad.readResponse().status, 501)
            let counted = Dictionary(server.statistics().requests.map { ($0.method, $0.count) }, uniquingKeysWith: +)
            XCTAssertEqual(
                counted,
                [
                    "GET": 2, "HEAD": 1, "POST": 2, "PUT": 1, "DELETE": 1, "PATCH": 1, "OPTIONS": 1,
                    "TRACE": 1, "CONNECT": 1, "other": 1,
                ])
        }
    }

    func testTheBucketSearchAgreesWithTheBucketScan() {
        let metrics = ServerMetrics(routeLabels: ["a"], loops: 1)
        let counters = metrics.loopCounters(0)
        var values: [UInt64] = [0, 1, .max, .max - 1]
        for bound in metrics.buckets.nanoseconds { values += [bound - 1, bound, bound + 1] }
        var random = SplitMix64(seed: 16)
        for _ in 0..<10_000 { values.append(random.next() >> (random.next() % 64)) }
        for ns in values {
            XCTAssertEqual(counters.bucket(ns), metrics.buckets.index(of: ns), "\(ns) ns")
        }
    }
}

final class RequestLayoutTests: XCTestCase {
    /// The server's notes on a request (id, loop) live in padding: a larger
    /// request is moved with memcpy on every hop, which the hit path feels.
    /// 128 bytes: four strings, the headers (five words, with the offset of
    /// the fields in the shared head and the `Authorization` note), the
    /// admission, the body and the version's word of notes.
    func testTheRequestStaysAsSmallAsBefore() {
        XCTAssertLessThanOrEqual(MemoryLayout<HTTPRequest>.size, 128)
    }

    func testTheNotesRoundTrip() {
        var r = HTTPRequest(target: "/", headers: HTTPHeaders([("X-Request-Id", "abc")]))
        XCTAssertNil(r.requestID)
        XCTAssertNil(r.eventLoop)
        r.noteLoop(7, serial: 0xAB_1234_5678, handlerOnLoop: true)
        XCTAssertEqual(r.eventLoop, 7)
        XCTAssertTrue(r.requestID?.description.hasSuffix("07ab12345678") ?? false, "\(String(describing: r.requestID))")
        r.noteLoop(7, serial: 1, handlerOnLoop: false)
        XCTAssertNil(r.eventLoop)
        r.useClientRequestID()
        r.noteLoop(3, serial: 9, handlerOnLoop: true)
        XCTAssertEqual(r.requestID?.description, "abc")
        XCTAssertEqual(r.eventLoop, 3)
    }
}
