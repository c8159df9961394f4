import Glibc

/// An ordered list of header fields with ASCII case-insensitive lookup.
///
/// Order and duplicates are preserved as received. Lookups compare names
/// byte by byte without allocating.
///
/// Received fields stay as the bytes they came as (the request's field
/// lines, checked by the parser) until they are changed: a lookup reads
/// them in place and makes a string only of the value it returns, so a
/// request whose handler asks for one field builds one string, not two
/// per field.
///
/// ```swift
/// var headers = HTTPHeaders([("Content-Type", "text/plain")])
/// headers["content-type"]        // "text/plain"
/// headers.add("Vary", "Origin")
/// headers.set("Content-Type", "application/json")
/// ```
public struct HTTPHeaders: Sendable, Sequence, Equatable, ExpressibleByDictionaryLiteral {
    /// One field as strings (a struct, not a tuple: an array of these is
    /// destroyed by specialized code, not the runtime's generic tuple walk).
    private struct Field {
        var name: String
        var value: String
        /// Bytes of `name: value` CRLF.
        var size: Int { name.utf8.count + value.utf8.count + 4 }
    }

    /// The fields as strings: a handler's, or received ones once changed.
    private var storage: [Field]
    /// The head the fields were received in, shared with the parser (no
    /// copy): its field lines, `name:` OWS value OWS CRLF each, as the parser
    /// accepted them, are `received[receivedStart..<received.count - 2]`
    /// (the last two bytes end the section), read in place. Empty when there
    /// are no received lines; while not empty, `storage` is.
    private var received: [UInt8] = []
    /// The bytes `storage`'s fields take as `name: value` CRLF lines.
    private var storageSize = 0
    /// Every field's name is a token and every value free of CR, LF and
    /// other controls: checked as fields are added, so that a list built
    /// once (a handler's fixed fields) is not checked again per response.
    private(set) var allValid = true
    /// What the parser noted of two fields in `received`, two bits each
    /// (`Noted` raw values): bits 0–1 of the first `Authorization` field,
    /// whose value is `authorizationCount` bytes at `authorizationStart`
    /// (offsets into `received`) when `.present`; bits 2–3 of
    /// `Content-Type`, `.present` only for a single such field, whose value
    /// is `contentTypeCount` bytes at `contentTypeStart`. Kept beside
    /// `allValid`, in what would be padding; with `receivedStart` and the
    /// `Content-Type` span, one word beyond the list's four.
    private var notes: UInt8 = 0
    private var authorizationCount: UInt16 = 0
    private var authorizationStart: UInt32 = 0
    /// The offset of the first field line in `received`.
    private var receivedStart: Int32 = 0
    private var contentTypeStart: UInt16 = 0
    private var contentTypeCount: UInt16 = 0

    private var authorizationNote: Noted { Noted(rawValue: notes & 3) ?? .unknown }
    private var contentTypeNote: Noted { Noted(rawValue: notes >> 2 & 3) ?? .unknown }

    /// What is known of a field without looking at the fields.
    private enum Noted: UInt8 {
        /// Not noted: look at the fields.
        case unknown
        /// There is none.
        case absent
        /// Its value is at the noted span.
        case present
    }

