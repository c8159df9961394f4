extension RedisSceneStore {
    /// What this replica holds, for metrics: the scenes in its cache of
    /// compiled scenes, their layers and weight (what `--cache-bytes`
    /// bounds), and the live pointer captures it took (SPEC §10: captures
    /// stay in the replica that took the `down`). What Redis holds over all
    /// replicas is Redis's to report (its own exporter).
    /// - Complexity: O(cached scenes), one short lock hold per scene; no round trip.
    public func stats() -> SceneStore.Stats {
        let (scenes, bytes) = cache.contents
        let now = clock()
        var layers = 0
        var captures = 0
        for scene in scenes {
            scene.state.withLock { state in
                layers += state.snapshot.compiled.layerCount
                captures += state.sessions.liveCaptureCount(now: now)
            }
        }
        return SceneStore.Stats(scenes: scenes.count, layers: layers, bytes: bytes, captures: captures)
    }

    /// Scenes evicted from the cache to make room, since the start.
    public var cacheEvictions: Int { cache.evictions }

    /// Scenes fetched from Redis into the cache after a miss, since the start.
    public var cacheLoads: Int { loaded.load(ordering: .relaxed) }

    /// The cache's bound in bytes (`--cache-bytes`).
    public var cacheCapacity: Int { cache.capacity }
}
