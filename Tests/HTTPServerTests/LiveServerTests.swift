import Foundation
import Glibc
import TestSupport
import XCTest

@testable import HTTPServer

/// The real server on an ephemeral port, spoken to over raw sockets.
final class LiveServerTests: XCTestCase {
    func testSimpleRequestHasDateLengthAndBody() throws {
        try withServer { _, port in
            let client = try TestClient(port: port)
            try client.send("GET /hello?x=1 HTTP/1.1\r\nHost: t\r\n\r\n")
            let r = try client.readResponse()
            XCTAssertEqual(r.status, 200)
            XCTAssertEqual(r.text, "GET /hello x=1 0")
            XCTAssertEqual(r["content-length"], "16")
            XCTAssertEqual(r["content-type"], "text/plain")
            XCTAssertNil(r["connection"])
            let date = try XCTUnwrap(r["date"])
            XCTAssertEqual(date.count, 29)
            XCTAssertTrue(date.hasSuffix(" GMT"), date)
        }
    }

    func testByteByByteRequest() throws {
        try withServer { _, port in
            let client = try TestClient(port: port)
            for byte in Array("POST /bytes HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello".utf8) {
                try client.send([byte])
            }
            let r = try client.readResponse()
            XCTAssertEqual(r.text, "POST /bytes  5")
        }
    }

    func testPipelinedRequestsAreAnsweredInOrder() throws {
        try withServer { _, port in
            let client = try TestClient(port: port)
            try client.send(
                "GET /1 HTTP/1.1\r\nHost: t\r\n\r\nPOST /2 HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabcGET /3 HTTP/1.1\r\nHost: t\r\n\r\n"
            )
            XCTAssertEqual(try client.readResponse().text, "GET /1  0")
            XCTAssertEqual(try client.readResponse().text, "POST /2  3")
            XCTAssertEqual(try client.readResponse().text, "GET /3  0")
        }
    }

    func testKeepAliveReusesOneConnection() throws {
        try withServer { server, port in
            let client = try TestClient(port: port)
            for i in 0..<20 {
                try client.send("GET /k\(i) HTTP/1.1\r\nHost: t\r\n\r\n")
                XCTAssertEqual(try client.readResponse().text, "GET /k\(i)  0")
            }
            XCTAssertEqual(server.openConnections, 1)
        }
    }

