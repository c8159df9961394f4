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

final class ByteCopyTests: XCTestCase {
    /// Short copies move as overlapping words: every length up to 40, at
    /// every offset of a word, copies exactly its bytes and nothing past them.
    func testCopiesEveryLengthExactly() {
        let source: [UInt8] = (0..<64).map { UInt8(($0 * 37 + 11) & 0xFF) }
        for count in 0...40 {
            for offset in 0..<8 {
                var target = [UInt8](repeating: 0xEE, count: 64)
                source.withUnsafeBufferPointer { s in
                    target.withUnsafeMutableBufferPointer { t in
                        ByteBuffer.copy(s.baseAddress! + offset, to: t.baseAddress! + 3, count: count)
                    }
                }
                XCTAssertEqual(Array(target[3..<(3 + count)]), Array(source[offset..<(offset + count)]), "\(count) at \(offset)")
                let untouched: [UInt8] = Array(target[0..<3]) + Array(target[(3 + count)...])
                XCTAssertEqual(untouched, [UInt8](repeating: 0xEE, count: 64 - count), "\(count) at \(offset)")
            }
        }
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

    /// The escaper tests eight bytes at a time: every byte value, at every
    /// offset of a 19-byte run (two words and a tail), among bytes that
    /// need no escape, escapes exactly as a byte-at-a-time reference does.
    func testEveryByteAtEveryOffsetEscapesAsByteAtATime() {
        func reference(_ bytes: [UInt8]) -> [UInt8] {
            var out: [UInt8] = [0x22]
            for b in bytes {
                switch b {
                case 0x22: out += [0x5C, 0x22]
                case 0x5C: out += [0x5C, 0x5C]
                case 0x08: out += Array(#"\b"#.utf8)
                case 0x0C: out += Array(#"\f"#.utf8)
                case 0x0A: out += Array(#"\n"#.utf8)
                case 0x0D: out += Array(#"\r"#.utf8)
                case 0x09: out += Array(#"\t"#.utf8)
                case 0..<0x20: out += Array(#"\u00"#.utf8) + [b >> 4, b & 0xF].map { Array("0123456789abcdef".utf8)[Int($0)] }
                default: out.append(b)
                }
            }
            return out + [0x22]
        }
        for filler: UInt8 in [0x21, 0x23, 0x5B, 0x5D, 0x7F, 0x80, 0xFF] {
            for value in 0...255 {
                for offset in 0..<19 {
                    var bytes = [UInt8](repeating: filler, count: 19)
                    bytes[offset] = UInt8(value)
                    var out: [UInt8] = []
                    bytes.withUnsafeBufferPointer { JSONString.append($0, to: &out) }
                    XCTAssertEqual(out, reference(bytes), "byte \(value) at \(offset) among \(filler)")
                    if out != reference(bytes) { return }
                }
            }
        }
    }
}
