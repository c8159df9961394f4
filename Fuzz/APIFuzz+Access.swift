// The API fuzzer's keys and browser origins: a session whose first byte is
// 0x10-0x1F runs against a keyed service (a read, an interact, a write and
// a tenant key limited to scenes `t-…`); every request of any session may
// carry a credential and an `Origin`, drawn from a generator seeded by the
// input (so an input replays exactly). After each answer `checkAccess`
// traps when the service gave a client what its key does not reach:
//  1. on a keyed service, a scene route answered 2xx without a valid key,
//     or a change (PUT, PATCH, DELETE, POST /scenes) without a write key;
//  2. a tenant key's 2xx on another prefix's scene, or a listing that names
//     one;
//  3. on an open service, a change from a foreign page's `Origin` taking
//     effect;
//  4. a GET or HEAD with `pointer` or `phase` answered 2xx (safe methods
//     change nothing);
//  5. a scene stored under the id `.` or `..`;
//  6. a head the gate let through although its answer is a refusal of the
//     key, or a head it refused whose whole request then succeeded
//     (`Application.admitHead`, which the server calls before any body is
//     read or reserved).
// A preflight (`OPTIONS` on a route) carries no credential in a browser, so
// it is answered for any key or none: it is exempt from 1-2, and traps
// instead when its answer tells anything of a scene (a body, an `ETag`).

import FuzzCheckJSON
import HTTPServer
import HitAPI

/// The credential and origin of one request.
struct FuzzCredential {
    enum Key: CaseIterable {
        case none, read, interact, write, tenant, wrong, malformed
    }
    var key: Key
    enum Origin {
        case none, foreign, sameHost
    }
    var origin: Origin

    /// Whether the key may change any scene (`write`, `tenant`).
    var writes: Bool { key == .write || key == .tenant }
    /// Whether the key is one of the service's.
    var isValid: Bool { key == .read || key == .interact || key == .write || key == .tenant }

    static let keyFile = """
        read     fuzz-read-key-0000000
        interact fuzz-interact-key-000
        write    fuzz-write-key-000000
        write    fuzz-tenant-key-00000 scenes=t-
        """
    static let tenantPrefix = "t-"
    static let host = "127.0.0.1:8080"

    /// The fields this credential adds to a request.
    var headers: [(String, String)] {
        var h: [(String, String)] = []
        switch key {
        case .none: break
        case .read: h.append(("Authorization", "Bearer fuzz-read-key-0000000"))
        case .interact: h.append(("Authorization", "Bearer fuzz-interact-key-000"))
        case .write: h.append(("Authorization", "Bearer fuzz-write-key-000000"))
        case .tenant: h.append(("Authorization", "Bearer fuzz-tenant-key-00000"))
        case .wrong: h.append(("Authorization", "Bearer fuzz-write-key-000001"))
        case .malformed: h.append(("Authorization", "Basic fuzz-write-key-000000"))
        }
        switch origin {
        case .none: break
        case .foreign: h.append(("Origin", "http://evil.example"))
        case .sameHost: h.append(("Origin", "http://\(FuzzCredential.host)"))
        }
        if origin != .none { h.append(("Host", FuzzCredential.host)) }
        return h
    }
}

/// SplitMix64 over a seed taken from the input: the credential stream.
struct FuzzCredentials {
    var state: UInt64
    let keyed: Bool

    init(seedingWith bytes: UnsafeBufferPointer<UInt8>, keyed: Bool) {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        state = h
        self.keyed = keyed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// Mostly keys that let the session go on (write 40%, tenant 20%), the
    /// others a tenth or less each; an `Origin` on one request in six.
    mutating func draw() -> FuzzCredential {
        let r = next()
        var key = FuzzCredential.Key.none
        if keyed {
            switch r % 100 {
            case 0..<40: key = .write
            case 40..<60: key = .tenant
            case 60..<70: key = .read
            case 70..<80: key = .interact
            case 80..<88: key = .none
            case 88..<95: key = .wrong
            default: key = .malformed
            }
        }
        let o = (r >> 8) % 12
        let origin: FuzzCredential.Origin = o == 0 ? .foreign : (o == 1 ? .sameHost : .none)
        return FuzzCredential(key: key, origin: origin)
    }
}

extension FuzzSession {
    /// The application a session runs against: open, or keyed.
    static func access(keyed: Bool) -> AccessControl {
        guard keyed else { return .open }
        do {
            return AccessControl(keys: try APIKeys(parsing: FuzzCredential.keyFile))
        } catch {
            fatalError("the fuzzer's key file does not parse: \(error)")
        }
    }
}

/// The scene id a target names (`/scenes/{id}…`, still percent-encoded),
/// or nil.
private func sceneID(_ path: Substring) -> Substring? {
    guard path.hasPrefix("/scenes/") else { return nil }
    let rest = path.dropFirst(8)
    return rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first
}

/// Traps when an answer gave a client what its key does not reach; see
/// this file's header.
func checkAccess(
    _ response: HTTPResponse, to request: HTTPRequest, _ credential: FuzzCredential, keyed: Bool,
    headRefusal: HTTPResponse?, index: Int
) {
    func fail(_ why: String) -> Never {
        fatalError(
            """
            request \(index): \(why)
            \(request.method) \(request.target) key \(credential.key) origin \(credential.origin)
            \(String(decoding: request.body.prefix(4096), as: UTF8.self))
            -> \(response.status)
            \(String(decoding: response.body.prefix(4096), as: UTF8.self))
            """)
    }
    let ok = (200..<300).contains(response.status)
    let path = request.target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
    let query = request.target.contains("?") ? request.target.split(separator: "?", maxSplits: 1)[1] : ""
    let method = request.method
    let changes = method == "PUT" || method == "PATCH" || method == "DELETE" || (method == "POST" && path == "/scenes")
    let id = sceneID(path)

    if let headRefusal, ok {
        fail("the head was refused with \(headRefusal.status), and the whole request answered \(response.status)")
    }
    if method == "OPTIONS" {
        if ok, !response.body.isEmpty || response.headers["ETag"] != nil { fail("a preflight told of a scene") }
        return
    }
    if keyed, path == "/scenes" || path.hasPrefix("/scenes/") {
        if !credential.isValid, ok { fail("a scene route answered without a valid key") }
        if changes, !credential.writes, ok { fail("a change without a write key took effect") }
        if changes, !credential.writes, headRefusal == nil, response.status == 401 || response.status == 403 {
            fail("the gate let the head through, and the key was refused only after the body")
        }
        if credential.key == .tenant, ok {
            if let id, !id.hasPrefix(FuzzCredential.tenantPrefix) { fail("a tenant key reached another prefix's scene") }
            if path == "/scenes", method == "GET", let list = try? JSONValue.parse(response.body, maxDepth: AnswerJSON.maxDepth),
                let scenes = list["scenes"]?.arrayValue
            {
                for s in scenes {
                    guard let sid = s["id"]?.stringValue, sid.hasPrefix(FuzzCredential.tenantPrefix) else {
                        fail("a tenant key's listing names another prefix's scene")
                    }
                }
            }
        }
    }
    if !keyed, credential.origin == .foreign, changes, ok { fail("a foreign page changed an open service") }
    if method == "GET" || method == "HEAD", ok {
        for item in query.split(separator: "&") {
            let name = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
            if name == "pointer" || name == "phase" { fail("a safe method took a pointer phase") }
        }
    }
    if method == "PUT", ok, let id, id == "." || id == ".." || id == "%2E" || id == "%2E%2E" || id == "%2e" || id == "%2e%2e" {
        fail("a scene was stored under the id \(id)")
    }
}
