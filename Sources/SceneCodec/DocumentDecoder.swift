import HitJSON
import HitRouting

/// A validating pull decoder over a JSON body: reads values through a
/// `JSONReader`, tracks the JSON Pointer of the value being read and
/// collects every problem instead of stopping at the first.
///
/// A value of the wrong type is reported and skipped, so decoding goes on
/// and one response lists all problems (up to `maxIssues`). Syntax errors
/// stop decoding at once (the body is not JSON).
package struct DocumentDecoder {
    package enum Token {
        case key(String)
        case index(Int)
    }

    /// Thrown to stop decoding when a limit makes going on pointless or
    /// unsafe; `issues` says why.
    package struct Abort: Error {
        package init() {}
    }

    package var reader: JSONReader
    private(set) var path: [Token] = []
    /// Key lists for open objects, one per nesting level, kept for reuse so
    /// that decoding many small objects allocates none.
    private var keyPool: [[String]] = []
    private var keyLevel = 0
    private(set) var issues: [ValidationIssue] = []
    package static let maxIssues = 100

    package init(_ bytes: UnsafeBufferPointer<UInt8>) {
        reader = JSONReader(bytes, maxDepth: DocumentDecoder.maxDepth)
    }

    /// The reader's nesting bound: layers nest at most 64 deep and deeper
    /// input is skipped iteratively, so this only has to stop absurd inputs.
    package static let maxDepth = 4096

    // MARK: - Pointers and issues

    package mutating func push(_ key: String) { path.append(.key(key)) }
    package mutating func push(_ index: Int) { path.append(.index(index)) }
    package mutating func pop() { path.removeLast() }

    /// The pointer of the current value, with `extra` tokens appended.
    package func pointer(_ extra: [Token] = []) -> String {
        var p = JSONPointer()
        for t in path + extra {
            switch t {
            case .key(let k): p = p.appending(k)
            case .index(let i): p = p.appending(i)
            }
        }
        return p.description
    }

    /// Records a problem at the current value (plus `extra` tokens).
    package mutating func issue(_ message: String, _ extra: [Token] = []) throws {
        issues.append(ValidationIssue(pointer: pointer(extra), message: message))
        if issues.count >= DocumentDecoder.maxIssues {
            issues.append(ValidationIssue(pointer: "", message: "too many problems; stopped after \(DocumentDecoder.maxIssues)"))
            throw Abort()
        }
    }

    /// Reports a wrong type and skips the value.
    package mutating func mismatch(_ expected: String) throws {
        let found = try reader.peek()
        try issue("must be \(expected), not \(found.article)")
        try reader.skipValue()
    }

    // MARK: - Primitive values (nil when reported)

    package mutating func number() throws -> Double? {
        guard try reader.peek() == .number else {
            try mismatch("a number")
            return nil
        }
        let v = try reader.readNumber()
        guard v.isFinite else {
            try issue("must be a finite number (this one overflows a double)")
            return nil
        }
        return v
    }

    /// A finite number ≥ 0.
    package mutating func nonNegative() throws -> Double? {
        guard let v = try number() else { return nil }
        guard v >= 0 else {
            try issue("must be a finite number >= 0")
            return nil
        }
        return v
    }

    package mutating func bool() throws -> Bool? {
        guard try reader.peek() == .bool else {
            try mismatch("true or false")
            return nil
        }
        return try reader.readBool()
    }

    package mutating func string() throws -> String? {
        guard try reader.peek() == .string else {
            try mismatch("a string")
            return nil
        }
        return try reader.readString()
    }

    /// A string matching `[allowed]{1,maxLength}` (ASCII only).
    package mutating func identifier(maxLength: Int, extraAllowed: String) throws -> String? {
        guard let s = try string() else { return nil }
        let extra = Array(extraAllowed.utf8)
        let ok =
            !s.isEmpty && s.utf8.count <= maxLength
            && s.utf8.allSatisfy { c in
                (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || extra.contains(c)
            }
        guard ok else {
            try issue("must match [A-Za-z0-9\(extraAllowed)]{1,\(maxLength)}")
            return nil
        }
        return s
    }

    /// One of the raw values of `E`.
    package mutating func enumeration<E: RawRepresentable & CaseIterable>(_: E.Type) throws -> E? where E.RawValue == String {
        guard let s = try string() else { return nil }
        guard let e = E(rawValue: s) else {
            let options = E.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            try issue("must be one of \(options)")
            return nil
        }
        return e
    }

    /// `[x, y]`: an array of exactly two finite numbers.
    package mutating func point() throws -> Point? {
        guard try reader.peek() == .array else {
            try mismatch("an array [x, y]")
            return nil
        }
        try reader.beginArray()
        var values: (Double, Double) = (0, 0)
        var count = 0
        var valid = true
        while try reader.nextElement() {
            if count < 2, try reader.peek() == .number {
                let v = try reader.readNumber()
                if v.isFinite {
                    if count == 0 { values.0 = v } else { values.1 = v }
                } else {
                    valid = false
                }
            } else {
                try reader.skipValue()
                valid = false
            }
            count += 1
        }
        guard valid && count == 2 else {
            try issue("must be an array of two finite numbers [x, y]")
            return nil
        }
        return Point(values.0, values.1)
    }

    /// Starts an object; false when the value is not one (reported and skipped).
    package mutating func beginObject() throws -> Bool {
        guard try reader.peek() == .object else {
            try mismatch("an object")
            return false
        }
        try reader.beginObject()
        return true
    }

    /// The next member's key, pushed on the pointer in place of the
    /// previous one; nil after the last. `seen` holds the keys so far
    /// (start it empty): duplicate keys are reported and skipped.
    package mutating func nextMember(_ seen: inout [String]) throws -> String? {
        while true {
            if !seen.isEmpty { pop() }
            guard let key = try reader.nextKey() else { return nil }
            push(key)
            if seen.contains(key) {
                try issue("duplicate key \"\(key)\"")
                try reader.skipValue()
                continue  // `seen` is non-empty: the next round pops this key
            }
            seen.append(key)
            return key
        }
    }

    /// An empty key list for the object about to be read (see `nextMember`);
    /// give it back with `returnKeys` when the object is done.
    package mutating func borrowKeys() -> [String] {
        defer { keyLevel += 1 }
        guard keyLevel < keyPool.count else {
            keyPool.append([])
            return []
        }
        var keys: [String] = []
        swap(&keys, &keyPool[keyLevel])
        keys.removeAll(keepingCapacity: true)
        return keys
    }

    package mutating func returnKeys(_ keys: [String]) {
        keyLevel -= 1
        keyPool[keyLevel] = keys
    }

    /// Reports an unknown member and skips it.
    package mutating func unknown(_ key: String, in what: String) throws {
        try issue("unknown field \"\(key)\" in \(what)")
        try reader.skipValue()
    }
}

extension JSONKind {
    /// "an object", "a string", … for messages.
    package var article: String {
        switch self {
        case .object: return "an object"
        case .array: return "an array"
        case .string: return "a string"
        case .number: return "a number"
        case .bool: return "a boolean"
        case .null: return "null"
        }
    }
}

/// One pass of decoding a body: a `DocumentDecoder`, maybe with more state.
package protocol DecodingPass {
    var d: DocumentDecoder { get set }
}

extension DocumentDecoder: DecodingPass {
    package var d: DocumentDecoder {
        get { self }
        set { self = newValue }
    }
}

extension DecodingPass {
    /// Runs `body` over the whole body and sorts out the outcome: the value,
    /// or `.syntax` for malformed JSON, or `.invalid` with every problem.
    package mutating func run<T>(_ body: (inout Self) throws -> T) throws(DecodeFailure) -> T {
        do {
            let value = try body(&self)
            try d.reader.finish()
            if !d.issues.isEmpty { throw DecodeFailure.invalid(d.issues) }
            return value
        } catch let e as JSONSyntaxError {
            throw .syntax(e)
        } catch is DocumentDecoder.Abort {
            throw .invalid(d.issues)
        } catch let e as DecodeFailure {
            throw e
        } catch {
            // Unreachable: the passes throw only JSONSyntaxError, Abort and DecodeFailure.
            preconditionFailure("decoding threw an unexpected \(error)")
        }
    }
}
