/// PNG colour types (PNG spec §11.2.2, table 11.1).
enum PNGColorType: UInt8, Sendable {
    case gray = 0
    case rgb = 2
    case palette = 3
    case grayAlpha = 4
    case rgba = 6

    /// Samples per pixel.
    var channels: Int {
        switch self {
        case .gray, .palette: 1
        case .grayAlpha: 2
        case .rgb: 3
        case .rgba: 4
        }
    }

    /// The bit depths this colour type allows.
    var allowedBitDepths: [Int] {
        switch self {
        case .gray: [1, 2, 4, 8, 16]
        case .palette: [1, 2, 4, 8]
        case .rgb, .grayAlpha, .rgba: [8, 16]
        }
    }

    var name: String {
        switch self {
        case .gray: "gray"
        case .rgb: "RGB"
        case .palette: "palette"
        case .grayAlpha: "gray+alpha"
        case .rgba: "RGBA"
        }
    }
}

/// A validated IHDR chunk (PNG spec §11.2.2).
///
/// Sizes are in pixels; `width` and `height` are in 1...2^31 − 1. All size
/// arithmetic reports overflow instead of trapping.
struct PNGHeader: Equatable, Sendable {
    let width: Int
    let height: Int
    let bitDepth: Int
    let colorType: PNGColorType
    let interlaced: Bool

    /// Bits per pixel: 1 to 64.
    var bitsPerPixel: Int { bitDepth * colorType.channels }

    /// The byte distance the filters look back ("bpp" in the spec): bytes
    /// per complete pixel, at least 1.
    var filterStride: Int { max(1, bitsPerPixel / 8) }

    /// Bytes in one scanline of `columns` pixels, without its filter byte.
    /// `columns` ≤ 2^31 − 1, so this cannot overflow a 64-bit Int.
    func bytesPerRow(columns: Int) -> Int { (columns * bitsPerPixel + 7) / 8 }

    /// Parses and checks the 13 bytes of an IHDR chunk that starts at file
    /// offset `offset`.
    static func parse(_ data: UnsafeBufferPointer<UInt8>, at offset: Int) throws(PNGError) -> PNGHeader {
        guard data.count == 13 else { throw PNGError(message: "IHDR at byte \(offset) has length \(data.count), not 13") }
        let width = Int(PNGBytes.uint32(data, 0))
        let height = Int(PNGBytes.uint32(data, 4))
        if width == 0 || width > Int(Int32.max) { throw PNGError(message: "IHDR width \(width) is not in 1...2147483647") }
        if height == 0 || height > Int(Int32.max) { throw PNGError(message: "IHDR height \(height) is not in 1...2147483647") }
        let depth = Int(data[8])
        guard let colorType = PNGColorType(rawValue: data[9]) else {
            throw PNGError(message: "IHDR colour type \(data[9]) is not one of 0, 2, 3, 4, 6")
        }
        if !colorType.allowedBitDepths.contains(depth) {
            throw PNGError(message: "IHDR bit depth \(depth) is not allowed for colour type \(colorType.rawValue) (\(colorType.name))")
        }
        if data[10] != 0 { throw PNGError(message: "IHDR compression method \(data[10]) is not 0") }
        if data[11] != 0 { throw PNGError(message: "IHDR filter method \(data[11]) is not 0") }
        if data[12] > 1 { throw PNGError(message: "IHDR interlace method \(data[12]) is not 0 or 1") }
        return PNGHeader(width: width, height: height, bitDepth: depth, colorType: colorType, interlaced: data[12] == 1)
    }

    /// Refuses an image of more than `maxPixels` pixels.
    func checkPixelCount(maxPixels: Int) throws(PNGError) {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > maxPixels {
            throw PNGError(message: "image of \(width) × \(height) pixels exceeds the limit of \(maxPixels) pixels")
        }
    }

    /// The exact size of the inflated image data: for each (Adam7) pass
    /// that has pixels, rows × (1 + bytes per row). `nil` on overflow.
    func inflatedSize() -> Int? {
        var total = 0
        for pass in Adam7.passes(width: width, height: height, interlaced: interlaced) where pass.columns > 0 && pass.rows > 0 {
            let (size, o1) = pass.rows.multipliedReportingOverflow(by: 1 + bytesPerRow(columns: pass.columns))
            let (sum, o2) = total.addingReportingOverflow(size)
            if o1 || o2 { return nil }
            total = sum
        }
        return total
    }
}

/// Big-endian reads from chunk data.
enum PNGBytes {
    static func uint32(_ b: UnsafeBufferPointer<UInt8>, _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    static func uint16(_ b: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int {
        Int(b[i]) << 8 | Int(b[i + 1])
    }
}
