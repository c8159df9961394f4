import HitBase

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

    /// Appends `s` in quotes, escaped by ``JSONString`` (`"` and `\` as
    /// `\"` and `\\`, `\b \f \n \r \t` by name, other control characters
    /// as `\u00XX`; all other UTF-8, `/` and non-ASCII included, as is).
    /// - Complexity: O(s.utf8.count).
    @usableFromInline
    mutating func appendQuoted(_ s: String) {
        JSONString.append(s, to: &buffer)
    }
}
