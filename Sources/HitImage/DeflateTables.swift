/// The fixed parts of DEFLATE (RFC 1951 §3.2.5–3.2.7) as Huffman entry
/// payloads (see ``HuffmanTable``): what each length, distance and
/// code-length symbol means.
enum DeflateTables {
    static let lengthBase: [UInt32] = [
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258,
    ]
    static let lengthExtra: [UInt32] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let distanceBase: [UInt32] = [
        1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289,
        16385, 24577,
    ]
    static let distanceExtra: [UInt32] = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

    /// Order in which a dynamic block lists the code-length code's lengths.
    static let codeLengthOrder: [Int] = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    /// Literal/length symbols 0–287: 0–255 literal bytes, 256 end of block,
    /// 257–285 lengths, 286–287 never valid.
    static let literalLengthInfo: [UInt32] = (0..<288).map { s in
        switch s {
        case 0..<256: return UInt32(s) << 16 | HuffmanTable.literal << 8
        case 256: return HuffmanTable.endOfBlock << 8
        case 257...285: return lengthBase[s - 257] << 16 | lengthExtra[s - 257] << 8
        default: return HuffmanTable.invalid << 8
        }
    }

    /// Distance symbols 0–31: 0–29 distances, 30–31 never valid.
    static let distanceInfo: [UInt32] = (0..<32).map { s in
        s < 30 ? distanceBase[s] << 16 | distanceExtra[s] << 8 : HuffmanTable.invalid << 8
    }

    /// Code-length symbols 0–18, decoded as their own number.
    static let codeLengthInfo: [UInt32] = (0..<19).map { s in UInt32(s) << 16 | HuffmanTable.literal << 8 }

    /// Code lengths of the fixed literal/length code (§3.2.6).
    static let fixedLiteralLengths: [UInt8] = (0..<288).map { s in s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8 }
}
