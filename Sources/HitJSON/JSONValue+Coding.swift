// Parsing a JSONValue with JSONReader (iteratively) and writing it with
// JSONWriter.

extension JSONValue {
    /// Parses a complete JSON document.
    ///
    /// A repeated object key keeps the **last** value, at the position of the
    /// first occurrence (`{"a":1,"b":2,"a":3}` → `{"a":3,"b":2}`).
    /// Numbers outside Double's range give ±infinity (see ``JSONReader/readNumber()``).
    /// - Parameters:
    ///   - bytes: UTF-8 JSON text.
    ///   - maxDepth: deepest accepted nesting of arrays and objects.
    /// - Throws: ``JSONSyntaxError`` for malformed input or trailing bytes.
    /// - Complexity: O(n) time; heap (not stack) proportional to nesting depth.
    public static func parse(_ bytes: some Collection<UInt8>, maxDepth: Int = 512) throws(JSONSyntaxError) -> JSONValue {
        let result = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONSyntaxError) -> JSONValue in
                try parse(buffer: buffer, maxDepth: maxDepth)
            }
        }
        if let result { return try result.get() }
        let copy = Array(bytes)
        return try parse(copy, maxDepth: maxDepth)
    }

    /// A container under construction while parsing. Frames are mutated in
    /// place on the stack (`stack[last].elements.append`) so that appending
    /// never copies the partial array.
    private struct Frame {
        var isObject: Bool
        var elements: [JSONValue] = []
        var members = ObjectBuilder()
        var key = ""
    }

    private static func parse(buffer: UnsafeBufferPointer<UInt8>, maxDepth: Int) throws(JSONSyntaxError) -> JSONValue {
        var reader = JSONReader(buffer, maxDepth: maxDepth)
        var stack: [Frame] = []
        readValue: while true {
            var value: JSONValue
            switch try reader.peek() {
            case .object:
                try reader.beginObject()
                guard let key = try reader.nextKey() else {
                    value = .object([])
                    break
                }
                stack.append(Frame(isObject: true, key: key))
                continue readValue
            case .array:
                try reader.beginArray()
                guard try reader.nextElement() else {
                    value = .array([])
                    break
                }
                stack.append(Frame(isObject: false))
                continue readValue
            case .string: value = .string(try reader.readString())
            case .number: value = .number(try reader.readNumber())
            case .bool: value = .bool(try reader.readBool())
            case .null:
                try reader.readNull()
                value = .null
            }
            // Attach `value` to its parent, closing every container that ends here.
            while !stack.isEmpty {
                let top = stack.count - 1
                if stack[top].isObject {
                    stack[top].members.set(stack[top].key, value)
                    if let next = try reader.nextKey() {
                        stack[top].key = next
                        continue readValue
                    }
                    value = .object(stack.removeLast().members.members)
                } else {
                    stack[top].elements.append(value)
                    if try reader.nextElement() { continue readValue }
                    value = .array(stack.removeLast().elements)
                }
            }
            try reader.finish()
            return value
        }
    }

    /// Writes the value. Non-finite numbers (which ``parse(_:maxDepth:)`` can
    /// produce from e.g. `1e999`) are written as `null`, as JavaScript's
    /// `JSON.stringify` does, so that writing never traps.
    /// - Complexity: O(size); recursion depth = nesting depth.
    public func write(to writer: inout JSONWriter) {
        switch self {
        case .null: writer.null()
        case .bool(let b): writer.bool(b)
        case .number(let d):
            if d.isFinite { writer.number(d) } else { writer.null() }
        case .string(let s): writer.string(s)
        case .array(let elements):
            writer.beginArray()
            for element in elements { element.write(to: &writer) }
            writer.endArray()
        case .object(let members):
            writer.beginObject()
            for (key, value) in members {
                writer.key(key)
                value.write(to: &writer)
            }
            writer.endObject()
        }
    }

    /// The compact JSON encoding of the value (see ``write(to:)``).
    public var encoded: [UInt8] {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.finish()
    }
}

/// Collects object members with last-wins for repeated keys in expected
/// O(1) per member (a hash index is built once the object grows past a few
/// members, so hostile inputs with many keys stay linear).
struct ObjectBuilder {
    var members: [(String, JSONValue)] = []
    var index: [String: Int]? = nil

    mutating func set(_ key: String, _ value: JSONValue) {
        if index != nil {
            // Mutate the index in place: binding it with `if let` would copy it.
            if let i = index![key] {
                members[i].1 = value
            } else {
                index![key] = members.count
                members.append((key, value))
            }
            return
        }
        if let i = members.firstIndex(where: { $0.0 == key }) {
            members[i].1 = value
            return
        }
        members.append((key, value))
        if members.count >= 8 {
            var built: [String: Int] = [:]
            for (i, member) in members.enumerated() { built[member.0] = i }
            index = built
        }
    }
}
