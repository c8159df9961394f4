import HitRouting

/// What a store holds at one moment, for metrics. With a shared store,
/// what this process holds (its cache): what Redis holds over all replicas
/// is Redis's to report.
public struct StoreStats: Sendable, Equatable {
    /// Scenes held.
    public var scenes: Int
    /// Layers over all scenes, whole trees.
    public var layers: Int
    /// Bytes the scenes weigh: the JSON they came as, moved by each
    /// patch, and their decoded masks (what `maxStoreBytes`, or a
    /// replica's `--cache-bytes`, bounds).
    public var bytes: Int
    /// Pointer captures not yet expired, over all scenes.
    public var captures: Int

    public init(scenes: Int, layers: Int, bytes: Int, captures: Int) {
        self.scenes = scenes
        self.layers = layers
        self.bytes = bytes
        self.captures = captures
    }
}

extension StoreStats {
    /// The statistics of `scenes`, which weigh `bytes` in all: `read` gives
    /// one scene's snapshot and sessions, under that scene's lock.
    /// - Complexity: O(scenes), one short lock hold each.
    static func tally<Scenes: Collection>(
        _ scenes: Scenes, bytes: Int, now: Double,
        read: (Scenes.Element, (SceneSnapshot, PointerSessions) -> Void) -> Void
    ) -> StoreStats {
        var layers = 0
        var captures = 0
        for scene in scenes {
            read(scene) { snapshot, sessions in
                layers += snapshot.compiled.layerCount
                captures += sessions.liveCaptureCount(now: now)
            }
        }
        return StoreStats(scenes: scenes.count, layers: layers, bytes: bytes, captures: captures)
    }
}

/// A replica's cache of compiled scenes (a shared store), for metrics.
public struct CacheStats: Sendable, Equatable {
    /// The cache's bound in bytes (`--cache-bytes`).
    public var capacity: Int
    /// Scenes evicted to make room, since the start.
    public var evictions: Int
    /// Scenes fetched and compiled after a miss, since the start.
    public var loads: Int

    public init(capacity: Int, evictions: Int, loads: Int) {
        self.capacity = capacity
        self.evictions = evictions
        self.loads = loads
    }
}
