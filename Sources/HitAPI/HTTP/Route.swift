import Playground

/// The API's routes (SPEC §4, §7), matched from a request path.
enum Route: Equatable {
    case healthz
    case readyz
    case openAPI
    case metrics
    case scenes
    case scene(String)
    case hit(String)
    case hits(String)
    case layer(scene: String, layer: String)
    /// `GET /`: the playground (HTML) or the JSON index (SPEC §7).
    case index
    /// One of the playground's embedded files (`/hitroute.js`, `/examples/…`): its index in `PlaygroundFiles.all`.
    case asset(Int)
    case render(String)
    /// `GET /scenes/{id}/audit` (SPEC §12.1).
    case audit(String)
    /// `GET /scenes/{id}/layers/{layerId}/reach` (SPEC §12.2).
    case reach(scene: String, layer: String)
    /// `GET /scenes/{id}/diff?against={otherId}` (SPEC §12.3).
    case diff(String)
    /// `GET /scenes/{id}/stream`: a WebSocket pointer stream (SPEC §11.2).
    case stream(String)

    /// Matches a raw path (percent-encoded segments are decoded); nil for an unknown path.
    /// - Complexity: O(path length), at most five segments looked at; only
    ///   the ids become strings.
    init?(path: String) {
        guard let route = Route.matching(path) else { return nil }
        self = route
    }

    /// `Route(path:)` of a path lent, not handed over: a native string's
    /// bytes are read where they are, neither copied nor retained.
    static func matching(_ path: borrowing String) -> Route? {
        if let route = path.utf8.withContiguousStorageIfAvailable(Route.match) { return route }
        var copy = copy path
        return copy.withUTF8(Route.match)
    }

    /// The route of a path's bytes, split on "/" after the leading slash.
    private static func match(_ bytes: UnsafeBufferPointer<UInt8>) -> Route? {
        if let hit = matchPlainHit(bytes) { return hit }
        guard bytes.first == UInt8(ascii: "/") else { return nil }
        // The segments' bounds: at most five.
        var segments = (0..<0, 0..<0, 0..<0, 0..<0, 0..<0)
        var count = 0
        var start = 1
        while true {
            guard count < 5 else { return nil }
            var end = start
            while end < bytes.count && bytes[end] != UInt8(ascii: "/") { end += 1 }
            switch count {
            case 0: segments.0 = start..<end
            case 1: segments.1 = start..<end
            case 2: segments.2 = start..<end
            case 3: segments.3 = start..<end
            default: segments.4 = start..<end
            }
            count += 1
            guard end < bytes.count else { break }
            start = end + 1
        }
        func id(_ range: Range<Int>) -> String? {
            range.isEmpty ? nil : percentDecoded(UnsafeBufferPointer(rebasing: bytes[range]))
        }
        /// Whether a segment is `name`, once decoded (`%73cenes` is `scenes`).
        func named(_ range: Range<Int>, _ name: StaticString) -> Bool {
            let segment = UnsafeBufferPointer(rebasing: bytes[range])
            if segment.equals(name) { return true }
            guard segment.contains(UInt8(ascii: "%")), var decoded = percentDecoded(segment) else { return false }
            return decoded.withUTF8 { $0.equals(name) }
        }
        guard named(segments.0, "scenes") else {
            if count == 1 && segments.0.isEmpty { return .index }
            if let asset = PlaygroundFiles.index(matching: bytes) { return .asset(asset) }
            guard count == 1 else { return nil }
            if named(segments.0, "healthz") { return .healthz }
            if named(segments.0, "readyz") { return .readyz }
            if named(segments.0, "openapi.yaml") { return .openAPI }
            if named(segments.0, "metrics") { return .metrics }
            return nil
        }
        if count == 1 { return .scenes }
        guard let scene = id(segments.1) else { return nil }
        switch count {
        case 2: return .scene(scene)
        case 3 where named(segments.2, "hit"): return .hit(scene)
        case 3 where named(segments.2, "hits"): return .hits(scene)
        case 3 where named(segments.2, "render.svg"): return .render(scene)
        case 3 where named(segments.2, "audit"): return .audit(scene)
        case 3 where named(segments.2, "diff"): return .diff(scene)
        case 3 where named(segments.2, "stream"): return .stream(scene)
        case 4 where named(segments.2, "layers"):
            return id(segments.3).map { .layer(scene: scene, layer: $0) }
        case 5 where named(segments.2, "layers") && named(segments.4, "reach"):
            return id(segments.3).map { .reach(scene: scene, layer: $0) }
        default: return nil
        }
    }

