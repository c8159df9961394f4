/// Huffman-coded DEFLATE blocks (RFC 1951 §3.2.5–3.2.7): reading a dynamic
/// block's code description and decoding symbols through the tables.
extension Inflater {
    /// Reads HLIT, HDIST, HCLEN and the run-length-coded code lengths of a
    /// dynamic block (§3.2.7) and builds its two tables. Allocates nothing:
    /// the lengths live in a stack buffer, so a stream of many small blocks
    /// costs table fills only.
    mutating func readDynamicTables() throws(InflateError) {
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 19 + 286 + 30) { scratch throws(InflateError) in
            try readDynamicTables(scratch: scratch)
        }
    }

    private mutating func readDynamicTables(scratch: UnsafeMutableBufferPointer<UInt8>) throws(InflateError) {
        try refill()
        let literalCount = take(5) + 257
        let distanceCount = take(5) + 1
        let codeLengthCount = take(4) + 4
        if literalCount > 286 { throw error("deflate dynamic block has \(literalCount) literal/length codes (at most 286)") }
        if distanceCount > 30 { throw error("deflate dynamic block has \(distanceCount) distance codes (at most 30)") }

        guard let base = scratch.baseAddress else { return }
        let codeLengthLengths = base
        codeLengthLengths.initialize(repeating: 0, count: 19)
        for i in 0..<codeLengthCount {
            if i == 14 { try refill() }  // 14 × 3 bits fit in one refill
            codeLengthLengths[DeflateTables.codeLengthOrder[i]] = UInt8(take(3))
        }
        try build(codeLengths, UnsafeBufferPointer(start: codeLengthLengths, count: 19), DeflateTables.codeLengthInfo, "code-length")

        // The literal/length and distance lengths form one sequence; a repeat may cross from one to the other.
        let total = literalCount + distanceCount
        let lengths = base + 19
        lengths.initialize(repeating: 0, count: total)
        var i = 0
        let table = codeLengths.entries
        while i < total {
            try refill()
            let entry = table[Int(truncatingIfNeeded: bitBuffer & 0x7F)]
            if (entry >> 8) & 0xFF == HuffmanTable.invalid { throw error("deflate code-length code has no symbol for these bits") }
            consume(Int(entry & 0xFF))
            let symbol = Int(entry >> 16)
            switch symbol {
            case 0...15:
                lengths[i] = UInt8(symbol)
                i += 1
            case 16:
                if i == 0 { throw error("deflate code length repeat (16) has no previous length") }
                let repeated = lengths[i - 1]
                let n = 3 + take(2)
                if n > total - i { throw error("deflate code length repeat runs past the \(total) lengths") }
                (lengths + i).update(repeating: repeated, count: n)
                i += n
            default:
                let n = symbol == 17 ? 3 + take(3) : 11 + take(7)
                if n > total - i { throw error("deflate code length repeat runs past the \(total) lengths") }
                i += n  // already zero
            }
        }
        if lengths[256] == 0 { throw error("deflate dynamic block has no end-of-block code") }
        try build(
            literalLengths, UnsafeBufferPointer(start: lengths, count: literalCount), DeflateTables.literalLengthInfo, "literal/length")
        try build(
            distances, UnsafeBufferPointer(start: lengths + literalCount, count: distanceCount), DeflateTables.distanceInfo, "distance")
    }

    func build(_ table: HuffmanTable, _ lengths: UnsafeBufferPointer<UInt8>, _ info: [UInt32], _ name: String) throws(InflateError) {
        do {
            try info.withUnsafeBufferPointer { i throws(HuffmanTable.BuildError) in
                try table.build(lengths: lengths, info: UnsafeBufferPointer(rebasing: i[0..<lengths.count]))
            }
        } catch .overSubscribed {
            throw error("deflate \(name) code is over-subscribed")
        } catch {
            throw self.error("deflate \(name) code is incomplete")
        }
    }

    /// Decodes literal/length and distance symbols until end of block.
    ///
    /// One refill per symbol pair suffices: a literal/length code and its
    /// extra bits take at most 15 + 5 bits, a distance 15 + 13, 48 < 56.
    mutating func huffmanBlock() throws(InflateError) {
        let lit = literalLengths.entries
        let litRoot = UInt64(literalLengths.rootBits)
        let litMask = (UInt64(1) << litRoot) - 1
        let dist = distances.entries
        let distRoot = UInt64(distances.rootBits)
        let distMask = (UInt64(1) << distRoot) - 1
        while true {
            try refill()
            var entry = lit[Int(truncatingIfNeeded: bitBuffer & litMask)]
            var kind = (entry >> 8) & 0xFF
            if kind & HuffmanTable.link != 0 {
                let subBits = UInt64(kind & 0x0F)
                let index = Int(entry >> 16) + Int(truncatingIfNeeded: (bitBuffer >> litRoot) & ((1 << subBits) - 1))
                consume(Int(litRoot))
                entry = lit[index]
                kind = (entry >> 8) & 0xFF
            }
            consume(Int(entry & 0xFF))
            if kind == HuffmanTable.literal {
                if outPos == outCount { throw tooLong(at: alignedBytePosition()) }
                out[outPos] = UInt8(truncatingIfNeeded: entry >> 16)
                outPos += 1
                continue
            }
            if kind == HuffmanTable.endOfBlock { return }
            if kind >= HuffmanTable.invalid { throw error("deflate literal/length code is invalid") }
            let length = Int(entry >> 16) + take(Int(kind))

            var d = dist[Int(truncatingIfNeeded: bitBuffer & distMask)]
            var dKind = (d >> 8) & 0xFF
            if dKind & HuffmanTable.link != 0 {
                let subBits = UInt64(dKind & 0x0F)
                let index = Int(d >> 16) + Int(truncatingIfNeeded: (bitBuffer >> distRoot) & ((1 << subBits) - 1))
                consume(Int(distRoot))
                d = dist[index]
                dKind = (d >> 8) & 0xFF
            }
            if dKind >= HuffmanTable.invalid { throw error("deflate distance code is invalid") }
            consume(Int(d & 0xFF))
            let distance = Int(d >> 16) + take(Int(dKind))
            if distance > outPos { throw error("deflate distance \(distance) reaches before the start of the data") }
            if length > outCount - outPos { throw tooLong(at: alignedBytePosition()) }
            copyMatch(distance: distance, length: length)
        }
    }

    /// Appends `length` bytes copied from `distance` bytes back; the copy may
    /// overlap its own output (a run).
    @inline(__always)
    mutating func copyMatch(distance: Int, length: Int) {
        let destination = out + outPos
        let source = destination - distance
        if distance >= length {
            destination.update(from: source, count: length)
        } else if distance == 1 {
            destination.update(repeating: source[0], count: length)
        } else {
            for k in 0..<length { destination[k] = source[k] }
        }
        outPos += length
    }
}