    func testConnectionCloseIsHonoured() throws {
        try withServer { _, port in
            let client = try TestClient(port: port)
            try client.send("GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            let r = try client.readResponse()
            XCTAssertEqual(r["connection"], "close")
            XCTAssertTrue(client.isClosedByPeer())
        }
    }

    func testHandlerConnectionCloseIsHonoured() throws {
        try withServer { _, port in
            let client = try TestClient(port: port)
            try client.send("GET /close HTTP/1.1\r\nHost: t\r\n\r\n")
            let r = try client.readResponse()
            XCTAssertEqual(r.text, "bye")
            XCTAssertEqual(r.headers.filter { $0.0.lowercased() == "connection" }.count, 1)
            XCTAssertTrue(client.isClosedByPeer())
        }
    }

    func testHTTP10ClosesUnlessKeepAlive() throws {
        try withServer { _, port in
            let plain = try TestClient(port: port)
            try plain.send("GET /old HTTP/1.0\r\n\r\n")
            let r = try plain.readResponse()
            XCTAssertEqual(r.text, "GET /old  0")
            XCTAssertEqual(r["connection"], "close")
            XCTAssertTrue(plain.isClosedByPeer())

            let kept = try TestClient(port: port)
            try kept.send("GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            XCTAssertEqual(try kept.readResponse()["connection"], "keep-alive")
            try kept.send("GET /b HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            XCTAssertEqual(try kept.readResponse().text, "GET /b  0")
        }
    }

    func testHeadSendsHeadersWithoutBody() throws {
        try withServer { _, port in
            let client = try TestClient(port: port)
            try client.send("HEAD /big?n=1000 HTTP/1.1\r\nHost: t\r\n\r\n")
            let r = try client.readResponse(head: true)
            XCTAssertEqual(r.status, 200)
            XCTAssertEqual(r["content-length"], "1000")
            // The next response starts right away: no body bytes were sent.
            try client.send("GET /after HTTP/1.1\r\nHost: t\r\n\r\n")
            XCTAssertEqual(try client.readResponse().text, "GET /after  0")
            XCTAssertEqual(client.unread, 0)
        }
    }

    func testExpectContinue() throws {
        try withServer { _, port in
            let client = try TestClient(port: port)
            try client.send("PUT /up HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n")
            let interim = try client.readResponse()
            XCTAssertEqual(interim.status, 100)
            try client.send("data")
            let r = try client.readResponse()
            XCTAssertEqual(r.text, "PUT /up  4")
        }
    }

    func testExpectContinueIsNotSentWhenRejected() throws {
        try withServer(configure: { $0.limits.maxBodyBytes = 10 }) { _, port in
            let client = try TestClient(port: port)
            try client.send("PUT /up HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 11\r\n\r\n")
            let r = try client.readResponse()
            XCTAssertEqual(r.status, 413)
            XCTAssertEqual(r["content-type"], "application/problem+json")
            XCTAssertTrue(client.isClosedByPeer())
        }
    }

    func testChunkedBodyWithExtensionsAndTrailers() throws {
        try withServer { _, port in
            let client = try TestClient(port: port)
            try client.send(
                "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "5;a=b\r\nhello\r\n1;q=\"x y\"\r\n \r\n5\r\nworld\r\n0\r\nTrailer-One: 1\r\n\r\n")
            XCTAssertEqual(try client.readResponse().text, "hello world")
            try client.send("GET /next HTTP/1.1\r\nHost: t\r\n\r\n")
            XCTAssertEqual(try client.readResponse().text, "GET /next  0")
        }
    }

    func testEveryRejectionOverTheWire() throws {
        let cases: [(String, Int)] = [
            ("GET / HTTP/1.1\r\nHost t\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nHost : t\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nHo\"st: t\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nHost: t\r\nX: a\r\n b\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nHost: t\rX: y\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nHost: t\r\nX: a\u{0}b\r\n\r\n", 400),
            ("GET / HTTP/9\r\nHost: t\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: x\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
            ("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
            ("GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\nHost: t\r\n\r\n", 414),
            ("GET / HTTP/1.1\r\nHost: t\r\nX: " + String(repeating: "a", count: 17000) + "\r\n\r\n", 431),
            ("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 16777217\r\n\r\n", 413),
            ("BREW / HTTP/1.1\r\nHost: t\r\n\r\n", 501),
            ("GET / HTTP/2.0\r\nHost: t\r\n\r\n", 505),
        ]
        try withServer { _, port in
            for (raw, status) in cases {
                let client = try TestClient(port: port)
                try client.send(raw)
                let r = try client.readResponse()
                XCTAssertEqual(r.status, status, raw.prefix(60).debugDescription)
                XCTAssertEqual(r["content-type"], "application/problem+json")
                XCTAssertEqual(r["connection"], "close")
                XCTAssertTrue(r.text.hasPrefix("{\"type\":\"/problems/"), r.text)
                XCTAssertTrue(r.text.contains("\"status\":\(status)"), r.text)
                XCTAssertTrue(client.isClosedByPeer(), "not closed after \(status)")
            }
        }
    }

    func testOversizedChunkedBodyIsRejectedWithoutReadingIt() throws {
        try withServer(configure: { $0.limits.maxBodyBytes = 1000 }) { _, port in
            let client = try TestClient(port: port)
            try client.send("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n400\r\n")
            XCTAssertEqual(try client.readResponse().status, 413)
            XCTAssertTrue(client.isClosedByPeer())
        }
    }

    func testIPv6Loopback() throws {
        do {
            try withServer(host: "::1") { _, port in
                let client = try TestClient(host: "::1", port: port)
                try client.send("GET /six HTTP/1.1\r\nHost: [::1]\r\n\r\n")
                XCTAssertEqual(try client.readResponse().text, "GET /six  0")
            }
        } catch let error as SystemCallError where error.function == "bind" || error.function == "socket" {
            throw XCTSkip("IPv6 unavailable: \(error)")
        } catch let error as HTTPServerError {
            throw XCTSkip("IPv6 unavailable: \(error)")
        }
    }

    func testWildcardIPv6ListensOnBothFamilies() throws {
        do {
            try withServer(host: "::") { _, port in
                for host in ["::1", "127.0.0.1"] {
                    let client = try TestClient(host: host, port: port)
                    try client.send("GET /any HTTP/1.1\r\nHost: x\r\n\r\n")
                    XCTAssertEqual(try client.readResponse().text, "GET /any  0", host)
                }
            }
        } catch let error as SystemCallError where error.function == "bind" || error.function == "socket" {
            throw XCTSkip("IPv6 unavailable: \(error)")
        } catch let error as HTTPServerError {
            throw XCTSkip("IPv6 unavailable: \(error)")
        }
    }

    func testBigResponseIsReadFully() throws {
        try withServer { _, port in
            let client = try TestClient(port: port)
            let n = 4 * 1024 * 1024 + 17
            try client.send("GET /big?n=\(n) HTTP/1.1\r\nHost: t\r\n\r\n")
            let r = try client.readResponse()
            XCTAssertEqual(r.body.count, n)
            XCTAssertTrue(r.body.enumerated().allSatisfy { $0.element == UInt8(truncatingIfNeeded: $0.offset &* 31 &+ 7) })
            try client.send("GET /again HTTP/1.1\r\nHost: t\r\n\r\n")
            XCTAssertEqual(try client.readResponse().text, "GET /again  0")
        }
    }

    /// The upload's handler is held until the other request has been
    /// answered: were it run on the only loop, that answer could not come.
    func testBigBodyHandlerIsOffloadedAndDoesNotStallTheLoop() throws {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let heldBig: HTTPHandler = { request in
            if request.body.count >= 1000 {
                entered.signal()
                _ = release.wait(timeout: .now() + hangGuardSeconds)
            }
            return testHandler(request)
        }
        try withServer(
            configure: {
                $0.eventLoops = 1
                $0.offloadBodyBytes = 1000
            }, handler: heldBig
        ) { _, port in
            defer { release.signal() }
            let uploader = try TestClient(port: port)
            let body = [UInt8](repeating: 0x61, count: 200_000)
            try uploader.send(Array("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body)
            XCTAssertEqual(entered.wait(timeout: .now() + hangGuardSeconds), .success, "the upload's handler runs")
            // The only loop must still answer while the upload's handler runs.
            let other = try TestClient(port: port)
            try other.send("GET /quick HTTP/1.1\r\nHost: t\r\n\r\n")
            XCTAssertEqual(try other.readResponse().text, "GET /quick  0")
            XCTAssertFalse(uploader.waitReadable(timeout: 0), "the upload is still held")
            release.signal()
            XCTAssertEqual(try uploader.readResponse().text, "POST /upload  200000")
            // The connection carries on after the offloaded request.
            try uploader.send("GET /then HTTP/1.1\r\nHost: t\r\n\r\n")
            XCTAssertEqual(try uploader.readResponse().text, "GET /then  0")
        }
    }

    func testPipelinedRequestAfterOffloadedOneWaitsItsTurn() throws {
        try withServer(configure: { $0.offloadBodyBytes = 100 }) { _, port in
            let client = try TestClient(port: port)
            let body = String(repeating: "z", count: 500)
            try client.send("POST /a HTTP/1.1\r\nHost: t\r\nContent-Length: 500\r\n\r\n\(body)GET /b HTTP/1.1\r\nHost: t\r\n\r\n")
            XCTAssertEqual(try client.readResponse().text, "POST /a  500")
            XCTAssertEqual(try client.readResponse().text, "GET /b  0")
        }
    }
}
