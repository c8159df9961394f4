import XCTest

@testable import HitImage

/// Hand-made broken files: signature, CRC, lengths, chunk order, IHDR fields,
/// PLTE and tRNS rules. Each asserts the exact message.
final class PNGStructureTests: XCTestCase {
    typealias B = PNGBuilder
    let good = PNGBuilder.grayAlpha3x2
    let goodStream = PNGBuilder.zlibStored([0, 9, 0, 9, 64, 9, 128, 0, 9, 192, 9, 255, 9, 7])

    func testSmallImageDecodes() throws {
        let image = try decode(good).get()
        XCTAssertEqual(image, AlphaImage(columns: 3, rows: 2, alpha: [0, 64, 128, 192, 255, 7]))
        XCTAssertEqual(good.count, 82)
    }

    func testSignature() {
        assertRefused([], "file of 0 bytes is too short for the PNG signature")
        assertRefused(Array(good.prefix(7)), "file of 7 bytes is too short for the PNG signature")
        for i in 0..<8 {
            var bad = good
            bad[i] ^= 0x20
            assertRefused(bad, "bad PNG signature at byte \(i)")
        }
    }

    func testCRC() {
        var bad = good
        bad[32] ^= 1  // IHDR's CRC
        assertRefused(bad, "bad CRC in chunk IHDR at byte 8")
        bad = good
        bad[50] ^= 1  // inside IDAT's data
        assertRefused(bad, "bad CRC in chunk IDAT at byte 33")
        bad = good
        bad[81] ^= 1
        assertRefused(bad, "bad CRC in chunk IEND at byte 70")
        // Ancillary chunks' CRCs are checked too.
        var text = B.chunk("tEXt", Array("Comment\0hi".utf8))
        text[text.count - 1] ^= 1
        assertRefused(Array(good[..<33]) + text + Array(good[33...]), "bad CRC in chunk tEXt at byte 33")
    }

    func testTruncatedFiles() {
        assertRefused(Array(good[..<33]), "file ends at byte 33 without an IEND chunk")
        assertRefused(Array(good[..<40]), "chunk header at byte 33 is truncated")
        assertRefused(Array(good[..<60]), "chunk IDAT at byte 33 is truncated (length 25, file ends at byte 60)")
        assertRefused(Array(good[..<81]), "chunk IEND at byte 70 is truncated (length 0, file ends at byte 81)")
        for n in 0..<good.count {
            XCTAssertThrowsError(try decode(Array(good[..<n])).get(), "prefix of \(n) bytes")
        }
    }

    func testWrongLengths() {
        let ihdr12 = B.chunk("IHDR", [0, 0, 0, 3, 0, 0, 0, 2, 8, 4, 0, 0])
        assertRefused(PNGChunks.signature + ihdr12 + Array(good[33...]), "IHDR at byte 8 has length 12, not 13")
        var huge = good
        huge.replaceSubrange(33..<37, with: [0xFF, 0xFF, 0xFF, 0xFF])
        assertRefused(huge, "chunk length 4294967295 at byte 33 exceeds 2^31 - 1")
        var long = good
        long.replaceSubrange(33..<37, with: [0, 0, 0x10, 0])
        assertRefused(long, "chunk IDAT at byte 33 is truncated (length 4096, file ends at byte 82)")
        assertRefused(Array(good[..<70]) + B.chunk("IEND", [0]), "IEND at byte 70 has length 1, not 0")
        assertRefused(good + [0], "data after IEND at byte 82 (1 bytes)")
        assertRefused(good + good, "data after IEND at byte 82 (82 bytes)")
    }

