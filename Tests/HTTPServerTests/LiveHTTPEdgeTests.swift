import TestSupport
import XCTest

@testable import HTTPServer

/// HTTP edges over a real socket (the Host field's grammar, many header
/// fields, chunk extensions), each on a fresh connection.
final class LiveHTTPEdgeTests: XCTestCase {
    func testHostsThatAreNotURIHostAndPortAre400AndClose() throws {
        try withServer { _, port in
            for host in ["bad/host", "a b", "a@b@c", "a?b", "a#b", "[::1"] {
                let client = try TestClient(port: port)
                try client.send("GET /x HTTP/1.1\r\nHost: \(host)\r\n\r\n")
                let r = try client.readResponse()
                XCTAssertEqual(r.status, 400, host)
                XCTAssertEqual(r["content-type"], "application/problem+json", host)
                XCTAssertTrue(r.text.contains("Host"), r.text)
                XCTAssertEqual(r["connection"], "close", host)
                XCTAssertTrue(client.isClosedByPeer(), host)
            }
            let client = try TestClient(port: port)
            for host in ["[::1]:8080", "localhost:1", "127.0.0.1"] {
                try client.send("GET /x HTTP/1.1\r\nHost: \(host)\r\n\r\n")
                XCTAssertEqual(try client.readResponse().status, 200, host)
            }
        }
    }

    func testAHundredOrdinaryFieldsAre200() throws {
        try withServer { _, port in
            var raw = "GET /x HTTP/1.1\r\nHost: t\r\n"
            for i in 0..<100 { raw += "X-Custom-Field-\(i): some ordinary value \(i)\r\n" }
            let client = try TestClient(port: port)
            try client.send(raw + "\r\n")
            XCTAssertEqual(try client.readResponse().text, "GET /x  0")
        }
    }

    func testTheFieldCountCapIsConfigurable() throws {
        try withServer(configure: { $0.limits.maxHeaderCount = 10 }) { _, port in
            var raw = "GET /x HTTP/1.1\r\nHost: t\r\n"
            for i in 0..<10 { raw += "X-\(i): v\r\n" }
            let client = try TestClient(port: port)
            try client.send(raw + "\r\n")
            XCTAssertEqual(try client.readResponse().status, 431)
            XCTAssertTrue(client.isClosedByPeer())
        }
    }

    /// The answer comes from the chunk line alone: no chunk data is sent
    /// (a 422 from the handler would need the whole body).
    func testAChunkExtensionOutsideTheGrammarIs400AndCloseBeforeTheBody() throws {
        try withServer { _, port in
            let client = try TestClient(port: port)
            try client.send("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5;a=\"unterminated\r\n")
            let r = try client.readResponse()
            XCTAssertEqual(r.status, 400)
            XCTAssertTrue(r.text.contains("chunk extension"), r.text)
            XCTAssertEqual(r["connection"], "close")
            XCTAssertTrue(client.isClosedByPeer())
        }
    }

    /// The server's own refusals of a HEAD request (an unmet expectation,
    /// a field past the header limit, a bad chunk line) carried their JSON
    /// content; a response to HEAD carries none (RFC 9110 §9.3.2), though its
    /// Content-Length says what a GET would get. Other methods still get it.
    func testTheServersOwnRefusalsOfHEADCarryNoContent() throws {
        try withServer { _, port in
            let refusals = [
                ("Expect: foo\r\n", 417),
                ("X-Big: " + String(repeating: "v", count: 17_000) + "\r\n", 431),
                ("Transfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
            ]
            for (fields, status) in refusals {
                let head = try TestClient(port: port)
                try head.send("HEAD /x HTTP/1.1\r\nHost: t\r\n" + fields + (fields.hasSuffix("\r\n\r\nzz\r\n") ? "" : "\r\n"))
                let r = try head.readResponse(head: true)
                XCTAssertEqual(r.status, status, fields)
                XCTAssertGreaterThan(Int(r["content-length"] ?? "") ?? 0, 0, fields)
                XCTAssertTrue(head.isClosedByPeer(), "content after the head of a HEAD answer: \(fields.prefix(30))")

                let get = try TestClient(port: port)
                try get.send("GET /x HTTP/1.1\r\nHost: t\r\n" + fields + (fields.hasSuffix("\r\n\r\nzz\r\n") ? "" : "\r\n"))
                let g = try get.readResponse()
                XCTAssertEqual(g.status, status, fields)
                XCTAssertTrue(g.text.contains("/problems/"), g.text)
            }
        }
    }
}
