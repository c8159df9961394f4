import TestSupport
import XCTest

@testable import HitJSON

/// Sentinels placed right after the input in padded layouts: a reader that
/// looks past the end of its buffer would see one of these and misbehave.
let paddingSentinels: [UInt8] = Array("0e\"]} \\x".utf8) + [0x00, 0xFF]

/// Runs `body` over `bytes` laid out several ways — alone, then embedded in
/// a larger buffer with sentinel bytes before and after — and asserts every
/// layout gives the same result.
func inEveryLayout<R: Equatable>(
    _ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line,
    _ body: (UnsafeBufferPointer<UInt8>) -> R
) -> R {
    let whole = bytes.withUnsafeBufferPointer { body($0) }
    for sentinel in paddingSentinels {
        let padded = [UInt8](repeating: sentinel, count: 3) + bytes + [UInt8](repeating: sentinel, count: 8)
        let result = padded.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[3..<(3 + bytes.count)])) }
        XCTAssertEqual(result, whole, "padded with \(sentinel)", file: file, line: line)
    }
    return whole
}

/// Parses a whole document with `JSONValue.parse`, in every layout.
func parseResult(_ bytes: [UInt8], maxDepth: Int = 512, file: StaticString = #filePath, line: UInt = #line)
    -> Result<JSONValue, JSONSyntaxError>
{
    inEveryLayout(bytes, file: file, line: line) { buffer in
        Result { () throws(JSONSyntaxError) -> JSONValue in try JSONValue.parse(buffer, maxDepth: maxDepth) }
    }
}

func parseResult(_ text: String, maxDepth: Int = 512, file: StaticString = #filePath, line: UInt = #line)
    -> Result<JSONValue, JSONSyntaxError>
{
    parseResult(Array(text.utf8), maxDepth: maxDepth, file: file, line: line)
}

/// Validates a whole document with `skipValue` + `finish`, returning the end offset.
func skipResult(_ bytes: [UInt8], maxDepth: Int = 512) -> Result<Int, JSONSyntaxError> {
    inEveryLayout(bytes) { buffer in
        var reader = JSONReader(buffer, maxDepth: maxDepth)
        return Result { () throws(JSONSyntaxError) -> Int in
            try reader.skipValue()
            try reader.finish()
            return reader.offset
        }
    }
}

/// Asserts that `text` is rejected with exactly this offset and message,
/// both by `JSONValue.parse` and by `skipValue`.
func assertSyntaxError(
    _ text: String, offset: Int, _ message: String? = nil, maxDepth: Int = 512,
    file: StaticString = #filePath, line: UInt = #line
) {
    assertSyntaxError(Array(text.utf8), offset: offset, message, maxDepth: maxDepth, file: file, line: line)
}

func assertSyntaxError(
    _ bytes: [UInt8], offset: Int, _ message: String? = nil, maxDepth: Int = 512,
    file: StaticString = #filePath, line: UInt = #line
) {
    switch parseResult(bytes, maxDepth: maxDepth, file: file, line: line) {
    case .success(let value):
        XCTFail("accepted \(value) from \(bytes)", file: file, line: line)
    case .failure(let error):
        XCTAssertEqual(
            error.offset, offset, "offset for \(String(decoding: bytes, as: UTF8.self)): \(error.message)", file: file, line: line)
        if let message { XCTAssertEqual(error.message, message, file: file, line: line) }
        if case .failure(let skipError) = skipResult(bytes, maxDepth: maxDepth) {
            XCTAssertEqual(skipError.offset, error.offset, "skipValue offset: \(skipError.message)", file: file, line: line)
        } else {
            XCTFail("skipValue accepted what parse rejected", file: file, line: line)
        }
    }
}

/// Parses a document that must be valid; also checks that `skipValue` agrees
/// and that every proper prefix fails exactly at its end or is itself valid.
@discardableResult
func assertParses(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> JSONValue? {
    let bytes = Array(text.utf8)
    switch parseResult(bytes, file: file, line: line) {
    case .failure(let error):
        XCTFail("rejected \(text): \(error)", file: file, line: line)
        return nil
    case .success(let value):
        XCTAssertEqual(skipResult(bytes), .success(bytes.count), file: file, line: line)
        assertPrefixesFailAtTheirEnd(bytes, file: file, line: line)
        return value
    }
}

/// Byte by byte: every proper prefix of a valid document either parses (like
/// `12` of `123`) or fails exactly at its end, never earlier.
func assertPrefixesFailAtTheirEnd(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
    for length in 0..<bytes.count {
        let prefix = Array(bytes[..<length])
        if case .failure(let error) = parseResult(prefix, file: file, line: line) {
            XCTAssertEqual(error.offset, length, "prefix \(prefix): \(error.message)", file: file, line: line)
        }
    }
}

/// Runs `body` on a reader over `text` (whole layout only).
func withReader<R>(_ text: String, maxDepth: Int = 512, _ body: (inout JSONReader) throws -> R) rethrows -> R {
    let bytes = Array(text.utf8)
    return try bytes.withUnsafeBufferPointer { buffer in
        var reader = JSONReader(buffer, maxDepth: maxDepth)
        return try body(&reader)
    }
}

extension JSONValue {
    /// Shorthand for tests: parses text that must be valid.
    init(json text: String) {
        self = try! JSONValue.parse(Array(text.utf8))
    }
}
