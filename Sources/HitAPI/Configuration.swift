import HTTPServer
import HitJournal
import HitStore
import RESPClient
import SceneCodec

/// Everything the service can be told at start-up (SPEC §6): each setting
/// has a default, a flag and an environment variable (`HITROUTE_` + the
/// flag in upper snake case); a flag wins over the environment. A
/// variable set to the empty string counts as not set, so a container
/// manifest can clear what its image sets (`HITROUTE_DATA_DIR=""`): neither
/// Docker nor Kubernetes can remove an image's variable.
public struct Configuration: Sendable {
    public var server = ServerConfiguration()
    public var scene = SceneLimits()
    public var store = SceneStore.Limits()
    /// Points per `…/hits` request. Default 100,000.
    public var maxBatchPoints = 100_000
    /// What routing one `…/hits` request may read (`Walk.work`:
    /// region tests, vertices, edges, curve pieces, bisection steps, each
    /// a few nanoseconds, a contour's winding as 16): past it the batch is
    /// a 422. Default 7 × 10⁷, about a second of one core on the costliest
    /// shapes `hitroute-bench work` builds.
    public var maxBatchWork = 70_000_000
    /// Samples one whole-scene question (audit, reach, diff; SPEC §12)
    /// may route: a finer grid is a 422 naming `resolution`. Its routing
    /// and tests count toward `maxBatchWork`. Default 4,194,304 (2048²).
    public var maxAnalysisSamples = 4_194_304
    /// Bytes one `render.svg` answer may hold: a scene draws several times
    /// its JSON with `regions=1` and a point's overlay, and short path
    /// commands draw up to some 20 bytes of SVG per byte of JSON. Past it
    /// the render is a 422. nil (the default): 8 × `--max-body-bytes`
    /// (128 MiB at its default), see `renderByteLimit`.
    public var maxRenderBytes: Int?
    /// `maxRenderBytes`, or its default.
    public var renderByteLimit: Int { maxRenderBytes ?? 8 * server.limits.maxBodyBytes }
    /// Routing work a batch may read on an event loop (about 1–15 ms; a
    /// single hit reads a few, a point in a 100,000-polygon map some tens):
    /// a batch that needs more starts again on a worker thread, so that no
    /// small request holds up the hits of every connection on its loop.
    /// Not a flag: tests lower it.
    var loopBatchWork = 1_000_000
    /// Routing work one point may read on an event loop (about 0.1–1 ms):
    /// once a point of a scene's version has read more, the later hits of
    /// that version run on a worker thread (`SceneSnapshot.isCostly`), so
    /// that a stream of hits on a scene of huge random outlines does not
    /// hold up the other connections of a loop. Not a flag: tests lower it.
    var loopHitWork = 50_000
    /// Origins allowed by CORS; `["*"]` allows any. Default `*`.
    public var corsOrigins = ["*"]
    /// The `Host` names answered (others: 403). nil: the default for
    /// `--host` (``AllowedHosts/defaultFor(bindAddress:)``: loopback names
    /// when bound to loopback, any beyond), which ``parse(arguments:environment:)``
    /// fills in; a `Configuration()` made in code leaves it nil, answering any.
    public var allowedHosts: AllowedHosts?
    /// The API key file (SPEC §8); nil: the service is open. Default none.
    public var apiKeysFile: String?
    /// SPEC §9: `--data-dir`, `--fsync`, `--repair`, `--compact-factor`;
    /// without a directory the store is memory only.
    public var dataDir: String?
    public var fsync = SyncMode.everysec
    public var repair = false
    public var compactFactor = 4.0

    /// The journal's options, or nil without `--data-dir`.
    public var journal: JournalOptions? {
        guard let dataDir else { return nil }
        var o = JournalOptions(directory: dataDir)
        o.fsync = fsync
        o.repair = repair
        o.compactFactor = compactFactor
        return o
    }
    /// `--store redis://HOST:PORT[/DB]`: scenes live in Redis (SPEC §10);
    /// nil keeps them in this process.
    public var storeURL: String?
    /// Bytes of scene JSON a replica's compiled-scene cache holds (Redis
    /// mode), least recently used out. Default 1 GiB.
    public var cacheBytes = 1 << 30
    /// From `HITROUTE_REDIS_PASSWORD` only (never a flag, never logged).
    public var redisPassword: String?

