/// Adler-32 (RFC 1950 §8.2), the checksum at the end of a zlib stream.
///
/// Sums are reduced modulo 65521 only every 5552 bytes, the most that cannot
/// overflow 32 bits; within that, 16 bytes are summed at a time.
/// - Complexity: O(n).
enum Adler32 {
    static let weights = SIMD16<UInt16>(16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)

    static func checksum(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        guard let base = bytes.baseAddress else { return 1 }
        let weights = Self.weights
        var i = 0
        let n = bytes.count
        while i < n {
            let end = min(n, i + 5552)
            // 16 bytes at a time: a gains their sum, b gains 16·a plus their
            // sum weighted 16, 15, …, 1 (the same totals as byte by byte).
            while i + 16 <= end {
                let x = SIMD16<UInt16>(truncatingIfNeeded: UnsafeRawPointer(base + i).loadUnaligned(as: SIMD16<UInt8>.self))
                // Each product ≤ 255 × 16 and their sum ≤ 34,680 fit 16 bits.
                b &+= a &* 16 &+ UInt32((x &* weights).wrappedSum())
                a &+= UInt32(x.wrappedSum())
                i += 16
            }
            while i < end {
                a &+= UInt32(bytes[i])
                b &+= a
                i += 1
            }
            a %= 65521
            b %= 65521
        }
        return b << 16 | a
    }
}
