/// Decodes a PNG file into its alpha plane (PNG spec, 3rd edition: every
/// colour type and bit depth, PLTE/tRNS transparency, the five filters,
/// Adam7 interlacing, zlib inflate).
///
/// Bounded by the header: an image announcing more than `maxPixels` pixels
/// is refused before any image data is read, and the zlib stream is inflated
/// into a buffer of exactly the size the header implies, refused the moment
/// it would write past it. Memory is that buffer (rows × (1 + bytes per
/// row), at most 8 bytes per pixel plus one per row) plus the alpha plane.
///
/// Decisions where the PNG spec leaves room (see ``PNGChunks`` and
/// ``PNGAlphaSource`` for the details):
/// - every chunk's CRC is checked, ancillary ones too; bytes after IEND are
///   refused;
/// - bytes after the zlib stream's Adler-32 inside the IDAT data are
///   ignored (as libpng and Pillow do); a stream that ends before filling
///   the image, or would overfill it, is refused;
/// - 16-bit alpha keeps its high byte.
public enum PNGDecoder {
    /// The width and height the IHDR of the PNG file `bytes` announces,
    /// read without checking anything else (`decodeAlpha` does); nil when
    /// the file does not start with the signature and an IHDR chunk.
    /// - Complexity: O(1).
    public static func announcedSize(_ bytes: UnsafeBufferPointer<UInt8>) -> (width: Int, height: Int)? {
        guard bytes.count >= 24, bytes.prefix(8).elementsEqual(PNGChunks.signature),
            bytes[12...15].elementsEqual("IHDR".utf8)
        else { return nil }
        return (Int(PNGBytes.uint32(bytes, 16)), Int(PNGBytes.uint32(bytes, 20)))
    }

    /// Decodes the alpha of the PNG file `bytes`.
    ///
    /// - Parameters:
    ///   - bytes: a whole PNG file.
    ///   - maxPixels: the largest `width × height` accepted.
    /// - Returns: the alpha plane, `width × height` bytes, top row first.
    /// - Throws: ``PNGError`` naming the problem (and its byte offset).
    /// - Complexity: O(file size + width × height · bytes per pixel).
    public static func decodeAlpha(_ bytes: UnsafeBufferPointer<UInt8>, maxPixels: Int) throws(PNGError) -> AlphaImage {
        let chunks = try PNGChunks.walk(bytes, maxPixels: maxPixels)
        let header = chunks.header
        guard let size = header.inflatedSize() else {
            throw PNGError(message: "image of \(header.width) × \(header.height) pixels is too large to address")
        }
        // Not zeroed first: inflate fills every byte or fails (and then the array is empty).
        var failure: PNGError? = nil
        var scanlines = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            do throws(PNGError) {
                try inflate(chunks.imageData, of: bytes, into: buffer)
                count = size
            } catch {
                failure = error
                count = 0
            }
        }
        if let failure { throw failure }

        let transparency = chunks.transparency.map { UnsafeBufferPointer(rebasing: bytes[$0]) }
        let source = PNGAlphaSource(header: header, transparency: transparency)
        let pixels = header.width * header.height
        // Every pixel belongs to exactly one pass, so every byte is written (255 first only when opaque).
        let alpha = [UInt8](unsafeUninitializedCapacity: pixels) { plane, count in
            if source == .opaque { plane.initialize(repeating: 255) }
            scanlines.withUnsafeMutableBufferPointer { data in
                do throws(PNGError) {
                    try unfilterAndExtract(header: header, source: source, data: data, plane: plane)
                } catch {
                    failure = error
                }
            }
            count = failure == nil ? pixels : 0
        }
        if let failure { throw failure }
        return AlphaImage(validatedColumns: header.width, rows: header.height, alpha: alpha)
    }

    /// Inflates the IDAT data (the file ranges `ranges` of `bytes`, joined)
    /// into `output`, and turns the stream's offsets in errors into file
    /// offsets.
    static func inflate(_ ranges: [Range<Int>], of bytes: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>)
        throws(PNGError)
    {
        func run(_ stream: UnsafeBufferPointer<UInt8>) throws(PNGError) {
            do {
                _ = try Inflate.zlib(stream, into: output)
            } catch {
                throw PNGError(message: "\(error.message) at byte \(fileOffset(error.offset, in: ranges))")
            }
        }
        if ranges.count == 1, let only = ranges.first {
            try run(UnsafeBufferPointer(rebasing: bytes[only]))
        } else {
            var joined: [UInt8] = []
            joined.reserveCapacity(ranges.reduce(0) { $0 + $1.count })
            for r in ranges { joined.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[r])) }
            try joined.withUnsafeBufferPointer { stream throws(PNGError) in try run(stream) }
        }
    }

    /// The file offset of byte `offset` of the joined IDAT data (its end
    /// maps to the end of the last IDAT's data).
    static func fileOffset(_ offset: Int, in ranges: [Range<Int>]) -> Int {
        var remaining = offset
        for r in ranges {
            if remaining < r.count { return r.lowerBound + remaining }
            remaining -= r.count
        }
        return (ranges.last?.upperBound ?? 0) + remaining
    }

    /// Unfilters each pass's scanlines in place and writes their alpha into
    /// `plane` (width × height). Every pixel is written, except for an
    /// ``PNGAlphaSource/opaque`` source, which only checks filter types and
    /// expects `plane` to be all 255 already.
    static func unfilterAndExtract(
        header: PNGHeader, source: PNGAlphaSource, data: UnsafeMutableBufferPointer<UInt8>, plane: UnsafeMutableBufferPointer<UInt8>
    ) throws(PNGError) {
        guard let base = data.baseAddress, let out = plane.baseAddress else { return }
        let passes = Adam7.passes(width: header.width, height: header.height, interlaced: header.interlaced)
        let stride = header.filterStride
        let zeros = [UInt8](repeating: 0, count: header.bytesPerRow(columns: header.width))
        var position = 0
        try zeros.withUnsafeBufferPointer { zeros throws(PNGError) in
            guard let zeroRow = zeros.baseAddress else { return }
            for (p, pass) in passes.enumerated() where pass.columns > 0 && pass.rows > 0 {
                let rowBytes = header.bytesPerRow(columns: pass.columns)
                var previous = zeroRow
                for r in 0..<pass.rows {
                    let filter = base[position]
                    let row = base + position + 1
                    if source == .opaque {
                        if filter > 4 { throw badFilter(filter, row: r, pass: p, header: header) }
                    } else {
                        if !PNGFilter.unfilter(type: filter, row: row, previous: previous, count: rowBytes, stride: stride) {
                            throw badFilter(filter, row: r, pass: p, header: header)
                        }
                        let y = pass.yStart + r * pass.yStep
                        source.extract(row: row, columns: pass.columns, into: out + y * header.width + pass.xStart, step: pass.xStep)
                    }
                    previous = UnsafePointer(row)
                    position += 1 + rowBytes
                }
            }
        }
    }

    static func badFilter(_ filter: UInt8, row: Int, pass: Int, header: PNGHeader) -> PNGError {
        PNGError(message: "unknown filter type \(filter) on scanline \(row)\(header.interlaced ? " of Adam7 pass \(pass + 1)" : "")")
    }
}
