import TestSupport
import XCTest

@testable import HTTPServer

/// HTTP edges (RFC 9112 §3.2, §7.1.1; RFC 3986 §3.2.2):
/// the Host field's grammar, a header block of many ordinary fields, and
/// chunk extensions that leave their grammar. Each input is parsed whole,
/// byte by byte and in random splits (`parseEverySplit`), and every
/// one-byte edit of a valid request parses the same way in every split.
final class HTTPRequestParserEdgeTests: XCTestCase {
    func request(host: String) -> [UInt8] { Array("GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n") }

    func error(_ events: [Event]) -> HTTPParseError? {
        if case .error(let e)? = events.last { return e }
        return nil
    }

    func testHostThatIsNotURIHostAndPortIsRejected() {
        let bad = [
            "bad/host", "a b", "a@b@c", "a?b", "a#b", "[::1", "[::1]x", "[::1]:x", "a:b", "a:1:2", "a :80",
            "[]", "[::1::2]", "[1:2:3:4:5:6:7:8:9]", "[1:2:3:4:5:6:7]", "[12345::]", "[::1.2.3.256]",
            "[::01.2.3.4]", "[v.x]", "[v1.]", "%", "%4", "%zz", "a\"b", "a<b", "a\\b", "é",
        ]
        for host in bad {
            let raw = request(host: host)
            let e = error(parseEverySplit(raw, randomSplits: 5))
            XCTAssertEqual(e?.kind, .invalidHost, host)
            XCTAssertEqual(e?.status, 400, host)
            XCTAssertEqual(e?.offset, 22, "the error points at the value of \(host)")
        }
    }

    func testHostThatIsURIHostAndPortIsAccepted() {
        let good = [
            "localhost", "localhost:8080", "127.0.0.1", "127.0.0.1:80", "[::1]", "[::1]:8080", "[::]",
            "[2001:db8::7]", "[2001:db8:0:0:0:0:0:7]", "[::ffff:192.0.2.1]", "[1:2:3:4:5:6:1.2.3.4]",
            "[v1.fe:80]", "[V7.a!b]", "a%20b", "", "example.com:", "xn--bcher-kva.example", "a_b~c",
            "!$&'()*+,;=", "999.999.999.999",
        ]
        for host in good {
            let r = requests(parseEverySplit(request(host: host), randomSplits: 5))
            XCTAssertEqual(r.count, 1, host)
            XCTAssertEqual(r.first?.0.headers["Host"], host)
        }
    }

    func testEveryEditOfAHostParsesAlikeInEverySplit() {
        let raw = request(host: "[::1]:8080")
        forEachEdit(of: raw, replacements: Array("/ @?#[]:%v.1".utf8) + [0, 0x7F, 0xC3]) { edited in
            _ = parseEverySplit(edited, randomSplits: 2)
        }
    }

    /// 100 ordinary fields (about 5 KB) are accepted: the default field
    /// count cap is 512 (`--max-header-fields`).
    func testAHundredOrdinaryFieldsAreAccepted() {
        var raw = "GET / HTTP/1.1\r\nHost: h\r\n"
        for i in 0..<100 { raw += "X-Custom-Field-\(i): some ordinary value \(i)\r\n" }
        raw += "\r\n"
        XCTAssertGreaterThan(raw.utf8.count, 4000)
        XCTAssertLessThan(raw.utf8.count, 16 * 1024)
        let r = requests(parseEverySplit(Array(raw), randomSplits: 3))
        XCTAssertEqual(r.count, 1)
        XCTAssertEqual(r.first?.0.headers.count, 101)
        XCTAssertEqual(r.first?.0.headers["X-Custom-Field-99"], "some ordinary value 99")
    }

    func testTheFieldCountCapIsItsLimit() {
        XCTAssertEqual(HTTPLimits().maxHeaderCount, 512)
        func fields(_ n: Int) -> [UInt8] {
            var raw = "GET / HTTP/1.1\r\nHost: h\r\n"
            for i in 1..<n { raw += "X-\(i): v\r\n" }
            return Array(raw + "\r\n")
        }
        XCTAssertEqual(requests(parseEverySplit(fields(512), randomSplits: 2)).first?.0.headers.count, 512)
        XCTAssertEqual(error(parseEverySplit(fields(513), randomSplits: 2))?.kind, .headerTooLarge)
        let three = HTTPLimits(maxHeaderCount: 3)
        XCTAssertEqual(requests(parseEverySplit(fields(3), limits: three, randomSplits: 2)).count, 1)
        XCTAssertEqual(error(parseEverySplit(fields(4), limits: three, randomSplits: 2))?.status, 431)
    }

    let chunkedHead = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"

    /// `5;a="unterminated` is a framing error, reported at the chunk line
    /// before any chunk data (the body never reaches a handler).
    func testUnterminatedQuotedChunkExtensionIsAFramingError() {
        let line = chunkedHead + "5;a=\"unterminated\r\n"
        let e = error(parseEverySplit(Array(line), randomSplits: 5))
        XCTAssertEqual(e?.kind, .invalidChunkExtension)
        XCTAssertEqual(e?.status, 400)
        XCTAssertEqual(e?.offset, line.utf8.count - 2, "at the CR inside the quoted string")
        // With the chunk's data after it, the same error, no request.
        let whole = parseEverySplit(Array(line + "hello\r\n0\r\n\r\n"), randomSplits: 5)
        XCTAssertEqual(whole, [.head(expectsContinue: false), .error(e!)])
    }

