import HTTPServer

extension Application {
    /// What the executable says at start about access (SPEC §8): that the
    /// service is open without a key file, louder when it listens beyond
    /// loopback, or how many keys are in force.
    /// Each note is a log level and a message for ``ServiceLog``.
    public static func startupNotes(host: String, access: AccessControl) -> [(level: ServiceLog.Level, message: String)] {
        guard access.isOpen else {
            let n = access.keyCount
            var notes: [(level: ServiceLog.Level, message: String)] = [
                (.info, "API keys required: \(n) key\(n == 1 ? "" : "s") from \(access.file ?? "?") (SIGHUP reloads)")
            ]
            if n == 0 { notes.append((.warning, "the key file holds no key: every request but probes is refused")) }
            return notes
        }
        var notes: [(level: ServiceLog.Level, message: String)] = [
            (.info, "no --api-keys-file: the service is open, anyone who reaches it may read, change and delete every scene")
        ]
        if !isLoopback(host) {
            notes.append(
                (
                    .warning,
                    "open service listening on \(host), beyond loopback: set --api-keys-file (HITROUTE_API_KEYS_FILE) or bind 127.0.0.1"
                ))
        }
        return notes
    }

    /// Whether `host` only reaches this machine: `localhost`, `::1`, or 127.0.0.0/8.
    static func isLoopback(_ host: String) -> Bool {
        let h = host.lowercased()
        if h == "localhost" || h == "::1" || h == "[::1]" || h == "ip6-localhost" { return true }
        let parts = h.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }
}