    /// Creates a header list from `(name, value)` pairs, in order.
    public init(_ pairs: [(String, String)] = []) {
        storage = pairs.map { Field(name: $0.0, value: $0.1) }
        allValid = storage.allSatisfy(Self.isValid)
        storageSize = storage.reduce(0) { $0 + $1.size }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// Fields from a head the parser has checked: the lines from `start`
    /// to the head's last two bytes (the CRLF that ends the section) each
    /// a token name, `:`, a value free of CR and LF, and CRLF.
    /// `authorization`: the value (OWS trimmed) of the first
    /// `Authorization` field, as a range of `head`, or nil when there is none.
    /// `contentType`: the value of the only `Content-Type` field, nil when
    /// there is none, `.some(nil)` when there are several (then looked up).
    init(receivedHead head: [UInt8], linesFrom start: Int, authorization: Range<Int>?, contentType: Range<Int>??) {
        storage = []
        if head.count - 2 > start {
            received = head
            receivedStart = Int32(start)
        }
        switch contentType {
        case .none:
            notes = Noted.absent.rawValue << 2
        case .some(let range?):
            // A span too long to note (only with limits raised past 64 KiB) is looked up instead.
            if let start = UInt16(exactly: range.lowerBound), let count = UInt16(exactly: range.count) {
                notes = Noted.present.rawValue << 2
                contentTypeStart = start
                contentTypeCount = count
            }
        case .some(.none):
            break
        }
        guard let authorization else {
            notes |= Noted.absent.rawValue
            return
        }
        guard let start = UInt32(exactly: authorization.lowerBound), let count = UInt16(exactly: authorization.count) else { return }
        notes |= Noted.present.rawValue
        authorizationStart = start
        authorizationCount = count
    }

    /// The number of fields (a name repeated counts once per occurrence).
    public var count: Int {
        guard !received.isEmpty else { return storage.count }
        return withReceivedLines { $0.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) } }
    }

    /// `body` over the received field lines (empty when there are none).
    private func withReceivedLines<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        received.withUnsafeBufferPointer { head in
            body(head.isEmpty ? head : UnsafeBufferPointer(rebasing: head[Int(receivedStart)..<(head.count - 2)]))
        }
    }

    /// Whether there are no fields.
    public var isEmpty: Bool { storage.isEmpty && received.isEmpty }

    /// Whether the fields are received lines, not (yet) strings.
    var isReceived: Bool { !received.isEmpty }

    /// Whether this list is `other` unchanged: both hold the same stored
    /// fields in the same memory (a copy of a list not changed since). False
    /// for lists equal field by field but built apart, and for received fields.
    /// - Complexity: O(1).
    public func sharesStorage(with other: HTTPHeaders) -> Bool {
        guard received.isEmpty, other.received.isEmpty, storage.count == other.storage.count else { return false }
        return storage.withUnsafeBufferPointer { a in other.storage.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress } }
    }

    /// The first value of the field `name` (case-insensitive), or `nil`.
    /// - Complexity: O(n) in the bytes of the fields; allocates only the
    ///   string returned.
    public subscript(name: String) -> String? {
        var found: String?
        forEachField(named: name) { value in
            found = String(decoding: value, as: UTF8.self)
            return false
        }
        return found
    }

    /// Every value of the field `name` (case-insensitive), in order.
    public func values(_ name: String) -> [String] {
        var found: [String] = []
        forEachField(named: name) { value in
            found.append(String(decoding: value, as: UTF8.self))
            return true
        }
        return found
    }

    /// Whether a field named `name` is present (case-insensitive).
    public func contains(_ name: String) -> Bool {
        var found = false
        forEachField(named: name) { _ in
            found = true
            return false
        }
        return found
    }

    /// Whether the first field named `name` (case-insensitive) has exactly
    /// the value `value`; false when there is none. No string is made.
    public func first(_ name: String, is value: StaticString) -> Bool {
        var equal = false
        forEachField(named: name) { found in
            equal = bytesEqual(found, value)
            return false
        }
        return equal
    }

    /// Appends a field, keeping any existing ones of the same name.
    public mutating func add(_ name: String, _ value: String) {
        materialize()
        storage.append(Field(name: name, value: value))
        allValid = allValid && Self.isValid(storage[storage.count - 1])
        storageSize += storage[storage.count - 1].size
    }

    /// Appends `other`'s fields, in order.
    public mutating func add(contentsOf other: HTTPHeaders) {
        materialize()
        storage.append(contentsOf: other.fields)
        allValid = allValid && other.allValid
        storageSize += other.writtenBound
    }

    /// Replaces every field named `name` (case-insensitive) with one field,
    /// placed where the first one was (or at the end).
    public mutating func set(_ name: String, _ value: String) {
        materialize()
        allValid = allValid && Self.isValid(Field(name: name, value: value))
        if let first = storage.firstIndex(where: { asciiCaseInsensitiveEquals($0.name, name) }) {
            storage[first] = Field(name: name, value: value)
            var i = storage.count - 1
            while i > first {
                if asciiCaseInsensitiveEquals(storage[i].name, name) { storage.remove(at: i) }
                i -= 1
            }
        } else {
            storage.append(Field(name: name, value: value))
        }
        storageSize = storage.reduce(0) { $0 + $1.size }
    }

    /// Removes every field named `name` (case-insensitive).
    public mutating func remove(_ name: String) {
        materialize()
        storage.removeAll { asciiCaseInsensitiveEquals($0.name, name) }
        storageSize = storage.reduce(0) { $0 + $1.size }
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.map { (name: $0.name, value: $0.value) }.makeIterator()
    }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        let a = lhs.fields
        let b = rhs.fields
        return a.count == b.count && zip(a, b).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    // MARK: Bytes

    /// At least the bytes the fields take as `name: value` CRLF lines (a
    /// received line, `name:value` CRLF at the least, at most doubles).
    var writtenBound: Int { received.isEmpty ? storageSize : 2 * (received.count - 2 - Int(receivedStart)) }

    /// Calls `body` with each field's name and value bytes, in order,
    /// until it returns false; no strings are made for received fields.
    func forEachField(_ body: (_ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) -> Bool) {
        guard received.isEmpty else {
            withReceivedLines { Self.forEachLine($0, body) }
            return
        }
        for i in storage.indices {
            let more = Self.withUTF8(storage[i].name) { name in Self.withUTF8(storage[i].value) { value in body(name, value) } }
            if !more { return }
        }
    }

    /// `forEachField` over the fields named `name` (case-insensitive), with their values.
    /// A stored field's value is read only when its name matches, and its
    /// name only when its length does (the fields of a response).
    private func forEachField(named name: String, _ body: (_ value: UnsafeBufferPointer<UInt8>) -> Bool) {
        Self.withUTF8(name) { wanted in
            guard received.isEmpty else {
                let contentType = contentTypeNote
                if contentType != .unknown, Self.isContentType(wanted) {
                    // Noted: none, or the only one.
                    guard contentType == .present else { return }
                    received.withUnsafeBufferPointer { lines in
                        let start = Int(contentTypeStart)
                        _ = body(UnsafeBufferPointer(rebasing: lines[start..<start + Int(contentTypeCount)]))
                    }
                    return
                }
                forEachField { name, value in asciiCaseInsensitiveEquals(name, wanted) ? body(value) : true }
                return
            }
            for i in storage.indices where storage[i].name.utf8.count == wanted.count {
                let more = Self.withUTF8(storage[i].name) { name in
                    asciiCaseInsensitiveEquals(name, wanted) ? Self.withUTF8(storage[i].value, body) : true
                }
                if !more { return }
            }
        }
    }

    /// Whether `name` is `Content-Type`, ASCII case-insensitively, as the
    /// parser's scan tells names apart (``HTTPRequestParser/fieldKind(_:count:)``).
    /// That takes token bytes; of any others, only CR would pass for the
    /// name's `-` (bit 5 set makes it one), so byte 7 is checked first.
    @inline(__always)
    static func isContentType(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard name.count == 12, let base = name.baseAddress, base[7] == UInt8(ascii: "-") else { return false }
        return HTTPRequestParser.fieldKind(UnsafeRawPointer(base), count: 12) == .contentType
    }

    /// `body` over the value of the first field named `name`
    /// (case-insensitive), nil when there is none; no string is made.
    public func withFirstValue<R>(_ name: String, _ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R {
        var result: R?
        forEachField(named: name) { value in
            result = body(value)
            return false
        }
        return result ?? body(nil)
    }

    /// `body` over the value of the first `Authorization` field (RFC 9110
    /// §11.6.2; name case-insensitive, OWS trimmed), nil when there is
    /// none; no string is made. The same bytes as
    /// `withFirstValue("Authorization")` (`self["Authorization"]` is them
    /// decoded as UTF-8).
    /// (`body` returns nothing: a non-generic call, cheap across modules.)
    /// - Complexity: O(1) for fields as received (the parser noted where
    ///   the value is); else a lookup, O(n) in the bytes of the fields.
    public func withAuthorization(_ body: (UnsafeBufferPointer<UInt8>?) -> Void) {
        switch authorizationNote {
        case .absent:
            body(nil)
        case .present:
            received.withUnsafeBufferPointer { lines in
                let start = Int(authorizationStart)
                body(UnsafeBufferPointer(rebasing: lines[start..<start + Int(authorizationCount)]))
            }
        default:
            withFirstValue("Authorization", body)
        }
    }

    /// Whether ``withAuthorization(_:)`` answers without a lookup.
    var authorizationIsNoted: Bool { authorizationNote != .unknown }

    /// Whether a lookup of `Content-Type` answers without reading the lines.
    var contentTypeIsNoted: Bool { contentTypeNote != .unknown }

    /// The fields as strings.
    private var fields: [Field] {
        guard !received.isEmpty else { return storage }
        var out: [Field] = []
        forEachField { name, value in
            out.append(Field(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self)))
            return true
        }
        return out
    }

    /// Turns received fields into strings, before a change.
    private mutating func materialize() {
        guard !received.isEmpty else { return }
        storage = fields
        received = []
        notes = 0  // both unknown
        receivedStart = 0
        storageSize = storage.reduce(0) { $0 + $1.size }
    }

    /// Whether a field may be sent as it is (`ByteClass.isSendable`).
    private static func isValid(_ field: Field) -> Bool {
        withUTF8(field.name) { name in withUTF8(field.value) { value in ByteClass.isSendable(name: name, value: value) } }
    }

    /// Splits checked field lines into names and values (OWS trimmed).
    private static func forEachLine(
        _ lines: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Bool
    ) {
        var i = 0
        while i < lines.count {
            let colon = Self.index(of: UInt8(ascii: ":"), in: lines, from: i)
            let cr = Self.index(of: 0x0D, in: lines, from: colon + 1)
            var lo = colon + 1
            var hi = cr
            while lo < hi, ByteClass.isWhitespace(lines[lo]) { lo += 1 }
            while hi > lo, ByteClass.isWhitespace(lines[hi - 1]) { hi -= 1 }
            guard body(UnsafeBufferPointer(rebasing: lines[i..<colon]), UnsafeBufferPointer(rebasing: lines[lo..<hi])) else { return }
            i = cr + 2
        }
    }

    /// The index of the first `byte` at or after `start`, which must exist.
    @inline(__always)
    private static func index(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        let found = memchr(bytes.baseAddress! + start, Int32(byte), bytes.count - start)!
        return bytes.baseAddress!.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    /// `body` over the UTF-8 of `text`, without copying a native string.
    private static func withUTF8<R>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = text
        return copy.withUTF8(body)
    }
}
