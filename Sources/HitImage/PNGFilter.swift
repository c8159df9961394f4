/// Reversing PNG's per-scanline filters (PNG spec §9): None, Sub, Up,
/// Average and Paeth, over bytes, looking back `stride` bytes (one pixel,
/// at least one byte).
enum PNGFilter {
    /// Unfilters `row` (`count` bytes) in place. `previous` is the row above,
    /// already unfiltered (all zeros for a pass's first row).
    ///
    /// - Returns: `false` for a filter type other than 0...4.
    /// - Complexity: O(count).
    static func unfilter(
        type: UInt8, row: UnsafeMutablePointer<UInt8>, previous: UnsafePointer<UInt8>, count: Int, stride: Int
    ) -> Bool {
        let first = min(stride, count)
        switch type {
        case 0:
            break
        case 1:
            var i = stride
            while i < count {
                row[i] &+= row[i - stride]
                i += 1
            }
        case 2:
            for i in 0..<count { row[i] &+= previous[i] }
        case 3:
            for i in 0..<first { row[i] &+= previous[i] >> 1 }
            var i = first
            while i < count {
                row[i] &+= UInt8(truncatingIfNeeded: (Int(row[i - stride]) + Int(previous[i])) >> 1)
                i += 1
            }
        case 4:
            for i in 0..<first { row[i] &+= previous[i] }  // Paeth(0, b, 0) = b
            var i = first
            while i < count {
                row[i] &+= paeth(Int(row[i - stride]), Int(previous[i]), Int(previous[i - stride]))
                i += 1
            }
        default:
            return false
        }
        return true
    }

    /// The Paeth predictor of left `a`, above `b`, upper-left `c`.
    @inline(__always)
    static func paeth(_ a: Int, _ b: Int, _ c: Int) -> UInt8 {
        let pa = abs(b - c)
        let pb = abs(a - c)
        let pc = abs(a + b - 2 * c)
        if pa <= pb && pa <= pc { return UInt8(truncatingIfNeeded: a) }
        return UInt8(truncatingIfNeeded: pb <= pc ? b : c)
    }
}
