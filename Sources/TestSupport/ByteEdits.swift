/// Calls `body` with every prefix of `bytes` (the empty one and `bytes`
/// itself included), then with `bytes` with each byte replaced by each of
/// `replacements`, dropped, and doubled: the inputs a byte-level parser is
/// held to, one edit away from a valid one.
public func forEachEdit(of bytes: [UInt8], replacements: [UInt8], _ body: ([UInt8]) -> Void) {
    for n in 0...bytes.count { body(Array(bytes[0..<n])) }
    for i in bytes.indices {
        for r in replacements {
            var replaced = bytes
            replaced[i] = r
            body(replaced)
        }
        var dropped = bytes
        dropped.remove(at: i)
        body(dropped)
        var doubled = bytes
        doubled.insert(bytes[i], at: i)
        body(doubled)
    }
}
