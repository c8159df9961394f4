import XCTest

@testable import HTTPServer

final class ByteClassTests: XCTestCase {
    func testTokenMaskMatchesRFC9110() {
        let tchar = Set(Array("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8))
        for byte in 0...255 {
            XCTAssertEqual(ByteClass.isToken(UInt8(byte)), tchar.contains(UInt8(byte)), "byte \(byte)")
        }
    }

    /// Eight bytes at a time agrees with one at a time: every byte value at
    /// every place of buffers 0 to 19 long, among valid bytes of each kind.
    func testFieldValueWordsAgreeWithBytes() {
        for filler: UInt8 in [UInt8(ascii: "a"), 0x20, 0x09, 0x80, 0xFF, 0x7E] {
            for length in 0...19 {
                for place in 0..<max(length, 1) {
                    for byte in 0...255 {
                        var bytes = [UInt8](repeating: filler, count: length)
                        if length > 0 { bytes[place] = UInt8(byte) }
                        let words = bytes.withUnsafeBufferPointer(ByteClass.allFieldValue)
                        XCTAssertEqual(words, bytes.allSatisfy(ByteClass.isFieldValue), "\(bytes)")
                    }
                }
            }
        }
    }

    func testCaseInsensitiveHelpers() {
        XCTAssertTrue(asciiCaseInsensitiveEquals("Content-Length", "content-LENGTH"))
        XCTAssertFalse(asciiCaseInsensitiveEquals("Content-Length", "Content-Lengths"))
        XCTAssertFalse(asciiCaseInsensitiveEquals("a", "b"))
        XCTAssertTrue(asciiEqualsLowercased(Array("ChUnKeD")[...], "chunked"))
        XCTAssertFalse(asciiEqualsLowercased(Array("chunke")[...], "chunked"))
    }

    func testHeadersAPI() {
        var h = HTTPHeaders([("A", "1"), ("b", "2"), ("a", "3")])
        XCTAssertEqual(h["a"], "1")
        XCTAssertEqual(h.values("A"), ["1", "3"])
        h.set("A", "9")
        XCTAssertEqual(h.values("a"), ["9"])
        XCTAssertEqual(Array(h.map { $0.name }), ["A", "b"])
        h.add("C", "4")
        XCTAssertEqual(h.count, 3)
        XCTAssertNil(h["missing"])
        h.remove("b")
        XCTAssertEqual(h.count, 2)
    }

    func testProblemJSONEscaping() {
        let body = ProblemJSON.encode(status: 400, slug: "x", title: "T \"q\"", detail: "a\\b\n\u{1}é")
        XCTAssertEqual(
            String(decoding: body, as: UTF8.self),
            #"{"type":"/problems/x","title":"T \"q\"","status":400,"detail":"a\\b\n\u0001é"}"#)
    }
}
