import TestSupport
import XCTest

@testable import HitJSON

/// Number grammar and conversion, checked bit for bit against Swift's
/// correctly rounded `Double(String)`.
final class JSONReaderNumberTests: XCTestCase {
    /// Reads `text` as a whole document; asserts it matches `Double(text)` bit for bit.
    func assertNumber(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
        guard let expected = Double(text) else { return XCTFail("oracle rejected \(text)", file: file, line: line) }
        guard case .number(let value)? = assertParses(text, file: file, line: line) else {
            return XCTFail("not a number: \(text)", file: file, line: line)
        }
        XCTAssertEqual(value.bitPattern, expected.bitPattern, "\(text): got \(value), want \(expected)", file: file, line: line)
    }

    func testSimpleValues() {
        for text in [
            "0", "1", "-1", "7", "10", "123.45", "678.9", "0.5", "-0.5", "0.1", "0.2", "0.3",
            "1E2", "1e+2", "1e-2", "1.5e3", "-2.5E-3", "120", "100000", "4294967296",
            "9007199254740991", "9007199254740992", "9007199254740993", "18446744073709551615",
            "18446744073709551616", "0.30000000000000004", "3.141592653589793", "2.718281828459045",
        ] {
            assertNumber(text)
        }
    }

    func testZeroesKeepTheirSign() throws {
        for text in ["0", "0.0", "0e5", "0E-5", "0.000", "0e999", "-0", "-0.0", "-0e-5", "-0e999"] {
            assertNumber(text)
        }
        let minusZero = try XCTUnwrap(assertParses("-0")?.numberValue)
        XCTAssertEqual(minusZero.sign, .minus)
    }

    func testHugeAndTinyExponents() throws {
        XCTAssertEqual(try XCTUnwrap(assertParses("1e999")?.numberValue), .infinity)
        XCTAssertEqual(try XCTUnwrap(assertParses("-1e999")?.numberValue), -.infinity)
        XCTAssertEqual(try XCTUnwrap(assertParses("1e-999")?.numberValue).bitPattern, (0.0).bitPattern)
        XCTAssertEqual(try XCTUnwrap(assertParses("-1e-999")?.numberValue).bitPattern, (-0.0).bitPattern)
        XCTAssertEqual(try XCTUnwrap(assertParses("1e99999999999999999999")?.numberValue), .infinity)
        XCTAssertEqual(try XCTUnwrap(assertParses("1e-99999999999999999999")?.numberValue), 0)
        for text in [
            "1e308", "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308",
            "2.2250738585072014e-308", "2.2250738585072011e-308", "4.9e-324", "5e-324",
            "2.4703282292062327e-324", "2.4703282292062328e-324", "1e22", "1e23", "1e-22", "1e-23",
            "123e30", "9007199254740992e22", "9007199254740993e22", "1e37", "1e38", "8.5e-310",
        ] {
            assertNumber(text)
        }
    }

    func testManyDigits() {
        assertNumber("1" + String(repeating: "0", count: 400))
        assertNumber("0." + String(repeating: "0", count: 400) + "1")
        assertNumber(String(repeating: "9", count: 30) + "." + String(repeating: "9", count: 30))
        assertNumber("1." + String(repeating: "0", count: 40) + "1")
        assertNumber("123456789012345678901234567890")
        assertNumber("0.1234567890123456789")
        assertNumber("1234567890123456789")  // 19 digits, mantissa > 2^53
        assertNumber("12345678901234567890e-5")
        assertNumber("1000000000000000000000000000000e-31")
    }

    func testMalformedNumbers() {
        assertSyntaxError("-", offset: 1, "expected a digit after '-', found end of input")
        assertSyntaxError("-a", offset: 1, "expected a digit after '-', found 'a'")
        assertSyntaxError("- 1", offset: 1, "expected a digit after '-', found ' '")
        assertSyntaxError("--1", offset: 1, "expected a digit after '-', found '-'")
        assertSyntaxError("-.5", offset: 1, "expected a digit after '-', found '.'")
        assertSyntaxError("+1", offset: 0, "expected a value, found '+'")
        assertSyntaxError("01", offset: 1, "leading zeros are not allowed")
        assertSyntaxError("-01", offset: 2, "leading zeros are not allowed")
        assertSyntaxError("00", offset: 1, "leading zeros are not allowed")
        assertSyntaxError("[007]", offset: 2, "leading zeros are not allowed")
        assertSyntaxError("1.", offset: 2, "expected a digit after '.', found end of input")
        assertSyntaxError("1.e5", offset: 2, "expected a digit after '.', found 'e'")
        assertSyntaxError("[1.]", offset: 3, "expected a digit after '.', found ']'")
        assertSyntaxError(".5", offset: 0, "expected a value, found '.'")
        assertSyntaxError("1e", offset: 2, "expected a digit in the exponent, found end of input")
        assertSyntaxError("1e+", offset: 3, "expected a digit in the exponent, found end of input")
        assertSyntaxError("1E-x", offset: 3, "expected a digit in the exponent, found 'x'")
        assertSyntaxError("1e+-1", offset: 3, "expected a digit in the exponent, found '-'")
        assertSyntaxError("NaN", offset: 0, "expected a value, found 'N'")
        assertSyntaxError("Infinity", offset: 0, "expected a value, found 'I'")
        assertSyntaxError("-Infinity", offset: 1, "expected a digit after '-', found 'I'")
        assertSyntaxError("1e5e5", offset: 3, "expected end of input, found 'e'")
        assertSyntaxError("0x1F", offset: 1, "expected end of input, found 'x'")
        assertSyntaxError("1_000", offset: 1, "expected end of input, found '_'")
        assertSyntaxError("١", offset: 0)  // Arabic-Indic digit one
    }

