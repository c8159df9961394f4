import HitBase
import HitRouting

extension SceneStore {
    /// Counts of what the store holds.
    /// - Complexity: O(scenes), one short lock hold per scene.
    public func stats() -> StoreStats {
        let list = entries.withLock { Array($0.scenes.values) }
        return StoreStats.tally(list, bytes: storedBytes, now: clock()) { entry, count in
            entry.state.withLock { count($0.snapshot, $0.sessions) }
        }
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
