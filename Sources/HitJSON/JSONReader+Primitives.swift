// Low-level helpers shared by the reader's parts: whitespace, literals,
// the container-kind stack and error construction.

/// Values of ``JSONReader/innermost``.
@usableFromInline
enum ContainerKind {
    @inlinable static var none: UInt8 { 0 }
    @inlinable static var array: UInt8 { 1 }
    @inlinable static var object: UInt8 { 2 }
}

extension JSONReader {
    /// Skips JSON whitespace (space, tab, line feed, carriage return).
    /// - Complexity: O(bytes skipped).
    @inlinable @inline(__always)
    mutating func skipWhitespace() {
        let n = bytes.count
        while position < n {
            let b = bytes[position]
            guard b <= 0x20,
                b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09
            else { return }
            position += 1
        }
    }

    /// Consumes `byte` if it is next (no whitespace skipped).
    @inlinable @inline(__always)
    mutating func take(_ byte: UInt8) -> Bool {
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    /// Consumes the ASCII literal whose bytes are packed big-endian in `packed`.
    /// Throws at the first mismatching byte, or at the end of the input.
    @inlinable
    mutating func consumeLiteral(_ packed: UInt64, length: Int) throws(JSONSyntaxError) {
        let n = bytes.count
        for k in 0..<length {
            let want = UInt8(truncatingIfNeeded: packed >> (8 * UInt64(length - 1 - k)))
            let at = position + k
            guard at < n, bytes[at] == want else {
                throw badLiteral(packed, length: length, at: at)
            }
        }
        position += length
    }

    /// True when the innermost open container is an object.
    @inlinable @inline(__always)
    var topIsObject: Bool { innermost == ContainerKind.object }

    /// Closes the innermost container. Requires `depth > 0`.
    @inlinable @inline(__always)
    mutating func pop() {
        depth -= 1
        guard depth > 0 else {
            innermost = ContainerKind.none
            return
        }
        let d = depth - 1
        let object = d < 64 ? (shallowKinds >> UInt64(d)) & 1 == 1 : deepKindIsObject(d)
        innermost = object ? ContainerKind.object : ContainerKind.array
    }

    /// Opens a container of the given kind, enforcing `maxDepth`.
    @inlinable
    mutating func push(object: Bool) throws(JSONSyntaxError) {
        guard depth < maxDepth else { throw tooDeep() }
        let d = depth
        if d < 64 {
            let bit: UInt64 = 1 << UInt64(d)
            if object { shallowKinds |= bit } else { shallowKinds &= ~bit }
        } else {
            setDeepKind(d, object: object)
        }
        depth = d + 1
        innermost = object ? ContainerKind.object : ContainerKind.array
    }

    @usableFromInline
    func deepKindIsObject(_ d: Int) -> Bool {
        let i = d - 64
        return (deepKinds[i >> 6] >> UInt64(i & 63)) & 1 == 1
    }

    @usableFromInline
    mutating func setDeepKind(_ d: Int, object: Bool) {
        let i = d - 64
        while deepKinds.count <= i >> 6 { deepKinds.append(0) }
        let bit: UInt64 = 1 << UInt64(i & 63)
        if object { deepKinds[i >> 6] |= bit } else { deepKinds[i >> 6] &= ~bit }
    }

    // MARK: Errors (kept out of line so the hot paths stay small)

    /// `expected <what>, found <byte at position or end of input>` at the current position.
    @usableFromInline @inline(never)
    func expected(_ what: String) -> JSONSyntaxError {
        expected(what, at: position)
    }

    @usableFromInline @inline(never)
    func expected(_ what: String, at offset: Int) -> JSONSyntaxError {
        let found = offset < bytes.count ? JSONReader.describe(bytes[offset]) : "end of input"
        return JSONSyntaxError(offset: offset, message: "expected \(what), found \(found)")
    }

    @usableFromInline @inline(never)
    func error(_ message: String, at offset: Int) -> JSONSyntaxError {
        JSONSyntaxError(offset: offset, message: message)
    }

    @usableFromInline @inline(never)
    func misuse(_ message: String) -> JSONSyntaxError {
        JSONSyntaxError(offset: position, message: message)
    }

    @usableFromInline @inline(never)
    func tooDeep() -> JSONSyntaxError {
        JSONSyntaxError(offset: position, message: "nesting deeper than \(maxDepth)")
    }

    @usableFromInline @inline(never)
    func badLiteral(_ packed: UInt64, length: Int, at offset: Int) -> JSONSyntaxError {
        var literal = ""
        for k in 0..<length {
            let byte = UInt8(truncatingIfNeeded: packed >> (8 * UInt64(length - 1 - k)))
            literal.unicodeScalars.append(Unicode.Scalar(byte))
        }
        return expected("'\(literal)'", at: offset)
    }

    /// `'x'` for printable ASCII, `'\u{…}'`-free `byte 0xNN` otherwise.
    static func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte <= 0x7E {
            return "'\(Character(Unicode.Scalar(byte)))'"
        }
        if byte == 0x20 { return "' '" }
        let hex = String(byte, radix: 16, uppercase: true)
        return "byte 0x\(byte < 16 ? "0" : "")\(hex)"
    }
}
