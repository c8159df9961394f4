// Fast paths for the commonest values: a hit batch's `{"x": …, "y": …}`
// and a scene's `[x, y]` vertex.

extension JSONReader {
    /// Reads an object that is exactly `{"x": number, "y": number}` (keys in
    /// either order, no escapes, any JSON whitespace, finite numbers), as the
    /// next value, consuming it whole.
    ///
    /// Anything else gives nil with the reader where it was, for the general
    /// path to read and report. Numbers go through ``readNumber()``, so the
    /// values are exactly what the general path reads.
    /// - Complexity: O(bytes of the object).
    @inlinable
    public mutating func readPlainXY() -> (x: Double, y: Double)? {
        let start = position
        let wasAtStart = atContainerStart
        if let xy = try? scanPlainXY() { return xy }
        position = start
        atContainerStart = wasAtStart
        return nil
    }

    @inlinable
    mutating func scanPlainXY() throws(JSONSyntaxError) -> (x: Double, y: Double)? {
        skipWhitespace()
        guard take(UInt8(ascii: "{")) else { return nil }
        var x = Double.nan
        var y = Double.nan
        for member in 0..<2 {
            skipWhitespace()
            // A one-letter key: `"x"` or `"y"`, each once.
            guard position + 3 <= bytes.count, bytes[position] == UInt8(ascii: "\""),
                bytes[position + 2] == UInt8(ascii: "\"")
            else { return nil }
            let key = bytes[position + 1]
            position += 3
            skipWhitespace()
            guard take(UInt8(ascii: ":")) else { return nil }
            let v = try readNumber()
            guard v.isFinite else { return nil }
            if key == UInt8(ascii: "x") && x.isNaN { x = v } else if key == UInt8(ascii: "y") && y.isNaN { y = v } else { return nil }
            skipWhitespace()
            guard take(member == 0 ? UInt8(ascii: ",") : UInt8(ascii: "}")) else { return nil }
        }
        atContainerStart = false
        return (x, y)
    }

    /// Reads an array that is exactly `[number, number]` (any JSON
    /// whitespace, finite numbers) as the next value, consuming it whole:
    /// a polygon's vertex, the commonest value of a scene.
    ///
    /// Anything else gives nil with the reader where it was, for the general
    /// path to read and report; so does a pair nested one level deeper than
    /// `maxDepth` allows. Numbers go through ``readNumber()``, so the values
    /// are exactly what the general path reads.
    /// - Complexity: O(bytes of the array).
    @inlinable
    public mutating func readPlainPair() -> (Double, Double)? {
        let start = position
        let wasAtStart = atContainerStart
        if depth < maxDepth, let pair = try? scanPlainPair() { return pair }
        position = start
        atContainerStart = wasAtStart
        return nil
    }

    @inlinable
    mutating func scanPlainPair() throws(JSONSyntaxError) -> (Double, Double)? {
        skipWhitespace()
        guard take(UInt8(ascii: "[")) else { return nil }
        let a = try readNumber()
        skipWhitespace()
        guard take(UInt8(ascii: ",")) else { return nil }
        let b = try readNumber()
        skipWhitespace()
        guard take(UInt8(ascii: "]")), a.isFinite, b.isFinite else { return nil }
        atContainerStart = false
        return (a, b)
    }
}
