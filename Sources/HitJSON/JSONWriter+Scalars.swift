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

    /// Appends `d.description` (Swift's shortest round-trip form) of a
    /// finite `d` without making a String: a short decimal by
    /// ``appendShortDecimal(_:)``, any other through `d.write(to:)` into
    /// the writer's own bytes (``ShortestText``). JSONWriterShortestTests
    /// holds both side by side with `description`.
    @usableFromInline
    mutating func appendShortest(_ d: Double) {
        if appendShortDecimal(d) { return }
        var text = ShortestText(reserve(ShortestText.capacity))
        d.write(to: &text)
        guard text.count <= ShortestText.capacity else {
            var description = d.description  // longer than any double's text: never taken
            description.withUTF8 { append($0) }
            return
        }
        advance(text.count)
    }

    /// Appends `d.description` when it is a short plain decimal: 0.001 ≤
    /// |d| < 100,000 and the double nearest some k / 10^j, j ≤ 9, is `d`
    /// (`120.37`, `-0.5`). That decimal has at most 14 significant digits,
    /// fewer than a double tells apart, so it is the shortest text that
    /// reads back as `d` and the one `description` writes. False, writing
    /// nothing, for any other value.
    @usableFromInline
    mutating func appendShortDecimal(_ d: Double) -> Bool {
        let m = d.magnitude
        guard m >= 0.001 && m < 100_000 else { return false }
        var j = 1
        var scale = 10.0
        var r = 0
        while true {
            // m · scale < 10^14: the conversion cannot trap; r / scale is
            // the double nearest r / 10^j, compared with m exactly.
            r = Int(m * scale + 0.5)
            if Double(r) / scale == m { break }
            if j == 9 { return false }
            j &+= 1
            scale *= 10
        }
        // The smallest j ends in a non-zero digit (a 0 would mean j − 1 fit).
        guard r % 10 != 0 else { return false }
        if d < 0 { append(UInt8(ascii: "-")) }
        let unit = Int(scale)
        let whole = r / unit
        appendInteger(whole)
        var fraction = r &- whole &* unit
        let p = reserve(j &+ 1)
        p[0] = UInt8(ascii: ".")
        var i = j
        while i > 0 {
            let (q, digit) = fraction.quotientAndRemainder(dividingBy: 10)
            p[i] = UInt8(truncatingIfNeeded: digit) &+ UInt8(ascii: "0")
            fraction = q
            i &-= 1
        }
        advance(j &+ 1)
        return true
    }

    /// Appends the decimal digits of `value` (with `-` when negative):
    /// below 10,000 (the commonest: coordinates, versions, counts) from a
    /// table of digit pairs, else written in place, last digit first, once
    /// their count is known.
    @inlinable @inline(__always)
    mutating func appendInteger(_ value: Int) {
        if value >= 0 && value < 10 {
            append(UInt8(truncatingIfNeeded: value) &+ UInt8(ascii: "0"))
        } else if value >= 10 && value < 10_000 {
            appendSmallInteger(value)
        } else {
            appendAnyInteger(value)
        }
    }

    /// ``appendInteger(_:)`` of any value, digit by digit.
    @usableFromInline
    mutating func appendAnyInteger(_ value: Int) {
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

    /// The two digits of 00…99, back to back.
    @usableFromInline
    static let digitPairs: StaticString =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

    /// Appends `value` (10…9,999) as two or four digits' pairs from
    /// ``digitPairs``, dropping the leading zero of 100…999.
    @inlinable @inline(__always)
    mutating func appendSmallInteger(_ value: Int) {
        let pairs = JSONWriter.digitPairs.utf8Start
        let p = reserve(4)
        if value < 100 {
            p[0] = pairs[2 &* value]
            p[1] = pairs[2 &* value &+ 1]
            advance(2)
            return
        }
        let high = value / 100
        let low = value &- high &* 100
        p[0] = pairs[2 &* high]
        p[1] = pairs[2 &* high &+ 1]
        p[2] = pairs[2 &* low]
        p[3] = pairs[2 &* low &+ 1]
        if high < 10 {
            // Three digits: the pair of `high` had a leading zero.
            p[0] = p[1]
            p[1] = p[2]
            p[2] = p[3]
            advance(3)
        } else {
            advance(4)
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

/// A double's text as `write(to:)` gives it, in `capacity` bytes at
/// `base`: the standard library hands a number's ASCII text to
/// `_writeASCII`, so no String is made. `count` past `capacity` means the
/// text did not fit (and was not written).
@usableFromInline
struct ShortestText: TextOutputStream {
    /// Bytes enough for any double's shortest text (at most 24:
    /// `-2.2250738585072014e-308`).
    @usableFromInline static let capacity = 32
    let base: UnsafeMutablePointer<UInt8>
    @usableFromInline var count = 0

    @usableFromInline init(_ base: UnsafeMutablePointer<UInt8>) { self.base = base }

    @usableFromInline mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
        let end = count + buffer.count
        if end <= Self.capacity, let source = buffer.baseAddress { (base + count).update(from: source, count: buffer.count) }
        count = end
    }

    @usableFromInline mutating func write(_ string: String) {
        var string = string
        string.withUTF8 { _writeASCII($0) }
    }
}
