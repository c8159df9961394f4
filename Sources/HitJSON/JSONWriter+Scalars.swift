// The writer's number and string encodings.

extension JSONWriter {
    /// Writes a finite number.
    ///
    /// Integral values with |d| < 2^53 are written as integers without a
    /// fraction and without allocating (`120`, `-7`; -0.0 as `-0`). Every other
    /// value uses Swift's shortest round-trip form (`0.1`, `1e-05`, `1e+16`,
    /// `5e-324`), which is valid JSON and reads back to the same bits.
    /// - Precondition: `d.isFinite`.
    @inlinable
    public mutating func number(_ d: Double) {
        // Kept as an invariant: the core guarantees finite answers (NumericProblem, SPEC §1).
        precondition(d.isFinite, "JSON cannot represent a non-finite number")
        separate()
        if d.magnitude < 9_007_199_254_740_992 && d.rounded(.towardZero) == d {
            if d == 0 && d.sign == .minus {
                append(UInt8(ascii: "-"))
                append(UInt8(ascii: "0"))
            } else {
                appendInteger(Int(d))  // |d| < 2^53 and integral: exact, no trap
            }
        } else {
            appendShortest(d)
        }
        needsComma = true
    }

    @usableFromInline
    mutating func appendShortest(_ d: Double) {
        var text = d.description
        text.withUTF8 { append($0) }
    }

    /// Appends the decimal digits of `value`.
    @inlinable
    mutating func appendInteger(_ value: Int) {
        if value >= 0 && value < 10 {
            append(UInt8(truncatingIfNeeded: value) &+ UInt8(ascii: "0"))
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var magnitude = value.magnitude
            var i = 20
            repeat {
                let (q, r) = magnitude.quotientAndRemainder(dividingBy: 10)
                i -= 1
                buffer[i] = UInt8(truncatingIfNeeded: r) &+ UInt8(ascii: "0")
                magnitude = q
            } while magnitude != 0
            if value < 0 { append(UInt8(ascii: "-")) }
            append(UnsafeBufferPointer(rebasing: buffer[i..<20]))
        }
    }

    /// Appends `s` in quotes, escaping `"` and `\` as `\"` and `\\`,
    /// `\b \f \n \r \t` by name and other control characters as `\u00XX`.
    /// All other UTF-8 (including `/` and non-ASCII) is copied as is.
    /// - Complexity: O(s.utf8.count).
    @usableFromInline
    mutating func appendQuoted(_ s: String) {
        append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { utf8 in
            var runStart = 0
            for i in 0..<utf8.count {
                let b = utf8[i]
                if b >= 0x20 && b != UInt8(ascii: "\"") && b != UInt8(ascii: "\\") { continue }
                if runStart < i { append(UnsafeBufferPointer(rebasing: utf8[runStart..<i])) }
                appendEscape(b)
                runStart = i + 1
            }
            if runStart < utf8.count {
                append(UnsafeBufferPointer(rebasing: utf8[runStart...]))
            }
        }
        append(UInt8(ascii: "\""))
    }

    @usableFromInline
    mutating func appendEscape(_ b: UInt8) {
        append(UInt8(ascii: "\\"))
        switch b {
        case UInt8(ascii: "\""): append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): append(UInt8(ascii: "\\"))
        case 0x08: append(UInt8(ascii: "b"))
        case 0x0C: append(UInt8(ascii: "f"))
        case 0x0A: append(UInt8(ascii: "n"))
        case 0x0D: append(UInt8(ascii: "r"))
        case 0x09: append(UInt8(ascii: "t"))
        default:
            // Only bytes < 0x20 get here: \u00 then two lower-case hex digits.
            let low = b & 0xF
            append(UInt8(ascii: "u"))
            append(UInt8(ascii: "0"))
            append(UInt8(ascii: "0"))
            append(UInt8(ascii: "0") + (b >> 4))
            append(low < 10 ? UInt8(ascii: "0") + low : UInt8(ascii: "a") + low - 10)
        }
    }
}