    /// The store `StoreFactory` makes from these settings: Redis with
    /// `--store`, a journal with `--data-dir`, else memory only (the two
    /// flags are exclusive; the executable refuses both).
    public var storeConfiguration: StoreConfiguration {
        var c = StoreConfiguration()
        if let url = storeURL {
            c.backend = .redis(url: url, password: redisPassword, cacheBytes: cacheBytes)
        } else if let journal {
            c.backend = .journal(journal)
        }
        c.limits = store
        c.sceneLimits = scene
        // A scene document may be as big as the biggest body, plus its id.
        c.maxBulkBytes = server.limits.maxBodyBytes * 2 + 4096
        return c
    }

    public init() {}

    /// One setting: its flag, what it means, and how to apply a value.
    struct Option: Sendable {
        let flag: String
        let help: String
        let takesValue: Bool
        let apply: @Sendable (inout Configuration, String) -> Bool

        var environmentName: String {
            "HITROUTE_" + flag.dropFirst(2).uppercased().map { $0 == "-" ? "_" : String($0) }.joined()
        }
    }

    static let options: [Option] = [
        text("--host", "address to listen on (`::` for IPv6, `0.0.0.0` in containers); default 127.0.0.1") { $0.server.host = $1 },
        int("--port", "TCP port (0 picks a free one); default 8080", 0...65535) { $0.server.port = $1 },
        int(
            "--threads", "event-loop threads; default: one per core this process may use (its CPU affinity and cgroup CPU quota count)",
            1...256
        ) { $0.server.eventLoops = $1 },
        text("--cors-origin", "allowed CORS origins, comma-separated, or *; default *") {
            $0.corsOrigins = $1.split(separator: ",").map { String($0).trimmed }
        },
        Option(
            flag: "--allowed-hosts",
            help:
                "Host names answered, comma-separated, any port (.example.com: and its subdomains), or * for any; others get 403; default: localhost,127.0.0.1,[::1] when --host is loopback, else any",
            takesValue: true
        ) { c, v in
            let names = v.split(separator: ",").map { String($0).trimmed }
            guard !names.isEmpty, names.allSatisfy({ !$0.isEmpty }) else { return false }
            c.allowedHosts = names.contains("*") ? .any : AllowedHosts(names)
            return true
        },
        Option(flag: "--quiet", help: "no per-request log line on stderr", takesValue: false) { c, v in
            guard let on = parseBool(v) else { return false }
            c.server.logRequests = !on
            return true
        },
        Option(flag: "--log-format", help: "request log lines: text (default) or json (one object per line)", takesValue: true) { c, v in
            guard let format = LogFormat(rawValue: v.lowercased()) else { return false }
            c.server.logFormat = format
            return true
        },
        text(
            "--api-keys-file",
            "API keys, one `<scope> <key>` per line (scopes read, interact, write); without it the service is open; SIGHUP reloads it"
        ) {
            $0.apiKeysFile = $1
        },
        int("--max-body-bytes", "largest request body; default 16777216 (16 MiB)", 1...Int(Int32.max)) {
            $0.server.limits.maxBodyBytes = $1
        },
        int(
            "--max-buffered-body-bytes",
            "bytes of request bodies all connections together hold while they arrive (more: 503, Retry-After); at least --max-body-bytes; default 1073741824 (1 GiB)",
            1...Int.max
        ) {
            $0.server.maxBufferedBodyBytes = $1
        },
        int(
            "--max-buffered-response-bytes",
            "bytes of responses all connections together hold unsent (past it, answers over 64 KiB: 503, Retry-After); default 1073741824 (1 GiB)",
            1...Int.max
        ) {
            $0.server.maxBufferedResponseBytes = $1
        },
        int("--max-request-line-bytes", "longest request line; default 8192", 64...1 << 20) { $0.server.limits.maxRequestLineBytes = $1 },
        int("--max-header-bytes", "largest header block; default 16384", 256...1 << 22) { $0.server.limits.maxHeaderBytes = $1 },
        int("--max-header-fields", "most header fields in a request (and trailer fields); default 512", 1...100_000) {
            $0.server.limits.maxHeaderCount = $1
        },
        int("--max-layers", "layers per scene; default 250000", 1...10_000_000) { $0.scene.maxLayers = $1 },
        int("--max-depth", "layer nesting depth; default 64", 1...1024) { $0.scene.maxDepth = $1 },
        int("--max-vertices", "vertices per shape; default 100000", 3...10_000_000) { $0.scene.maxVertices = $1 },
        int("--max-mask-pixels", "pixels per mask shape (columns × rows, or a PNG's size); default 16777216", 1...1 << 28) {
            $0.scene.maxMaskPixels = $1
        },
        int("--max-scene-mask-pixels", "mask pixels per scene or patched layer, all masks together; default 33554432", 1...1 << 40) {
            $0.scene.maxSceneMaskPixels = $1
        },
        int("--max-batch-points", "points per batch request; default 100000", 1...10_000_000) { $0.maxBatchPoints = $1 },
        int(
            "--max-batch-work",
            "routing work one batch request may take (region elements read, a few ns each: about a second of CPU at the default); default 70000000",
            1...Int.max
        ) {
            $0.maxBatchWork = $1
        },
        int(
            "--max-analysis-samples", "samples one audit, reach or diff request may route (more: 422 naming resolution); default 4194304",
            1...1 << 28
        ) {
            $0.maxAnalysisSamples = $1
        },
        int("--max-render-bytes", "bytes of one render.svg answer; default 8 × --max-body-bytes (128 MiB)", 4096...Int.max) {
            $0.maxRenderBytes = $1
        },
        int("--max-scenes", "scenes in the store; default 10000", 1...10_000_000) { $0.store.maxScenes = $1 },
        int("--max-store-bytes", "bytes of scene JSON the store holds over all scenes; default 2147483648 (2 GiB)", 1...Int.max) {
            $0.store.maxStoreBytes = $1
        },
        int("--max-pointers", "live pointer captures per scene; default 64", 1...100_000) { $0.store.maxPointers = $1 },
        seconds("--capture-timeout", "seconds before an idle pointer capture expires; default 30") { $0.store.captureTimeout = $1 },
        seconds("--header-timeout", "seconds to receive a whole request head; default 10") { $0.server.headerReadTimeout = .seconds($1) },
        seconds("--body-timeout", "seconds to receive a whole request body, however slowly it trickles in (then 408); default 60") {
            $0.server.bodyReadTimeout = .seconds($1)
        },
        seconds("--idle-timeout", "seconds an idle keep-alive connection stays open; default 15") { $0.server.idleTimeout = .seconds($1) },
        int("--max-connections", "open connections at once; default 10000", 1...1_000_000) { $0.server.maxConnections = $1 },
        int("--max-streams", "WebSocket pointer streams open at once (then 503); default 10000", 1...1_000_000) {
            $0.server.maxStreams = $1
        },
        int("--max-stream-message-bytes", "bytes of one stream message, all its fragments (then close 1009); default 65536", 16...16 << 20)
        {
            $0.server.webSocket.maxMessageBytes = $1
        },
        seconds("--stream-idle-timeout", "seconds a stream may stay silent: pinged at half, closed with 1001 at all of it; default 60") {
            $0.server.webSocket.idleTimeout = UInt64($1 * 1e9)  // at most 86,400 s: exact enough, never overflows
        },
        text("--data-dir", "directory for the journal and snapshots (a volume); without it the store is memory only") { $0.dataDir = $1 },
        Option(flag: "--fsync", help: "always (sync before answering; group commit), everysec (default) or never", takesValue: true) {
            c, v in
            guard let mode = SyncMode(rawValue: v) else { return false }
            c.fsync = mode
            return true
        },
        Option(
            flag: "--repair",
            help:
                "at start, keep what is intact instead of refusing to start (a segment's valid prefix, every intact snapshot record, the files left when one is missing) and move or set aside the rest",
            takesValue: false
        ) { c, v in
            guard let on = parseBool(v) else { return false }
            c.repair = on
            return true
        },
        Option(
            flag: "--compact-factor", help: "write a snapshot when the journal outgrows the live scenes' JSON by this factor; default 4",
            takesValue: true
        ) { c, v in
            guard let f = Double(v), f.isFinite, f >= 1, f <= 1000 else { return false }
            c.compactFactor = f
            return true
        },
        Option(
            flag: "--store",
            help:
                "redis://HOST:PORT[/DB]: keep scenes in Redis, shared by replicas (password from HITROUTE_REDIS_PASSWORD); default: in memory",
            takesValue: true
        ) { c, v in
            guard RedisEndpoint(url: v) != nil else { return false }
            c.storeURL = v
            return true
        },
        int(
            "--cache-bytes",
            "with --store: bytes of scene JSON each replica keeps compiled, least recently used out; default 1073741824 (1 GiB)",
            1...Int.max
        ) { $0.cacheBytes = $1 },
        seconds("--shutdown-grace", "seconds in-flight requests get to finish on SIGTERM; default 10") {
            $0.server.shutdownGracePeriod = .seconds($1)
        },
    ]

