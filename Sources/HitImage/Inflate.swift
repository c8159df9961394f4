/// Where and why a zlib stream was refused. `offset` is a 0-based byte
/// offset into the zlib stream (roughly where the decoder was reading).
struct InflateError: Error, Equatable, Sendable {
    var offset: Int
    var message: String
}

/// zlib (RFC 1950) and DEFLATE (RFC 1951) decompression into a buffer of
/// known size.
///
/// The output size is fixed in advance (a PNG's header says exactly how many
/// bytes its scanlines take), so the stream is refused the moment it would
/// write past the end: a "zip bomb" costs no more than the size it was
/// allowed. Stored, fixed-Huffman and dynamic-Huffman blocks are decoded with
/// two-level lookup tables (``HuffmanTable``).
///
/// - Complexity: O(input + output) time; O(1) memory beyond the output (a
///   few tens of KiB of tables).
enum Inflate {
    /// Inflates the zlib stream at the start of `input` so that it fills
    /// `output` exactly, and checks its Adler-32.
    ///
    /// - Returns: the stream's length in bytes (header, blocks, checksum);
    ///   any bytes after it are left to the caller.
    /// - Throws: ``InflateError`` for a bad header, a bad block, a stream
    ///   that would write past `output`, ends before filling it, or is
    ///   truncated, or a checksum that does not match.
    static func zlib(_ input: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>) throws(InflateError) -> Int {
        guard input.count >= 2, let base = input.baseAddress else {
            throw InflateError(offset: input.count, message: "zlib stream is truncated in its header")
        }
        let cmf = Int(input[0])
        let flg = Int(input[1])
        if cmf & 0x0F != 8 { throw InflateError(offset: 0, message: "zlib compression method \(cmf & 0x0F) is not deflate (8)") }
        if cmf >> 4 > 7 { throw InflateError(offset: 0, message: "zlib window size 2^\((cmf >> 4) + 8) is larger than 32 KiB") }
        if (cmf << 8 | flg) % 31 != 0 { throw InflateError(offset: 1, message: "zlib header check bits are wrong") }
        if flg & 0x20 != 0 { throw InflateError(offset: 1, message: "zlib preset dictionary is not allowed") }

        var inflater = Inflater(input: base, count: input.count, start: 2, output: output)
        try inflater.run()
        let written = inflater.outPos
        var end = inflater.alignedBytePosition()
        if written != output.count {
            throw InflateError(offset: end, message: "image data ends after \(written) of the \(output.count) bytes its header implies")
        }
        guard end + 4 <= input.count else {
            throw InflateError(offset: input.count, message: "zlib stream is truncated before its Adler-32 checksum")
        }
        let stored = UInt32(input[end]) << 24 | UInt32(input[end + 1]) << 16 | UInt32(input[end + 2]) << 8 | UInt32(input[end + 3])
        let computed = Adler32.checksum(UnsafeBufferPointer(output))
        if stored != computed {
            throw InflateError(offset: end, message: "zlib Adler-32 checksum does not match the data")
        }
        end += 4
        return end
    }
}

/// The state of one DEFLATE decode: a 64-bit little-endian bit buffer over
/// the input, the output cursor and the three Huffman tables.
struct Inflater {
    let input: UnsafePointer<UInt8>
    let inCount: Int
    /// Next input byte to load into `bitBuffer`.
    var inPos: Int
    /// Buffered bits, least significant first; bits at `bitCount` and above
    /// may hold copies of bytes not yet counted, which later loads OR over
    /// with the same values.
    var bitBuffer: UInt64 = 0
    var bitCount = 0
    /// Zero bytes loaded past the end of the input (at most 8 are ever
    /// needed as look-ahead; consuming one is a truncated stream).
    var padding = 0

    let out: UnsafeMutablePointer<UInt8>
    let outCount: Int
    var outPos = 0

    /// Allocated at the first Huffman block (a stream of stored blocks needs none).
    lazy var literalLengths = HuffmanTable(rootBits: 10, symbolCount: 288)
    lazy var distances = HuffmanTable(rootBits: 8, symbolCount: 32)
    lazy var codeLengths = HuffmanTable(rootBits: 7, symbolCount: 19)

    init(input: UnsafePointer<UInt8>, count: Int, start: Int, output: UnsafeMutableBufferPointer<UInt8>) {
        self.input = input
        inCount = count
        inPos = start
        // A zero-size output never reaches a write: every write checks room first.
        out = output.baseAddress ?? UnsafeMutablePointer(bitPattern: 1 << 12)!
        outCount = output.count
    }

