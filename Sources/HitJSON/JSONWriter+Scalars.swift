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
        // |d| < 2^53: Int(d) (truncation) cannot trap, and converts back
        // exactly when d is integral; no call to a rounding function.
        if d.magnitude < 9_007_199_254_740_992, Double(Int(d)) == d {
            if d == 0 && d.sign == .minus {
                append(UInt8(ascii: "-"))
                append(UInt8(ascii: "0"))
            } else {
                appendInteger(Int(d))
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

    /// Appends the decimal digits of `value` (with `-` when negative),
    /// written in place, last digit first, once their count is known.
    @inlinable
    mutating func appendInteger(_ value: Int) {
        if value >= 0 && value < 10 {
            append(UInt8(truncatingIfNeeded: value) &+ UInt8(ascii: "0"))
            return
        }
        var magnitude = UInt64(value.magnitude)
        let sign = value < 0 ? 1 : 0
        var digits = 1
        var scale: UInt64 = 10
        while digits < 20, magnitude >= scale {  // 10^19 is the largest power that fits
            digits &+= 1
            scale = digits < 20 ? scale &* 10 : scale
        }
        let count = sign &+ digits
        let p = reserve(count)
        if sign == 1 { p[0] = UInt8(ascii: "-") }
        var i = count
        repeat {
            i &-= 1
            let (q, r) = magnitude.quotientAndRemainder(dividingBy: 10)
            p[i] = UInt8(truncatingIfNeeded: r) &+ UInt8(ascii: "0")
            magnitude = q
        } while i > sign
        advance(count)
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
