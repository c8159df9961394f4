import TestSupport
import XCTest

@testable import HitJSON

/// Strings: escapes, surrogate pairs, UTF-8 validation and control characters.
final class JSONReaderStringTests: XCTestCase {
    func assertString(_ json: [UInt8], _ expected: String, file: StaticString = #filePath, line: UInt = #line) {
        let text = String(decoding: json, as: UTF8.self)
        XCTAssertEqual(assertParses(text, file: file, line: line), .string(expected), file: file, line: line)
    }

    func assertString(_ json: String, _ expected: String, file: StaticString = #filePath, line: UInt = #line) {
        assertString(Array(json.utf8), expected, file: file, line: line)
    }

    func testPlainStrings() {
        assertString(#""""#, "")
        assertString(#""hello""#, "hello")
        assertString(#""\#(String(repeating: "abc ", count: 1000))""#, String(repeating: "abc ", count: 1000))
        assertString("\"\u{7F}\"", "\u{7F}")  // DEL is not a control character for JSON
        assertString(#""'single'""#, "'single'")
    }

    func testEveryEscape() {
        assertString(#""\"\\\/\b\f\n\r\t""#, "\"\\/\u{08}\u{0C}\n\r\t")
        assertString(#""a\nb""#, "a\nb")
        assertString(#""\u0041\u00e9\u00E9\u20AC\u0000\u001f\uFFFF""#, "A\u{E9}\u{E9}\u{20AC}\u{0}\u{1F}\u{FFFF}")
        assertString(#""x\u0022y\u005cz""#, "x\"y\\z")
    }

    func testSurrogatePairs() {
        assertString(#""\uD83D\uDE00""#, "😀")
        assertString(#""\ud83d\ude00""#, "😀")
        assertString(#""\uD800\uDC00\uDBFF\uDFFF""#, "\u{10000}\u{10FFFF}")
        assertString(#""a\uD834\uDD1Eb""#, "a𝄞b")
    }

    func testLoneSurrogatesAreRejected() {
        assertSyntaxError(#""\uD800""#, offset: 1, #"lone high surrogate \uD800 in string"#)
        assertSyntaxError(#""\uD800x""#, offset: 1)
        assertSyntaxError(#""\uD800\u0041""#, offset: 1)
        assertSyntaxError(#""\uD800\n""#, offset: 1)
        assertSyntaxError(#""\uD800\uD800""#, offset: 1)
        assertSyntaxError(#""\uDC00""#, offset: 1, #"lone low surrogate \uDC00 in string"#)
        assertSyntaxError(#""ab\uDFFF\uD800""#, offset: 3)
        assertSyntaxError(#"["ok", "\uDE00\uD83D"]"#, offset: 8)
    }

    func testInvalidEscapes() {
        assertSyntaxError(#""\x""#, offset: 1, "invalid escape sequence in string")
        assertSyntaxError(#""\U0041""#, offset: 1)
        assertSyntaxError(#""\'""#, offset: 1)
        assertSyntaxError(#""\a""#, offset: 1)
        assertSyntaxError(#""\0""#, offset: 1)
        assertSyntaxError(#""ab\u00G0""#, offset: 3, #"invalid \u escape: expected 4 hex digits"#)
        assertSyntaxError(#""\u12""#, offset: 1)
        assertSyntaxError(#""\uD83D\uDE0G""#, offset: 7)
        assertSyntaxError(#""\u 123""#, offset: 1)
    }

    func testRawControlCharactersAreRejected() {
        for byte: UInt8 in 0..<0x20 {
            assertSyntaxError([0x22, 0x61, byte, 0x22], offset: 2)
        }
        assertSyntaxError("\"a\nb\"", offset: 2, "unescaped control character 0x0A in string")
        assertSyntaxError("\"\t\"", offset: 1, "unescaped control character 0x09 in string")
        assertSyntaxError("\"é\u{1}\"", offset: 3)  // after a multi-byte character
        assertSyntaxError("\"\\n\u{0}\"", offset: 3)  // after an escape
    }

    func testValidMultiByteUTF8() {
        assertString("\"é€😀\"", "é€😀")
        assertString([0x22, 0xC2, 0x80, 0x22], "\u{80}")
        assertString([0x22, 0xDF, 0xBF, 0x22], "\u{7FF}")
        assertString([0x22, 0xE0, 0xA0, 0x80, 0x22], "\u{800}")
        assertString([0x22, 0xED, 0x9F, 0xBF, 0x22], "\u{D7FF}")
        assertString([0x22, 0xEE, 0x80, 0x80, 0x22], "\u{E000}")
        assertString([0x22, 0xEF, 0xBF, 0xBF, 0x22], "\u{FFFF}")
        assertString([0x22, 0xF0, 0x90, 0x80, 0x80, 0x22], "\u{10000}")
        assertString([0x22, 0xF4, 0x8F, 0xBF, 0xBF, 0x22], "\u{10FFFF}")
        assertString("\"é\\n😀\\u00e9x\"", "é\n😀éx")
    }

    func testInvalidUTF8IsRejected() {
        let cases: [[UInt8]] = [
            [0x80],  // lone continuation
            [0xBF],
            [0xC0, 0x80],  // overlong NUL
            [0xC1, 0xBF],  // overlong
            [0xE0, 0x80, 0x80],  // overlong 3-byte
            [0xE0, 0x9F, 0xBF],
            [0xED, 0xA0, 0x80],  // encoded surrogate U+D800
            [0xED, 0xBF, 0xBF],
            [0xF0, 0x80, 0x80, 0x80],  // overlong 4-byte
            [0xF0, 0x8F, 0xBF, 0xBF],
            [0xF4, 0x90, 0x80, 0x80],  // above U+10FFFF
            [0xF5, 0x80, 0x80, 0x80],
            [0xFE], [0xFF],
            [0xC3, 0x41],  // missing continuation
            [0xE2, 0x82, 0x41],
            [0xF0, 0x9F, 0x98, 0x41],
            [0xC3, 0x22],  // continuation replaced by the closing quote
        ]
        for bad in cases {
            assertSyntaxError([0x22, 0x61] + bad + [0x22], offset: 2, "invalid UTF-8 in string")
        }
        // In a key too.
        assertSyntaxError([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D], offset: 2, "invalid UTF-8 in string")
    }

    func testUnterminatedStringsFailAtTheEnd() {
        assertSyntaxError(#""abc"#, offset: 4, "unterminated string")
        assertSyntaxError(#""abc\"#, offset: 5, "unterminated string")
        assertSyntaxError(#""\u12"#, offset: 5, "unterminated string")
        assertSyntaxError(#""\uD83D"#, offset: 7, "unterminated string")
        assertSyntaxError(#""\uD83D\"#, offset: 8, "unterminated string")
        assertSyntaxError(#""\uD83D\uDE"#, offset: 11, "unterminated string")
        assertSyntaxError([0x22, 0xE2, 0x82], offset: 3, "unterminated string")
        assertSyntaxError(#"{"key"#, offset: 5, "unterminated string")
    }

    func testKeysAreDecoded() throws {
        try withReader(#"{"a\u0062\n": 1, "é": 2}"#) { r in
            try r.beginObject()
            XCTAssertEqual(try r.nextKey(), "ab\n")
            XCTAssertEqual(try r.readNumber(), 1)
            XCTAssertEqual(try r.nextKey(), "é")
            XCTAssertEqual(try r.readNumber(), 2)
            XCTAssertNil(try r.nextKey())
        }
    }

    /// Seeded random strings of arbitrary scalars survive writer → reader.
    func testRandomStringsRoundTrip() {
        for seed: UInt64 in 0..<2_000 {
            var rng = SplitMix64(seed: seed)
            let s = randomString(using: &rng, maxLength: 40)
            var writer = JSONWriter()
            writer.string(s)
            let back = writer.bytes.withUnsafeBufferPointer { buffer -> String? in
                var r = JSONReader(buffer)
                return try? r.readString()
            }
            XCTAssertEqual(back, s, "seed \(seed)")
        }
    }
}

/// A random string mixing ASCII, JSON-special characters, controls, BMP and
/// astral scalars.
func randomString(using rng: inout SplitMix64, maxLength: Int) -> String {
    var s = ""
    for _ in 0..<Int.random(in: 0...maxLength, using: &rng) {
        let scalar: Unicode.Scalar
        switch rng.next() % 6 {
        case 0: scalar = Unicode.Scalar(UInt8.random(in: 0x20...0x7E, using: &rng))
        case 1: scalar = ["\"", "\\", "/", "\n", "\t", "~"].randomElement(using: &rng)!
        case 2: scalar = Unicode.Scalar(UInt8.random(in: 0...0x1F, using: &rng))
        case 3: scalar = Unicode.Scalar(UInt32.random(in: 0x80...0xD7FF, using: &rng))!
        case 4: scalar = Unicode.Scalar(UInt32.random(in: 0xE000...0xFFFF, using: &rng))!
        default: scalar = Unicode.Scalar(UInt32.random(in: 0x10000...0x10FFFF, using: &rng))!
        }
        s.unicodeScalars.append(scalar)
    }
    return s
}
