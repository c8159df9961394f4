/// An RFC 6901 JSON Pointer, built token by token, used to say where in a
/// request body a problem is (`/layers/1/shape/rx`).
///
///     JSONPointer().appending("layers").appending(0).appending("a/b")
///     // "/layers/0/a~1b"
public struct JSONPointer: Sendable, Hashable, CustomStringConvertible {
    /// The unescaped reference tokens from the root down.
    public private(set) var tokens: [String]

    /// The root pointer (`""`).
    public init() { tokens = [] }

    /// A pointer made of the given unescaped tokens.
    public init(_ tokens: [String]) { self.tokens = tokens }

    /// This pointer extended by an object member name.
    public func appending(_ key: String) -> JSONPointer {
        var copy = self
        copy.tokens.append(key)
        return copy
    }

    /// This pointer extended by an array index.
    public func appending(_ index: Int) -> JSONPointer {
        appending(String(index))
    }

    /// The pointer's string form: `""` for the root, otherwise `/` before each
    /// token with `~` escaped as `~0` and `/` as `~1`.
    /// - Complexity: O(total length of the tokens).
    public var description: String {
        var out = ""
        for token in tokens {
            out.append("/")
            if !token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) {
                out.append(token)
                continue
            }
            for scalar in token.unicodeScalars {
                switch scalar {
                case "~": out.append("~0")
                case "/": out.append("~1")
                default: out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
