/// Writes the PNG files a render embeds for a mask: two-level images, each
/// pixel opaque white or fully transparent.
///
/// The file is 1-bit gray (colour type 0, bit depth 1) with a tRNS chunk
/// whose key is gray 0, so a 0 bit is transparent and a 1 bit opaque white:
/// one bit a pixel plus a filter byte (0, none) a row. The zlib stream holds
/// stored deflate blocks (no compression; RFC 1951 §3.2.4), at most 65,535
/// bytes each, then its Adler-32; every chunk carries its CRC-32.
/// ``PNGDecoder/decodeAlpha(_:maxPixels:)`` reads it back as 255 where a
/// pixel is opaque and 0 elsewhere.
public enum PNGEncoder {
    /// The PNG file of a `columns × rows` two-level image (both ≥ 1):
    /// pixel `k` (row-major, top row first) is opaque when `opaque(k)`.
    /// - Complexity: O(columns × rows); the file is about
    ///   rows × (1 + ⌈columns / 8⌉) bytes plus 5 per 65,535 and 67 more.
    public static func bilevel(columns: Int, rows: Int, opaque: (Int) -> Bool) -> [UInt8] {
        // Callers pass a mask's size, which the decoder bounds.
        precondition(columns >= 1 && rows >= 1 && columns <= 0x7FFF_FFFF && rows <= 0x7FFF_FFFF, "image size")
        let rowBytes = (columns + 7) / 8
        var raw = [UInt8](repeating: 0, count: rows * (1 + rowBytes))
        var k = 0
        for j in 0..<rows {
            let start = j * (1 + rowBytes) + 1  // after the row's filter byte (0)
            for i in 0..<columns {
                if opaque(k) { raw[start + (i >> 3)] |= 0x80 >> UInt8(i & 7) }
                k += 1
            }
        }
        var file = signature
        var header: [UInt8] = []
        appendUInt32(UInt32(columns), to: &header)
        appendUInt32(UInt32(rows), to: &header)
        header += [1, 0, 0, 0, 0]  // bit depth 1, gray, deflate, filter method 0, not interlaced
        appendChunk("IHDR", header, to: &file)
        appendChunk("tRNS", [0, 0], to: &file)  // gray 0 is transparent
        appendChunk("IDAT", zlibStored(raw), to: &file)
        appendChunk("IEND", [], to: &file)
        return file
    }

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// A zlib stream (RFC 1950) of `data` in stored deflate blocks.
    /// - Complexity: O(n).
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]  // deflate, 32 KiB window; 0x7801 is a multiple of 31
        out.reserveCapacity(data.count + data.count / 65_535 * 5 + 11)
        var offset = 0
        repeat {
            let n = min(65_535, data.count - offset)
            let last = offset + n == data.count
            out.append(last ? 1 : 0)  // BFINAL, BTYPE 00
            out += [UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += data[offset..<(offset + n)]
            offset += n
        } while offset < data.count
        appendUInt32(data.withUnsafeBufferPointer { Adler32.checksum($0) }, to: &out)
        return out
    }

    static func appendChunk(_ type: StaticString, _ data: [UInt8], to out: inout [UInt8]) {
        appendUInt32(UInt32(data.count), to: &out)
        let typeBytes = type.withUTF8Buffer { Array($0) }
        let body = typeBytes + data
        out += body
        appendUInt32(body.withUnsafeBufferPointer { CRC32.checksum($0) }, to: &out)
    }

    static func appendUInt32(_ v: UInt32, to out: inout [UInt8]) {
        out += [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }
}
