import HitBase

// Writing a member or a string value in pieces, for answers whose text is
// mostly known when the program is built (trace entries): no String is made
// for them and nothing known is scanned for escapes.

extension JSONWriter {
    /// Writes a whole object member known when the program is built
    /// (`"decision":"hit"`: trusted, neither checked nor escaped).
    @inlinable @inline(__always)
    public mutating func member(_ keyAndValue: StaticString) {
        separate()
        appendASCII(keyAndValue)
        needsComma = true
    }

    /// Opens a string value (`"`); pieces follow, then ``endString()``.
    @inlinable
    public mutating func beginString() {
        separate()
        append(UInt8(ascii: "\""))
    }

    /// Closes the string value opened by ``beginString()``.
    @inlinable
    public mutating func endString() {
        append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// Appends text known when the program is built to the open string
    /// (ASCII with nothing to escape, which is not checked).
    @inlinable
    public mutating func stringText(_ text: StaticString) {
        appendASCII(text)
    }

    /// Appends the decimal digits of `i` to the open string.
    @inlinable
    public mutating func stringInt(_ i: Int) {
        appendInteger(i)
    }

    /// Appends `d` to the open string as `String(d)` reads, except that an
    /// integral value with |d| < 1e15 is written as the integer
    /// (`String(Int(d))`: `120`, and `0` for -0.0). That is the form of
    /// numbers in human sentences (a trace's `detail`), not ``number(_:)``'s.
    public mutating func stringShort(_ d: Double) {
        if d == d.rounded() && d.magnitude < 1e15 {
            appendInteger(Int(d))
        } else {
            appendShortest(d)
        }
    }
}

extension JSONWriter {
    /// Writes text known when the program is built that ends with an
    /// object key and its `:` (`,"version":`, `{"x":`: trusted, neither
    /// checked nor escaped, its comma written by the caller); a value
    /// must follow.
    @inlinable @inline(__always)
    public mutating func keyText(_ text: StaticString) {
        appendASCII(text)
        needsComma = false
    }
}

extension JSONWriter {
    /// Writes the comma the next object member needs, if any, and returns
    /// where that member starts (an offset for ``membersAgain(_:)``); the
    /// member's key and value follow.
    @inlinable @inline(__always)
    public mutating func memberStart() -> Int {
        separate()
        needsComma = false
        return count
    }

    /// Writes again, as the next members of the open object, the members
    /// this writer wrote at `range` (from ``memberStart()`` to the end of
    /// their last value): one copy, nothing formatted.
    /// - Complexity: O(range.count).
    @inlinable @inline(__always)
    public mutating func membersAgain(_ range: Range<Int>) {
        separate()
        buffer.appendCopy(of: range)
        needsComma = true
    }
}
