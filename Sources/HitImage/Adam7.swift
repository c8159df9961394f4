/// One pass of a (possibly interlaced) image: the sub-image of pixels
/// `(xStart + i·xStep, yStart + j·yStep)` for i < columns, j < rows, in image
/// pixel coordinates (y down).
struct PNGPass: Equatable, Sendable {
    let xStart: Int, yStart: Int, xStep: Int, yStep: Int
    let columns: Int, rows: Int
}

/// Adam7 interlacing (PNG spec §8.2): seven passes over an 8×8 pattern.
/// A non-interlaced image is one pass with steps of 1.
enum Adam7 {
    /// (xStart, yStart, xStep, yStep) of the seven passes.
    static let pattern: [(Int, Int, Int, Int)] = [
        (0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2),
    ]

    /// The passes of an image of `width` × `height` pixels (both ≥ 1); an
    /// interlaced image's passes may be empty (0 columns or rows) and then
    /// take no bytes at all in the image data.
    static func passes(width: Int, height: Int, interlaced: Bool) -> [PNGPass] {
        if !interlaced { return [PNGPass(xStart: 0, yStart: 0, xStep: 1, yStep: 1, columns: width, rows: height)] }
        return pattern.map { (x, y, dx, dy) in
            PNGPass(
                xStart: x, yStart: y, xStep: dx, yStep: dy,
                columns: width > x ? (width - x + dx - 1) / dx : 0,
                rows: height > y ? (height - y + dy - 1) / dy : 0)
        }
    }
}
