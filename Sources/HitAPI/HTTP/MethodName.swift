/// Method names compared as bytes. The parser hands out a method as an
/// ASCII token (one of RFC 9110's as a literal, else its bytes), so byte
/// equality is `==`'s answer; `==` itself, whenever the two differ, falls
/// back to a Unicode comparison in the runtime, as it would each time a
/// hit's method is asked whether it is `GET`, `HEAD` or `OPTIONS`.
enum MethodName {
    /// Whether `method` is `literal` (ASCII), byte for byte.
    /// - Complexity: O(literal's length).
    @inline(__always)
    static func `is`(_ method: String, _ literal: StaticString) -> Bool {
        let n = literal.utf8CodeUnitCount
        guard method.utf8.count == n else { return false }
        let equal = method.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            for i in 0..<n where bytes[i] != literal.utf8Start[i] { return false }
            return true
        }
        return equal ?? (method == String(describing: literal))
    }
}

extension MethodName {
    /// A method among those a route may answer, as one bit of a set
    /// (``Route/methodSet``); 0 for any other method.
    /// - Complexity: O(1): the name's length and first byte, then one
    ///   comparison of at most seven bytes.
    @inline(__always)
    static func bit(_ method: String) -> UInt8 {
        if let bit = method.utf8.withContiguousStorageIfAvailable(bit(of:)) { return bit }
        var copy = method
        return copy.withUTF8(bit(of:))
    }

    /// ``bit(_:)`` of a method name's bytes.
    @inline(__always)
    static func bit(of b: UnsafeBufferPointer<UInt8>) -> UInt8 {
        switch (b.count, b.count > 0 ? b[0] : 0) {
        case (3, UInt8(ascii: "G")): return b.equals("GET") ? get : 0
        case (3, UInt8(ascii: "P")): return b.equals("PUT") ? put : 0
        case (4, UInt8(ascii: "H")): return b.equals("HEAD") ? head : 0
        case (4, UInt8(ascii: "P")): return b.equals("POST") ? post : 0
        case (5, UInt8(ascii: "P")): return b.equals("PATCH") ? patch : 0
        case (6, UInt8(ascii: "D")): return b.equals("DELETE") ? delete : 0
        case (7, UInt8(ascii: "O")): return b.equals("OPTIONS") ? options : 0
        default: return 0
        }
    }

    static let get: UInt8 = 1, head: UInt8 = 2, post: UInt8 = 4, put: UInt8 = 8
    static let delete: UInt8 = 16, patch: UInt8 = 32, options: UInt8 = 64

    /// The names of the methods in `set`, in the order of their bits.
    /// - Complexity: O(1): seven bits looked at.
    static func names(in set: UInt8) -> [String] {
        let all = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]
        return all.indices.filter { set & (1 << $0) != 0 }.map { all[$0] }
    }
}
