import HitBase
import TestSupport
import XCTest

final class ByteBufferTests: XCTestCase {
    func testAppendsGrowPastTheFirstCapacity() {
        var b = ByteBuffer(capacity: 1)
        for k in 0..<1000 { b.append(UInt8(k % 251)) }
        b.append("tail")
        XCTAssertEqual(b.count, 1004)
        XCTAssertFalse(b.overflowed)
        let bytes = b.finish()
        XCTAssertEqual(Array(bytes.prefix(1000)), (0..<1000).map { UInt8($0 % 251) })
        XCTAssertEqual(Array(bytes.suffix(4)), Array("tail".utf8))
    }

    func testPassingTheLimitIsNotedAndHoldsNoMoreThanTheLimitAndOneWrite() {
        var b = ByteBuffer(capacity: 16, limit: 100)
        for _ in 0..<30 { b.append("abcdefghij") }
        XCTAssertTrue(b.overflowed)
        XCTAssertLessThanOrEqual(b.count, 100)
        var under = ByteBuffer(capacity: 16, limit: 100)
        for _ in 0..<10 { under.append("abcdefghij") }
        XCTAssertFalse(under.overflowed, "exactly the limit fits")
        XCTAssertEqual(under.count, 100)
    }
}

final class JSONStringTests: XCTestCase {
    func quoted(_ s: String) -> String {
        var out: [UInt8] = []
        JSONString.append(s, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    func testEscapesQuotesBackslashesAndControlCharacters() {
        XCTAssertEqual(quoted(""), #""""#)
        XCTAssertEqual(quoted(#"a"b\c"#), #""a\"b\\c""#)
        XCTAssertEqual(quoted("\u{8}\u{C}\n\r\t\u{1}\u{1F}"), #""\b\f\n\r\t\u0001\u001f""#)
        XCTAssertEqual(quoted("/é€😀"), "\"/é€😀\"", "slash and non-ASCII verbatim")
    }

    func testTheBufferAndTheArrayWriteTheSameBytes() {
        var rng = SplitMix64(seed: 29)
        for _ in 0..<200 {
            let scalars = (0..<Int.random(in: 0..<40, using: &rng)).map { _ in
                Unicode.Scalar(UInt8.random(in: 0...0x7F, using: &rng))
            }
            let s = String(String.UnicodeScalarView(scalars))
            var buffer = ByteBuffer(capacity: 4)
            JSONString.append(s, to: &buffer)
            let written = buffer.finish()
            XCTAssertEqual(written, Array(quoted(s).utf8), s.debugDescription)
        }
    }
}
