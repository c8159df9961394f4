/// A canonical Huffman code (RFC 1951 §3.2.2) as a two-level lookup table.
///
/// The decoder looks up the next `rootBits` bits of the stream (least
/// significant bit first, as DEFLATE packs codes reversed) in the root table;
/// codes longer than `rootBits` continue in a subtable that the root entry
/// links to. Each entry is a packed `UInt32`:
///
/// - bits 0–7: how many bits the entry consumes (the code length, or for a
///   link `rootBits`);
/// - bits 8–15: what it is: `0...15` a length or distance base with that many
///   extra bits, ``literal``, ``endOfBlock``, ``link`` `|` subtable bits, or
///   ``invalid`` (a bit pattern no code uses);
/// - bits 16–31: the value: literal byte, length/distance base, code-length
///   symbol, or the subtable's start index.
///
/// Building is O(2^rootBits + symbols · 2^(15 − rootBits)) at worst, a few
/// thousand stores, and allocates nothing (scratch space is the table's).
final class HuffmanTable {
    static let literal: UInt32 = 0x10
    static let endOfBlock: UInt32 = 0x20
    static let link: UInt32 = 0x40
    static let invalid: UInt32 = 0x80

    let rootBits: Int
    /// Root table (2^rootBits entries) then subtables; `capacity` entries.
    let entries: UnsafeMutablePointer<UInt32>
    let capacity: Int
    /// The largest alphabet the table has room for.
    let symbolCount: Int

    /// Scratch space for ``build``, allocated once: code counts and next
    /// codes (2 × 16), each prefix's subtable depth and start (2^rootBits
    /// each), each symbol's reversed code.
    private let scratchCounts: UnsafeMutablePointer<Int>
    private let scratchPrefixDepth: UnsafeMutablePointer<UInt8>
    private let scratchSubtableStart: UnsafeMutablePointer<Int32>
    private let scratchReversed: UnsafeMutablePointer<UInt16>

    /// A table with room for every code of up to `symbolCount` symbols: each
    /// long code's prefix gets at most one subtable of at most
    /// 2^(15 − rootBits) entries. The root starts all ``invalid``; subtable
    /// space is written by ``build`` before any link points at it.
    init(rootBits: Int, symbolCount: Int) {
        self.rootBits = rootBits
        self.symbolCount = symbolCount
        capacity = (1 << rootBits) + symbolCount << max(0, 15 - rootBits)
        entries = .allocate(capacity: capacity)
        entries.initialize(repeating: Self.invalid << 8, count: 1 << rootBits)
        scratchCounts = .allocate(capacity: 32)
        scratchCounts.initialize(repeating: 0, count: 32)
        scratchPrefixDepth = .allocate(capacity: 1 << rootBits)
        scratchPrefixDepth.initialize(repeating: 0, count: 1 << rootBits)
        scratchSubtableStart = .allocate(capacity: 1 << rootBits)
        scratchSubtableStart.initialize(repeating: 0, count: 1 << rootBits)
        scratchReversed = .allocate(capacity: symbolCount)
        scratchReversed.initialize(repeating: 0, count: symbolCount)
    }

    deinit {
        entries.deallocate()
        scratchCounts.deallocate()
        scratchPrefixDepth.deallocate()
        scratchSubtableStart.deallocate()
        scratchReversed.deallocate()
    }

    /// Why a set of code lengths does not make a usable code.
    enum BuildError: Error {
        case overSubscribed, incomplete
    }

    /// Rebuilds the table for `lengths` (0 = symbol unused, else 1...15).
    ///
    /// `info[s]` is symbol `s`'s entry without its length (kind in bits 8–15,
    /// value in 16–31). A code must be complete, except that an empty code or
    /// a single code of one bit is accepted (RFC 1951 allows one distance
    /// code; zlib accepts both): unused bit patterns decode as ``invalid``.
    func build(lengths: UnsafeBufferPointer<UInt8>, info: UnsafeBufferPointer<UInt32>) throws(BuildError) {
        let root = rootBits
        if lengths.count > symbolCount { throw .overSubscribed }  // callers size tables for their alphabet
        let count = scratchCounts
        let nextCode = scratchCounts + 16
        count.update(repeating: 0, count: 16)
        var maxLength = 0
        for l in lengths where l != 0 {
            count[Int(l)] += 1
            maxLength = max(maxLength, Int(l))
        }
        var left = 1
        for l in 1...15 {
            left = left << 1 - count[l]
            if left < 0 { throw .overSubscribed }
        }
        if left > 0 && maxLength > 1 { throw .incomplete }
        var code = 0
        for l in 1...15 {
            code = (code + count[l - 1]) << 1
            nextCode[l] = code
        }
        let rootSize = 1 << root
        let rootMask = rootSize - 1
        let table = entries
        // A complete code writes every root entry; only an incomplete one leaves holes.
        if left > 0 { table.update(repeating: Self.invalid << 8, count: rootSize) }
        let hasLongCodes = maxLength > root
        let prefixDepth = scratchPrefixDepth
        if hasLongCodes { prefixDepth.update(repeating: 0, count: rootSize) }
        let reversedCodes = scratchReversed
        // Pass 1: short codes fill the root; long codes note their prefix's depth.
        for s in 0..<lengths.count {
            let l = Int(lengths[s])
            if l == 0 { continue }
            let reversed = Self.reverse(nextCode[l], bits: l)
            nextCode[l] += 1
            reversedCodes[s] = UInt16(truncatingIfNeeded: reversed)
            if l <= root {
                let entry = info[s] | UInt32(l)
                var i = reversed
                while i < rootSize {
                    table[i] = entry
                    i += 1 << l
                }
            } else {
                let p = reversed & rootMask
                prefixDepth[p] = max(prefixDepth[p], UInt8(l - root))
            }
        }
        if !hasLongCodes { return }
        // Lay out one subtable per prefix, just deep enough for its longest code.
        let subtableStart = scratchSubtableStart
        var end = rootSize
        for p in 0..<rootSize where prefixDepth[p] != 0 {
            let bits = Int(prefixDepth[p])
            subtableStart[p] = Int32(end)
            table[p] = UInt32(end) << 16 | (Self.link | UInt32(bits)) << 8 | UInt32(root)
            (table + end).update(repeating: Self.invalid << 8, count: 1 << bits)
            end += 1 << bits
        }
        // Pass 2: long codes fill their subtables.
        for s in 0..<lengths.count {
            let l = Int(lengths[s])
            if l <= root { continue }
            let reversed = Int(reversedCodes[s])
            let p = reversed & rootMask
            let depth = Int(prefixDepth[p])
            let start = Int(subtableStart[p])
            let entry = info[s] | UInt32(l - root)
            var i = reversed >> root
            while i < 1 << depth {
                table[start + i] = entry
                i += 1 << (l - root)
            }
        }
    }

    /// The low `bits` bits of `code`, reversed.
    @inline(__always)
    static func reverse(_ code: Int, bits: Int) -> Int {
        var r = 0
        var c = code
        for _ in 0..<bits {
            r = r << 1 | (c & 1)
            c >>= 1
        }
        return r
    }
}
