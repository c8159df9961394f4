/// Hand-written RFC 9457 problem-details JSON (no Foundation).
enum ProblemJSON {
    /// `{"type":"/problems/<slug>","title":"…","status":N,"detail":"…"}`
    /// (with `"requestId":"…"` when given), every string escaped per RFC 8259.
    static func encode(status: Int, slug: String, title: String, detail: String, requestID: RequestID? = nil) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + slug.utf8.count + title.utf8.count + detail.utf8.count)
        append(#"{"type":"#, to: &out)
        appendString("/problems/" + slug, to: &out)
        append(#","title":"#, to: &out)
        appendString(title, to: &out)
        append(#","status":"#, to: &out)
        append(String(status), to: &out)
        append(#","detail":"#, to: &out)
        appendString(detail, to: &out)
        if let requestID {
            append(#","requestId":"#, to: &out)
            appendString(requestID.description, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    private static func append(_ raw: String, to out: inout [UInt8]) {
        out.append(contentsOf: raw.utf8)
    }

    /// Appends `s` as a quoted JSON string: `"` and `\` escaped, control
    /// characters as `\n`, `\r`, `\t` or `\u00XX`; everything else verbatim UTF-8.
    static func appendString(_ s: String, to out: inout [UInt8]) {
        appendString(bytes: s.utf8, to: &out)
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends UTF-8 `bytes` as a quoted JSON string (see `appendString(_:to:)`).
    static func appendString<S: Sequence<UInt8>>(bytes: S, to out: inout [UInt8]) {
        let hex = ProblemJSON.hex
        out.append(UInt8(ascii: "\""))
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
