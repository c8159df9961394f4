import TestSupport
import XCTest

@testable import HitImage

/// Bounded decoding: pixel limits before inflating, zip bombs stopped at the
/// header's size, and every one-byte edit of small files decoding or failing
/// cleanly (never a trap).
final class PNGBoundsTests: XCTestCase {
    typealias B = PNGBuilder

    func testHeaderAnnouncingTwoToTheThirtyOnePixelsIsRefusedBeforeItsData() {
        var file = B.png(width: 65536, height: 32768, depth: 8, colorType: 6, stream: B.zlibStored([0, 0, 0, 0, 0]))
        assertRefused(file, "image of 65536 × 32768 pixels exceeds the limit of 16777216 pixels")
        file[40] ^= 0xFF  // the IDAT's data is not even read: its CRC is never checked
        assertRefused(file, "image of 65536 × 32768 pixels exceeds the limit of 16777216 pixels")
        assertRefused(
            B.png(width: 4097, height: 4096, depth: 1, colorType: 0, stream: []),
            "image of 4097 × 4096 pixels exceeds the limit of 16777216 pixels")
    }

    /// What a scene's mask budget reads before decoding: the IHDR's width
    /// and height, byte by byte, and nothing when the file does not start
    /// with the signature and an IHDR.
    func testAnnouncedSizeReadsOnlyTheHeader() {
        let file = B.png(width: 0xFFFF_FFFF, height: 70000, depth: 1, colorType: 0, stream: B.zlibStored([0]))
        let size = file.withUnsafeBufferPointer(PNGDecoder.announcedSize)
        XCTAssertEqual(size?.width, 0xFFFF_FFFF)
        XCTAssertEqual(size?.height, 70000)
        XCTAssertEqual(Array(file.prefix(24)).withUnsafeBufferPointer(PNGDecoder.announcedSize)?.height, 70000, "24 bytes are enough")
        XCTAssertNil(Array(file.prefix(23)).withUnsafeBufferPointer(PNGDecoder.announcedSize))
        var signature = file
        signature[0] = 0x88
        XCTAssertNil(signature.withUnsafeBufferPointer(PNGDecoder.announcedSize))
        var type = file
        type[12] = UInt8(ascii: "i")
        XCTAssertNil(type.withUnsafeBufferPointer(PNGDecoder.announcedSize))
    }

    func testLargestHeaderWithNoLimitDoesNotOverflow() {
        let side: UInt32 = 0x7FFF_FFFF
        let file = B.png(width: side, height: side, depth: 16, colorType: 6, stream: B.zlibStored([0]))
        assertRefused(file, "image of 2147483647 × 2147483647 pixels is too large to address", maxPixels: .max)
    }

    /// A 64×64 gray image (4,160 bytes of scanlines) whose stream would inflate
    /// to a gigabyte: one stored byte, then 4 million fixed-Huffman matches of
    /// 258 bytes at distance 1 (13 bits each). The decoder stops at the
    /// header's size, within the first few hundred bytes of the stream.
    func testZipBombStopsAtTheHeadersSize() throws {
        var w = BitWriter()
        w.write(0, bits: 3)  // stored, not final
        w.write(0, bits: 5)  // to the byte boundary
        w.write(1, bits: 16)
        w.write(0xFFFE, bits: 16)
        w.write(0, bits: 8)  // the byte 0 (a filter byte)
        w.write(1, bits: 1)  // final
        w.write(1, bits: 2)  // fixed
        func match(_ w: inout BitWriter) {
            w.writeFixed(285)  // length 258
            w.writeCode(0, length: 5)  // distance 1
        }
        match(&w)
        XCTAssertEqual(w.bitCount % 8, 0)
        var eight = BitWriter()
        for _ in 0..<8 { match(&eight) }
        XCTAssertEqual(eight.bytes.count, 13)
        let repeats = 1 << 19  // × 8 matches × 258 bytes ≈ 1.08 GB
        var stream: [UInt8] = [0x78, 0x01] + w.bytes
        stream.reserveCapacity(stream.count + 13 * repeats)
        for _ in 0..<repeats { stream += eight.bytes }
        let file = B.png(width: 64, height: 64, depth: 8, colorType: 0, stream: stream)
        guard case .failure(let error) = decode(file) else { return XCTFail("decoded a bomb") }
        XCTAssertTrue(error.message.hasPrefix("image data inflates past the 4160 bytes its header allows at byte "), error.message)
        let offset = Int(error.message.split(separator: " ").last ?? "") ?? .max
        XCTAssertLessThan(offset, 41 + 300, "stopped within the first few hundred bytes of a \(stream.count)-byte stream")
    }

    /// Every one-byte edit (replacement, deletion, duplication) and every
    /// prefix of small files: a valid image of the header's size, or a PNGError.
    func testEveryOneByteEditDecodesOrFailsCleanly() throws {
        var files: [(String, [UInt8])] = [("gray+alpha 3×2", B.grayAlpha3x2)]
        for name in ["palette2-short-adam7-f4", "rgba16-none-plain-mixed", "gray1-key-adam7-f3", "rgb8-key-plain-f1"] {
            files.append((name, try corpusFile(name, "png")))
        }
        for (name, bytes) in files {
            var decoded = 0
            var refused = 0
            forEachEdit(of: bytes, replacements: [0x00, 0xFF, 0x01, 0x80, 0x7F]) { edited in
                switch decode(edited) {
                case .success(let image):
                    XCTAssertEqual(image.alpha.count, image.columns * image.rows, name)
                    decoded += 1
                case .failure(let error):
                    XCTAssertFalse(error.message.isEmpty, name)
                    refused += 1
                }
            }
            XCTAssertGreaterThan(refused, bytes.count, "\(name): edits are refused (CRC)")
            XCTAssertGreaterThan(decoded, 0, "\(name): some edits (the unchanged replacements) decode")
        }
    }

    /// Edits past the CRC: the chunk's CRC recomputed after each edit of the
    /// IDAT data, so the zlib stream and the scanlines themselves are attacked.
    func testEveryEditOfTheImageDataWithARecomputedCRC() throws {
        for name in ["palette2-short-adam7-f4", "rgba8-none-plain-mixed", "gray16-key-adam7-f2", "grayalpha8-none-plain-f3"] {
            let file = try corpusFile(name, "png")
            let chunks = try file.withUnsafeBufferPointer { try PNGChunks.walk($0, maxPixels: 1 << 24) }
            let range = chunks.imageData[0]
            let data = Array(file[range])
            var outcomes = [0, 0]
            forEachEdit(of: data, replacements: [0x00, 0xFF, 0x55]) { edited in
                let rebuilt = Array(file[..<(range.lowerBound - 8)]) + B.chunk("IDAT", edited) + Array(file[(range.upperBound + 4)...])
                switch decode(rebuilt) {
                case .success(let image):
                    XCTAssertEqual(image.alpha.count, image.columns * image.rows)
                    outcomes[0] += 1
                case .failure: outcomes[1] += 1
                }
            }
            XCTAssertGreaterThan(outcomes[1], 0, name)
        }
    }
}
