// Number reading: the strict RFC 8259 grammar, an exact fast path
// (Clinger) and a correctly rounded fallback through strtod.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension JSONReader {
    /// Reads a number (strict grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`).
    ///
    /// The result is correctly rounded. Numbers too large for a Double give
    /// ±infinity (`1e999`) and too small give ±0 (`1e-999`): these are not
    /// syntax errors; callers that need finite numbers check `isFinite`.
    /// `-0` gives -0.0.
    /// - Throws: `expected a number`, `leading zeros are not allowed`,
    ///   `expected a digit after '-'` / `'.'` / `in the exponent`.
    /// - Complexity: O(digits). With at most 19 significant digits, a mantissa
    ///   ≤ 2^53 and a decimal exponent within ±22 (+15 for integers) the value is
    ///   computed exactly with one multiplication or division; otherwise the
    ///   validated text is handed to `strtod`.
    @inlinable
    public mutating func readNumber() throws(JSONSyntaxError) -> Double {
        skipWhitespace()
        atContainerStart = false
        let n = bytes.count
        let start = position
        var i = start
        guard i < n else { throw expected("a number") }
        let negative = bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        guard i < n else { throw expected("a digit after '-'", at: i) }

        var mantissa: UInt64 = 0
        var digits = 0  // significant digits held in `mantissa`
        var exponent = 0  // decimal exponent applied to `mantissa`
        var exact = true  // false once a non-zero digit was dropped

        let first = bytes[i]
        if first == UInt8(ascii: "0") {
            i += 1
            if i < n, bytes[i] &- UInt8(ascii: "0") < 10 {
                throw error("leading zeros are not allowed", at: i)
            }
        } else if first &- UInt8(ascii: "1") < 9 {
            repeat {
                let d = bytes[i] &- UInt8(ascii: "0")
                if digits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(d)
                    digits += 1
                } else {
                    exponent += 1
                    if d != 0 { exact = false }
                }
                i += 1
            } while i < n && bytes[i] &- UInt8(ascii: "0") < 10
        } else {
            throw negative ? expected("a digit after '-'", at: i) : expected("a number")
        }

        if i < n && bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard i < n, bytes[i] &- UInt8(ascii: "0") < 10 else {
                throw expected("a digit after '.'", at: i)
            }
            repeat {
                let d = bytes[i] &- UInt8(ascii: "0")
                if digits < 19 {
                    if d != 0 || mantissa != 0 {
                        mantissa = mantissa &* 10 &+ UInt64(d)
                        digits += 1
                    }
                    exponent -= 1
                } else if d != 0 {
                    exact = false
                }
                i += 1
            } while i < n && bytes[i] &- UInt8(ascii: "0") < 10
        }

        if i < n && bytes[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            var exponentNegative = false
            if i < n && (bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-")) {
                exponentNegative = bytes[i] == UInt8(ascii: "-")
                i += 1
            }
            guard i < n, bytes[i] &- UInt8(ascii: "0") < 10 else {
                throw expected("a digit in the exponent", at: i)
            }
            var e = 0
            repeat {
                if e < 1_000_000 { e = e &* 10 &+ Int(bytes[i] &- UInt8(ascii: "0")) }
                i += 1
            } while i < n && bytes[i] &- UInt8(ascii: "0") < 10
            exponent += exponentNegative ? -e : e
        }
        position = i

        if mantissa == 0 { return negative ? -0.0 : 0.0 }
        if exact && mantissa <= 1 << 53 {
            var value = Double(mantissa)
            var fast = true
            if exponent == 0 {
            } else if exponent > 0 && exponent <= 22 {
                value *= JSONReader.exactPowerOfTen(exponent)
            } else if exponent < 0 && exponent >= -22 {
                value /= JSONReader.exactPowerOfTen(-exponent)
            } else if exponent > 22 && exponent <= 22 + 15 {
                // 123e30 = (123 * 10^8) * 10^22 when the product stays exact.
                let (scaled, overflow) = mantissa.multipliedReportingOverflow(
                    by: JSONReader.integerPowerOfTen(exponent - 22))
                if !overflow && scaled <= 1 << 53 {
                    value = Double(scaled) * 1e22
                } else {
                    fast = false
                }
            } else {
                fast = false
            }
            if fast { return negative ? -value : value }
        }
        return JSONReader.convertWithStrtod(UnsafeBufferPointer(rebasing: bytes[start..<i]))
    }

    /// 10^e for 0 ≤ e ≤ 22; every one is exactly representable as a Double.
    @inlinable @inline(__always)
    static func exactPowerOfTen(_ e: Int) -> Double {
        switch e {
        case 0: 1e0
        case 1: 1e1
        case 2: 1e2
        case 3: 1e3
        case 4: 1e4
        case 5: 1e5
        case 6: 1e6
        case 7: 1e7
        case 8: 1e8
        case 9: 1e9
        case 10: 1e10
        case 11: 1e11
        case 12: 1e12
        case 13: 1e13
        case 14: 1e14
        case 15: 1e15
        case 16: 1e16
        case 17: 1e17
        case 18: 1e18
        case 19: 1e19
        case 20: 1e20
        case 21: 1e21
        default: 1e22
        }
    }

    /// 10^e as an integer for 1 ≤ e ≤ 15.
    @inlinable @inline(__always)
    static func integerPowerOfTen(_ e: Int) -> UInt64 {
        var p: UInt64 = 1
        for _ in 0..<e { p &*= 10 }
        return p
    }

    /// Correctly rounded conversion of validated JSON number text, using
    /// `strtod` under the C locale (so a process-wide `setlocale` cannot
    /// change the decimal point).
    @usableFromInline
    static func convertWithStrtod(_ text: UnsafeBufferPointer<UInt8>) -> Double {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: text.count + 1) { buffer in
            for k in 0..<text.count { buffer[k] = CChar(bitPattern: text[k]) }
            buffer[text.count] = 0
            let previous = uselocale(cNumericLocale)
            defer { uselocale(previous) }
            return strtod(buffer.baseAddress!, nil)
        }
    }

    /// Validates a number's grammar without converting it; used by `skipValue`.
    @usableFromInline
    mutating func skipNumber() throws(JSONSyntaxError) {
        let n = bytes.count
        var i = position
        if i < n && bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < n else { throw expected("a digit after '-'", at: i) }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
            if i < n, bytes[i] &- UInt8(ascii: "0") < 10 {
                throw error("leading zeros are not allowed", at: i)
            }
        } else if bytes[i] &- UInt8(ascii: "1") < 9 {
            repeat { i += 1 } while i < n && bytes[i] &- UInt8(ascii: "0") < 10
        } else {
            throw i > position ? expected("a digit after '-'", at: i) : expected("a number")
        }
        if i < n && bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard i < n, bytes[i] &- UInt8(ascii: "0") < 10 else {
                throw expected("a digit after '.'", at: i)
            }
            repeat { i += 1 } while i < n && bytes[i] &- UInt8(ascii: "0") < 10
        }
        if i < n && bytes[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            if i < n && (bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-")) { i += 1 }
            guard i < n, bytes[i] &- UInt8(ascii: "0") < 10 else {
                throw expected("a digit in the exponent", at: i)
            }
            repeat { i += 1 } while i < n && bytes[i] &- UInt8(ascii: "0") < 10
        }
        position = i
    }
}

/// The "C" numeric locale, created once; `strtod` runs under it.
nonisolated(unsafe) let cNumericLocale: locale_t? = newlocale(LC_NUMERIC_MASK, "C", nil)
