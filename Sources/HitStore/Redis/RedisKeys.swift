import SceneCodec

/// Where scenes live in Redis (SPEC §10).
///
/// One scene's keys share the hash tag `{<scene-id>}`, so they fall in one
/// hash slot and the write script, which touches them together, would run
/// unchanged on a Redis Cluster node:
///
/// | key | type | holds |
/// | --- | --- | --- |
/// | `hitroute:{<id>}:doc` | string | the scene's JSON (with `id`, without `version`) |
/// | `hitroute:{<id>}:version` | string (integer) | the scene's version, 1 at creation, +1 per change |
/// | `hitroute:{<id>}:summary` | string | `<version> <layers> [<minX> <minY> <maxX> <maxY>]`: what `GET /scenes` lists, written with each version (``RedisSceneSummary``) |
/// | `hitroute:{<id>}:pointers` | hash | pointer → `<replica> <layer>`: which replica holds its capture (TTL: the capture timeout, renewed by each `down`) |
/// | `hitroute:scenes` | set | every scene id (`GET /scenes`, the scene limit) |
/// | `hitroute:next-id` | string (integer) | the counter behind generated ids (`scene-N`) |
///
/// Changes are announced on the channel `hitroute:changes` as
/// `<kind> <version> <id>`, kind one of `create`, `put`, `patch`, `drag`,
/// `delete` (version 0).
///
/// The index set is one key outside every scene's slot; the write script
/// touches it with the scene's keys, which Redis Cluster refuses
/// (CROSSSLOT). The supported topology is therefore one primary (with
/// replicas and Sentinel for failover), and MOVED/ASK redirections are not
/// followed; see README "Running several replicas".
struct RedisKeys: Sendable {
    let prefix: String

    init(prefix: String = "hitroute") { self.prefix = prefix }

    func doc(_ id: String) -> [UInt8] { Array("\(prefix):{\(id)}:doc".utf8) }
    func version(_ id: String) -> [UInt8] { Array("\(prefix):{\(id)}:version".utf8) }
    func summary(_ id: String) -> [UInt8] { Array("\(prefix):{\(id)}:summary".utf8) }
    func pointers(_ id: String) -> [UInt8] { Array("\(prefix):{\(id)}:pointers".utf8) }
    var index: [UInt8] { Array("\(prefix):scenes".utf8) }
    var nextID: [UInt8] { Array("\(prefix):next-id".utf8) }
    var channel: String { "\(prefix):changes" }
}

/// One announced change, as published on ``RedisKeys/channel``.
struct Announcement: Equatable, Sendable {
    enum Kind: String, Sendable { case create, put, patch, drag, delete }
    var kind: Kind
    var version: Int
    var id: String

    var bytes: [UInt8] { Array("\(kind.rawValue) \(version) \(id)".utf8) }

    /// Parses `<kind> <version> <id>`; nil for anything else (ignored).
    init?(_ bytes: [UInt8]) {
        let parts = String(decoding: bytes, as: UTF8.self).split(separator: " ", maxSplits: 2)
        guard parts.count == 3, let kind = Kind(rawValue: String(parts[0])), let v = Int(parts[1]), v >= 0,
            SceneID.isValid(String(parts[2]))
        else { return nil }
        self.init(kind: kind, version: v, id: String(parts[2]))
    }

    init(kind: Kind, version: Int, id: String) {
        self.kind = kind
        self.version = version
        self.id = id
    }
}