    func testReadNumberOnWrongInput() throws {
        try withReader("+1") { r in
            XCTAssertThrowsError(try r.readNumber()) { error in
                XCTAssertEqual(error as? JSONSyntaxError, JSONSyntaxError(offset: 0, message: "expected a number, found '+'"))
            }
        }
    }

    /// The buffer is not NUL-terminated: a number running to the very end of
    /// the buffer must stop there, even when the next byte in memory is a digit.
    func testNumberAtTheVeryEndOfAPrefixSlice() throws {
        let memory = Array("12345".utf8)
        try memory.withUnsafeBufferPointer { all in
            for length in 1...5 {
                var r = JSONReader(UnsafeBufferPointer(rebasing: all[0..<length]))
                XCTAssertEqual(try r.readNumber(), Double(String(decoding: memory[0..<length], as: UTF8.self)))
                XCTAssertEqual(r.offset, length)
                try r.finish()
            }
        }
        let exponent = Array("-1.5e+77".utf8)
        try exponent.withUnsafeBufferPointer { all in
            var r = JSONReader(UnsafeBufferPointer(rebasing: all[0..<7]))
            XCTAssertEqual(try r.readNumber(), -1.5e7)
            var cut = JSONReader(UnsafeBufferPointer(rebasing: all[0..<5]))
            XCTAssertThrowsError(try cut.readNumber()) { error in
                XCTAssertEqual((error as? JSONSyntaxError)?.offset, 5)
            }
            var dot = JSONReader(UnsafeBufferPointer(rebasing: all[0..<3]))
            XCTAssertThrowsError(try dot.readNumber()) { error in
                XCTAssertEqual((error as? JSONSyntaxError)?.offset, 3)
            }
        }
    }

    /// Seeded random decimal texts of many shapes, including exactly the
    /// fast-path boundary (15–19 digits, exponents around ±22), compared with
    /// `Double(String)`.
    func testRandomDecimalTextsMatchDoubleInit() {
        for seed: UInt64 in 0..<20_000 {
            var rng = SplitMix64(seed: seed)
            var text = rng.next() % 2 == 0 ? "-" : ""
            let integerDigits = Int.random(in: 1...22, using: &rng)
            for k in 0..<integerDigits {
                let digit = k == 0 ? Int.random(in: 1...9, using: &rng) : Int.random(in: 0...9, using: &rng)
                text += String(digit)
            }
            if integerDigits == 1 && rng.next() % 4 == 0 { text = text.hasPrefix("-") ? "-0" : "0" }
            if rng.next() % 2 == 0 {
                text += "."
                for _ in 0..<Int.random(in: 1...20, using: &rng) { text += String(Int.random(in: 0...9, using: &rng)) }
            }
            if rng.next() % 2 == 0 {
                text += ["e", "E", "e+", "e-", "E-"][Int.random(in: 0..<5, using: &rng)]
                text += String(Int.random(in: 0...40, using: &rng))
            }
            let expected = Double(text)!
            let value = Array(text.utf8).withUnsafeBufferPointer { buffer -> Double? in
                var r = JSONReader(buffer)
                return try? r.readNumber()
            }
            XCTAssertEqual(value?.bitPattern, expected.bitPattern, "seed \(seed): \(text)")
        }
    }

    /// Seeded random finite doubles: the writer's text reads back to the same bits.
    func testRandomDoublesRoundTripThroughWriterAndReader() {
        var rng = SplitMix64(seed: 0x5EED)
        for iteration in 0..<50_000 {
            let d: Double
            switch iteration % 4 {
            case 0: d = Double(bitPattern: rng.next())
            case 1: d = Double(Int64(bitPattern: rng.next()) >> Int64(rng.next() % 64))
            case 2: d = Double(Int.random(in: -100_000...100_000, using: &rng)) / 100
            default: d = Double.random(in: -1e6...1e6, using: &rng)
            }
            guard d.isFinite else { continue }
            var writer = JSONWriter()
            writer.number(d)
            let back = writer.bytes.withUnsafeBufferPointer { buffer -> Double? in
                var r = JSONReader(buffer)
                guard let v = try? r.readNumber(), (try? r.finish()) != nil else { return nil }
                return v
            }
            XCTAssertEqual(back?.bitPattern, d.bitPattern, "iteration \(iteration): \(String(decoding: writer.bytes, as: UTF8.self))")
        }
    }
}
