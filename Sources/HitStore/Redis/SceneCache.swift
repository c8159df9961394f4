import HitRouting
import Synchronization

/// One scene as a replica holds it: the compiled snapshot it answers hits
/// from, and the pointer captures it took (SPEC §10: captures stay in the
/// replica that took the `down`).
final class CachedScene: Sendable {
    struct State {
        var snapshot: SceneSnapshot
        var sessions: PointerSessions
    }

    let state: Mutex<State>
    /// Held by this replica's changes to the scene (patches, drags,
    /// refreshes from Redis) across their round trips, so that they apply
    /// one at a time and a refresh never installs an older copy over a
    /// newer local write. Hits never take it.
    let writer = Mutex<Void>(())
    /// Whether a refresh from Redis is queued (announcements coalesce).
    let refreshQueued = Atomic<Bool>(false)
    /// Whether the queued refresh follows a replacement (drops every capture).
    let refreshDropsCaptures = Atomic<Bool>(false)

    init(snapshot: SceneSnapshot, sessions: PointerSessions) {
        state = Mutex(State(snapshot: snapshot, sessions: sessions))
    }

    var snapshot: SceneSnapshot { state.withLock { $0.snapshot } }
}

/// The compiled scenes of one replica, bounded by bytes (`--cache-bytes`),
/// least recently used out.
///
/// A scene weighs the bytes of its JSON in Redis plus its decoded masks
/// (`RedisSceneStore.weight`, the measure of `--max-store-bytes` in memory
/// mode; compiled, a scene takes about 2–3 times its JSON). A write of a
/// scene heavier than the whole cache is refused (507).
/// A lookup is one lock hold and one hash lookup that also stamps the
/// entry's use; eviction, rare, scans for the oldest stamp.
/// - Complexity: lookup O(1); insert O(1), plus O(n) per eviction.
final class SceneCache: Sendable {
    private struct Slot {
        var scene: CachedScene
        var weight: Int
        var lastUse: UInt64
    }

    private struct Table {
        var slots: [String: Slot] = [:]
        var bytes = 0
        var tick: UInt64 = 0
        /// Scenes evicted to make room, since the start.
        var evictions = 0
    }

    private let table = Mutex(Table())
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// The scene `id` if cached, marked as just used.
    @inline(__always)
    func lookup(_ id: String) -> CachedScene? {
        table.withLock { t in
            guard let i = t.slots.index(forKey: id) else { return nil }
            t.tick &+= 1
            t.slots.values[i].lastUse = t.tick
            return t.slots.values[i].scene
        }
    }

    /// The scene `id` if cached, without marking it used.
    func peek(_ id: String) -> CachedScene? { table.withLock { $0.slots[id]?.scene } }

    /// Caches `scene` as `id` (replacing any), then evicts least recently
    /// used scenes other than this one until the cache fits.
    func insert(_ id: String, _ scene: CachedScene, weight: Int) {
        table.withLock { t in
            t.tick &+= 1
            t.bytes += weight - (t.slots[id]?.weight ?? 0)
            t.slots[id] = Slot(scene: scene, weight: weight, lastUse: t.tick)
            while t.bytes > capacity, t.slots.count > 1 {
                guard let victim = t.slots.filter({ $0.key != id }).min(by: { $0.value.lastUse < $1.value.lastUse }) else { break }
                t.bytes -= victim.value.weight
                t.slots.removeValue(forKey: victim.key)
                t.evictions += 1
            }
        }
    }

    /// Caches `scene` unless a scene is already cached as `id`; returns the one cached.
    func insertIfAbsent(_ id: String, _ scene: CachedScene, weight: Int) -> CachedScene {
        if let existing = peek(id) { return existing }
        insert(id, scene, weight: weight)
        return scene
    }

    /// Sets the weight of a cached scene (after a change).
    func reweigh(_ id: String, _ scene: CachedScene, weight: Int) {
        table.withLock { t in
            guard let slot = t.slots[id], slot.scene === scene else { return }
            t.bytes += weight - slot.weight
            t.slots[id]?.weight = weight
        }
        if table.withLock({ $0.bytes > capacity }) { insert(id, scene, weight: weight) }
    }

    func remove(_ id: String) { table.withLock { t in if let s = t.slots.removeValue(forKey: id) { t.bytes -= s.weight } } }

    /// Every cached scene.
    func all() -> [(id: String, scene: CachedScene)] { table.withLock { $0.slots.map { ($0.key, $0.value.scene) } } }

    /// Bytes and scenes held.
    var usage: (bytes: Int, scenes: Int) { table.withLock { ($0.bytes, $0.slots.count) } }

    /// Every cached scene and the bytes they weigh, read in one lock hold.
    var contents: (scenes: [CachedScene], bytes: Int) { table.withLock { t in (t.slots.values.map(\.scene), t.bytes) } }

    /// Scenes evicted to make room, since the start.
    var evictions: Int { table.withLock { $0.evictions } }
}
