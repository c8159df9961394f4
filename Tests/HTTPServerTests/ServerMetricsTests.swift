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
            XCTAssertEqual(stats.requests, [
                .init(route: "unmatched", method: "GET", code: "404", count: 5),
                .init(route: "/a", method: "GET", code: "200", count: 5),
            ])
            XCTAssertEqual(stats.durations.map(\.route), ["unmatched", "/a"])
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

final class RequestLayoutTests: XCTestCase {
    /// The server's notes on a request (id, loop) live in padding: a larger
    /// request is moved with memcpy on every hop, which the hit path feels.
    func testTheRequestStaysAsSmallAsBefore() {
        XCTAssertLessThanOrEqual(MemoryLayout<HTTPRequest>.size, 120)
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
