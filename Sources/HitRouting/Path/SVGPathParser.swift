import Glibc

/// Parses SVG 1.1 path data (§8.3, the full grammar: `M m L l H h V v C c
/// S s Q q T t A a Z z`, implicit repeated commands, compact numbers such as
/// `.5.5`, `-1-2`, `1e-3`, compact arc flags such as `a1 1 0 00 1 1`).
///
///     try SVGPathParser.parse("M0 0h10v10z")
///     // [.move((0,0)), .line((10,0)), .line((10,10)), .close]
///
/// Negative arc radii are taken as their absolute values, as browsers do.
/// Unlike a renderer, which draws up to the first error, any error rejects
/// the whole path: an empty `d`, a missing or misplaced command, a
/// truncated argument list or a malformed number.
///
/// - Complexity: O(n) in the length of `d`.
public struct SVGPathParser {
    private let s: [UInt8]
    private var i = 0

    private init(_ d: String) { s = Array(d.utf8) }

    /// Parses `d` into absolute path elements.
    /// - Throws: `PathSyntaxError` naming the character offset where parsing stopped.
    public static func parse(_ d: String) throws(PathSyntaxError) -> [PathElement] {
        var parser = SVGPathParser(d)
        return try parser.parseAll()
    }

    private mutating func parseAll() throws(PathSyntaxError) -> [PathElement] {
        var out: [PathElement] = []
        var current = Point.zero
        var subpathStart = Point.zero
        // Control point to reflect for S/s (cubic) or T/t (quad), if the previous command set one.
        var lastCubicControl: Point?
        var lastQuadControl: Point?

        skipWhitespace()
        if i == s.count { throw error("empty path data") }
        var command: UInt8 = 0
        var first = true
        while true {
            skipWhitespace()
            if i == s.count { break }
            var c = s[i]
            if c == UInt8(ascii: ","), command != 0, command | 0x20 != UInt8(ascii: "z") {
                // A comma may separate repeated argument groups; a number must follow.
                i += 1
                skipWhitespace()
                guard i < s.count else { throw error("path data ends after a comma") }
                c = s[i]
                guard startsNumber(c) else { throw error("expected a number after a comma") }
            }
            if isCommand(c) {
                command = c
                i += 1
            } else if command == 0 || command == UInt8(ascii: "Z") || command == UInt8(ascii: "z") {
                // Numbers need a command before them; after Z a new command must be given.
                throw error(first ? "path data must start with a moveto (M or m)" : "expected a command letter")
            } else if !startsNumber(c) {
                throw error("unexpected character \(describe(c))")
            } else if command == UInt8(ascii: "M") {
                command = UInt8(ascii: "L")  // implicit lineto after a moveto's first pair
            } else if command == UInt8(ascii: "m") {
                command = UInt8(ascii: "l")
            }
            if first && command != UInt8(ascii: "M") && command != UInt8(ascii: "m") {
                i -= 1
                throw error("path data must start with a moveto (M or m)")
            }
            first = false
            let relative = command >= UInt8(ascii: "a")
            let base = relative ? current : .zero
            var cubicControl: Point?
            var quadControl: Point?

            switch command | 0x20 {  // lowercase
            case UInt8(ascii: "m"):
                let p = try pair() + base
                out.append(.move(p))
                current = p
                subpathStart = p
            case UInt8(ascii: "l"):
                let p = try pair() + base
                out.append(.line(p))
                current = p
            case UInt8(ascii: "h"):
                let x = try number() + base.x
                current = Point(x, current.y)
                out.append(.line(current))
            case UInt8(ascii: "v"):
                let y = try number() + base.y
                current = Point(current.x, y)
                out.append(.line(current))
            case UInt8(ascii: "c"):
                let c1 = try pair() + base
                let c2 = try pair() + base
                let to = try pair() + base
                out.append(.cubic(c1: c1, c2: c2, to: to))
                cubicControl = c2
                current = to
            case UInt8(ascii: "s"):
                let c1 = lastCubicControl.map { current + (current - $0) } ?? current
                let c2 = try pair() + base
                let to = try pair() + base
                out.append(.cubic(c1: c1, c2: c2, to: to))
                cubicControl = c2
                current = to
            case UInt8(ascii: "q"):
                let c1 = try pair() + base
                let to = try pair() + base
                out.append(.quad(c: c1, to: to))
                quadControl = c1
                current = to
            case UInt8(ascii: "t"):
                let c1 = lastQuadControl.map { current + (current - $0) } ?? current
                let to = try pair() + base
                out.append(.quad(c: c1, to: to))
                quadControl = c1
                current = to
            case UInt8(ascii: "a"):
                let rx = abs(try number())
                let ry = abs(try number())
                let rotation = try number()
                let large = try flag()
                let sweep = try flag()
                let to = try pair() + base
                out.append(.arc(radii: Point(rx, ry), rotation: rotation, largeArc: large, sweep: sweep, to: to))
                current = to
            default:  // z
                out.append(.close)
                current = subpathStart
            }
            lastCubicControl = cubicControl
            lastQuadControl = quadControl
        }
        return out
    }

