import XCTest

@testable import HTTPServer

final class SHA1Tests: XCTestCase {
    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// RFC 3174 §7.3's test vectors, and FIPS 180's empty message.
    func testRFC3174Vectors() {
        XCTAssertEqual(hex(SHA1.digest(Array("abc".utf8))), "a9993e364706816aba3e25717850c26c9cd0d89d")
        XCTAssertEqual(
            hex(SHA1.digest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
        XCTAssertEqual(
            hex(SHA1.digest(Array(repeating: UInt8(ascii: "a"), count: 1_000_000))),
            "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
        XCTAssertEqual(
            hex(SHA1.digest(Array(String(repeating: "01234567", count: 80).utf8))),
            "dea356a2cddd90c7a7ecedc5ebb563934f460452")
        XCTAssertEqual(hex(SHA1.digest([])), "da39a3ee5e6b4b0d3255bfef95601890afd80709")
    }

    /// Every padding boundary: 55, 56 and 64 bytes straddle the length field.
    func testPaddingBoundaries() {
        XCTAssertEqual(hex(SHA1.digest(Array(repeating: UInt8(ascii: "a"), count: 55))), "c1c8bbdc22796e28c0e15163d20899b65621d65a")
        XCTAssertEqual(hex(SHA1.digest(Array(repeating: UInt8(ascii: "a"), count: 56))), "c2db330f6083854c99d4b5bfb6e8f29f201be699")
        XCTAssertEqual(hex(SHA1.digest(Array(repeating: UInt8(ascii: "a"), count: 64))), "0098ba824b5c16427bd7a1122a5a442a25ec644d")
    }

    func testBase64() {
        XCTAssertEqual(WebSocketBase64.encode([]), "")
        XCTAssertEqual(WebSocketBase64.encode(Array("f".utf8)), "Zg==")
        XCTAssertEqual(WebSocketBase64.encode(Array("fo".utf8)), "Zm8=")
        XCTAssertEqual(WebSocketBase64.encode(Array("foobar".utf8)), "Zm9vYmFy")
        XCTAssertEqual(WebSocketBase64.decodedLength("dGhlIHNhbXBsZSBub25jZQ=="), 16)
        XCTAssertNil(WebSocketBase64.decodedLength("dGhlIHNhbXBsZSBub25jZQ="))
        XCTAssertNil(WebSocketBase64.decodedLength("dGhlIHNhbXBsZSBub25jZ=Q="))
        XCTAssertNil(WebSocketBase64.decodedLength("dGhlIHNhbXBsZSBub25j*Q=="))
    }
}
