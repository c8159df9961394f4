import XCTest

@testable import HTTPServer

/// Every rejection, with its exact error kind and status, whatever the split.
final class HTTPRequestParserRejectionTests: XCTestCase {
    func assertRejects(
        _ raw: [UInt8], _ kind: HTTPParseError.Kind, status: Int, limits: HTTPLimits = HTTPLimits(),
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let e = parseEverySplit(raw, limits: limits, randomSplits: 10, file: file, line: line)
        guard case .error(let error)? = e.last else {
            return XCTFail("expected \(kind), got \(e)", file: file, line: line)
        }
        XCTAssertEqual(error.kind, kind, "\(error)", file: file, line: line)
        XCTAssertEqual(error.status, status, file: file, line: line)
    }

    func assertRejects(
        _ raw: String, _ kind: HTTPParseError.Kind, status: Int, limits: HTTPLimits = HTTPLimits(),
        file: StaticString = #filePath, line: UInt = #line
    ) {
        assertRejects(Array(raw), kind, status: status, limits: limits, file: file, line: line)
    }

    func testMalformedRequestLine() {
        assertRejects("GET  / HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget, status: 400)
        assertRejects("GET /a b HTTP/1.1\r\nHost: h\r\n\r\n", .invalidVersion, status: 400)
        assertRejects("G(T / HTTP/1.1\r\nHost: h\r\n\r\n", .invalidMethod, status: 400)
        assertRejects(" GET / HTTP/1.1\r\nHost: h\r\n\r\n", .invalidMethod, status: 400)
        assertRejects("GET /\r\n\r\n", .invalidTarget, status: 400)
        assertRejects("GET / HTTP/1.1 \r\nHost: h\r\n\r\n", .invalidVersion, status: 400)
        assertRejects("GET / http/1.1\r\nHost: h\r\n\r\n", .invalidVersion, status: 400)
        assertRejects("GET / HTTP/1\r\nHost: h\r\n\r\n", .invalidVersion, status: 400)
        assertRejects("GET / HTTP/1.x\r\nHost: h\r\n\r\n", .invalidVersion, status: 400)
        assertRejects("GET a HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget, status: 400)
        assertRejects("GET * HTTP/1.1\r\nHost: h\r\n\r\n", .invalidTarget, status: 400)
        assertRejects([UInt8]("GET /") + [0] + Array(" HTTP/1.1\r\nHost: h\r\n\r\n"), .invalidTarget, status: 400)
        assertRejects([UInt8]("GET /caf") + [0xC3, 0xA9] + Array(" HTTP/1.1\r\nHost: h\r\n\r\n"), .invalidTarget, status: 400)
    }

    func testBadLineEndings() {
        assertRejects("GET / HTTP/1.1\nHost: h\r\n\r\n", .invalidVersion, status: 400)
        assertRejects("GET / HTTP/1.1\rHost: h\r\n\r\n", .invalidLineEnding, status: 400)
        assertRejects("GET / HTTP/1.1\r\nHost: h\n\r\n", .invalidLineEnding, status: 400)
        assertRejects("GET / HTTP/1.1\r\nHost: h\rX: y\r\n\r\n", .invalidLineEnding, status: 400)
        assertRejects("GET / HTTP/1.1\r\nHost: h\r\n\n", .invalidLineEnding, status: 400)
        assertRejects("GET / HTTP/1.1\r\nHost: h\r\n\rX", .invalidLineEnding, status: 400)
        assertRejects("\nGET / HTTP/1.1\r\nHost: h\r\n\r\n", .invalidLineEnding, status: 400)
    }

    func testUnsupportedVersion() {
        assertRejects("GET / HTTP/2.0\r\nHost: h\r\n\r\n", .unsupportedVersion, status: 505)
        assertRejects("GET / HTTP/0.9\r\n\r\n", .unsupportedVersion, status: 505)
    }

    func testMalformedFieldLines() {
        assertRejects("GET / HTTP/1.1\r\nHost h\r\n\r\n", .whitespaceBeforeColon, status: 400)
        assertRejects("GET / HTTP/1.1\r\nHost\r\n\r\n", .invalidFieldName, status: 400)
        assertRejects("GET / HTTP/1.1\r\nHost : h\r\n\r\n", .whitespaceBeforeColon, status: 400)
        assertRejects("GET / HTTP/1.1\r\nHost: h\r\n: empty\r\n\r\n", .invalidFieldName, status: 400)
        assertRejects("GET / HTTP/1.1\r\nHo(st: h\r\n\r\n", .invalidFieldName, status: 400)
        assertRejects("GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n  folded\r\n\r\n", .obsoleteLineFolding, status: 400)
        assertRejects("GET / HTTP/1.1\r\n Host: h\r\n\r\n", .obsoleteLineFolding, status: 400)
        assertRejects([UInt8]("GET / HTTP/1.1\r\nHost: h\r\nX: a") + [0] + Array("b\r\n\r\n"), .invalidFieldValue, status: 400)
        assertRejects([UInt8]("GET / HTTP/1.1\r\nHost: h\r\nX: a") + [0x7F] + Array("\r\n\r\n"), .invalidFieldValue, status: 400)
        assertRejects([UInt8]("GET / HTTP/1.1\r\nHost: h\r\nX: a") + [0x01] + Array("\r\n\r\n"), .invalidFieldValue, status: 400)
        assertRejects([UInt8]("GET / HTTP/1.1\r\nHost: h\r\nX") + [0] + Array(": a\r\n\r\n"), .invalidFieldName, status: 400)
        // A control byte far into a long value, past whole words of valid ones.
        for control: UInt8 in [0, 0x01, 0x0A, 0x1F, 0x7F] {
            for at in [8, 9, 15, 16, 23] {
                var value = [UInt8](repeating: UInt8(ascii: "v"), count: 30)
                value[at] = control
                let expected: HTTPParseError.Kind = control == 0x0A ? .invalidLineEnding : .invalidFieldValue
                assertRejects([UInt8]("GET / HTTP/1.1\r\nHost: h\r\nX: ") + value + Array("\r\n\r\n"), expected, status: 400)
            }
        }
    }

    func testHost() {
        assertRejects("GET / HTTP/1.1\r\nAccept: */*\r\n\r\n", .missingHost, status: 400)
        assertRejects("GET / HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n", .duplicateHost, status: 400)
        assertRejects("GET / HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n", .duplicateHost, status: 400)
    }

    func testSmugglingAttemptsAreRefused() {
        assertRejects(
            "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            .contentLengthWithTransferEncoding, status: 400)
        assertRejects(
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n",
            .contentLengthWithTransferEncoding, status: 400)
        assertRejects(
            "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
            .invalidContentLength, status: 400)
        assertRejects("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3, 4\r\n\r\nabcd", .invalidContentLength, status: 400)
        assertRejects("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: abc\r\n\r\n", .invalidContentLength, status: 400)
        assertRejects("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +3\r\n\r\nabc", .invalidContentLength, status: 400)
        assertRejects("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", .invalidContentLength, status: 400)
        assertRejects("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0x10\r\n\r\n", .invalidContentLength, status: 400)
        assertRejects("POST / HTTP/1.1\r\nHost: h\r\nContent-Length:\r\n\r\n", .invalidContentLength, status: 400)
        assertRejects("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1 2\r\n\r\n", .invalidContentLength, status: 400)
        assertRejects(
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n",
            .invalidTransferEncoding, status: 400)
        assertRejects(
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
            .invalidTransferEncoding, status: 400)
        assertRejects("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", .invalidTransferEncoding, status: 400)
    }

    func testUnsupportedTransferCoding() {
        assertRejects("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n", .unsupportedTransferCoding, status: 501)
        assertRejects("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", .unsupportedTransferCoding, status: 501)
        assertRejects("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", .unsupportedTransferCoding, status: 501)
        assertRejects("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: xchunked\r\n\r\n", .unsupportedTransferCoding, status: 501)
    }

    func testBadChunks() {
        let head = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
        assertRejects(head + "z\r\n", .invalidChunkSize, status: 400)
        assertRejects(head + "\r\n", .invalidChunkSize, status: 400)
        assertRejects(head + ";ext\r\n", .invalidChunkSize, status: 400)
        assertRejects(head + "-1\r\n", .invalidChunkSize, status: 400)
        assertRejects(head + "5 \r\nhello\r\n0\r\n\r\n", .invalidChunkSize, status: 400)
        assertRejects(head + "0x5\r\nhello\r\n", .invalidChunkSize, status: 400)
        assertRejects(head + "5\r\nhelloX\r\n", .invalidChunkTerminator, status: 400)
        assertRejects(head + "5\nhello\r\n", .invalidLineEnding, status: 400)
        assertRejects([UInt8](head + "5;a") + [0] + Array("\r\nhello\r\n"), .invalidChunkExtension, status: 400)
        assertRejects(head + "5;a\nhello\r\n", .invalidChunkExtension, status: 400)
        assertRejects(
            head + "5;" + String(repeating: "x", count: 5000) + "\r\nhello\r\n0\r\n\r\n",
            .invalidChunkExtension, status: 400)
        assertRejects(head + "0\r\nBad Trailer: x\r\n\r\n", .whitespaceBeforeColon, status: 400)
        assertRejects(head + "0\r\nX: a\r\n folded\r\n\r\n", .obsoleteLineFolding, status: 400)
    }

    func testUnknownMethod() {
        assertRejects("BREW /pot HTTP/1.1\r\nHost: h\r\n\r\n", .unknownMethod, status: 501)
        assertRejects("get / HTTP/1.1\r\nHost: h\r\n\r\n", .unknownMethod, status: 501)
        for near in ["GETS", "GE", "PUTS", "POSt", "HEAD_", "PATCHY", "TRACK", "DELETED", "OPTION", "CONNECTS", "GOT", "PST"] {
            assertRejects("\(near) / HTTP/1.1\r\nHost: h\r\n\r\n", .unknownMethod, status: 501)
        }
        for method in ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE"] {
            XCTAssertEqual(requests(parseEverySplit(Array("\(method) / HTTP/1.1\r\nHost: h\r\n\r\n"))).first?.0.method, method)
        }
    }

    func testUnsupportedExpectation() {
        assertRejects("PUT / HTTP/1.1\r\nHost: h\r\nExpect: 200-ok\r\nContent-Length: 1\r\n\r\nx", .unsupportedExpectation, status: 417)
    }

    func testRequestLineTooLong() {
        let limits = HTTPLimits(maxRequestLineBytes: 64)
        assertRejects(
            "GET /" + String(repeating: "a", count: 100) + " HTTP/1.1\r\nHost: h\r\n\r\n",
            .requestLineTooLong, status: 414, limits: limits)
        assertRejects(
            String(repeating: "G", count: 100) + " / HTTP/1.1\r\nHost: h\r\n\r\n",
            .requestLineTooLong, status: 414, limits: limits)
        // Exactly at the limit is fine: 64 bytes before CRLF.
        let target = "/" + String(repeating: "a", count: 64 - 4 - 9 - 1)
        let ok = parseEverySplit(Array("GET \(target) HTTP/1.1\r\nHost: h\r\n\r\n"), limits: limits, randomSplits: 5)
        XCTAssertEqual(requests(ok).count, 1, "\(ok)")
        // The default limit is 8 KiB.
        assertRejects(
            "GET /" + String(repeating: "a", count: 8 * 1024) + " HTTP/1.1\r\nHost: h\r\n\r\n",
            .requestLineTooLong, status: 414)
    }

    func testHeaderBlockTooLarge() {
        assertRejects(
            "GET / HTTP/1.1\r\nHost: h\r\nX: " + String(repeating: "v", count: 17 * 1024) + "\r\n\r\n",
            .headerTooLarge, status: 431)
        var many = "GET / HTTP/1.1\r\nHost: h\r\n"
        for i in 0..<512 { many += "X-\(i): v\r\n" }
        assertRejects(many + "\r\n", .headerTooLarge, status: 431)
        let limits = HTTPLimits(maxHeaderBytes: 32)
        let exact = "Host: h\r\nX: " + String(repeating: "v", count: 32 - 9 - 3 - 4) + "\r\n\r\n"
        XCTAssertEqual(exact.utf8.count, 32)
        XCTAssertEqual(requests(parseEverySplit(Array("GET / HTTP/1.1\r\n" + exact), limits: limits, randomSplits: 5)).count, 1)
        assertRejects("GET / HTTP/1.1\r\n" + exact.dropLast(2) + "x\r\n\r\n", .headerTooLarge, status: 431, limits: limits)
    }

    func testBodyTooLarge() {
        let limits = HTTPLimits(maxBodyBytes: 10)
        assertRejects("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n", .bodyTooLarge, status: 413, limits: limits)
        assertRejects("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999999\r\n\r\n", .bodyTooLarge, status: 413)
        let chunked = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
        assertRejects(chunked + "6\r\nabcdef\r\n5\r\n", .bodyTooLarge, status: 413, limits: limits)
        assertRejects(chunked + "FFFFFFFFFFFFFFFFFFFFFFFF\r\n", .bodyTooLarge, status: 413)
        let exact = requests(parseEverySplit(Array(chunked + "6\r\nabcdef\r\n4\r\nghij\r\n0\r\n\r\n"), limits: limits))
        XCTAssertEqual(exact.first?.0.body.count, 10)
    }

    func testErrorOffsetsAndProblemBody() {
        let e = events(Array("GET / HTTP/1.1\r\nHost h\r\n\r\n"), pieces: [100])
        guard case .error(let error)? = e.last else { return XCTFail() }
        XCTAssertEqual(error.offset, 20)
        let body = String(decoding: error.response.body, as: UTF8.self)
        XCTAssertEqual(
            body,
            #"{"type":"/problems/malformed-request","title":"Malformed request","status":400,"detail":"whitespace between a field name and the colon (byte 20)"}"#
        )
        XCTAssertEqual(error.response.headers["content-type"], "application/problem+json")
    }

    func testFailedParserStaysFailed() {
        var parser = HTTPRequestParser()
        let (_, first) = parser.parse(Array("GET / HTTP/1.1\r\nHost h\r\n\r\n")[...])
        let (used, again) = parser.parse(Array("GET / HTTP/1.1\r\nHost: h\r\n\r\n")[...])
        XCTAssertEqual(first, again)
        XCTAssertEqual(used, 0)
    }
}
