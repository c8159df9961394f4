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
        let host = UnsafeBufferPointer(rebasing: value[0..<AllowedHosts.lengthWithoutPort(value)])
        for name in names {
            let matched = name.withUnsafeBufferPointer { name -> Bool in
                if name.first == UInt8(ascii: ".") {
                    // `.example.com` matches `example.com` and `*.example.com`.
                    if AllowedHosts.equalsLowercase(host, UnsafeBufferPointer(rebasing: name[1...])) { return true }
                    return host.count > name.count
                        && AllowedHosts.equalsLowercase(UnsafeBufferPointer(rebasing: host[(host.count - name.count)...]), name)
                }
                return AllowedHosts.equalsLowercase(host, name)
            }
            if matched { return true }
        }
        return false
    }

    /// The length of `value` without a trailing `:port` (an IPv6 literal
    /// keeps its brackets): ``withoutPort(_:)`` over a buffer, without
    /// generic collection calls.
    @inline(__always)
    static func lengthWithoutPort(_ value: UnsafeBufferPointer<UInt8>) -> Int {
        let n = value.count
        if n > 0, value[0] == UInt8(ascii: "[") {
            for i in 1..<n where value[i] == UInt8(ascii: "]") { return i + 1 }
            return n
        }
        var i = n
        while i > 0 {
            i -= 1
            if value[i] == UInt8(ascii: ":") { return i }
        }
        return n
    }

    /// Whether `a`, ASCII-lowercased, is `lowercase` (on the request path:
    /// no generic collection walk).
    @inline(__always)
    static func equalsLowercase(_ a: UnsafeBufferPointer<UInt8>, _ lowercase: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = a.count
        guard n == lowercase.count else { return false }
        guard n >= 8, let x = a.baseAddress, let y = lowercase.baseAddress else {
            for i in 0..<n {
                let x = a[i]
                if (x >= 0x41 && x <= 0x5A ? x | 0x20 : x) != lowercase[i] { return false }
            }
            return true
        }
        // Eight bytes at a time, the last word overlapping the one before.
        var i = 0
        while true {
            let at = min(i, n - 8)
            let word = UInt64(littleEndian: UnsafeRawPointer(x).loadUnaligned(fromByteOffset: at, as: UInt64.self))
            let expected = UInt64(littleEndian: UnsafeRawPointer(y).loadUnaligned(fromByteOffset: at, as: UInt64.self))
            guard lowered(word) == expected else { return false }
            if at == n - 8 { return true }
            i += 8
        }
    }

    /// `word` with each of its bytes `A`…`Z` lowercased (`| 0x20`), the
    /// others as they are (bytes of 0x80 and above are no letters).
    @inline(__always)
    static func lowered(_ word: UInt64) -> UInt64 {
        let high: UInt64 = 0x8080_8080_8080_8080
        let v = word & ~high
        let upper = ByteClass.atLeast(0x41, v) & ~ByteClass.atLeast(0x5B, v) & ~word & high  // 0x41…0x5A
        return word | upper >> 2
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
}
