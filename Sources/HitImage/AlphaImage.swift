/// A plane of alpha values, one byte per pixel, as decoded from a PNG or
/// given directly.
///
/// Pixel (column i, row j) is `alpha[j * columns + i]`: row-major, top row
/// first, in the image's own pixel grid (y down). 0 is fully transparent,
/// 255 fully opaque. Images without an alpha channel or transparency are all
/// 255.
public struct AlphaImage: Sendable, Equatable {
    /// Width in pixels, ≥ 1 for a decoded PNG.
    public let columns: Int
    /// Height in pixels, ≥ 1 for a decoded PNG.
    public let rows: Int
    /// `columns * rows` bytes, row-major, top row first; 255 = opaque.
    public let alpha: [UInt8]

    /// An image from its parts, or `nil` when `alpha.count` is not
    /// `columns * rows` (or either size is negative).
    public init?(columns: Int, rows: Int, alpha: [UInt8]) {
        guard columns >= 0, rows >= 0 else { return nil }
        let (count, overflow) = columns.multipliedReportingOverflow(by: rows)
        guard !overflow, count == alpha.count else { return nil }
        self.columns = columns
        self.rows = rows
        self.alpha = alpha
    }

    /// The unchecked initializer the decoder uses once it has sized `alpha`.
    init(validatedColumns columns: Int, rows: Int, alpha: [UInt8]) {
        self.columns = columns
        self.rows = rows
        self.alpha = alpha
    }
}
