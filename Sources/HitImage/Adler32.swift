/// Adler-32 (RFC 1950 §8.2), the checksum at the end of a zlib stream.
///
/// Sums are reduced modulo 65521 only every 5552 bytes, the most that cannot
/// overflow 32 bits.
/// - Complexity: O(n).
enum Adler32 {
    static func checksum(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        var i = 0
        let n = bytes.count
        while i < n {
            let end = min(n, i + 5552)
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
