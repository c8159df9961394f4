import HitBase

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

    /// Appends `s` as a quoted JSON string (``JSONString``: `"` and `\`
    /// escaped, control characters by name or as `\u00XX`; everything
    /// else verbatim UTF-8).
    static func appendString(_ s: String, to out: inout [UInt8]) {
        JSONString.append(s, to: &out)
    }
}