    /// The byte offset of the next unread whole byte, after dropping the
    /// bits left in the current byte.
    func alignedBytePosition() -> Int {
        inPos - bitCount / 8
    }

    func error(_ message: String) -> InflateError {
        InflateError(offset: min(inCount, alignedBytePosition()), message: message)
    }

    /// Ensures at least 56 buffered bits (padding with zeros past the end).
    @inline(__always)
    mutating func refill() throws(InflateError) {
        if inPos + 8 <= inCount {
            let word = UInt64(littleEndian: UnsafeRawPointer(input + inPos).loadUnaligned(as: UInt64.self))
            bitBuffer |= word &<< UInt64(bitCount)
            inPos += (63 - bitCount) >> 3
            bitCount |= 56
        } else {
            try refillNearEnd()
        }
    }

    mutating func refillNearEnd() throws(InflateError) {
        while bitCount <= 55 {
            var byte: UInt64 = 0
            if inPos < inCount {
                byte = UInt64(input[inPos])
            } else {
                padding += 1
                if padding > 8 { throw InflateError(offset: inCount, message: "zlib stream is truncated") }
            }
            bitBuffer |= byte &<< UInt64(bitCount)
            inPos += 1
            bitCount += 8
        }
    }

    /// Throws if any bit consumed so far was padding.
    func checkNotTruncated() throws(InflateError) {
        if padding * 8 > bitCount { throw InflateError(offset: inCount, message: "zlib stream is truncated") }
    }

    @inline(__always)
    mutating func consume(_ n: Int) {
        bitBuffer &>>= UInt64(n)
        bitCount -= n
    }

    /// Takes `n` (≤ 32) bits; the caller has refilled.
    @inline(__always)
    mutating func take(_ n: Int) -> Int {
        let v = Int(truncatingIfNeeded: bitBuffer & ((1 &<< UInt64(n)) &- 1))
        consume(n)
        return v
    }

    /// Decodes blocks until the final one.
    mutating func run() throws(InflateError) {
        var final = false
        while !final {
            try refill()
            final = take(1) == 1
            let kind = take(2)
            switch kind {
            case 0: try storedBlock()
            case 1:
                try buildFixedTables()
                try huffmanBlock()
            case 2:
                try readDynamicTables()
                try huffmanBlock()
            default: throw error("deflate block type 3 is reserved")
            }
            try checkNotTruncated()
        }
    }

    /// A stored block: LEN, NLEN, then LEN raw bytes.
    mutating func storedBlock() throws(InflateError) {
        consume(bitCount & 7)
        let position = alignedBytePosition()
        // Restart the bit buffer at the byte boundary.
        if position + 4 > inCount { throw InflateError(offset: inCount, message: "zlib stream is truncated in a stored block") }
        inPos = position
        bitBuffer = 0
        bitCount = 0
        padding = 0  // the look-ahead past the end, if any, was just dropped
        let length = Int(input[position]) | Int(input[position + 1]) << 8
        let complement = Int(input[position + 2]) | Int(input[position + 3]) << 8
        if length != complement ^ 0xFFFF {
            throw InflateError(offset: position, message: "deflate stored block length does not match its complement")
        }
        let start = position + 4
        if length > inCount - start { throw InflateError(offset: inCount, message: "zlib stream is truncated in a stored block") }
        if length > outCount - outPos { throw tooLong(at: start) }
        (out + outPos).update(from: input + start, count: length)
        outPos += length
        inPos = start + length
    }

    func tooLong(at offset: Int) -> InflateError {
        InflateError(offset: offset, message: "image data inflates past the \(outCount) bytes its header allows")
    }

    mutating func buildFixedTables() throws(InflateError) {
        do {
            try DeflateTables.fixedLiteralLengths.withUnsafeBufferPointer { lengths throws(HuffmanTable.BuildError) in
                try DeflateTables.literalLengthInfo.withUnsafeBufferPointer { info throws(HuffmanTable.BuildError) in
                    try literalLengths.build(lengths: lengths, info: info)
                }
            }
            let five = [UInt8](repeating: 5, count: 32)
            try five.withUnsafeBufferPointer { lengths throws(HuffmanTable.BuildError) in
                try DeflateTables.distanceInfo.withUnsafeBufferPointer { info throws(HuffmanTable.BuildError) in
                    try distances.build(lengths: lengths, info: info)
                }
            }
        } catch {
            throw self.error("internal: fixed Huffman code did not build")
        }
    }
}
