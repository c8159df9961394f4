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

    /// Whether `method` is one of `methods`, byte for byte.
    /// - Complexity: O(the names' lengths).
    @inline(__always)
    static func isOne(of methods: [String], _ method: String) -> Bool {
        method.utf8.withContiguousStorageIfAvailable { wanted in
            methods.contains { name in
                name.utf8.count == wanted.count
                    && (name.utf8.withContiguousStorageIfAvailable { $0.elementsEqual(wanted) } ?? (name == method))
            }
        } ?? methods.contains(method)
    }
}
