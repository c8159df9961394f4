/// The commonest `…/hit` bodies read straight from their bytes: an object
/// written without whitespace whose members are `"x"` and `"y"` with
/// integers (at most 15 digits, so exactly a `Double`) and, optionally,
/// `"trace"` and `"all"` with `true` or `false`, each once, in any order
/// (`{"x":120,"y":120,"trace":false}`).
///
/// Anything else, valid or not, gives nil, for the general decoder to read
/// and report: for the bodies it accepts, this reads the query that decoder
/// reads (HitRequestDecoderTests compares the two).
enum CompactHitBody {
    /// The query of `bytes`, or nil when they are not such a body.
    /// - Complexity: O(bytes.count); allocates nothing.
    static func query(_ bytes: UnsafeBufferPointer<UInt8>) -> HitQuery? {
        let n = bytes.count
        guard n >= 13, n <= 64, bytes[0] == UInt8(ascii: "{") else { return nil }
        var x: Double?
        var y: Double?
        var trace: Bool?
        var all: Bool?
        var i = 1
        while true {
            guard i &+ 4 <= n, bytes[i] == UInt8(ascii: "\"") else { return nil }
            let first = bytes[i &+ 1]
            if bytes[i &+ 2] == UInt8(ascii: "\""), bytes[i &+ 3] == UInt8(ascii: ":") {
                i &+= 4
                guard let v = integer(bytes, &i) else { return nil }
                if first == UInt8(ascii: "x"), x == nil {
                    x = v
                } else if first == UInt8(ascii: "y"), y == nil {
                    y = v
                } else {
                    return nil
                }
            } else if matches(bytes, i, #""trace":"#), trace == nil {
                i &+= 8
                guard let b = literal(bytes, &i) else { return nil }
                trace = b
            } else if matches(bytes, i, #""all":"#), all == nil {
                i &+= 6
                guard let b = literal(bytes, &i) else { return nil }
                all = b
            } else {
                return nil
            }
            guard i < n else { return nil }
            if bytes[i] == UInt8(ascii: "}") { break }
            guard bytes[i] == UInt8(ascii: ",") else { return nil }
            i &+= 1
        }
        guard i &+ 1 == n, let x, let y else { return nil }
        return HitQuery(point: PointQuery(x: x, y: y), trace: trace ?? true, all: all ?? false)
    }

    /// Whether `text` is at `bytes[i...]`.
    @inline(__always)
    private static func matches(_ bytes: UnsafeBufferPointer<UInt8>, _ i: Int, _ text: StaticString) -> Bool {
        let k = text.utf8CodeUnitCount
        guard i &+ k <= bytes.count else { return false }
        return UnsafeBufferPointer(rebasing: bytes[i..<(i &+ k)]).equals(text)
    }

    /// `-?(0|[1-9][0-9]{0,14})` at `i` followed by `,` or `}`, advancing
    /// past it; nil for anything else (a fraction, an exponent, `-0`, more
    /// digits), which the general decoder reads.
    @inline(__always)
    private static func integer(_ bytes: UnsafeBufferPointer<UInt8>, _ i: inout Int) -> Double? {
        let n = bytes.count
        var j = i
        let negative = j < n && bytes[j] == UInt8(ascii: "-")
        if negative { j &+= 1 }
        let start = j
        var value = 0
        while j < n, bytes[j] &- UInt8(ascii: "0") < 10 {
            value = value &* 10 &+ Int(bytes[j] &- UInt8(ascii: "0"))
            j &+= 1
        }
        let digits = j &- start
        guard digits > 0, digits <= 15, j < n, bytes[j] == UInt8(ascii: ",") || bytes[j] == UInt8(ascii: "}") else { return nil }
        if bytes[start] == UInt8(ascii: "0") && (digits > 1 || negative) { return nil }
        i = j
        return Double(negative ? -value : value)
    }

    /// `true` or `false` at `i`, advancing past it.
    @inline(__always)
    private static func literal(_ bytes: UnsafeBufferPointer<UInt8>, _ i: inout Int) -> Bool? {
        if matches(bytes, i, "true") {
            i &+= 4
            return true
        }
        if matches(bytes, i, "false") {
            i &+= 5
            return false
        }
        return nil
    }
}
