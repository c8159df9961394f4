/// An ordered list of header fields with ASCII case-insensitive lookup.
///
/// Order and duplicates are preserved as received. Lookups compare names
/// byte by byte without allocating.
///
/// ```swift
/// var headers = HTTPHeaders([("Content-Type", "text/plain")])
/// headers["content-type"]        // "text/plain"
/// headers.add("Vary", "Origin")
/// headers.set("Content-Type", "application/json")
/// ```
public struct HTTPHeaders: Sendable, Sequence, Equatable, ExpressibleByDictionaryLiteral {
    @usableFromInline
    var storage: [(name: String, value: String)]

    /// Creates a header list from `(name, value)` pairs, in order.
    public init(_ pairs: [(String, String)] = []) {
        storage = pairs.map { (name: $0.0, value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    init(reservingCapacity capacity: Int) {
        storage = []
        storage.reserveCapacity(capacity)
    }

    /// Makes room for `capacity` fields in all.
    public mutating func reserveCapacity(_ capacity: Int) {
        storage.reserveCapacity(capacity)
    }

    /// The number of fields (a name repeated counts once per occurrence).
    public var count: Int { storage.count }

    /// Whether there are no fields.
    public var isEmpty: Bool { storage.isEmpty }

    /// The first value of the field `name` (case-insensitive), or `nil`.
    /// - Complexity: O(n) in the number of fields; no allocation.
    public subscript(name: String) -> String? {
        for field in storage where asciiCaseInsensitiveEquals(field.name, name) {
            return field.value
        }
        return nil
    }

    /// Every value of the field `name` (case-insensitive), in order.
    public func values(_ name: String) -> [String] {
        storage.compactMap { asciiCaseInsensitiveEquals($0.name, name) ? $0.value : nil }
    }

    /// Whether a field named `name` is present (case-insensitive).
    public func contains(_ name: String) -> Bool {
        storage.contains { asciiCaseInsensitiveEquals($0.name, name) }
    }

    /// Appends a field, keeping any existing ones of the same name.
    public mutating func add(_ name: String, _ value: String) {
        storage.append((name: name, value: value))
    }

    /// Replaces every field named `name` (case-insensitive) with one field,
    /// placed where the first one was (or at the end).
    public mutating func set(_ name: String, _ value: String) {
        if let first = storage.firstIndex(where: { asciiCaseInsensitiveEquals($0.name, name) }) {
            storage[first] = (name: name, value: value)
            var i = storage.count - 1
            while i > first {
                if asciiCaseInsensitiveEquals(storage[i].name, name) { storage.remove(at: i) }
                i -= 1
            }
        } else {
            storage.append((name: name, value: value))
        }
    }

    /// Removes every field named `name` (case-insensitive).
    public mutating func remove(_ name: String) {
        storage.removeAll { asciiCaseInsensitiveEquals($0.name, name) }
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        storage.makeIterator()
    }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.storage.count == rhs.storage.count
            && zip(lhs.storage, rhs.storage).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}