    /// The configuration from the environment, then the command line.
    /// - Throws: a message naming the flag or variable at fault.
    public static func parse(arguments: [String], environment: [String: String]) throws(ConfigurationError) -> Configuration {
        var config = Configuration()
        config.redisPassword = environment["HITROUTE_REDIS_PASSWORD"].flatMap { $0.isEmpty ? nil : $0 }
        var fromEnvironment: Set<String> = []
        for option in options {
            guard let value = environment[option.environmentName], !value.isEmpty else { continue }
            fromEnvironment.insert(option.flag)
            if !option.apply(&config, value) {
                throw ConfigurationError(message: "\(option.environmentName)=\(value): invalid value (\(option.help))")
            }
        }
        var rest = arguments[...]
        while let arg = rest.popFirst() {
            if arg == "--help" || arg == "-h" { throw ConfigurationError(message: usage, isHelp: true) }
            let parts = arg.split(separator: "=", maxSplits: 1)
            let flag = String(parts[0])
            guard let option = options.first(where: { $0.flag == flag }) else {
                throw ConfigurationError(message: "unknown option \(arg)\n\n\(usage)")
            }
            var value: String
            if parts.count == 2 {
                value = String(parts[1])
            } else if option.takesValue {
                guard let next = rest.popFirst() else { throw ConfigurationError(message: "\(flag) needs a value") }
                value = next
            } else {
                value = "1"
            }
            if !option.apply(&config, value) {
                throw ConfigurationError(message: "\(flag) \(value): invalid value (\(option.help))")
            }
            fromEnvironment.remove(flag)
        }
        if config.dataDir != nil && config.storeURL != nil {
            func source(_ flag: String) -> String {
                let name = options.first { $0.flag == flag }?.environmentName ?? flag
                return fromEnvironment.contains(flag) ? "\(name) (environment)" : "\(flag) (command line)"
            }
            throw ConfigurationError(
                message:
                    "\(source("--data-dir")) and \(source("--store")) are exclusive: with --store the scenes are kept (and made durable) by Redis; set HITROUTE_DATA_DIR= (empty) to clear an image's data directory"
            )
        }
        if config.allowedHosts == nil { config.allowedHosts = .defaultFor(bindAddress: config.server.host) }
        if config.server.maxBufferedBodyBytes < config.server.limits.maxBodyBytes {
            throw ConfigurationError(
                message:
                    "--max-buffered-body-bytes \(config.server.maxBufferedBodyBytes) is below --max-body-bytes \(config.server.limits.maxBodyBytes): a body of the largest size could never be received"
            )
        }
        return config
    }

