import HitBase

/// Appends SVG (XML) text to a ``ByteBuffer`` it owns outright (it cannot
/// be copied), so an append is a capacity check and a store. The document
/// is built once, in place; `finish()` hands it out as an array (one
/// `memcpy`).
///
/// Text from a scene (ids, actions, colours) goes through `text(_:)` or
/// `attribute(_:_:)`, which escape `& < > " '` and drop the characters XML
/// 1.0 cannot hold, so no scene can end an attribute or start an element.
/// Numbers are written exactly (they read back to the same double) and
/// never as `nan` or `inf`.
public struct SVGWriter: ~Copyable {
    @usableFromInline var buffer: ByteBuffer
    /// Whether the path data being written has a subpath yet (so the next
    /// one is set off by a space). Reset by `beginPathData()`.
    var pathStarted = false
    /// The last number `nextID()` handed out.
    private var lastID = 0

    /// A number not handed out before in this document (element ids).
    mutating func nextID() -> Int {
        lastID += 1
        return lastID
    }

    /// An empty writer reserving `capacity` bytes (at most `limit`), for a
    /// document of at most `limit` bytes: past it the writer holds no more
    /// than `limit` plus one write, and `overflowed` says so.
    public init(capacity: Int = 4096, limit: Int = .max) {
        buffer = ByteBuffer(capacity: capacity, minimum: 64, limit: limit)
    }

    /// Whether the document outgrew its limit: writing then goes on over
    /// the start of the buffer, which stops growing, and the text is garbage.
    public var overflowed: Bool { buffer.overflowed }

    /// Bytes written so far.
    public var count: Int { buffer.count }

    /// The document; the writer is gone afterwards.
    public consuming func finish() -> [UInt8] {
        buffer.finish()
    }

    /// The text written so far (for tests).
    public var string: String { buffer.withBytes { String(decoding: $0, as: UTF8.self) } }

    /// Room for `n` more bytes; returns where they go. Call `advance(n)` after writing them.
    @inlinable @inline(__always)
    mutating func reserve(_ n: Int) -> UnsafeMutablePointer<UInt8> {
        buffer.reserve(n)
    }

    // MARK: Raw text

    /// Appends markup the caller wrote (never scene text).
    @inlinable @inline(__always)
    public mutating func raw(_ s: StaticString) {
        buffer.append(s)
    }

    @inlinable @inline(__always)
    mutating func byte(_ b: UInt8) {
        buffer.append(b)
    }

    @inlinable
    mutating func bytes(_ b: UnsafeBufferPointer<UInt8>) {
        buffer.append(b)
    }

    mutating func bytes(_ s: String) {
        var s = s
        s.withUTF8 { bytes($0) }
    }

    /// Appends `s` escaped for XML character data and attribute values.
    /// Characters XML 1.0 forbids (C0 controls but tab, line feed and
    /// carriage return; U+FFFE, U+FFFF) become U+FFFD.
    public mutating func text(_ s: String) {
        for scalar in s.unicodeScalars {
            switch scalar.value {
            case 0x26: raw("&amp;")
            case 0x3C: raw("&lt;")
            case 0x3E: raw("&gt;")
            case 0x22: raw("&quot;")
            case 0x27: raw("&#39;")
            case 0x09, 0x0A, 0x0D, 0x20..<0x7F:
                byte(UInt8(scalar.value))
            case 0..<0x20, 0x7F, 0xFFFE, 0xFFFF:
                raw("\u{FFFD}")
            default:
                bytes(String(scalar))
            }
        }
    }

    /// Appends ` name="value"` with the value escaped.
    public mutating func attribute(_ name: StaticString, _ value: String) {
        byte(0x20)
        raw(name)
        raw("=\"")
        text(value)
        byte(0x22)
    }

    /// Appends ` name="number"`.
    public mutating func attribute(_ name: StaticString, _ value: Double) {
        byte(0x20)
        raw(name)
        raw("=\"")
        number(value)
        byte(0x22)
    }

    /// Appends text inside an XML comment, where entities mean nothing and
    /// only `--` is forbidden: every `-` right after a `-` becomes `‐`
    /// (U+2010), and characters XML cannot hold become U+FFFD.
    public mutating func commentText(_ s: String) {
        var previousDash = false
        for scalar in s.unicodeScalars {
            if scalar == "-" {
                if previousDash { raw("\u{2010}") } else { byte(0x2D) }
                previousDash = !previousDash
                continue
            }
            previousDash = false
            switch scalar.value {
            case 0x09, 0x0A, 0x0D, 0x20..<0x7F: byte(UInt8(scalar.value))
            case 0..<0x20, 0x7F, 0xFFFE, 0xFFFF: raw("\u{FFFD}")
            default: bytes(String(scalar))
            }
        }
    }

    /// Appends ` d="` and starts a fresh path data run; end it with `endAttribute()`.
    public mutating func beginPathData() {
        raw(" d=\"")
        pathStarted = false
    }

    /// Closes an attribute value opened by the caller.
    public mutating func endAttribute() { byte(0x22) }

    // MARK: Numbers

    /// Appends `d` so that it reads back to the same double: integers as
    /// digits, up to three decimals in fixed form (`12.5`, `-0.125`),
    /// anything else in Swift's shortest round-trip form (`1e-07`, valid
    /// SVG). A non-finite value (which a validated scene never holds) is
    /// written as 0.
    /// - Complexity: O(1); no allocation unless the shortest form is needed.
    public mutating func number(_ d: Double) {
        guard d.isFinite else {
            byte(0x30)
            return
        }
        if d.magnitude < 1e15 {
            if d == d.rounded(.towardZero) {
                integer(Int(d), negative: d < 0)
                return
            }
            let scaled = (d * 1000).rounded()
            if scaled.magnitude < 1e15 && scaled / 1000 == d {
                let k = Int(scaled)
                let whole = k.magnitude / 1000
                var fraction = k.magnitude % 1000
                if k < 0 { byte(0x2D) }
                integer(Int(whole), negative: false)
                byte(0x2E)
                var digits = 3
                while fraction % 10 == 0 {
                    fraction /= 10
                    digits -= 1
                }
                if digits >= 3 { byte(0x30 + UInt8(fraction / 100)) }
                if digits >= 2 { byte(0x30 + UInt8(fraction / 10 % 10)) }
                byte(0x30 + UInt8(fraction % 10))
                return
            }
        }
        bytes(d.description)
    }

    /// Digits of `value`; `negative` writes a `-` first (also for -0.5's whole part 0).
    mutating func integer(_ value: Int, negative: Bool) {
        if negative { byte(0x2D) }
        var magnitude = value.magnitude
        if magnitude < 10 {
            byte(0x30 &+ UInt8(truncatingIfNeeded: magnitude))
            return
        }
        var digits = 0
        var m = magnitude
        while m != 0 {
            digits &+= 1
            m /= 10
        }
        let out = reserve(digits)
        var i = digits
        while i > 0 {
            i &-= 1
            out[i] = 0x30 &+ UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
        }
        buffer.advance(digits)
    }

    /// Appends `x,y`.
    public mutating func point(_ x: Double, _ y: Double) {
        number(x)
        byte(0x2C)
        number(y)
    }
}