    func testChunkExtensionsOutsideTheGrammarAreRejected() {
        let bad = [
            "5;=b", "5;a=", "5;a==b", "5;a=\"x\"y", "5;;a", "5;a b", "5;a=b c", "5;a=\"x\\", "5;a=\"x\u{1}\"",
            "5;a=\"x\\\u{1}\"", "5;a=b;", "5; ", "5;a=\"", "5;a,b", "5;a=b,c", "5;a=@",
        ]
        for ext in bad {
            let e = error(parseEverySplit(Array(chunkedHead + ext + "\r\nhello\r\n0\r\n\r\n"), randomSplits: 5))
            XCTAssertEqual(e?.kind, .invalidChunkExtension, ext.debugDescription)
        }
    }

    func testChunkExtensionsInTheGrammarAreIgnored() {
        let good = [
            "5;a", "5;a=b", "5 ;a=b", "5\t; a = b", "5;a=\"\"", "5;a=\"x y\"", "5;a=\"q\\\"x\"", "5;a=\"\\\\\"",
            "5;a=b;c;d=\"e;f=g\"", "5;a=\"caf\u{E9}\"", "5;!#$%&'*+-.^_`|~=1", "5;a ;b", "5;a= b",
        ]
        for ext in good {
            let r = requests(parseEverySplit(Array(chunkedHead + ext + "\r\nhello\r\n0\r\n\r\n"), randomSplits: 5))
            XCTAssertEqual(r.first?.0.body, Array("hello".utf8), ext.debugDescription)
        }
    }

    func testEveryEditOfAChunkExtensionParsesAlikeInEverySplit() {
        let raw = Array(chunkedHead + "5;a=\"b\\\"c\";d=e\r\nhello\r\n0\r\n\r\n")
        forEachEdit(of: raw, replacements: Array(";=\"\\ \t\r\na".utf8) + [0, 0x7F, 0xFF]) { edited in
            _ = parseEverySplit(edited, randomSplits: 1)
        }
    }

    func testAnOverlongQuotedExtensionIsStillBoundedByTheChunkLineLimit() {
        let limits = HTTPLimits(maxChunkLineBytes: 64)
        let raw = chunkedHead + "5;a=\"" + String(repeating: "x", count: 100) + "\"\r\nhello\r\n0\r\n\r\n"
        let e = error(parseEverySplit(Array(raw), limits: limits, randomSplits: 5))
        XCTAssertEqual(e?.kind, .invalidChunkExtension)
        XCTAssertEqual(e?.offset, chunkedHead.utf8.count + 64)
    }

    /// A chunk line padded with whitespace before its extension's `;` spun
    /// the event loop forever once the `;` came at or past the line limit
    /// (`1`, 4,095 spaces, `;a`): the whitespace was not counted, and the
    /// extension scan then had nowhere to go. Every length around the limit,
    /// whole, byte by byte and in random splits: below it the chunk is read,
    /// from it on a 400 at the limit.
    func testWhitespaceBeforeAChunkExtensionCountsTowardTheChunkLineLimit() {
        let limit = 16
        let limits = HTTPLimits(maxChunkLineBytes: limit)
        for spaces in (limit - 6)...(limit + 2) {
            let line = "1" + String(repeating: " ", count: spaces) + ";a"
            let events = parseEverySplit(Array(chunkedHead + line + "\r\nx\r\n0\r\n\r\n"), limits: limits, randomSplits: 3)
            if line.utf8.count < limit {
                XCTAssertEqual(requests(events).first?.0.body, Array("x".utf8), "\(spaces) spaces")
            } else {
                let e = error(events)
                XCTAssertEqual(e?.kind, .invalidChunkExtension, "\(spaces) spaces")
                XCTAssertEqual(e?.offset, chunkedHead.utf8.count + limit, "\(spaces) spaces")
            }
        }
    }

    /// Whitespace alone, without a `;`, ends at the limit too: a client
    /// cannot hold a chunk line open by trickling spaces.
    func testAChunkLineOfEndlessWhitespaceIsRefusedAtTheLimit() {
        let raw = Array(chunkedHead + "1" + String(repeating: " ", count: 10_000))
        let e = error(parseEverySplit(raw, randomSplits: 3))
        XCTAssertEqual(e?.kind, .invalidChunkExtension)
        XCTAssertEqual(e?.offset, chunkedHead.utf8.count + HTTPLimits().maxChunkLineBytes)
    }

    /// `methodIsHead` (the server's own refusals of a HEAD carry no
    /// content), for a method split across reads at every byte.
    func testTheMethodIsKnownToBeHEADInEverySplit() {
        for (method, isHead) in [("HEAD", true), ("POST", false), ("HEAX", false), ("GET", false), ("HEADS", false)] {
            let raw = Array("\r\n\(method) /x HTTP/1.1\r\nHost: t\r\nExpect: foo\r\n\r\n".utf8)
            for cut in 1..<raw.count {
                var parser = HTTPRequestParser()
                XCTAssertEqual(parser.parse(raw[..<cut]).event, .needMoreData)
                guard case .error(let e) = parser.parse(raw[cut...]).event else { return XCTFail("\(method) cut at \(cut): no error") }
                XCTAssertEqual(e.status, ["HEAX", "HEADS"].contains(method) ? 501 : 417, method)  // an unknown method is a 501
                XCTAssertEqual(parser.methodIsHead, isHead, "\(method) cut at \(cut)")
            }
        }
    }
}
