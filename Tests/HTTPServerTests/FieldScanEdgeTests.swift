import XCTest

@testable import HTTPServer

/// Field lines at the edges of the scan's name recognition and of the
/// framing decisions, pinned as the per-byte parser (84a914d) answered
/// them: the word-at-a-time scan and its notes must answer the same, and
/// reading the lines again (``HTTPRequestParser/walksFieldLines``) too.
final class FieldScanEdgeTests: XCTestCase {
    enum Want {
        case body(Int)
        case chunked
        case error(HTTPParseError.Kind)
    }

    static let cases: [(String, Want)] = [
        // Names sharing a prefix with a noted one, and names of 7–9 and 15–17 bytes.
        ("Content-Length2: 5\r\n", .body(0)),
        ("content-lengthx: 5\r\n", .body(0)),
        ("Content-Lengt: 5\r\n", .body(0)),
        ("CONTENT-LENGTH: 5\r\n", .body(5)),
        ("Transfer-Encodin: chunked\r\n", .body(0)),
        ("Transfer_Encoding: chunked\r\n", .body(0)),
        ("transfer-encodinG: chunked\r\n", .chunked),
        ("Transfer-Encoding2: chunked\r\n", .body(0)),
        ("abcdefg: 1\r\nabcdefgh: 1\r\nabcdefghi: 1\r\nabcdefghijklmno: 1\r\nabcdefghijklmnop: 1\r\nabcdefghijklmnopq: 1\r\n", .body(0)),
        ("Hosts: x\r\n", .body(0)),
        // Repeated framing fields.
        ("Content-Length: 5\r\nContent-Length: 5\r\n", .body(5)),
        ("Content-Length: 5\r\nContent-Length: 6\r\n", .error(.invalidContentLength)),
        ("Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", .error(.contentLengthWithTransferEncoding)),
        ("Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n", .error(.unsupportedTransferCoding)),
        ("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n", .error(.invalidTransferEncoding)),
        ("Host: h\r\n", .error(.duplicateHost)),
        ("Expect: 100-continue\r\nExpect: x\r\n", .error(.unsupportedExpectation)),
        // The Content-Length value.
        ("Content-Length: 007\r\n", .body(7)),
        ("Content-Length: +5\r\n", .error(.invalidContentLength)),
        ("Content-Length: -1\r\n", .error(.invalidContentLength)),
        ("Content-Length: 1, 1\r\n", .body(1)),
        ("Content-Length: 1,2\r\n", .error(.invalidContentLength)),
        ("Content-Length: 1,,1\r\n", .error(.invalidContentLength)),
        ("Content-Length:\r\n", .error(.invalidContentLength)),
        ("Content-Length: 999999999999999999\r\n", .error(.bodyTooLarge)),
        ("Content-Length: 1234567890123456789\r\n", .error(.bodyTooLarge)),
        ("Content-Length: 99999999999999999999\r\n", .error(.bodyTooLarge)),
        ("Content-Length: 0000000000000000000005\r\n", .body(5)),
        ("Content-Length: \t5 \t\r\n", .body(5)),
        // Grammar.
        ("X-A: 1\r\n folded\r\n", .error(.obsoleteLineFolding)),
        ("X-A : 1\r\n", .error(.whitespaceBeforeColon)),
        ("X\u{7F}A: 1\r\n", .error(.invalidFieldName)),
        ("X-A: a\u{7F}b\r\n", .error(.invalidFieldValue)),
        ("X-A: a\u{0}b\r\n", .error(.invalidFieldValue)),
        ("X\u{0}A: 1\r\n", .error(.invalidFieldName)),
        ("X-A: a\nb\r\n", .error(.invalidLineEnding)),
    ]

    func testEdgeCases() throws {
        for (fields, want) in Self.cases {
            let raw = Array("POST /p HTTP/1.1\r\nHost: h\r\n\(fields)\r\n".utf8)
            let got = parseEverySplit(raw, randomSplits: 4)
            var walking = HTTPRequestParser()
            walking.walksFieldLines = true
            XCTAssertEqual(raw.withUnsafeBytes { walking.parse($0).1 }, got.first, fields.debugDescription)
            switch want {
            case .error(let kind):
                guard case .error(let e)? = got.last else { return XCTFail("\(fields.debugDescription): \(got)") }
                XCTAssertEqual(e.kind, kind, fields.debugDescription)
            case .body(let length):
                if length == 0 {
                    XCTAssertEqual(requests(got).count, 1, "\(fields.debugDescription): \(got)")
                } else {
                    XCTAssertEqual(got, [.head(expectsContinue: false)], fields.debugDescription)
                }
            case .chunked:
                XCTAssertEqual(got, [.head(expectsContinue: false)], fields.debugDescription)
            }
        }
    }

    /// A lookup of `Content-Type` after the fields are changed reads the
    /// changed fields, not the parser's note.
    func testContentTypeAfterChanges() throws {
        for fields in ["Content-Type: a\r\n", "Content-Type: a\r\ncontent-type: b\r\n", "X-A: 1\r\n", "content-type:\r\n"] {
            let raw = Array("GET /p HTTP/1.1\r\nHost: h\r\n\(fields)\r\n".utf8)
            let r = try XCTUnwrap(requests(parseEverySplit(raw, randomSplits: 2)).first?.0)
            let before = r.headers.values("Content-Type")
            XCTAssertEqual(r.headers["CONTENT-type"], before.first, fields.debugDescription)
            var set = r.headers
            set.set("content-TYPE", "z")
            XCTAssertEqual(set.values("Content-Type"), ["z"])
            var removed = r.headers
            removed.remove("CONTENT-TYPE")
            XCTAssertNil(removed["Content-Type"])
            XCTAssertFalse(removed.contains("content-type"))
            var other = r.headers
            other.set("X-B", "1")
            XCTAssertEqual(other.values("Content-Type"), before)
            var added = r.headers
            added.add(contentsOf: HTTPHeaders([("Content-Type", "y")]))
            XCTAssertEqual(added.values("content-type"), before + ["y"])
            XCTAssertEqual(r.headers.values("Content-Type"), before, "the original is unchanged")
        }
    }

    /// Past 64 KiB of head (limits raised) a Content-Type span is not
    /// noted but looked up, and gives the same value.
    func testContentTypeBeyondTheNotedSpan() throws {
        var limits = HTTPLimits()
        limits.maxHeaderBytes = 1 << 20
        limits.maxRequestLineBytes = 1 << 17
        for (target, filler) in [("/p", 70_000), ("/" + String(repeating: "t", count: 70_000), 0), ("/p", 65_480)] {
            let pad = filler > 0 ? "X-Pad: \(String(repeating: "p", count: filler))\r\n" : ""
            let raw = Array("GET \(target) HTTP/1.1\r\nHost: h\r\n\(pad)Content-Type: \(String(repeating: "c", count: 40))\r\n\r\n".utf8)
            let r = try XCTUnwrap(requests(events(raw, pieces: [raw.count], limits: limits)).first?.0)
            XCTAssertEqual(r.headers["content-type"], String(repeating: "c", count: 40))
            XCTAssertEqual(r.headers.values("Content-Type").count, 1)
            XCTAssertEqual(r.headers.contentTypeIsNoted, filler == 65_480, "a start past 65535 is not noted")
        }
    }
}