    func testChunkOrder() {
        let sig = PNGChunks.signature
        let ihdr = Array(good[8..<33])
        let idat = B.chunk("IDAT", goodStream)
        let iend = B.chunk("IEND", [])
        assertRefused(sig + iend, "first chunk is IEND, not IHDR")
        assertRefused(sig + B.chunk("tEXt", []) + ihdr + idat + iend, "first chunk is tEXt, not IHDR")
        assertRefused(sig + ihdr + iend, "IEND at byte 33 comes before any IDAT chunk")
        assertRefused(sig + ihdr + ihdr + idat + iend, "second IHDR chunk at byte 33")
        assertRefused(sig + ihdr + B.chunk("ABCD", []) + idat + iend, "unknown critical chunk ABCD at byte 33")
        assertRefused(sig + ihdr + B.chunk("ab1d", []) + idat + iend, "chunk type at byte 37 is not four ASCII letters")
        // Ancillary chunks, known or not, are skipped anywhere.
        XCTAssertNoThrow(try decode(sig + ihdr + B.chunk("abCD", [1, 2]) + idat + B.chunk("tIME", [0, 0, 0, 0, 0, 0, 0]) + iend).get())
        // IDAT split into several contiguous chunks, including empty ones.
        let parts = [Array(goodStream[..<1]), [], Array(goodStream[1..<20]), Array(goodStream[20...])]
        let split = sig + ihdr + parts.flatMap { B.chunk("IDAT", $0) } + iend
        XCTAssertEqual(try decode(split).get(), try decode(good).get())
        let broken = sig + ihdr + B.chunk("IDAT", parts[0]) + B.chunk("tEXt", []) + B.chunk("IDAT", parts[2] + parts[3]) + iend
        assertRefused(broken, "IDAT chunk at byte 58 does not follow the previous IDAT")
    }

    /// Bytes after the zlib stream's checksum inside IDAT are ignored (as libpng and Pillow do).
    func testBytesAfterTheZlibStreamAreIgnored() throws {
        let padded = B.png(width: 3, height: 2, depth: 8, colorType: 4, stream: goodStream + [0, 0, 0xFF])
        XCTAssertEqual(try decode(padded).get(), try decode(good).get())
    }

