import Foundation
import TestSupport
import XCTest

@testable import SceneCodec

/// Strict base64 against Foundation's decoder (an independent oracle):
/// whole, every prefix, every one-byte edit.
final class Base64Tests: XCTestCase {
    func decode(_ bytes: [UInt8]) -> Result<[UInt8], Base64.Failure> {
        bytes.withUnsafeBufferPointer { b in Result { () throws(Base64.Failure) in try Base64.decode(b) } }
    }

    /// Foundation's strict reading of the same text, with the canonical check RFC 4648 §3.5 allows.
    func oracle(_ bytes: [UInt8]) -> [UInt8]? {
        guard let text = String(bytes: bytes, encoding: .ascii), let data = Data(base64Encoded: text) else { return nil }
        // Foundation accepts non-zero pad bits; strict decoding refuses them.
        guard data.base64EncodedString() == text else { return nil }
        return Array(data)
    }

    func testKnownVectors() {
        // RFC 4648 §10.
        for (plain, encoded) in [
            ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
        ] {
            XCTAssertEqual(try Base64.decode(encoded), Array(plain.utf8))
            XCTAssertEqual(Base64.encode(Array(plain.utf8)), encoded)
        }
        XCTAssertEqual(try Base64.decode("AP8+/w=="), [0x00, 0xFF, 0x3E, 0xFF])
    }

    func testRejectionsNameTheOffset() {
        func failure(_ s: String) -> Base64.Failure? {
            do {
                _ = try Base64.decode(s)
                return nil
            } catch { return error }
        }
        XCTAssertEqual(
            failure("Zm9"), Base64.Failure(offset: 3, message: "the length 3 is not a multiple of 4 (padding with = is required)"))
        XCTAssertEqual(failure("Zm 9"), Base64.Failure(offset: 2, message: "whitespace is not allowed in base64 here"))
        XCTAssertEqual(failure("Zm9v\nYmFy")?.offset, 4)
        XCTAssertEqual(failure("Zm=v"), Base64.Failure(offset: 2, message: "= may only pad the end (one or two of it)"))
        XCTAssertEqual(failure("Z==="), Base64.Failure(offset: 1, message: "= may only pad the end (one or two of it)"))
        XCTAssertEqual(failure("Zg==Zg==")?.offset, 2)
        XCTAssertEqual(
            failure("Zh=="), Base64.Failure(offset: 1, message: "the bits before the padding must be 0 (the encoding is not canonical)"))
        XCTAssertEqual(
            failure("Zm9="), Base64.Failure(offset: 2, message: "the bits before the padding must be 0 (the encoding is not canonical)"))
        XCTAssertEqual(failure("ab-_"), Base64.Failure(offset: 2, message: "'-' is base64url, not base64 (use + and /)"))
        XCTAssertEqual(failure("ab*c"), Base64.Failure(offset: 2, message: "'*' is not a base64 character"))
        XCTAssertEqual(failure("abc\u{e9}")?.message, "byte 0xC3 is not a base64 character")
    }

    func testEveryPrefixAndOneByteEditAgreesWithFoundation() {
        var rng = SplitMix64(seed: 7)
        for length in [1, 2, 3, 4, 5, 10, 31] {
            let plain = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let encoded = Array(Base64.encode(plain).utf8)
            XCTAssertEqual(try decode(encoded).get(), plain)
            forEachEdit(of: encoded, replacements: Array("A/+=-_ \n\0".utf8) + [0xC3, 0x7F]) { input in
                let ours = try? decode(input).get()
                XCTAssertEqual(ours, oracle(input), String(decoding: input, as: UTF8.self))
                if let ours { XCTAssertEqual(Array(Base64.encode(ours).utf8), input, "one encoding per byte string") }
            }
        }
    }

    func testRandomRoundTripsAndRandomTexts() {
        var rng = SplitMix64(seed: 11)
        for _ in 0..<2000 {
            let plain = (0..<Int.random(in: 0...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let text = Base64.encode(plain)
            XCTAssertEqual(text, Data(plain).base64EncodedString())
            XCTAssertEqual(try Base64.decode(text), plain)
            let junk = (0..<Int.random(in: 0...12, using: &rng)).map { _ in Array("AZaz09+/=".utf8).randomElement(using: &rng)! }
            XCTAssertEqual(try? decode(junk).get(), oracle(junk), String(decoding: junk, as: UTF8.self))
        }
    }
}
