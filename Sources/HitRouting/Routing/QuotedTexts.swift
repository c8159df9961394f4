import HitBase

/// One optional text per layer, kept as the JSON string an answer writes
/// (quoted and escaped by `JSONString`, the one escaper), so that writing
/// a layer's id or action is one copy of bytes made when the scene was
/// compiled, not a scan of a `String`.
///
/// Memory: per layer, the escaped text plus its two quotes (at most six
/// bytes per byte of text, for control characters; the text's own length
/// for the usual ids) and 16 bytes for its span. A replaced text (a patched
/// action) leaves its old bytes behind until they pass half of the store,
/// when the store is rebuilt from the texts in force.
public struct QuotedTexts: Sendable {
    /// The quoted texts, back to back.
    @usableFromInline var bytes: [UInt8] = []
    /// Per layer, where its quoted text starts in `bytes`, and its length
    /// (0: no text).
    @usableFromInline var spans: [(start: Int, count: Int)] = []
    /// Bytes of `bytes` no span points at any more.
    private var garbage = 0

    public init() {}

    /// The texts of `texts`, in order.
    /// - Complexity: O(total length).
    init<C: Collection>(_ texts: C) where C.Element == String? {
        bytes.reserveCapacity(texts.reduce(0) { $0 &+ ($1?.utf8.count ?? 0) &+ 2 })
        spans.reserveCapacity(texts.count)
        for t in texts { append(t) }
    }

    /// Adds the next layer's text.
    mutating func append(_ text: String?) {
        spans.append(quote(text))
    }

    /// Replaces layer `n`'s text; rebuilds the store from `all` (every
    /// layer's text in force, `n`'s included) when the bytes no span uses
    /// pass half of it.
    /// - Complexity: O(text), or O(total length) when rebuilt.
    mutating func replace(_ n: Int, with text: String?, all: [String?]) {
        garbage &+= spans[n].count
        spans[n] = quote(text)
        if garbage > 4096 && garbage > bytes.count / 2 { self = QuotedTexts(all) }
    }

    /// Appends `text` quoted to `bytes`; its span.
    private mutating func quote(_ text: String?) -> (start: Int, count: Int) {
        guard let text else { return (0, 0) }
        let start = bytes.count
        JSONString.append(text, to: &bytes)
        return (start, bytes.count &- start)
    }

    /// Whether layer `n` has a text.
    @inlinable @inline(__always)
    public func hasText(_ n: Int) -> Bool { spans[n].count != 0 }

    /// Runs `body` over layer `n`'s quoted text (empty for none).
    /// - Complexity: O(1).
    @inlinable @inline(__always)
    public func withText<R>(_ n: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let span = spans[n]
        return bytes.withUnsafeBufferPointer { all in
            body(UnsafeBufferPointer(start: all.baseAddress.map { $0 + span.start }, count: span.count))
        }
    }
}
