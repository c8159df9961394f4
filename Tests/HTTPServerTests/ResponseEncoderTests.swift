import Glibc
import XCTest

@testable import HTTPServer

final class ResponseEncoderTests: XCTestCase {
    let date = Array("Sun, 06 Nov 1994 08:49:37 GMT".utf8)

    func encode(_ response: HTTPResponse, head: Bool = false, version: HTTPVersion = .http1_1, closing: Bool = false)
        -> (String, Bool, Int)
    {
        var out = OutboundBuffer()
        var framing = ResponseEncoder.Framing(isHead: head, version: version, close: closing)
        let bodyBytes = ResponseEncoder.encode(response, framing: &framing, date: date, into: &out)
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds), 0)
        defer {
            close(fds[0])
            close(fds[1])
        }
        _ = out.write(to: fds[0])
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = buffer.withUnsafeMutableBytes { recv(fds[1], $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        return (String(decoding: buffer[0..<max(0, n)], as: UTF8.self), framing.close, bodyBytes)
    }

    func testHeadersAreOrderedAndManagedFieldsAdded() {
        let (text, close, bytes) = encode(HTTPResponse(status: 201, headers: ["Location": "/x"], body: Array("hi".utf8)))
        XCTAssertEqual(text, "HTTP/1.1 201 Created\r\nLocation: /x\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nContent-Length: 2\r\n\r\nhi")
        XCTAssertFalse(close)
        XCTAssertEqual(bytes, 2)
    }

    func testHandlerManagedFieldsAreReplaced() {
        let response = HTTPResponse(
            status: 200,
            headers: HTTPHeaders([
                ("Content-Length", "99"), ("Transfer-Encoding", "chunked"), ("Date", "x"), ("Connection", "Close"),
            ]), body: Array("ok".utf8))
        let (text, close, _) = encode(response)
        XCTAssertEqual(text, "HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        XCTAssertTrue(close)
        // `close` as one token of a list closes too; other tokens do not.
        XCTAssertTrue(encode(HTTPResponse(status: 200, headers: ["connection": "keep-alive , CLOSE"])).1)
        XCTAssertFalse(encode(HTTPResponse(status: 200, headers: ["Connection": "closed, keep-alive"])).1)
    }

    func testHeadKeepsLengthButNoBody() {
        let (text, _, bytes) = encode(HTTPResponse(status: 200, body: Array("hello".utf8)), head: true)
        XCTAssertEqual(text, "HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nContent-Length: 5\r\n\r\n")
        XCTAssertEqual(bytes, 0)
        let (explicit, _, _) = encode(HTTPResponse(status: 200, headers: ["Content-Length": "1234"]), head: true)
        XCTAssertTrue(explicit.contains("Content-Length: 1234\r\n"), explicit)
        // The last one counts; one that is not a valid value gives way to the real length.
        let (twice, _, _) = encode(
            HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Length", "7"), ("content-length", "12")])), head: true)
        XCTAssertTrue(twice.contains("Content-Length: 12\r\n") && !twice.contains("Content-Length: 7"), twice)
        let (injected, _, _) = encode(HTTPResponse(status: 200, headers: ["Content-Length": "1\r\nX: y"]), head: true)
        XCTAssertEqual(injected, "HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nContent-Length: 0\r\n\r\n")
    }

    /// The head is written into room reserved from the fields' sizes: many
    /// fields, the longest reason phrase, a long handler length on HEAD.
    func testRoomForTheLongestHead() {
        var fields: [(String, String)] = (0..<300).map { ("X-Field-\($0)", String(repeating: "v", count: $0 % 40)) }
        fields.append(("Content-Length", String(repeating: "7, ", count: 30) + "7"))
        fields.append(("Connection", "close"))
        let (text, close, _) = encode(HTTPResponse(status: 431, headers: HTTPHeaders(fields)), head: true, version: .http1_0)
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 431 Request Header Fields Too Large\r\nX-Field-0: \r\nX-Field-1: v\r\n"))
        XCTAssertTrue(text.hasSuffix("Content-Length: " + String(repeating: "7, ", count: 30) + "7\r\nConnection: close\r\n\r\n"))
        XCTAssertTrue(close)
        XCTAssertEqual(text.components(separatedBy: "\r\n").count, 1 + 300 + 3 + 2)
        let (plain, _, _) = encode(
            HTTPResponse(status: 200, body: Array(repeating: UInt8(ascii: "b"), count: OutboundBuffer.copyThreshold - 1)))
        XCTAssertTrue(plain.hasSuffix("Content-Length: 16383\r\n\r\n" + String(repeating: "b", count: 16383)))
    }

    func testNoContentAndNotModifiedHaveNoBody() {
        let (noContent, _, _) = encode(HTTPResponse(status: 204, body: Array("x".utf8)))
        XCTAssertEqual(noContent, "HTTP/1.1 204 No Content\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n")
        let (notModified, _, _) = encode(HTTPResponse(status: 304, body: Array("x".utf8)))
        XCTAssertEqual(notModified, "HTTP/1.1 304 Not Modified\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n")
    }

    func testInjectedFieldsAreDropped() {
        let response = HTTPResponse(
            status: 200,
            headers: HTTPHeaders([
                ("X-Bad", "a\r\nSet-Cookie: evil"), ("Bad Name", "v"), ("", "v"), ("X-Good", "fine"),
            ]))
        let (text, _, _) = encode(response)
        XCTAssertEqual(text, "HTTP/1.1 200 OK\r\nX-Good: fine\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nContent-Length: 0\r\n\r\n")
    }

    /// A list known valid is written without a second look; one that gained
    /// a bad field by `add` or `set` is checked field by field again.
    func testFieldsAddedLaterAreStillChecked() {
        var headers = HTTPHeaders([("X-Good", "fine")])
        XCTAssertTrue(headers.allValid)
        headers.add("X-Bad", "a\r\nSet-Cookie: evil")
        XCTAssertFalse(headers.allValid)
        var set = HTTPHeaders([("X-Good", "fine")])
        set.set("Bad Name", "v")
        XCTAssertFalse(set.allValid)
        var joined = HTTPHeaders([("X-Good", "fine")])
        joined.add(contentsOf: HTTPHeaders([("X-Bad", "\u{1}")]))
        XCTAssertFalse(joined.allValid)
        for list in [headers, set, joined] {
            let (text, _, _) = encode(HTTPResponse(status: 200, headers: list))
            XCTAssertEqual(text, "HTTP/1.1 200 OK\r\nX-Good: fine\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nContent-Length: 0\r\n\r\n")
        }
    }

    func testInformationalStatusFromHandlerIsAnError() {
        let (text, _, _) = encode(HTTPResponse(status: 101))
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 500 "), text)
    }

    func testHTTP10KeepAliveAndOutOfRangeStatus() {
        let (text, _, _) = encode(HTTPResponse(status: 42), version: .http1_0)
        XCTAssertEqual(
            text,
            "HTTP/1.1 500 Internal Server Error\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n"
        )
    }

    func testLargeBodyIsQueuedWithoutCopyAndSentWithHead() {
        let body = [UInt8](repeating: 7, count: 20_000)
        let (text, _, bytes) = encode(HTTPResponse(status: 200, body: body))
        XCTAssertEqual(bytes, 20_000)
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
        let headLength = text.utf8.count - 20_000
        XCTAssertTrue(
            text.utf8.prefix(headLength).elementsEqual(
                "HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nContent-Length: 20000\r\n\r\n".utf8))
        XCTAssertTrue(text.utf8.suffix(20_000).allSatisfy { $0 == 7 })
    }

    func testDecimalAndDate() {
        var buf: [UInt8] = []
        for n in [0, 7, 10, 99, 100, 65535, Int.max] {
            buf.removeAll()
            ResponseEncoder.appendDecimal(n, to: &buf)
            XCTAssertEqual(String(decoding: buf, as: UTF8.self), String(n))
        }
        XCTAssertEqual(
            String(decoding: HTTPDateCache.format(secondsSinceEpoch: 784_111_777), as: UTF8.self),
            "Sun, 06 Nov 1994 08:49:37 GMT")
        XCTAssertEqual(
            String(decoding: HTTPDateCache.format(secondsSinceEpoch: 0), as: UTF8.self),
            "Thu, 01 Jan 1970 00:00:00 GMT")
    }

    func testRequestLogLineFormat() {
        var log = RequestLog()
        log.append(method: "POST", path: "/scenes/a/hit", status: 200, microseconds: 57, bodyBytes: 312)
        log.append(method: "-", path: "-", status: 400, microseconds: 0, bodyBytes: 0)
        XCTAssertEqual(log.pendingText, "POST /scenes/a/hit 200 57us 312B\n- - 400 0us 0B\n")
    }
}
