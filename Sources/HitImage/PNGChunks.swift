/// The chunks of a PNG file that matter for its alpha, found by walking the
/// file once (PNG spec §5).
///
/// The walk checks the signature, every chunk's length, type and CRC
/// (critical and ancillary alike), and the order rules: IHDR first; at most
/// one PLTE, before IDAT, only for colour types that allow it; at most one
/// tRNS, after PLTE and before IDAT, with the length its colour type needs;
/// IDAT chunks contiguous; IEND last with nothing after it. Unknown
/// critical chunks are refused, unknown ancillary chunks skipped. The IHDR
/// pixel count is checked against the limit before anything else is read.
struct PNGChunks {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    var header: PNGHeader
    /// Number of PLTE entries (0 when there is none).
    var paletteCount = 0
    /// File offset and length of the tRNS data, if any.
    var transparency: Range<Int>? = nil
    /// File ranges of the IDAT chunks' data, in order.
    var imageData: [Range<Int>] = []

    /// Walks `bytes`, a whole PNG file.
    /// - Complexity: O(n) (one CRC pass over the file).
    static func walk(_ bytes: UnsafeBufferPointer<UInt8>, maxPixels: Int) throws(PNGError) -> PNGChunks {
        let n = bytes.count
        guard n >= 8 else { throw PNGError(message: "file of \(n) bytes is too short for the PNG signature") }
        for i in 0..<8 where bytes[i] != signature[i] {
            throw PNGError(message: "bad PNG signature at byte \(i)")
        }
        var position = 8
        var result: PNGChunks? = nil
        var previousType = ""
        var sawIDAT = false
        while true {
            guard position + 8 <= n else {
                throw PNGError(
                    message: position == n
                        ? "file ends at byte \(n) without an IEND chunk" : "chunk header at byte \(position) is truncated")
            }
            let start = position
            let length = Int(PNGBytes.uint32(bytes, position))
            if length > Int(Int32.max) { throw PNGError(message: "chunk length \(length) at byte \(start) exceeds 2^31 - 1") }
            for k in 4..<8 {
                let c = bytes[position + k] | 0x20
                if c < 0x61 || c > 0x7A { throw PNGError(message: "chunk type at byte \(start + 4) is not four ASCII letters") }
            }
            let type = String(decoding: UnsafeBufferPointer(rebasing: bytes[(position + 4)..<(position + 8)]), as: UTF8.self)
            let dataStart = position + 8
            guard length <= n - dataStart, n - dataStart - length >= 4 else {
                throw PNGError(message: "chunk \(type) at byte \(start) is truncated (length \(length), file ends at byte \(n))")
            }
            let dataEnd = dataStart + length
            let data = UnsafeBufferPointer(rebasing: bytes[dataStart..<dataEnd])
            let stored = PNGBytes.uint32(bytes, dataEnd)
            let computed = CRC32.checksum(UnsafeBufferPointer(rebasing: bytes[(position + 4)..<dataEnd]))
            if stored != computed { throw PNGError(message: "bad CRC in chunk \(type) at byte \(start)") }
            position = dataEnd + 4

            if result == nil {
                guard type == "IHDR" else { throw PNGError(message: "first chunk is \(type), not IHDR") }
                let header = try PNGHeader.parse(data, at: start)
                try header.checkPixelCount(maxPixels: maxPixels)
                result = PNGChunks(header: header)
                previousType = type
                continue
            }
            guard var chunks = result else { continue }
            if sawIDAT && type == "IDAT" && previousType != "IDAT" {
                throw PNGError(message: "IDAT chunk at byte \(start) does not follow the previous IDAT")
            }
            switch type {
            case "IHDR":
                throw PNGError(message: "second IHDR chunk at byte \(start)")
            case "PLTE":
                try chunks.readPalette(data, at: start, afterImageData: sawIDAT)
            case "tRNS":
                try chunks.readTransparency(dataStart..<dataEnd, at: start, afterImageData: sawIDAT)
            case "IDAT":
                if chunks.header.colorType == .palette && chunks.paletteCount == 0 {
                    throw PNGError(message: "IDAT chunk at byte \(start) comes before the PLTE a palette image needs")
                }
                sawIDAT = true
                chunks.imageData.append(dataStart..<dataEnd)
            case "IEND":
                if !sawIDAT { throw PNGError(message: "IEND at byte \(start) comes before any IDAT chunk") }
                if length != 0 { throw PNGError(message: "IEND at byte \(start) has length \(length), not 0") }
                if position != n { throw PNGError(message: "data after IEND at byte \(position) (\(n - position) bytes)") }
                return chunks
            default:
                if bytes[start + 4] & 0x20 == 0 { throw PNGError(message: "unknown critical chunk \(type) at byte \(start)") }
            }
            result = chunks
            previousType = type
        }
    }

    mutating func readPalette(_ data: UnsafeBufferPointer<UInt8>, at start: Int, afterImageData: Bool) throws(PNGError) {
        if afterImageData { throw PNGError(message: "PLTE at byte \(start) comes after IDAT") }
        if paletteCount != 0 { throw PNGError(message: "second PLTE chunk at byte \(start)") }
        if header.colorType == .gray || header.colorType == .grayAlpha {
            throw PNGError(
                message: "PLTE at byte \(start) is not allowed for colour type \(header.colorType.rawValue) (\(header.colorType.name))")
        }
        if data.count == 0 || data.count > 768 || data.count % 3 != 0 {
            throw PNGError(message: "PLTE at byte \(start) has length \(data.count), not a multiple of 3 in 3...768")
        }
        if transparency != nil { throw PNGError(message: "PLTE at byte \(start) comes after tRNS") }
        paletteCount = data.count / 3
    }

    mutating func readTransparency(_ range: Range<Int>, at start: Int, afterImageData: Bool) throws(PNGError) {
        if afterImageData { throw PNGError(message: "tRNS at byte \(start) comes after IDAT") }
        if transparency != nil { throw PNGError(message: "second tRNS chunk at byte \(start)") }
        let length = range.count
        switch header.colorType {
        case .gray where length != 2, .rgb where length != 6:
            throw PNGError(
                message:
                    "tRNS at byte \(start) has length \(length), not \(header.colorType == .gray ? 2 : 6) for colour type \(header.colorType.rawValue) (\(header.colorType.name))"
            )
        case .palette:
            if paletteCount == 0 { throw PNGError(message: "tRNS at byte \(start) comes before PLTE") }
            if length > paletteCount {
                throw PNGError(message: "tRNS at byte \(start) has \(length) entries, more than the \(paletteCount) of PLTE")
            }
        case .grayAlpha, .rgba:
            throw PNGError(
                message:
                    "tRNS at byte \(start) is not allowed for colour type \(header.colorType.rawValue) (\(header.colorType.name)), which has an alpha channel"
            )
        default:
            break
        }
        transparency = range
    }
}
