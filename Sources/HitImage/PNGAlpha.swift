/// How one unfiltered scanline's pixels become alpha bytes, for each colour
/// type and bit depth (PNG spec §11.3.2.1 for tRNS).
///
/// - An alpha channel gives its sample; a 16-bit sample keeps its high byte
///   (`a16 >> 8`, as Pillow and libpng's `png_set_strip_16` do), so
///   `alpha ≥ t` means `a16 ≥ 256·t`.
/// - A palette image looks its index up in tRNS; entries past the end of
///   tRNS, every entry when there is no tRNS, and indices past the palette's
///   end are opaque (255).
/// - A gray or RGB image with tRNS is transparent (0) exactly where the
///   sample(s) equal the key, compared at the image's own bit depth (all 16
///   bits for 16-bit images); a key outside the depth's range matches
///   nothing. Without tRNS it is opaque.
enum PNGAlphaSource: Equatable, Sendable {
    /// Every pixel is 255; scanlines need not even be unfiltered.
    case opaque
    /// Alpha is byte `offset` of each pixel of `stride` bytes.
    case channel(offset: Int, stride: Int)
    /// `bitDepth`-bit indices looked up in a 256-entry table.
    case palette(table: [UInt8], bitDepth: Int)
    /// `bitDepth`-bit gray samples compared with `key`.
    case grayKey(key: Int, bitDepth: Int)
    /// RGB samples (8 or 16 bits each) compared with the key.
    case rgbKey(red: Int, green: Int, blue: Int, bitDepth: Int)

    /// Chooses the rule for `header`, reading tRNS from `transparency`
    /// (its data, if the file has one).
    init(header: PNGHeader, transparency: UnsafeBufferPointer<UInt8>?) {
        let depth = header.bitDepth
        switch header.colorType {
        case .grayAlpha:
            self = .channel(offset: depth / 8, stride: 2 * depth / 8)
        case .rgba:
            self = .channel(offset: 3 * depth / 8, stride: 4 * depth / 8)
        case .palette:
            guard let t = transparency else {
                self = .opaque
                return
            }
            var table = [UInt8](repeating: 255, count: 256)
            for i in 0..<t.count { table[i] = t[i] }
            self = .palette(table: table, bitDepth: depth)
        case .gray:
            guard let t = transparency, t.count == 2 else {
                self = .opaque
                return
            }
            self = .grayKey(key: PNGBytes.uint16(t, 0), bitDepth: depth)
        case .rgb:
            guard let t = transparency, t.count == 6 else {
                self = .opaque
                return
            }
            self = .rgbKey(red: PNGBytes.uint16(t, 0), green: PNGBytes.uint16(t, 2), blue: PNGBytes.uint16(t, 4), bitDepth: depth)
        }
    }

    /// Writes the alpha of `columns` pixels of the unfiltered scanline `row`
    /// to `destination[0]`, `destination[step]`, `destination[2·step]`, …
    /// - Complexity: O(columns).
    func extract(row: UnsafePointer<UInt8>, columns: Int, into destination: UnsafeMutablePointer<UInt8>, step: Int) {
        switch self {
        case .opaque:
            for i in 0..<columns { destination[i * step] = 255 }
        case .channel(let offset, let stride):
            var source = row + offset
            var d = destination
            for _ in 0..<columns {
                d.pointee = source.pointee
                source += stride
                d += step
            }
        case .palette(let table, let depth):
            table.withUnsafeBufferPointer { table in
                Self.forEachSample(row: row, columns: columns, bitDepth: depth) { i, index in
                    destination[i * step] = table[index]
                }
            }
        case .grayKey(let key, let depth):
            if depth == 16 {
                for i in 0..<columns {
                    let v = Int(row[2 * i]) << 8 | Int(row[2 * i + 1])
                    destination[i * step] = v == key ? 0 : 255
                }
            } else {
                Self.forEachSample(row: row, columns: columns, bitDepth: depth) { i, v in
                    destination[i * step] = v == key ? 0 : 255
                }
            }
        case .rgbKey(let red, let green, let blue, let depth):
            if depth == 16 {
                for i in 0..<columns {
                    let p = row + 6 * i
                    let r = Int(p[0]) << 8 | Int(p[1])
                    let g = Int(p[2]) << 8 | Int(p[3])
                    let b = Int(p[4]) << 8 | Int(p[5])
                    destination[i * step] = r == red && g == green && b == blue ? 0 : 255
                }
            } else {
                for i in 0..<columns {
                    let p = row + 3 * i
                    destination[i * step] = Int(p[0]) == red && Int(p[1]) == green && Int(p[2]) == blue ? 0 : 255
                }
            }
        }
    }

    /// Calls `body(i, sample)` for the `columns` samples of `bitDepth`
    /// (1, 2, 4 or 8) bits packed most significant first in `row`.
    @inline(__always)
    static func forEachSample(row: UnsafePointer<UInt8>, columns: Int, bitDepth: Int, _ body: (Int, Int) -> Void) {
        if bitDepth == 8 {
            for i in 0..<columns { body(i, Int(row[i])) }
            return
        }
        let perByte = 8 / bitDepth
        let mask = (1 << bitDepth) - 1
        for i in 0..<columns {
            let byte = Int(row[i / perByte])
            let shift = 8 - bitDepth * (i % perByte + 1)
            body(i, (byte >> shift) & mask)
        }
    }
}
