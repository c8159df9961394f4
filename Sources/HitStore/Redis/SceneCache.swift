import HitRouting
import Synchronization

/// One scene as a replica holds it: the compiled snapshot it answers hits
/// from, and the pointer captures it took (SPEC §10: captures stay in the
/// replica that took the `down`).
final class CachedScene: Sendable {
    struct State {
        /// The current snapshot; setting it publishes it (`published`).
        var snapshot: SceneSnapshot {
            get { current }
            set {
                current = newValue
                published.publish(newValue)
            }
        }
        private var current: SceneSnapshot
        let published: PublishedSnapshot
        var sessions: PointerSessions

        init(snapshot: SceneSnapshot, sessions: PointerSessions, published: PublishedSnapshot) {
            current = snapshot
            self.published = published
            self.sessions = sessions
        }
    }

    let state: Mutex<State>
    /// `state.snapshot`, published for hits that take no lock
    /// (``SceneCache/resident(_:)``).
    let published: PublishedSnapshot
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
        published = PublishedSnapshot(snapshot)
        state = Mutex(State(snapshot: snapshot, sessions: sessions, published: published))
    }

    var snapshot: SceneSnapshot { state.withLock { $0.snapshot } }

    /// The snapshot, published again if it is not (the scene left the
    /// cache, which unpublishes it, and was cached again since).
    var republished: SceneSnapshot {
        state.withLock { s in
            if !s.published.isPublished { s.published.publish(s.snapshot) }
            return s.snapshot
        }
    }

    /// Publishes none: the scene left the cache, and what remembers it
    /// (``SnapshotReaders``) holds no snapshot of it.
    func unpublish() { state.withLock { $0.published.publish(nil) } }
}

/// The compiled scenes of one replica, bounded by bytes (`--cache-bytes`),
/// least recently used out.
///
/// A scene weighs the bytes of its JSON in Redis plus its decoded masks
/// (`RedisSceneStore.weight`, the measure of `--max-store-bytes` in memory
/// mode; compiled, a scene takes about 2–3 times its JSON). A write of a
/// scene heavier than the whole cache is refused (507).
/// A lookup is one lock hold and one hash lookup that also stamps the
/// entry's use; a hit's lookup (``resident(_:)``) takes no lock: it reads
/// the scene's published snapshot through a ``SnapshotDirectory`` (told
/// of every scene that leaves the cache or is replaced in it, which
/// unpublishes its snapshot) and stamps the scene's
/// `lastUse` only when the tick moved since (the tick moves with every
/// locked lookup and insert), so scenes used between two such moves rank
/// alike. Eviction, rare, scans for the oldest stamp of either kind.
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
    private let directory = SnapshotDirectory()
    /// `Table.tick`, read without the lock.
    private let tick = Atomic<UInt64>(0)

    init(capacity: Int) { self.capacity = capacity }

    /// The scene `id` if cached, marked as just used.
    @inline(__always)
    func lookup(_ id: String) -> CachedScene? {
        table.withLock { t in
            guard let i = t.slots.index(forKey: id) else { return nil }
            t.tick &+= 1
            tick.store(t.tick, ordering: .relaxed)
            t.slots.values[i].lastUse = t.tick
            return t.slots.values[i].scene
        }
    }

    /// The published snapshot of scene `id` if cached, without a lock;
    /// nil when it is not cached or has none published (the caller then
    /// asks ``lookup(_:)``).
    @inline(__always)
    func resident(_ id: String) -> SceneSnapshot? {
        directory.read(id, stamp: tick.load(ordering: .relaxed), find: { id in lookup(id)?.published })
    }

    /// The scene `id` if cached, without marking it used.
    func peek(_ id: String) -> CachedScene? { table.withLock { $0.slots[id]?.scene } }

    /// Caches `scene` as `id` (replacing any), then evicts least recently
    /// used scenes other than this one until the cache fits.
    func insert(_ id: String, _ scene: CachedScene, weight: Int) {
        let left = table.withLock { t -> [CachedScene] in
            var left: [CachedScene] = []
            t.tick &+= 1
            tick.store(t.tick, ordering: .relaxed)
            t.bytes += weight - (t.slots[id]?.weight ?? 0)
            if let previous = t.slots.updateValue(Slot(scene: scene, weight: weight, lastUse: t.tick), forKey: id), previous.scene !== scene
            {
                directory.changed()
                left.append(previous.scene)
            }
            while t.bytes > capacity, t.slots.count > 1 {
                guard
                    let victim = t.slots.filter({ $0.key != id }).min(by: {
                        SceneCache.used($0.value) < SceneCache.used($1.value)
                    })
                else { break }
                t.bytes -= victim.value.weight
                t.slots.removeValue(forKey: victim.key)
                t.evictions += 1
                directory.changed()
                left.append(victim.value.scene)
            }
            return left
        }
        for scene in left { scene.unpublish() }
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

    func remove(_ id: String) {
        let left = table.withLock { t -> CachedScene? in
            guard let s = t.slots.removeValue(forKey: id) else { return nil }
            t.bytes -= s.weight
            directory.changed()
            return s.scene
        }
        left?.unpublish()
    }

    /// A slot's last use: its locked lookups' and its lock-free reads'.
    private static func used(_ slot: Slot) -> UInt64 { max(slot.lastUse, slot.scene.published.lastUse.load(ordering: .relaxed)) }

    /// Every cached scene.
    func all() -> [(id: String, scene: CachedScene)] { table.withLock { $0.slots.map { ($0.key, $0.value.scene) } } }

    /// Bytes and scenes held.
    var usage: (bytes: Int, scenes: Int) { table.withLock { ($0.bytes, $0.slots.count) } }

    /// Every cached scene and the bytes they weigh, read in one lock hold.
    var contents: (scenes: [CachedScene], bytes: Int) { table.withLock { t in (t.slots.values.map(\.scene), t.bytes) } }

    /// Scenes evicted to make room, since the start.
    var evictions: Int { table.withLock { $0.evictions } }
}
