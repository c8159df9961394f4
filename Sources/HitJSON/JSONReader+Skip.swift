// Skipping a whole value: iterative (never recursive), depth-limited and as
// strict as reading it would be.

extension JSONReader {
    /// Consumes the next value, whatever its kind, validating it completely.
    ///
    /// Nesting inside the skipped value counts towards `maxDepth` on top of
    /// the containers already open.
    /// - Throws: any syntax error inside the value; `nesting deeper than N`.
    /// - Complexity: O(length of the value); O(1) stack space.
    public mutating func skipValue() throws(JSONSyntaxError) {
        atContainerStart = false
        let baseDepth = depth
        let n = bytes.count
        while true {
            // Expect a value at `position`.
            skipWhitespace()
            guard position < n else { throw expected("a value") }
            switch bytes[position] {
            case UInt8(ascii: "{"):
                try push(object: true)
                position += 1
                skipWhitespace()
                if position < n && bytes[position] == UInt8(ascii: "}") {
                    position += 1
                    pop()
                } else {
                    try skipMemberName(expecting: "a key or '}'")
                    continue
                }
            case UInt8(ascii: "["):
                try push(object: false)
                position += 1
                skipWhitespace()
                if position < n && bytes[position] == UInt8(ascii: "]") {
                    position += 1
                    pop()
                } else {
                    continue
                }
            case UInt8(ascii: "\""):
                _ = try scanString()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                try skipNumber()
            case UInt8(ascii: "t"):
                try consumeLiteral(0x74_72_75_65, length: 4)
            case UInt8(ascii: "f"):
                try consumeLiteral(0x66_61_6C_73_65, length: 5)
            case UInt8(ascii: "n"):
                try consumeLiteral(0x6E_75_6C_6C, length: 4)
            default:
                throw expected("a value")
            }
            // A value is complete: close finished containers, find the next value.
            closing: while depth > baseDepth {
                skipWhitespace()
                let object = topIsObject
                guard position < n else { throw expected(object ? "',' or '}'" : "',' or ']'") }
                let b = bytes[position]
                if b == UInt8(ascii: ",") {
                    position += 1
                    if object { try skipMemberName(expecting: "a key") }
                    break closing
                } else if b == (object ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    position += 1
                    pop()
                } else {
                    throw expected(object ? "',' or '}'" : "',' or ']'")
                }
            }
            if depth == baseDepth { return }
        }
    }

    /// Skips whitespace, a member name and the `:` after it.
    @usableFromInline
    mutating func skipMemberName(expecting what: String) throws(JSONSyntaxError) {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
            throw expected(what)
        }
        _ = try scanString()
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
            throw expected("':'")
        }
        position += 1
    }
}