    /// `/scenes/{id}/hit` with an id of plain ASCII (no `%`, no `/`, the
    /// commonest path of all) as ``match(_:)`` reads it, without splitting
    /// the path into segments; nil for any other path.
    /// - Complexity: O(path length).
    @inline(__always)
    private static func matchPlainHit(_ bytes: UnsafeBufferPointer<UInt8>) -> Route? {
        let n = bytes.count
        guard n > 12, UnsafeBufferPointer(rebasing: bytes[0..<8]).equals("/scenes/"),
            UnsafeBufferPointer(rebasing: bytes[(n - 4)..<n]).equals("/hit")
        else { return nil }
        let id = UnsafeBufferPointer(rebasing: bytes[8..<(n - 4)])
        for c in id where c == UInt8(ascii: "/") || c == UInt8(ascii: "%") || c >= 0x80 { return nil }
        return .hit(String(decoding: id, as: UTF8.self))
    }

    /// The methods the route answers (HEAD wherever GET; OPTIONS
    /// everywhere), in the order `Allow` names them.
    var methods: [String] { MethodName.names(in: methodSet) }

    /// The route templates that label metrics and log lines, indexed by
    /// ``metricsLabel``; entry 0 is for requests that match no route.
    /// A new route adds its template here and its case to ``metricsLabel``.
    static let templates = [
        "unmatched", "/healthz", "/readyz", "/openapi.yaml", "/metrics", "/scenes", "/scenes/{id}",
        "/scenes/{id}/hit", "/scenes/{id}/hits", "/scenes/{id}/layers/{layerId}",
        "/", "/{file}", "/scenes/{id}/render.svg", "/scenes/{id}/audit", "/scenes/{id}/layers/{layerId}/reach",
        "/scenes/{id}/diff", "/scenes/{id}/stream",
    ]

    /// This route's index in ``templates`` (never an id: labels stay bounded).
    var metricsLabel: Int {
        switch self {
        case .healthz: return 1
        case .readyz: return 2
        case .openAPI: return 3
        case .metrics: return 4
        case .scenes: return 5
        case .scene: return 6
        case .hit: return 7
        case .hits: return 8
        case .layer: return 9
        case .index: return 10
        case .asset: return 11
        case .render: return 12
        case .audit: return 13
        case .reach: return 14
        case .diff: return 15
        case .stream: return 16
        }
    }

    /// The methods the route answers, as a set of ``MethodName/bit(_:)`` bits.
    var methodSet: UInt8 {
        switch self {
        case .healthz, .readyz, .openAPI, .metrics, .index, .asset, .render, .audit, .reach, .diff:
            return MethodName.get | MethodName.head | MethodName.options
        case .scenes, .hit: return MethodName.get | MethodName.head | MethodName.post | MethodName.options
        case .scene: return MethodName.get | MethodName.head | MethodName.put | MethodName.delete | MethodName.options
        case .hits: return MethodName.post | MethodName.options
        case .layer: return MethodName.patch | MethodName.options
        case .stream: return MethodName.get | MethodName.options
        }
    }

    /// Whether the route answers `method` (one of ``methods``).
    /// - Complexity: O(1).
    @inline(__always)
    func answers(_ method: String) -> Bool {
        MethodName.bit(method) & methodSet != 0
    }

    /// RFC 3986 percent-decoding of one path segment (`+` stays `+`); nil
    /// for a bad escape or bytes that are not UTF-8.
    static func percentDecoded(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        if !bytes.contains(where: { $0 == UInt8(ascii: "%") || $0 >= 0x80 }) {
            return String(decoding: bytes, as: UTF8.self)  // plain ASCII: the fast path
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            guard bytes[i] == UInt8(ascii: "%") else {
                out.append(bytes[i])
                i += 1
                continue
            }
            guard i + 2 < bytes.count, let h = hexDigit(bytes[i + 1]), let l = hexDigit(bytes[i + 2]) else { return nil }
            out.append(h << 4 | l)
            i += 3
        }
        return String(validating: out, as: UTF8.self)
    }

    static func percentDecoded(_ s: Substring) -> String? {
        var text = String(s)
        return text.withUTF8 { percentDecoded($0) }
    }

    static func hexDigit(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
