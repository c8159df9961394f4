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
            if stride == 4 {
                var a = UnsafeRawPointer(row).loadUnaligned(as: SIMD4<UInt8>.self)
                var i = 4
                while i + 4 <= count {
                    a &+= UnsafeRawPointer(row + i).loadUnaligned(as: SIMD4<UInt8>.self)
                    UnsafeMutableRawPointer(row + i).storeBytes(of: a, as: SIMD4<UInt8>.self)
                    i += 4
                }
                return true
            }
            var i = stride
            while i < count {
                row[i] &+= row[i - stride]
                i += 1
            }
        case 2:
            for i in 0..<count { row[i] &+= previous[i] }
        case 3:
            for i in 0..<first { row[i] &+= previous[i] >> 1 }
            if stride == 4 {
                averageFourBytesPerPixel(row: row, previous: previous, count: count)
                return true
            }
            var i = first
            while i < count {
                row[i] &+= UInt8(truncatingIfNeeded: (Int(row[i - stride]) + Int(previous[i])) >> 1)
                i += 1
            }
        case 4:
            for i in 0..<first { row[i] &+= previous[i] }  // Paeth(0, b, 0) = b
            if stride == 4 {
                paethFourBytesPerPixel(row: row, previous: previous, count: count)
                return true
            }
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

    /// Average for 4-byte pixels, a pixel at a time (see
    /// ``paethFourBytesPerPixel(row:previous:count:)``).
    @inline(__always)
    static func averageFourBytesPerPixel(row: UnsafeMutablePointer<UInt8>, previous: UnsafePointer<UInt8>, count: Int) {
        typealias Lanes = SIMD4<UInt16>
        var a = Lanes(truncatingIfNeeded: UnsafeRawPointer(row).loadUnaligned(as: SIMD4<UInt8>.self))
        var i = 4
        while i + 4 <= count {
            let b = Lanes(truncatingIfNeeded: UnsafeRawPointer(previous + i).loadUnaligned(as: SIMD4<UInt8>.self))
            let x = UnsafeRawPointer(row + i).loadUnaligned(as: SIMD4<UInt8>.self)
            let bytes = x &+ SIMD4<UInt8>(truncatingIfNeeded: (a &+ b) &>> 1)
            UnsafeMutableRawPointer(row + i).storeBytes(of: bytes, as: SIMD4<UInt8>.self)
            a = Lanes(truncatingIfNeeded: bytes)
            i += 4
        }
    }

    /// Paeth for 4-byte pixels (RGBA 8-bit, gray+alpha 16-bit), a pixel at a
    /// time in 4 lanes of 16 bits: the same selections as ``paeth(_:_:_:)``.
    /// The first pixel is already done; a partial last pixel cannot occur
    /// (`count` is a multiple of 4).
    @inline(__always)
    static func paethFourBytesPerPixel(row: UnsafeMutablePointer<UInt8>, previous: UnsafePointer<UInt8>, count: Int) {
        typealias Lanes = SIMD4<Int16>
        func load(_ p: UnsafeRawPointer) -> Lanes {
            let bytes: SIMD4<UInt8> = p.loadUnaligned(as: SIMD4<UInt8>.self)
            return Lanes(truncatingIfNeeded: bytes)
        }
        func magnitude(_ v: Lanes) -> Lanes { pointwiseMax(v, Lanes.zero &- v) }
        var a = load(row)
        var c = load(previous)
        var i = 4
        while i + 4 <= count {
            let b = load(previous + i)
            let pa = magnitude(b &- c)
            let pb = magnitude(a &- c)
            let pc = magnitude(a &+ b &- c &* 2)
            let notA = b.replacing(with: c, where: pb .> pc)
            let nearest = a.replacing(with: notA, where: pa .> pointwiseMin(pb, pc))
            let sum: Lanes = load(row + i) &+ nearest
            let bytes = SIMD4<UInt8>(truncatingIfNeeded: sum)
            UnsafeMutableRawPointer(row + i).storeBytes(of: bytes, as: SIMD4<UInt8>.self)
            a = Lanes(truncatingIfNeeded: bytes)
            c = b
            i += 4
        }
    }

    /// The Paeth predictor of left `a`, above `b`, upper-left `c`: the one
    /// of the three nearest to a + b − c, ties going to a, then b.
    ///
    /// Written as selections without branches (pa ≤ min(pb, pc) is the
    /// spec's "pa ≤ pb and pa ≤ pc"): the choice is data-dependent and would
    /// be mispredicted about half the time.
    @inline(__always)
    static func paeth(_ a: Int, _ b: Int, _ c: Int) -> UInt8 {
        let pa = abs(b - c)
        let pb = abs(a - c)
        let pc = abs(a + b - 2 * c)
        let notA = pb <= pc ? b : c
        let nearest = pa <= min(pb, pc) ? a : notA
        return UInt8(truncatingIfNeeded: nearest)
    }
}
