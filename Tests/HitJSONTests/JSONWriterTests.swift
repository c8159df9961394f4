import TestSupport
import XCTest

@testable import HitJSON

final class JSONWriterTests: XCTestCase {
    func text(_ build: (inout JSONWriter) -> Void) -> String {
        var w = JSONWriter()
        build(&w)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    func testCommasAndColonsArePlacedAutomatically() {
        let out = text { w in
            w.beginObject()
            w.key("layer")
            w.string("button")
            w.key("path")
            w.beginArray()
            w.string("a")
            w.string("b")
            w.endArray()
            w.key("empty")
            w.beginObject()
            w.endObject()
            w.key("list")
            w.beginArray()
            w.beginArray()
            w.endArray()
            w.beginObject()
            w.endObject()
            w.null()
            w.endArray()
            w.key("ok")
            w.bool(true)
            w.key("no")
            w.bool(false)
            w.key("n")
            w.int(-42)
            w.key("raw")
            Array(#"{"x":1}"#.utf8).withUnsafeBufferPointer { w.raw($0) }
            w.key("after")
            w.number(0.5)
            w.endObject()
        }
        XCTAssertEqual(
            out,
            #"{"layer":"button","path":["a","b"],"empty":{},"list":[[],{},null],"ok":true,"no":false,"n":-42,"raw":{"x":1},"after":0.5}"#)
        XCTAssertEqual(
            text { w in
                w.beginArray()
                Array("1".utf8).withUnsafeBufferPointer { w.raw($0) }
                Array("2".utf8).withUnsafeBufferPointer { w.raw($0) }
                w.endArray()
            }, "[1,2]")
        XCTAssertEqual(text { w in w.string("top") }, #""top""#)
    }

    /// From the smallest buffer, every kind of write grows it as needed, and
    /// `finish` hands out exactly what `bytes` showed.
    func testGrowsFromTheSmallestBuffer() {
        var w = JSONWriter(capacity: 0)
        var expected = "["
        w.beginArray()
        for i in 0..<2000 {
            let s = String(repeating: "é\"", count: i % 7) + String(i)
            w.beginObject()
            w.field("a_rather_long_field_name_0")
            w.string(s)
            w.key("n")
            w.number(Double(i) / 8)
            w.endObject()
            expected +=
                (i > 0 ? "," : "")
                + #"{"a_rather_long_field_name_0":"\#(s.replacingOccurrences(of: "\"", with: "\\\""))","n":\#(Double(i) / 8 == (Double(i) / 8).rounded() ? String(i / 8) : String(Double(i) / 8))}"#
        }
        w.endArray()
        expected += "]"
        let count = w.count
        let shown = w.bytes
        let finished = w.finish()
        XCTAssertEqual(count, expected.utf8.count)
        XCTAssertEqual(String(decoding: shown, as: UTF8.self), expected)
        XCTAssertEqual(finished, shown)
    }

    func testRawMembersStartAnObjectAndMoreMayFollow() {
        let members = Array(#""layer":"ring","action":null"#.utf8)
        let out = text { w in
            w.beginArray()
            for k in 0..<3 {
                w.beginObject()
                members.withUnsafeBufferPointer { w.rawMembers($0) }
                if k == 1 {
                    w.field("captured")
                    w.bool(true)
                }
                w.endObject()
            }
            w.endArray()
        }
        XCTAssertEqual(
            out, #"[{"layer":"ring","action":null},{"layer":"ring","action":null,"captured":true},{"layer":"ring","action":null}]"#)
    }

    func testStringEscaping() {
        XCTAssertEqual(text { $0.string("a\"b\\c/d") }, #""a\"b\\c/d""#)
        XCTAssertEqual(text { $0.string("\u{8}\u{C}\n\r\t") }, #""\b\f\n\r\t""#)
        XCTAssertEqual(text { $0.string("\u{0}\u{1}\u{1F}\u{7F}") }, "\"\\u0000\\u0001\\u001f\u{7F}\"")
        XCTAssertEqual(text { $0.string("é€😀\u{2028}") }, "\"é€😀\u{2028}\"")
        XCTAssertEqual(text { $0.key("k\"ey") }, #""k\"ey":"#)
        // Every control character escapes and reads back.
        for byte in 0..<0x20 {
            let s = "x" + String(Unicode.Scalar(UInt8(byte))) + "y"
            let json = text { $0.string(s) }
            XCTAssertFalse(json.utf8.contains { $0 < 0x20 }, json)
            XCTAssertEqual(JSONValue(json: json), .string(s))
        }
    }

    func testIntegralNumbersHaveNoFraction() {
        XCTAssertEqual(text { $0.number(120) }, "120")
        XCTAssertEqual(text { $0.number(0) }, "0")
        XCTAssertEqual(text { $0.number(-0.0) }, "-0")
        XCTAssertEqual(text { $0.number(-7) }, "-7")
        XCTAssertEqual(text { $0.number(1e15) }, "1000000000000000")
        XCTAssertEqual(text { $0.number(9_007_199_254_740_991) }, "9007199254740991")
        XCTAssertEqual(text { $0.number(-9_007_199_254_740_991) }, "-9007199254740991")
    }

    func testEveryIntegerUpTo20000IsItsDescription() {
        // The digit-pair table below 10,000 and the general path above it.
        for i in -20_000...20_000 {
            XCTAssertEqual(text { $0.int(i) }, String(i))
            XCTAssertEqual(text { $0.number(Double(i)) }, i == 0 ? "0" : String(i))
        }
        XCTAssertEqual(text { $0.int(Int.max) }, String(Int.max))
        XCTAssertEqual(text { $0.int(Int.min) }, String(Int.min))
    }

    func testKeyTextIsFollowedByAValueWithoutAComma() {
        XCTAssertEqual(
            text {
                $0.beginObject()
                $0.keyText(#""x":"#)
                $0.number(1)
                $0.keyText(#","y":"#)
                $0.int(2)
                $0.endObject()
            }, #"{"x":1,"y":2}"#)
    }

    func testOtherNumbersUseShortestRoundTripForm() {
        XCTAssertEqual(text { $0.number(0.5) }, "0.5")
        XCTAssertEqual(text { $0.number(0.1) }, "0.1")
        XCTAssertEqual(text { $0.number(123.45) }, "123.45")
        XCTAssertEqual(text { $0.number(-2.5e-3) }, "-0.0025")
        XCTAssertEqual(text { $0.number(1e-5) }, "1e-05")
        XCTAssertEqual(text { $0.number(1e16) }, "1e+16")
        XCTAssertEqual(text { $0.number(9_007_199_254_740_992) }, "9007199254740992.0")
        for d in [
            Double.leastNonzeroMagnitude, -Double.leastNonzeroMagnitude, Double.leastNormalMagnitude,
            Double.greatestFiniteMagnitude, -Double.greatestFiniteMagnitude, 0.1 + 0.2, 1.0 / 3, 1e300, 1e-300,
        ] {
            let json = text { $0.number(d) }
            XCTAssertEqual(JSONValue(json: json).numberValue?.bitPattern, d.bitPattern, json)
        }
    }

    func testInt() {
        XCTAssertEqual(text { $0.int(0) }, "0")
        XCTAssertEqual(text { $0.int(9) }, "9")
        XCTAssertEqual(text { $0.int(10) }, "10")
        XCTAssertEqual(text { $0.int(-1) }, "-1")
        XCTAssertEqual(text { $0.int(1_234_567_890) }, "1234567890")
        XCTAssertEqual(text { $0.int(Int.max) }, "9223372036854775807")
        XCTAssertEqual(text { $0.int(Int.min) }, "-9223372036854775808")
        var rng = SplitMix64(seed: 7)
        for _ in 0..<1_000 {
            let i = Int(bitPattern: UInt(rng.next())) >> Int(rng.next() % 64)
            XCTAssertEqual(text { $0.int(i) }, String(i))
        }
        // The digit count changes at every power of ten.
        var power = 1
        for _ in 0...18 {
            for i in [power - 1, power, power + 1, -power + 1, -power, -power - 1] {
                XCTAssertEqual(text { $0.int(i) }, String(i))
                if i.magnitude < 1 << 53 { XCTAssertEqual(text { $0.number(Double(i)) }, String(i), "as a Double") }
            }
            if power <= Int.max / 10 { power *= 10 }
        }
    }
}
