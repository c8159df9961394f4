/// The API's routes (SPEC §4), matched from a request path.
enum Route: Equatable {
    case healthz
    case readyz
    case openAPI
    case scenes
    case scene(String)
    case hit(String)
    case hits(String)
    case layer(scene: String, layer: String)

    /// Matches a raw path (percent-encoded segments are decoded); nil for an unknown path.
    /// - Complexity: O(path length), at most four segments looked at.
    init?(path: String) {
        // Split on "/" by bytes: at most 4 segments after the leading slash.
        var segments: [Substring] = []
        var utf8 = path.utf8[...]
        guard utf8.first == UInt8(ascii: "/") else { return nil }
        utf8 = utf8.dropFirst()
        while true {
            guard segments.count < 4 else { return nil }
            let end = utf8.firstIndex(of: UInt8(ascii: "/")) ?? utf8.endIndex
            segments.append(Substring(utf8[..<end]))
            guard end < utf8.endIndex else { break }
            utf8 = utf8[utf8.index(after: end)...]
        }
        func id(_ k: Int) -> String? {
            guard !segments[k].isEmpty else { return nil }
            return Route.percentDecoded(segments[k])
        }
        switch (segments.count, segments[0]) {
        case (1, "healthz"): self = .healthz
        case (1, "readyz"): self = .readyz
        case (1, "openapi.yaml"): self = .openAPI
        case (1, "scenes"): self = .scenes
        case (2, "scenes"):
            guard let scene = id(1) else { return nil }
            self = .scene(scene)
        case (3, "scenes"):
            guard let scene = id(1) else { return nil }
            switch segments[2] {
            case "hit": self = .hit(scene)
            case "hits": self = .hits(scene)
            default: return nil
            }
        case (4, "scenes") where segments[2] == "layers":
            guard let scene = id(1), let layer = id(3) else { return nil }
            self = .layer(scene: scene, layer: layer)
        default: return nil
        }
    }

    /// The methods the route answers (HEAD wherever GET; OPTIONS everywhere).
    var methods: [String] {
        switch self {
        case .healthz, .readyz, .openAPI: return ["GET", "HEAD", "OPTIONS"]
        case .scenes: return ["GET", "HEAD", "POST", "OPTIONS"]
        case .scene: return ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]
        case .hit: return ["GET", "HEAD", "POST", "OPTIONS"]
        case .hits: return ["POST", "OPTIONS"]
        case .layer: return ["PATCH", "OPTIONS"]
        }
    }

    /// RFC 3986 percent-decoding of one path segment (`+` stays `+`).
    static func percentDecoded(_ s: Substring) -> String? {
        guard s.contains("%") else { return String(s) }
        var out: [UInt8] = []
        var bytes = s.utf8.makeIterator()
        while let b = bytes.next() {
            guard b == UInt8(ascii: "%") else {
                out.append(b)
                continue
            }
            guard let h = bytes.next().flatMap(hexDigit), let l = bytes.next().flatMap(hexDigit) else { return nil }
            out.append(h << 4 | l)
        }
        return String(validating: out, as: UTF8.self)
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
