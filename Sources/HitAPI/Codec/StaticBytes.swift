extension UnsafeBufferPointer<UInt8> {
    /// Whether these bytes are exactly `text`'s UTF-8, compared without
    /// going through `String`.
    @inline(__always)
    func equals(_ text: StaticString) -> Bool {
        guard count == text.utf8CodeUnitCount else { return false }
        let expected = text.utf8Start
        for i in 0..<count where self[i] != expected[i] { return false }
        return true
    }
}