    func testHeaderFields() {
        func png(
            _ w: UInt32, _ h: UInt32, depth: UInt8 = 8, type: UInt8 = 4, compression: UInt8 = 0, filter: UInt8 = 0, interlace: UInt8 = 0
        ) -> [UInt8] {
            let data = B.bigEndian(w) + B.bigEndian(h) + [depth, type, compression, filter, interlace]
            return PNGChunks.signature + B.chunk("IHDR", data) + Array(good[33...])
        }
        assertRefused(png(0, 2), "IHDR width 0 is not in 1...2147483647")
        assertRefused(png(3, 0), "IHDR height 0 is not in 1...2147483647")
        assertRefused(png(1 << 31, 2), "IHDR width 2147483648 is not in 1...2147483647")
        assertRefused(png(3, 0xFFFF_FFFF), "IHDR height 4294967295 is not in 1...2147483647")
        assertRefused(png(3, 2, compression: 1), "IHDR compression method 1 is not 0")
        assertRefused(png(3, 2, filter: 1), "IHDR filter method 1 is not 0")
        assertRefused(png(3, 2, interlace: 2), "IHDR interlace method 2 is not 0 or 1")
        assertRefused(png(3, 2, type: 1), "IHDR colour type 1 is not one of 0, 2, 3, 4, 6")
        assertRefused(png(3, 2, type: 7), "IHDR colour type 7 is not one of 0, 2, 3, 4, 6")
        let allowed: [UInt8: [UInt8]] = [0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]]
        let names: [UInt8: String] = [0: "gray", 2: "RGB", 3: "palette", 4: "gray+alpha", 6: "RGBA"]
        for (type, depths) in allowed {
            for depth in UInt8(0)...UInt8(32) where !depths.contains(depth) {
                assertRefused(
                    png(3, 2, depth: depth, type: type), "IHDR bit depth \(depth) is not allowed for colour type \(type) (\(names[type]!))")
            }
        }
    }

    /// Every allowed colour type and depth decodes a 1×1 image of zero bytes
    /// (with a palette and tRNS where they apply).
    func testEveryAllowedCombination() throws {
        let cases: [(UInt8, UInt8, Int, [UInt8], UInt8)] = [
            // type, depth, bytes per row, extra chunks, expected alpha of the zero pixel
            (0, 1, 1, [], 255), (0, 2, 1, B.chunk("tRNS", [0, 0]), 0), (0, 4, 1, B.chunk("tRNS", [0, 1]), 255),
            (0, 8, 1, [], 255), (0, 16, 2, B.chunk("tRNS", [0, 0]), 0),
            (2, 8, 3, B.chunk("tRNS", [0, 0, 0, 0, 0, 0]), 0), (2, 16, 6, B.chunk("tRNS", [0, 0, 0, 1, 0, 0]), 255),
            (3, 1, 1, B.chunk("PLTE", [1, 2, 3]), 255), (3, 2, 1, B.chunk("PLTE", [1, 2, 3]) + B.chunk("tRNS", [77]), 77),
            (3, 4, 1, B.chunk("PLTE", [1, 2, 3, 4, 5, 6]) + B.chunk("tRNS", [12, 13]), 12),
            (3, 8, 1, B.chunk("PLTE", [1, 2, 3]) + B.chunk("tRNS", []), 255),
            (4, 8, 2, [], 0), (4, 16, 4, [], 0), (6, 8, 4, [], 0), (6, 16, 8, [], 0),
        ]
        for (type, depth, rowBytes, extra, alpha) in cases {
            for interlace: UInt8 in [0, 1] {
                let file = B.png(
                    width: 1, height: 1, depth: depth, colorType: type, interlace: interlace, extra: extra,
                    stream: B.zlibStored([UInt8](repeating: 0, count: 1 + rowBytes)))
                XCTAssertEqual(try decode(file).get().alpha, [alpha], "type \(type) depth \(depth) interlace \(interlace)")
            }
        }
    }

    func testPaletteRules() {
        let plte = B.chunk("PLTE", [1, 2, 3, 4, 5, 6])
        let stream = B.zlibStored([0, 0x01])  // 1×1 at 8 bits: index 1
        func palette(_ extra: [UInt8], after: [UInt8] = []) -> [UInt8] {
            PNGChunks.signature + B.ihdr(width: 1, height: 1, depth: 8, colorType: 3) + extra + B.chunk("IDAT", stream) + after
                + B.chunk("IEND", [])
        }
        XCTAssertEqual(try decode(palette(plte)).get().alpha, [255], "no tRNS: opaque")
        XCTAssertEqual(try decode(palette(plte + B.chunk("tRNS", [9]))).get().alpha, [255], "past tRNS's end: opaque")
        XCTAssertEqual(try decode(palette(plte + B.chunk("tRNS", [9, 10]))).get().alpha, [10])
        XCTAssertEqual(
            try decode(palette(B.chunk("PLTE", [1, 2, 3]) + B.chunk("tRNS", [9]))).get().alpha, [255], "index past PLTE: opaque")
        assertRefused(palette([]), "IDAT chunk at byte 33 comes before the PLTE a palette image needs")
        assertRefused(palette(B.chunk("PLTE", [1, 2, 3, 4])), "PLTE at byte 33 has length 4, not a multiple of 3 in 3...768")
        assertRefused(palette(B.chunk("PLTE", [])), "PLTE at byte 33 has length 0, not a multiple of 3 in 3...768")
        assertRefused(
            palette(B.chunk("PLTE", [UInt8](repeating: 1, count: 771))), "PLTE at byte 33 has length 771, not a multiple of 3 in 3...768")
        assertRefused(palette(plte + plte), "second PLTE chunk at byte 51")
        assertRefused(palette(plte, after: plte), "PLTE at byte 76 comes after IDAT")
        assertRefused(palette(B.chunk("tRNS", [1]) + plte), "tRNS at byte 33 comes before PLTE")
        assertRefused(palette(plte + B.chunk("tRNS", [1, 2, 3])), "tRNS at byte 51 has 3 entries, more than the 2 of PLTE")
        assertRefused(palette(plte + B.chunk("tRNS", [1]) + B.chunk("tRNS", [1])), "second tRNS chunk at byte 64")
        assertRefused(palette(plte, after: B.chunk("tRNS", [1])), "tRNS at byte 76 comes after IDAT")
        assertRefused(palette(plte + B.chunk("tRNS", [1]) + plte), "second PLTE chunk at byte 64")

        let gray = B.png(width: 1, height: 1, depth: 8, colorType: 0, extra: plte, stream: stream)
        assertRefused(gray, "PLTE at byte 33 is not allowed for colour type 0 (gray)")
        // A suggested palette in an RGB image is allowed and ignored.
        let rgb = B.png(width: 1, height: 1, depth: 8, colorType: 2, extra: plte, stream: B.zlibStored([0, 1, 2, 3]))
        XCTAssertEqual(try decode(rgb).get().alpha, [255])
    }

    func testColourKeyRules() {
        let gray = { (extra: [UInt8]) in
            B.png(width: 2, height: 1, depth: 16, colorType: 0, extra: extra, stream: B.zlibStored([0, 0x12, 0x34, 0x12, 0x35]))
        }
        XCTAssertEqual(try decode(gray(B.chunk("tRNS", [0x12, 0x34]))).get().alpha, [0, 255], "16-bit keys compare all 16 bits")
        XCTAssertEqual(try decode(gray(B.chunk("tRNS", [0x12, 0x35]))).get().alpha, [255, 0])
        XCTAssertEqual(try decode(gray([])).get().alpha, [255, 255])
        assertRefused(gray(B.chunk("tRNS", [0x12])), "tRNS at byte 33 has length 1, not 2 for colour type 0 (gray)")
        let key4 = B.png(width: 2, height: 1, depth: 4, colorType: 0, extra: B.chunk("tRNS", [0, 0x0B]), stream: B.zlibStored([0, 0xB3]))
        XCTAssertEqual(try decode(key4).get().alpha, [0, 255], "4-bit key 11 matches the first sample only")
        let outOfRange = B.png(
            width: 2, height: 1, depth: 4, colorType: 0, extra: B.chunk("tRNS", [0x01, 0x0B]), stream: B.zlibStored([0, 0xBB]))
        XCTAssertEqual(try decode(outOfRange).get().alpha, [255, 255], "a key beyond the bit depth matches nothing")
        let rgb = B.png(
            width: 1, height: 1, depth: 8, colorType: 2, extra: B.chunk("tRNS", [0, 1, 0]), stream: B.zlibStored([0, 1, 2, 3]))
        assertRefused(rgb, "tRNS at byte 33 has length 3, not 6 for colour type 2 (RGB)")
        let rgba = B.png(
            width: 1, height: 1, depth: 8, colorType: 6, extra: B.chunk("tRNS", [0, 1]), stream: B.zlibStored([0, 1, 2, 3, 4]))
        assertRefused(rgba, "tRNS at byte 33 is not allowed for colour type 6 (RGBA), which has an alpha channel")
    }

    func testFilterTypes() {
        for filter: UInt8 in 5...255 {
            let file = B.png(width: 1, height: 2, depth: 8, colorType: 4, stream: B.zlibStored([0, 1, 2, filter, 3, 4]))
            assertRefused(file, "unknown filter type \(filter) on scanline 1")
            let opaque = B.png(width: 1, height: 2, depth: 8, colorType: 0, stream: B.zlibStored([0, 1, filter, 3]))
            assertRefused(opaque, "unknown filter type \(filter) on scanline 1")  // opaque images still check filter bytes
        }
        let interlaced = B.png(width: 1, height: 2, depth: 8, colorType: 4, interlace: 1, stream: B.zlibStored([0, 1, 2, 9, 3, 4]))
        assertRefused(interlaced, "unknown filter type 9 on scanline 0 of Adam7 pass 7")
    }

    func testPaethPredictorMatchesTheSpecification() {
        for a in Swift.stride(from: 0, through: 255, by: 3) {
            for b in Swift.stride(from: 0, through: 255, by: 5) {
                for c in Swift.stride(from: 0, through: 255, by: 1) {
                    let p = a + b - c
                    let (pa, pb, pc) = (abs(p - a), abs(p - b), abs(p - c))
                    let expected = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
                    if Int(PNGFilter.paeth(a, b, c)) != expected { return XCTFail("paeth(\(a), \(b), \(c))") }
                }
            }
        }
    }
}
