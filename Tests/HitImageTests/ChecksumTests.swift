import TestSupport
import XCTest

@testable import HitImage

/// CRC-32 (sliced tables) and Adler-32 (16 bytes at a time) against
/// byte-at-a-time definitions, at lengths around their block sizes and on
/// all-0xFF data (the largest sums).
final class ChecksumTests: XCTestCase {
    func referenceAdler(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for x in bytes {
            a = (a + UInt32(x)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }

    func referenceCRC(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for x in bytes {
            c ^= UInt32(x)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return ~c
    }

    func testAgainstByteAtATimeDefinitions() {
        var rng = SplitMix64(seed: 19)
        let random = (0..<12_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let ones = [UInt8](repeating: 0xFF, count: 12_000)
        let lengths = Array(0...70) + Array(5530...5570) + Array(11_090...11_120) + [12_000]
        for data in [random, ones] {
            for n in lengths {
                let slice = Array(data[..<n])
                slice.withUnsafeBufferPointer { buffer in
                    XCTAssertEqual(Adler32.checksum(buffer), referenceAdler(slice), "Adler-32 of \(n) bytes")
                    XCTAssertEqual(CRC32.checksum(buffer), referenceCRC(slice), "CRC-32 of \(n) bytes")
                }
            }
        }
    }

    func testKnownValues() {
        let text = Array("123456789".utf8)
        text.withUnsafeBufferPointer { buffer in
            XCTAssertEqual(CRC32.checksum(buffer), 0xCBF4_3926)  // the CRC-32 check value
            XCTAssertEqual(Adler32.checksum(buffer), 0x091E_01DE)
        }
        let iend = Array("IEND".utf8)
        iend.withUnsafeBufferPointer { XCTAssertEqual(CRC32.checksum($0), 0xAE42_6082) }
    }

    func testCRCContinues() {
        let data = (0..<1000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        data.withUnsafeBufferPointer { buffer in
            let whole = CRC32.checksum(buffer)
            let first = CRC32.checksum(UnsafeBufferPointer(rebasing: buffer[..<333]))
            XCTAssertEqual(CRC32.checksum(UnsafeBufferPointer(rebasing: buffer[333...]), continuing: first), whole)
        }
    }
}
