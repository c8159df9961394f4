/// The `Host` names a server answers (a defence against DNS rebinding: a
/// page on another site that rebinds its own name to this machine's address
/// still sends its own name as `Host`).
///
/// A name matches a `Host` value whatever its port, ASCII case-insensitively;
/// a name written with a leading dot (`.example.com`) also matches its
/// subdomains. IPv6 literals are written with their brackets (`[::1]`).
/// A request whose `Host` matches none is refused by the parser with 403
/// (``HTTPParseError/Kind/hostNotAllowed``); an HTTP/1.0 request without a
/// `Host` (no browser sends one) is let through.
public struct AllowedHosts: Sendable, Equatable {
    /// Lowercase names, without ports; nil allows every host.
    let names: [[UInt8]]?

    /// Every `Host` is allowed.
    public static let any = AllowedHosts(names: nil)
    /// `localhost`, `127.0.0.1` and `[::1]`, any port: the names a browser
    /// on this machine uses for a service bound to loopback.
    public static let loopback = AllowedHosts(["localhost", "127.0.0.1", "[::1]"])

    private init(names: [[UInt8]]?) { self.names = names }

    /// Exactly `names` (ports, if given, are ignored: `a:8080` is `a`).
    public init(_ names: [String]) {
        self.names = names.map { name in
            let bytes = Array(name.lowercased().utf8)
            return Array(AllowedHosts.withoutPort(bytes[...]))
        }
    }

    /// Whether every host is allowed.
    public var allowsAny: Bool { names == nil }

    /// The names, as given (lowercase), for messages; empty when any is allowed.
    public var list: [String] { names?.map { String(decoding: $0, as: UTF8.self) } ?? [] }

    /// The default for a server bound to `host`: ``loopback`` when that is
    /// a loopback address or `localhost`, else ``any``.
    public static func defaultFor(bindAddress host: String) -> AllowedHosts {
        let h = host.lowercased()
        let isLoopback = h == "localhost" || h == "::1" || h == "[::1]" || h.hasPrefix("127.")
        return isLoopback ? .loopback : .any
    }

    /// Whether a `Host` field value (`uri-host [":" port]`, already valid)
    /// is allowed.
    /// - Complexity: O(names × value length), no allocation.
    public func allows(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let names else { return true }
        let host = AllowedHosts.withoutPort(value[...])
        for name in names {
            if name.first == UInt8(ascii: ".") {
                // `.example.com` matches `example.com` and `*.example.com`.
                if AllowedHosts.equalsIgnoringCase(host, name[1...]) { return true }
                if host.count > name.count, AllowedHosts.equalsIgnoringCase(host[(host.endIndex - name.count)...], name[...]) {
                    return true
                }
            } else if AllowedHosts.equalsIgnoringCase(host, name[...]) {
                return true
            }
        }
        return false
    }

    /// `value` without a trailing `:port` (an IPv6 literal keeps its brackets).
    static func withoutPort<C: BidirectionalCollection>(_ value: C) -> C.SubSequence where C.Element == UInt8, C.Index == Int {
        if value.first == UInt8(ascii: "[") {
            if let close = value.firstIndex(of: UInt8(ascii: "]")) { return value[value.startIndex...close] }
            return value[...]
        }
        if let colon = value.lastIndex(of: UInt8(ascii: ":")) { return value[value.startIndex..<colon] }
        return value[...]
    }

    static func equalsIgnoringCase<A: Collection, B: Collection>(_ a: A, _ b: B) -> Bool
    where A.Element == UInt8, B.Element == UInt8 {
        guard a.count == b.count else { return false }
        for (x, y) in zip(a, b) {
            let lx = x >= 0x41 && x <= 0x5A ? x | 0x20 : x
            if lx != y { return false }
        }
        return true
    }
}
