import TestSupport
import XCTest

@testable import HitImage

/// The two-level PNG a render embeds reads back, through the decoder, as
/// the image it was made from.
final class PNGEncoderTests: XCTestCase {
    func testRoundTripsThroughTheDecoder() throws {
        var rng = SplitMix64(seed: 0x5EED_0031)
        let sizes =
            [(1, 1), (7, 3), (8, 8), (9, 2), (64, 1), (1, 64), (33, 17)]
            + (0..<20).map { _ in
                (Int.random(in: 1...90, using: &rng), Int.random(in: 1...90, using: &rng))
            }
        for (columns, rows) in sizes {
            let density = Double.random(in: 0...1, using: &rng)
            let opaque = (0..<(columns * rows)).map { _ in Double.random(in: 0..<1, using: &rng) < density }
            let file = PNGEncoder.bilevel(columns: columns, rows: rows) { opaque[$0] }
            let image = try file.withUnsafeBufferPointer { try PNGDecoder.decodeAlpha($0, maxPixels: 1 << 20) }
            XCTAssertEqual(image.columns, columns)
            XCTAssertEqual(image.rows, rows)
            XCTAssertEqual(image.alpha, opaque.map { $0 ? 255 : 0 }, "\(columns) × \(rows)")
        }
    }

    /// Past 65,535 bytes of scanlines the stream takes several stored blocks.
    func testSeveralStoredBlocks() throws {
        let columns = 2000
        let rows = 600  // 600 × 251 = 150,600 bytes of scanlines: three blocks
        let file = PNGEncoder.bilevel(columns: columns, rows: rows) { ($0 / columns + $0 % columns) % 3 == 0 }
        let image = try file.withUnsafeBufferPointer { try PNGDecoder.decodeAlpha($0, maxPixels: 1 << 24) }
        for k in stride(from: 0, to: columns * rows, by: 997) {
            XCTAssertEqual(image.alpha[k], (k / columns + k % columns) % 3 == 0 ? 255 : 0, "pixel \(k)")
        }
        XCTAssertEqual(
            image.alpha.filter { $0 == 255 }.count, (0..<(columns * rows)).filter { ($0 / columns + $0 % columns) % 3 == 0 }.count)
        let stream = PNGEncoder.zlibStored(Array(repeating: 7, count: 150_600))
        XCTAssertEqual(stream.count, 2 + 150_600 + 3 * 5 + 4)
    }
}