    // MARK: - Lexing

    private func error(_ message: String) -> PathSyntaxError {
        PathSyntaxError(offset: characterOffset(ofByte: i), message: message)
    }

    /// Bytes before any non-ASCII character are characters, so the byte offset
    /// is the character offset unless non-ASCII text came earlier.
    private func characterOffset(ofByte b: Int) -> Int {
        var n = 0
        for k in 0..<min(b, s.count) where s[k] & 0xC0 != 0x80 { n += 1 }
        return n
    }

    private func describe(_ c: UInt8) -> String {
        c >= 0x21 && c < 0x7F ? "'\(Character(Unicode.Scalar(c)))'" : "byte 0x\(String(c, radix: 16))"
    }

    private func isCommand(_ c: UInt8) -> Bool {
        switch c | 0x20 {
        case UInt8(ascii: "m"), UInt8(ascii: "l"), UInt8(ascii: "h"), UInt8(ascii: "v"),
            UInt8(ascii: "c"), UInt8(ascii: "s"), UInt8(ascii: "q"), UInt8(ascii: "t"),
            UInt8(ascii: "a"), UInt8(ascii: "z"):
            return c >= 0x41  // letters only, not the control bytes that alias them
        default:
            return false
        }
    }

    private func startsNumber(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "-")
            || c == UInt8(ascii: "+") || c == UInt8(ascii: ".")
    }

    private static func isWhitespace(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0C || c == 0x0D
    }

    private mutating func skipWhitespace() {
        while i < s.count && SVGPathParser.isWhitespace(s[i]) { i += 1 }
    }

    /// Skips `comma-wsp?` before an argument: whitespace with at most one comma.
    private mutating func skipSeparator() {
        skipWhitespace()
        if i < s.count && s[i] == UInt8(ascii: ",") {
            i += 1
            skipWhitespace()
        }
    }

    private mutating func pair() throws(PathSyntaxError) -> Point {
        let x = try number()
        let y = try number()
        return Point(x, y)
    }

    private mutating func flag() throws(PathSyntaxError) -> Bool {
        skipSeparator()
        guard i < s.count else { throw error("truncated command: the data ends where a number was expected") }
        switch s[i] {
        case UInt8(ascii: "0"):
            i += 1
            return false
        case UInt8(ascii: "1"):
            i += 1
            return true
        default: throw error("expected an arc flag (0 or 1)")
        }
    }

    /// `sign? (digits? '.' digits | digits '.'?) ([eE] sign? digits)?`
    private mutating func number() throws(PathSyntaxError) -> Double {
        skipSeparator()
        guard i < s.count else { throw error("truncated command: the data ends where a number was expected") }
        let start = i
        func digit(_ k: Int) -> Bool { k < s.count && s[k] >= UInt8(ascii: "0") && s[k] <= UInt8(ascii: "9") }
        var k = i
        if s[k] == UInt8(ascii: "+") || s[k] == UInt8(ascii: "-") { k += 1 }
        var mantissaDigits = 0
        while digit(k) {
            k += 1
            mantissaDigits += 1
        }
        if k < s.count && s[k] == UInt8(ascii: ".") {
            k += 1
            while digit(k) {
                k += 1
                mantissaDigits += 1
            }
        }
        guard mantissaDigits > 0 else {
            throw error(isCommand(s[i]) ? "truncated command: expected a number before the next command" : "expected a number")
        }
        if k < s.count && (s[k] == UInt8(ascii: "e") || s[k] == UInt8(ascii: "E")) {
            var e = k + 1
            if e < s.count && (s[e] == UInt8(ascii: "+") || s[e] == UInt8(ascii: "-")) { e += 1 }
            if digit(e) {
                while digit(e) { e += 1 }
                k = e
            } else {
                i = e
                throw error("expected digits in the exponent")
            }
        }
        i = k
        let value = s[start..<k].withUnsafeBufferPointer { bytes -> Double in
            var buffer = [CChar](repeating: 0, count: bytes.count + 1)
            for (n, b) in bytes.enumerated() { buffer[n] = CChar(bitPattern: b) }
            return strtod(buffer, nil)
        }
        guard value.isFinite else {
            i = start
            throw error("number out of range")
        }
        return value
    }
}
