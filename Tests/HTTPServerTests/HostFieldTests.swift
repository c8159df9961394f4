import TestSupport
import XCTest

@testable import HTTPServer

/// The Host check's fast path (``HostField/isUsualForm(_:)``, eight bytes
/// at a time) against the grammar read byte by byte: it may only say yes
/// to what the grammar accepts, and must say yes to every usual host.
final class HostFieldTests: XCTestCase {
    private func usual(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBufferPointer { HostField.isUsualForm($0) } }
    private func grammar(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBufferPointer { HostField.isValidByGrammar($0) } }
    private func valid(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBufferPointer { HostField.isValid($0) } }

    func testTheFastPathNeverAcceptsWhatTheGrammarRejects() {
        let alphabet = Array("az09.-:AZ_~%[]@/?# v!$&'()*+,;=".utf8) + [0x00, 0x7F, 0x80, 0xFF, 0x2F, 0x3A, 0x3B, 0x60, 0x7B, 0x2C, 0x40]
        var random = SplitMix64(seed: 14)
        for _ in 0..<50_000 {
            let count = Int(random.next() % 28)
            let bytes = (0..<count).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
            if usual(bytes) { XCTAssertTrue(grammar(bytes), String(decoding: bytes, as: UTF8.self)) }
            XCTAssertEqual(valid(bytes), grammar(bytes), String(decoding: bytes, as: UTF8.self))
        }
    }

    func testEveryUsualHostTakesTheFastPath() {
        let name = Array("abcdefghijklmnopqrstuvwxyz0123456789-.".utf8)
        var random = SplitMix64(seed: 16)
        for _ in 0..<20_000 {
            var bytes = (0..<Int(random.next() % 40)).map { _ in name[Int(random.next() % UInt64(name.count))] }
            if random.next() % 2 == 0 {
                bytes.append(UInt8(ascii: ":"))
                bytes += (0..<Int(random.next() % 7)).map { _ in UInt8(ascii: "0") + UInt8(random.next() % 10) }
            }
            XCTAssertTrue(usual(bytes), String(decoding: bytes, as: UTF8.self))
            XCTAssertTrue(grammar(bytes), String(decoding: bytes, as: UTF8.self))
        }
    }

    func testEachByteOfTheWordTestAtEachPosition() {
        // Every byte value at every offset of a 9- and a 16-byte name, with and without a port.
        for length in [1, 7, 8, 9, 16, 17] {
            for position in 0..<length {
                for byte in 0...255 {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[position] = UInt8(byte)
                    for suffix in [[], Array(":8080".utf8)] {
                        let value = bytes + suffix
                        let expected = (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x2E
                        if !(byte == 0x3A && suffix.isEmpty && position == length - 1) {  // "aaa:" is a name with an empty port
                            XCTAssertEqual(usual(value), expected, "byte \(byte) at \(position) of \(length) + \(suffix.count)")
                        }
                        XCTAssertEqual(valid(value), grammar(value))
                    }
                }
            }
        }
    }
}
