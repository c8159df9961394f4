import TestSupport
import XCTest

@testable import HitJournal

final class CRC32CTests: XCTestCase {
    /// Bit by bit, the definition: the oracle for the table-driven code.
    func reference(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = c & 1 != 0 ? (c >> 1) ^ 0x82F6_3B78 : c >> 1 }
        }
        return ~c
    }

    func testKnownVectors() {
        XCTAssertEqual(CRC32C.checksum(Array("123456789".utf8)), 0xE306_9283)
        XCTAssertEqual(CRC32C.checksum([UInt8](repeating: 0, count: 32)), 0x8A91_36AA)  // RFC 3720 B.4
        XCTAssertEqual(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)), 0x62A8_AB43)
        XCTAssertEqual(CRC32C.checksum(Array(0..<32)), 0x46DD_794E)
        XCTAssertEqual(CRC32C.checksum([]), 0)
    }

    func testEveryLengthAndAlignmentAgreesWithTheDefinition() {
        var rng = SplitMix64(seed: 17)
        let bytes = (0..<300).map { _ in UInt8.random(in: 0...255, using: &rng) }
        for start in 0..<9 {
            for end in start...bytes.count where (end - start) < 40 || end % 17 == 0 {
                let slice = Array(bytes[start..<end])
                XCTAssertEqual(CRC32C.checksum(bytes[start..<end]), reference(slice), "\(start)..<\(end)")
            }
        }
    }

    func testContinuingEqualsWhole() {
        let bytes = Array("the quick brown fox jumps over the lazy dog".utf8)
        for cut in 0...bytes.count {
            let first = CRC32C.checksum(Array(bytes[..<cut]))
            let whole = Array(bytes[cut...]).withUnsafeBytes { CRC32C.checksum($0, continuing: first) }
            XCTAssertEqual(whole, CRC32C.checksum(bytes))
        }
    }
}