    /// `--help` text: every flag with its variable and meaning.
    public static var usage: String {
        var lines = ["usage: hitroute [options]", "", "options (environment variable in brackets):"]
        for o in options {
            lines.append("  \(o.flag)\(o.takesValue ? " VALUE" : "")  [\(o.environmentName)]")
            lines.append("      \(o.help)")
        }
        return lines.joined(separator: "\n")
    }

    private static func text(_ flag: String, _ help: String, _ set: @escaping @Sendable (inout Configuration, String) -> Void) -> Option {
        Option(flag: flag, help: help, takesValue: true) { c, v in
            guard !v.isEmpty else { return false }
            set(&c, v)
            return true
        }
    }

    private static func int(
        _ flag: String, _ help: String, _ range: ClosedRange<Int>, _ set: @escaping @Sendable (inout Configuration, Int) -> Void
    ) -> Option {
        Option(flag: flag, help: help, takesValue: true) { c, v in
            guard let n = Int(v), range.contains(n) else { return false }
            set(&c, n)
            return true
        }
    }

    private static func seconds(_ flag: String, _ help: String, _ set: @escaping @Sendable (inout Configuration, Double) -> Void) -> Option
    {
        Option(flag: flag, help: help, takesValue: true) { c, v in
            guard let s = Double(v), s.isFinite, s > 0, s <= 86_400 else { return false }
            set(&c, s)
            return true
        }
    }

    private static func parseBool(_ v: String) -> Bool? {
        switch v.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off", "": return false
        default: return nil
        }
    }
}

/// A bad flag or variable, or `--help`.
public struct ConfigurationError: Error, Sendable {
    public var message: String
    public var isHelp = false
}

extension String {
    var trimmed: String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
