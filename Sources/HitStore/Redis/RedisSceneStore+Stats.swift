import RESPClient

extension RedisSceneStore {
    /// What this replica holds, for metrics: the scenes in its cache of
    /// compiled scenes, their layers and weight (what `--cache-bytes`
    /// bounds), and the live pointer captures it took (SPEC §10: captures
    /// stay in the replica that took the `down`). What Redis holds over all
    /// replicas is Redis's to report (its own exporter).
    /// - Complexity: O(cached scenes), one short lock hold per scene; no round trip.
    public func stats() -> StoreStats {
        let (scenes, bytes) = cache.contents
        return StoreStats.tally(scenes, bytes: bytes, now: clock()) { scene, count in
            scene.state.withLock { count($0.snapshot, $0.sessions) }
        }
    }

    /// Scenes evicted from the cache to make room, since the start.
    public var cacheEvictions: Int { cache.evictions }

    /// Scenes fetched from Redis into the cache after a miss, since the start.
    public var cacheLoads: Int { loaded.load(ordering: .relaxed) }

    /// The cache's bound in bytes (`--cache-bytes`).
    public var cacheCapacity: Int { cache.capacity }
}

extension RedisSceneStore {
    /// This replica's cache: its bound, evictions and loads.
    public var cacheStats: CacheStats? {
        CacheStats(capacity: cacheCapacity, evictions: cacheEvictions, loads: cacheLoads)
    }
}

extension RedisSceneStore {
    /// This replica's exchanges with Redis.
    public var remoteStatistics: RedisStatistics? { client.statistics }
}
