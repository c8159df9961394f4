/// A small in-memory JSON tree, for documents that are small (merge
/// patches, tests). Object members keep their order.
///
/// Large documents (scenes) are read with ``JSONReader`` directly instead.
/// Parsing is iterative, but writing, comparing, merge-patching and
/// destroying a value recurse once per nesting level: keep `maxDepth`
/// modest (the default 512 is safe; 100,000 is not).
///
/// Equality follows JSON's data model: object members compare as an
/// unordered map (`{"a":1,"b":2} == {"b":2,"a":1}`), arrays in order, numbers
/// with `==` on Double (so `0 == -0`).
public indirect enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)): return membersEqual(a, b)
        default: return false
        }
    }

    /// Compares members as maps (a repeated key counts with its last value).
    /// - Complexity: O(n) expected.
    static func membersEqual(_ a: [(String, JSONValue)], _ b: [(String, JSONValue)]) -> Bool {
        guard a.count == b.count else { return false }
        if a.elementsEqual(b, by: { $0.0 == $1.0 && $0.1 == $1.1 }) { return true }
        let mapA = Dictionary(a, uniquingKeysWith: { _, last in last })
        let mapB = Dictionary(b, uniquingKeysWith: { _, last in last })
        guard mapA.count == mapB.count else { return false }
        return mapA.allSatisfy { key, value in mapB[key] == value }
    }
}

extension JSONValue {
    /// The value of the object member named `key` (the last one if repeated);
    /// nil when absent or when `self` is not an object.
    /// - Complexity: O(number of members).
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last(where: { $0.0 == key })?.1
    }

    /// The elements when `self` is an array, else nil.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The members when `self` is an object, else nil.
    public var objectValue: [(String, JSONValue)]? {
        if case .object(let m) = self { return m }
        return nil
    }

    /// The string when `self` is a string, else nil.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The number when `self` is a number, else nil.
    public var numberValue: Double? {
        if case .number(let d) = self { return d }
        return nil
    }

    /// The Boolean when `self` is a Boolean, else nil.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// True for `.null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

extension JSONValue {
    /// The location of the first number (in document order) that is not
    /// finite, or nil when every number is finite.
    ///
    /// ``parse(_:maxDepth:)`` accepts `1e999` as +infinity; the spec makes that
    /// a validation error (422), which this reports with its JSON Pointer.
    ///
    ///     try JSONValue.parse(#"{"a":[1,1e999]}"#.utf8).firstNonFiniteNumber  // "/a/1"
    /// - Complexity: O(size); recursion depth = nesting depth.
    public var firstNonFiniteNumber: JSONPointer? {
        firstNonFiniteNumber(at: JSONPointer())
    }

    private func firstNonFiniteNumber(at pointer: JSONPointer) -> JSONPointer? {
        switch self {
        case .number(let d): return d.isFinite ? nil : pointer
        case .array(let elements):
            for (i, element) in elements.enumerated() {
                if let found = element.firstNonFiniteNumber(at: pointer.appending(i)) { return found }
            }
            return nil
        case .object(let members):
            for (key, value) in members {
                if let found = value.firstNonFiniteNumber(at: pointer.appending(key)) { return found }
            }
            return nil
        case .null, .bool, .string: return nil
        }
    }
}
