/// Where a Redis server is: `redis://HOST:PORT[/DB]` (SPEC §10).
///
/// The password is never part of the URL (it would land in process lists
/// and logs): it comes from `HITROUTE_REDIS_PASSWORD`.
public struct RedisEndpoint: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var database: Int
    public var password: String?

    public init(host: String, port: Int = 6379, database: Int = 0, password: String? = nil) {
        self.host = host
        self.port = port
        self.database = database
        self.password = password
    }

    /// Parses `redis://HOST[:PORT][/DB]`; nil when it is not one.
    /// `HOST` may be a bracketed IPv6 address. User info is refused, so
    /// that a password never sits in a flag.
    public init?(url: String, password: String? = nil) {
        guard url.hasPrefix("redis://") else { return nil }
        var rest = Substring(url.dropFirst("redis://".count))
        guard !rest.contains("@") else { return nil }
        var db = 0
        if let slash = rest.firstIndex(of: "/") {
            let tail = rest[rest.index(after: slash)...]
            if !tail.isEmpty {
                guard let n = Int(tail), (0...1_000_000).contains(n) else { return nil }
                db = n
            }
            rest = rest[..<slash]
        }
        var host: Substring
        var port = 6379
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let p = Int(after.dropFirst()), (1...65535).contains(p) else { return nil }
                port = p
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            guard let p = Int(rest[rest.index(after: colon)...]), (1...65535).contains(p) else { return nil }
            port = p
        } else {
            host = rest
        }
        guard !host.isEmpty else { return nil }
        self.init(host: String(host), port: port, database: db, password: password)
    }

    /// The URL without any secret.
    public var description: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return "redis://\(h):\(port)/\(database)"
    }
}
