import XCTest

@testable import HTTPServer

/// A frame whose payload is given in two pieces is byte for byte the frame
/// of their concatenation, at every length encoding's edges.
final class WebSocketFrameEncoderTests: XCTestCase {
    func testTwoPiecesMakeTheFrameOfTheirConcatenation() {
        for n in [0, 1, 2, 124, 125, 126, 127, 65_535, 65_536, 70_000] {
            let payload = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            var whole: [UInt8] = [1, 2, 3]  // after what the output already holds
            WebSocketFrameEncoder.append(opcode: .text, payload: payload, to: &whole)
            for cut in Set([0, n / 3, n / 2, max(0, n - 1), n]) {
                var pieces: [UInt8] = [1, 2, 3]
                payload.withUnsafeBytes { p in
                    WebSocketFrameEncoder.append(
                        opcode: .text, payload: UnsafeRawBufferPointer(rebasing: p[..<cut]), UnsafeRawBufferPointer(rebasing: p[cut...]),
                        to: &pieces)
                }
                XCTAssertEqual(pieces, whole, "length \(n) cut at \(cut)")
            }
        }
    }
}
