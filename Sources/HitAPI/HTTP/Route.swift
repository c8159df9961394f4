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
        var path = path
        let split = path.withUTF8 { bytes -> [String]? in
            guard bytes.first == UInt8(ascii: "/") else { return nil }
            var segments: [String] = []
            segments.reserveCapacity(4)
            var start = 1
            while true {
                guard segments.count < 4 else { return nil }
                var end = start
                while end < bytes.count && bytes[end] != UInt8(ascii: "/") { end += 1 }
                guard let segment = Route.percentDecoded(UnsafeBufferPointer(rebasing: bytes[start..<end])) else { return nil }
                segments.append(segment)
                guard end < bytes.count else { return segments }
                start = end + 1
            }
        }
        guard let segments = split else { return nil }
        guard segments[0] == "scenes" else {
            switch (segments.count, segments[0]) {
            case (1, "healthz"): self = .healthz
            case (1, "readyz"): self = .readyz
            case (1, "openapi.yaml"): self = .openAPI
            default: return nil
            }
            return
        }
        if segments.count > 1 && segments[1].isEmpty { return nil }
        switch segments.count {
        case 1: self = .scenes
        case 2: self = .scene(segments[1])
        case 3 where segments[2] == "hit": self = .hit(segments[1])
        case 3 where segments[2] == "hits": self = .hits(segments[1])
        case 4 where segments[2] == "layers" && !segments[3].isEmpty:
            self = .layer(scene: segments[1], layer: segments[3])
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
