import TestSupport
import XCTest

@testable import HTTPServer

/// The frame codec, fed whole, byte by byte, split at every offset and in
/// random pieces (``actionsEverySplit``), and padded with a following frame.
final class WebSocketFrameDecoderTests: XCTestCase {
    func testRFCExamplesMaskedAndUnmasked() {
        // RFC 6455 §5.7: a single-frame masked text message "Hello".
        let masked: [UInt8] = [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
        XCTAssertEqual(actionsEverySplit(masked), ["text:Hello"])
        XCTAssertEqual(clientText("Hello"), masked)
        // The same, unmasked, as a server sends it; a server refuses it from a client.
        var unmasked: [UInt8] = []
        WebSocketFrameEncoder.append(opcode: .text, payload: Array("Hello".utf8), to: &unmasked)
        XCTAssertEqual(unmasked, [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
        XCTAssertEqual(actionsEverySplit(unmasked), ["close:1002:client frames must be masked:true"])
        // A client decoding the server's frame.
        var client = WebSocketFrameDecoder(maxPayload: 100, requireMask: false)
        let r = unmasked.withUnsafeBytes { client.decode($0) }
        XCTAssertEqual(r.used, 7)
        XCTAssertEqual(r.result, .frame(WebSocketFrameHeader(fin: true, opcode: .text, length: 5, mask: nil)))
        XCTAssertEqual(Array(client.payload.bytes), Array("Hello".utf8))
        let refused = masked.withUnsafeBytes { client.decode($0) }
        XCTAssertEqual(refused.result, .error(.masked))
    }

    func testLengthsOfSevenSixteenAndSixtyFourBits() {
        var limits = WebSocketLimits()
        limits.maxMessageBytes = 1 << 20
        for n in [0, 1, 125, 126, 127, 65_535, 65_536, 70_001] {
            let text = String(repeating: "x", count: n)
            let frame = clientText(text)
            XCTAssertEqual(frame.count, n + 6 + (n < 126 ? 0 : n <= 65_535 ? 2 : 8))
            let whole = actions(frame, pieces: [frame.count], limits: limits)
            XCTAssertEqual(whole, ["text:" + text], "\(n)")
            XCTAssertEqual(actions(frame, pieces: Array(repeating: 1, count: frame.count), limits: limits), whole)
            XCTAssertEqual(actions(frame, pieces: [1, 2, 3, 5, 7, 11, 13], limits: limits), whole)
        }
    }

    func testNonMinimalLengthsAndTheTopBitAreProtocolErrors() {
        // 126 announcing 125; 127 announcing 65,535; 127 with bit 63 set.
        let cases: [([UInt8], String)] = [
            ([0x81, 0xFE, 0x00, 0x7D], "length not in its shortest form"),
            ([0x81, 0xFF, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF], "length not in its shortest form"),
            ([0x81, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0], "64-bit length with its top bit set"),
        ]
        for (bytes, reason) in cases {
            XCTAssertEqual(actionsEverySplit(bytes + [1, 2, 3, 4] + Array(repeating: 0x61, count: 200)), ["close:1002:\(reason):true"])
        }
        // 126 announcing exactly 126 is minimal.
        let ok: [UInt8] = [0x81, 0xFE, 0x00, 0x7E, 0, 0, 0, 0] + Array(repeating: 0x61, count: 126)
        XCTAssertEqual(actionsEverySplit(ok), ["text:" + String(repeating: "a", count: 126)])
    }

    func testAFrameOverTheLimitIsRefusedFromItsHeadAlone() {
        var limits = WebSocketLimits()
        limits.maxMessageBytes = 100
        // Only the head of a frame announcing 2^40 bytes: refused without its payload.
        let head: [UInt8] = [0x81, 0xFF, 0, 0, 0x01, 0, 0, 0, 0, 0, 1, 2, 3, 4]
        XCTAssertEqual(actionsEverySplit(head, limits: limits), ["close:1009:frame of 1099511627776 bytes over the message limit:true"])
        XCTAssertEqual(
            actionsEverySplit(clientText(String(repeating: "b", count: 100)), limits: limits),
            ["text:" + String(repeating: "b", count: 100)])
        XCTAssertEqual(
            actionsEverySplit(clientText(String(repeating: "b", count: 101)), limits: limits),
            ["close:1009:frame of 101 bytes over the message limit:true"])
    }

    func testRSVBitsAndReservedOpcodesAreProtocolErrors() {
        for rsv: UInt8 in 1...7 {
            XCTAssertEqual(
                actionsEverySplit(clientFrame(.text, Array("hi".utf8), rsv: rsv)),
                ["close:1002:RSV bits set without an extension:true"])
        }
        for opcode: UInt8 in [3, 4, 5, 6, 7, 0xB, 0xC, 0xD, 0xE, 0xF] {
            XCTAssertEqual(actionsEverySplit([0x80 | opcode, 0x80, 1, 2, 3, 4]), ["close:1002:reserved opcode \(opcode):true"])
        }
    }

    func testControlFramesAreShortAndWhole() {
        XCTAssertEqual(
            actionsEverySplit(clientFrame(.ping, Array(repeating: 7, count: 125))),
            ["pong:" + String(repeating: "7", count: 125)])
        XCTAssertEqual(
            actionsEverySplit(clientFrame(.ping, Array(repeating: 7, count: 126))),
            ["close:1002:control frame over 125 bytes:true"])
        XCTAssertEqual(actionsEverySplit(clientFrame(.ping, [1], fin: false)), ["close:1002:fragmented control frame:true"])
        XCTAssertEqual(actionsEverySplit(clientFrame(.close, closeBody(1000), fin: false)), ["close:1002:fragmented control frame:true"])
    }

    func testEveryFrameOfOneReadIsDecodedAndTheErrorIsSticky() {
        let bytes = clientText("a") + clientFrame(.ping, [0xAB]) + clientText("b") + clientFrame(.pong, [1]) + clientText("c")
        XCTAssertEqual(actionsEverySplit(bytes), ["text:a", "pong:ab", "text:b", "text:c"])
        // Padded after a fatal error: nothing more comes out.
        let padded = clientText("a") + [0x81, 0x05] + clientText("never")
        XCTAssertEqual(actionsEverySplit(padded), ["text:a", "close:1002:client frames must be masked:true"])
    }

    func testMaskingKeysAtEveryPhaseUnmaskAlike() {
        var random = SplitMix64(seed: 6455)
        for n in 0..<40 {
            let payload = (0..<n).map { _ in UInt8(ascii: "a") + UInt8(random.next() % 26) }
            let mask = UInt32(truncatingIfNeeded: random.next())
            let frame = clientFrame(.text, payload, mask: mask)
            XCTAssertEqual(actionsEverySplit(frame), ["text:" + String(decoding: payload, as: UTF8.self)])
        }
    }
}
