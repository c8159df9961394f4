/// CRC-32 as PNG and zlib use it (ISO 3309 / ITU-T V.42: polynomial
/// 0xEDB88320 reflected, initial value and final XOR 0xFFFFFFFF).
///
/// Table-driven, "slicing by 4": four 256-entry tables, four bytes per step.
/// - Complexity: O(n).
enum CRC32 {
    /// `tables[k][b]` is the CRC of byte `b` followed by `k` zero bytes.
    static let tables: [[UInt32]] = {
        var t0 = [UInt32](repeating: 0, count: 256)
        for n in 0..<256 {
            var c = UInt32(n)
            for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            t0[n] = c
        }
        var tables = [t0]
        for k in 1..<4 {
            let previous = tables[k - 1]
            tables.append((0..<256).map { n in t0[Int(previous[n] & 0xFF)] ^ (previous[n] >> 8) })
        }
        return tables
    }()

    /// The CRC-32 of `bytes`, continuing from `crc` (the result of a previous
    /// call, or 0 to start).
    static func checksum(_ bytes: UnsafeBufferPointer<UInt8>, continuing crc: UInt32 = 0) -> UInt32 {
        var c = ~crc
        let t = tables
        t[0].withUnsafeBufferPointer { t0 in
            t[1].withUnsafeBufferPointer { t1 in
                t[2].withUnsafeBufferPointer { t2 in
                    t[3].withUnsafeBufferPointer { t3 in
                        var i = 0
                        let n = bytes.count
                        while i + 4 <= n {
                            c ^= UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24
                            c = t3[Int(c & 0xFF)] ^ t2[Int((c >> 8) & 0xFF)] ^ t1[Int((c >> 16) & 0xFF)] ^ t0[Int(c >> 24)]
                            i += 4
                        }
                        while i < n {
                            c = t0[Int((c ^ UInt32(bytes[i])) & 0xFF)] ^ (c >> 8)
                            i += 1
                        }
                    }
                }
            }
        }
        return ~c
    }
}
