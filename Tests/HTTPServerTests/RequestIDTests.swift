import TestSupport
import XCTest

@testable import HTTPServer

/// The text of generated request ids (SPEC §8): 8 hex digits of the
/// process prefix, 2 of the loop, 10 of the loop's serial, lowercase,
/// checked against the standard library's own formatting.
final class RequestIDTests: XCTestCase {
    /// `value` as exactly `digits` lowercase hex digits.
    private func hex(_ value: UInt64, _ digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    func testGeneratedIDsSpellPrefixLoopAndSerial() {
        let prefix = hex(UInt64(RequestID.processPrefix), 8)
        var random = SplitMix64(seed: 16)
        var serials: [UInt64] = [0, 1, 0x2a, 0xF, 0x10, 0xFFFF, 0x1_0000, 0xAB_CDEF_0123, 0xFF_FFFF_FFFF]
        for _ in 0..<2000 { serials.append(random.next() & 0xFF_FFFF_FFFF) }
        for loop in [0, 1, 9, 10, 15, 16, 0xAB, 255] {
            for serial in serials {
                let id = RequestID(loop: loop, serial: serial)
                XCTAssertEqual(id.description, prefix + hex(UInt64(loop), 2) + hex(serial, 10), "loop \(loop) serial \(serial)")
                XCTAssertEqual(id.byteCount, 20)
            }
        }
    }

    func testSerialsPast40BitsWrapAndLoopsPast255Truncate() {
        let prefix = hex(UInt64(RequestID.processPrefix), 8)
        XCTAssertEqual(RequestID(loop: 256 + 7, serial: 1 << 40 | 5).description, prefix + "07" + "0000000005")
    }

    func testHexWordMatchesRadixFormatting() {
        var random = SplitMix64(seed: 14)
        for value in [0, 1, 9, 10, 0xF, 0xFFFF_FFFF, 0x0123_4567, 0x89AB_CDEF]
            + (0..<5000).map({ _ in UInt32(truncatingIfNeeded: random.next()) })
        {
            let word = RequestID.hexWord(UInt32(value))
            let text = withUnsafeBytes(of: word) { String(decoding: $0, as: UTF8.self) }
            XCTAssertEqual(text, hex(UInt64(value), 8))
        }
    }
}
