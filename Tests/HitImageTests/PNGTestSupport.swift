import Foundation
import XCTest

@testable import HitImage

/// The committed oracle corpus (Tests/Corpus/png), found from this file's path.
let corpusDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Corpus/png")

/// The corpus's PNG files by name (without extension), sorted.
func corpusNames() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: corpusDirectory.path)
        .filter { $0.hasSuffix(".png") }.map { String($0.dropLast(4)) }.sorted()
}

func corpusFile(_ name: String, _ ext: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: corpusDirectory.appendingPathComponent("\(name).\(ext)")))
}

/// Decodes `bytes` as a PNG.
func decode(_ bytes: [UInt8], maxPixels: Int = 1 << 24) -> Result<AlphaImage, PNGError> {
    bytes.withUnsafeBufferPointer { buffer in
        Result { () throws(PNGError) -> AlphaImage in try PNGDecoder.decodeAlpha(buffer, maxPixels: maxPixels) }
    }
}

/// Asserts that `bytes` is refused with exactly `message`.
func assertRefused(_ bytes: [UInt8], _ message: String, maxPixels: Int = 1 << 24, file: StaticString = #filePath, line: UInt = #line) {
    switch decode(bytes, maxPixels: maxPixels) {
    case .success(let image): XCTFail("decoded a \(image.columns)×\(image.rows) image", file: file, line: line)
    case .failure(let error): XCTAssertEqual(error.message, message, file: file, line: line)
    }
}

/// Builds PNG files byte by byte for tests.
enum PNGBuilder {
    static func bigEndian(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }

    /// One chunk with its length and (correct) CRC.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        let crc = body.withUnsafeBufferPointer { CRC32.checksum($0) }
        return bigEndian(UInt32(data.count)) + body + bigEndian(crc)
    }

    static func ihdr(width: UInt32, height: UInt32, depth: UInt8, colorType: UInt8, interlace: UInt8 = 0) -> [UInt8] {
        chunk("IHDR", bigEndian(width) + bigEndian(height) + [depth, colorType, 0, 0, interlace])
    }

    /// A zlib stream of stored blocks (at most 65535 bytes each) holding `data`.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var i = 0
        repeat {
            let n = min(65535, data.count - i)
            let final: UInt8 = i + n == data.count ? 1 : 0
            out += [final, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += data[i..<(i + n)]
            i += n
        } while i < data.count
        return out + bigEndian(data.withUnsafeBufferPointer { Adler32.checksum($0) })
    }

    /// A whole PNG: signature, IHDR, `extra` chunks, one IDAT of `stream`, IEND.
    static func png(
        width: UInt32, height: UInt32, depth: UInt8, colorType: UInt8, interlace: UInt8 = 0, extra: [UInt8] = [], stream: [UInt8]
    )
        -> [UInt8]
    {
        PNGChunks.signature + ihdr(width: width, height: height, depth: depth, colorType: colorType, interlace: interlace) + extra
            + chunk("IDAT", stream) + chunk("IEND", [])
    }

    /// A 3×2 gray+alpha 8-bit image with alpha 0, 64, 128 / 192, 255, 7 stored (filter None).
    static let grayAlpha3x2: [UInt8] = png(
        width: 3, height: 2, depth: 8, colorType: 4,
        stream: zlibStored([0, 9, 0, 9, 64, 9, 128, 0, 9, 192, 9, 255, 9, 7]))
}

/// Writes DEFLATE bit streams (least significant bit first) for hand-made blocks.
struct BitWriter {
    var bytes: [UInt8] = []
    var bitCount = 0

    /// Appends the low `n` bits of `value`, least significant first (header fields, extra bits).
    mutating func write(_ value: Int, bits n: Int) {
        for k in 0..<n {
            if bitCount % 8 == 0 { bytes.append(0) }
            bytes[bytes.count - 1] |= UInt8((value >> k) & 1) << UInt8(bitCount % 8)
            bitCount += 1
        }
    }

    /// Appends a Huffman code of `length` bits, most significant first.
    mutating func writeCode(_ code: Int, length: Int) {
        for k in stride(from: length - 1, through: 0, by: -1) { write((code >> k) & 1, bits: 1) }
    }

    /// Appends a fixed-Huffman literal/length symbol (RFC 1951 §3.2.6).
    mutating func writeFixed(_ symbol: Int) {
        switch symbol {
        case 0..<144: writeCode(0x30 + symbol, length: 8)
        case 144..<256: writeCode(0x190 + symbol - 144, length: 9)
        case 256..<280: writeCode(symbol - 256, length: 7)
        default: writeCode(0xC0 + symbol - 280, length: 8)
        }
    }
}

/// A zlib stream: header, `deflate` bytes, Adler-32 of `checksumOf`.
func zlibWrap(_ deflate: [UInt8], checksumOf data: [UInt8]) -> [UInt8] {
    [0x78, 0x01] + deflate + PNGBuilder.bigEndian(data.withUnsafeBufferPointer { Adler32.checksum($0) })
}
