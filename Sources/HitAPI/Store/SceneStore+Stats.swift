import HitBase
import HitRouting

extension SceneStore {
    /// What the store holds at one moment (for metrics).
    public struct Stats: Sendable, Equatable {
        /// Scenes stored.
        public var scenes: Int
        /// Layers over all scenes, whole trees.
        public var layers: Int
        /// Bytes the scenes weigh: the JSON they came as, moved by each
        /// patch, and their decoded masks (what `maxStoreBytes`, or in
        /// Redis mode `--cache-bytes`, bounds).
        public var bytes: Int
        /// Pointer captures not yet expired, over all scenes.
        public var captures: Int
    }

    /// Counts of what the store holds.
    /// - Complexity: O(scenes), one short lock hold per scene.
    public func stats() -> Stats {
        let list = entries.withLock { Array($0.scenes.values) }
        let bytes = storedBytes
        let now = clock()
        var layers = 0
        var captures = 0
        for entry in list {
            entry.state.withLock { state in
                layers += state.snapshot.compiled.layerCount
                captures += state.sessions.liveCaptureCount(now: now)
            }
        }
        return Stats(scenes: list.count, layers: layers, bytes: bytes, captures: captures)
    }

    /// Compiles `scene`, recording how long it took.
    func compile(_ scene: Scene) -> LiveScene { compileTimes.compile(scene) }
}

extension CompileTimes {
    /// Compiles `scene`, recording how long it took.
    func compile(_ scene: Scene) -> LiveScene {
        let start = MonotonicClock.seconds()
        let live = LiveScene(scene)
        let seconds = max(0, MonotonicClock.seconds() - start)
        record(nanoseconds: UInt64(min(seconds, 1e9) * 1e9))
        return live
    }
}
