import Glibc
import HitBase
import HitJournal
import HitRouting
import Synchronization

/// The scenes of the service in memory, safe under any number of
/// concurrent readers and writers: the memory-only backend of
/// `SceneStoring` (what runs without `--data-dir`).
///
/// Readers take a snapshot without a lock (each scene's is published,
/// ``PublishedSnapshot``, and found through ``SnapshotDirectory``; the
/// table's and the scene's locks only when the table changed since, or
/// while the scene changes in place) and route without locks, so a hit
/// never sees half an update and an upload never holds up hits:
/// compiling happens outside every lock, and only the final swap of one
/// reference is guarded. Changes to one scene (patches, pointer
/// events, replacements) are serialised by that scene's own lock, in
/// arrival order.
public final class SceneStore: SceneStoring {
    /// One scene's mutable state: its current snapshot and pointer captures.
    final class Entry: Sendable {
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
            /// Where hits read `snapshot` without this lock.
            let published: PublishedSnapshot
            var sessions: PointerSessions
            /// Set under this lock when the scene is deleted: a change that
            /// fetched the entry before is then refused (`notFound`), so no change
            /// is acknowledged (or journaled) after the scene's delete.
            var removed = false

            init(snapshot: SceneSnapshot, sessions: PointerSessions) {
                current = snapshot
                published = PublishedSnapshot(snapshot)
                self.sessions = sessions
            }

            /// Marks the scene deleted and publishes none, so that no hit
            /// reads it without the lock any more.
            mutating func remove() {
                removed = true
                published.publish(nil)
            }

            /// Lets `change` mutate the scene, in place when no reader holds
            /// the snapshot; publishes the next version when it returns true.
            /// When `change` throws, nothing changes.
            mutating func changeInPlace(_ change: (inout LiveScene, _ version: Int) throws(StoreError) -> Bool) throws(StoreError) {
                let id = current.id
                let version = current.version
                // Readers wait on this lock meanwhile: none is published.
                published.publish(nil)
                var scene = current.live
                // Drop the store's own reference, so that `scene` is unique
                // unless a reader holds the snapshot right now.
                current = SceneSnapshot(id: id, version: version, live: SceneSnapshot.vacant)
                do {
                    let changed = try change(&scene, version)
                    snapshot = SceneSnapshot(id: id, version: changed ? version + 1 : version, live: scene)
                } catch {
                    snapshot = SceneSnapshot(id: id, version: version, live: scene)
                    throw error
                }
            }
        }
        let state: Mutex<State>
        /// `state.published`, reached without the lock.
        let published: PublishedSnapshot
        init(_ state: State) {
            published = state.published
            self.state = Mutex(state)
        }
    }

    public struct Limits: Sendable {
        /// Scenes held at once; more is `full(.scenes)`. Default 10,000.
        public var maxScenes = 10_000
        /// Live pointer captures per scene; more is `pointerRefused`. Default 64.
        public var maxPointers = 64
        /// Seconds of inactivity after which a capture expires. Default 30.
        public var captureTimeout = 30.0
        /// Bytes the store holds at most, over all scenes: each scene's JSON
        /// as submitted (a scene takes about 2–3 times its JSON in memory)
        /// plus its decoded masks (`Scene.maskBytes`), moved by every patch
        /// (`LayerPatch.apply`); more is `full(.bytes)`. Default 2 GiB.
        public var maxStoreBytes = 2 << 30
        public init() {}
    }

    let entries = Mutex(Table())
    /// Finds an entry's published snapshot without `entries`' lock; told
    /// of every entry that leaves the table or is replaced in it.
    let directory = SnapshotDirectory()
    let weights = Mutex(Weights())
    let limits: Limits
    /// Seconds on a monotonic clock (injected by tests).
    let clock: @Sendable () -> Double
    /// How long uploads took to compile (metrics).
    public let compileTimes = CompileTimes()
    private let nextID = Atomic<Int>(1)
    /// Where changes are journaled (nil: memory only).
    let log: (any ChangeLog)?

    public init(limits: Limits = Limits(), clock: @escaping @Sendable () -> Double = MonotonicClock.seconds) {
        self.limits = limits
        self.clock = clock
        self.log = nil
    }

    init(limits: Limits, clock: @escaping @Sendable () -> Double = MonotonicClock.seconds, log: any ChangeLog) {
        self.limits = limits
        self.clock = clock
        self.log = log
    }

    /// Runs a write: inside the log's admission when there is a log, then
    /// waits until what it appended is durable. Memory only: just `body`.
    @inline(__always)
    func logged<R>(_ body: (inout LogTicket) throws(StoreError) -> R) throws(StoreError) -> R {
        var ticket = LogTicket(log: log)
        guard let log else { return try body(&ticket) }
        let result = try log.admitting { () throws(StoreError) -> R in try body(&ticket) }
        if ticket.lsn != 0 { try log.await(ticket.lsn) }
        return result
    }

    // MARK: - Reading

    /// The current snapshot of scene `id`: its published snapshot, read
    /// without a lock (``SnapshotDirectory``), or else under the table's
    /// and the scene's locks (while it changes in place, or when the
    /// table changed since this thread last found it).
    @inline(__always)
    public func snapshot(_ id: String) -> SceneSnapshot? {
        if let snapshot = directory.read(id, find: { id in entries.withLock { $0.scenes[id]?.published } }) { return snapshot }
        return lockedSnapshot(id)
    }

    @inline(never)
    func lockedSnapshot(_ id: String) -> SceneSnapshot? {
        guard let entry = entries.withLock({ $0.scenes[id] }) else { return nil }
        return entry.state.withLock { $0.removed ? nil : $0.snapshot }
    }

    /// Snapshots of every scene, ordered by id.
    public func all() -> [SceneSnapshot] {
        let list = entries.withLock { Array($0.scenes.values) }
        return list.map { entry in entry.state.withLock { $0.snapshot } }.sorted { $0.id < $1.id }
    }

    public func summaries() -> [SceneSummary] { all().map(SceneSummary.init) }

    // MARK: - Writing

    /// Stores a new scene (`POST /scenes`): `conflict` if `id` exists,
    /// `full` when full. Without an id, one is generated. `weight` is the size of the
    /// JSON it came as, counted against `maxStoreBytes`.
    public func create(_ upload: SceneUpload) throws(StoreError) -> SceneSnapshot {
        try create(upload.scene, weight: upload.weight, json: upload.json, jsonBytes: upload.jsonBytes)
    }

    public func create(_ scene: Scene, weight: Int = 0, json: [UInt8] = [], jsonBytes: Int? = nil) throws(StoreError) -> SceneSnapshot {
        let weight = Weight(total: weight, json: jsonBytes ?? weight)
        let live = compile(scene)  // outside any lock
        if let problem = live.compiled.numericProblem { throw StoreError.notFinite(problem, inPatch: false) }
        return try logged { (ticket) throws(StoreError) -> SceneSnapshot in
            try entries.withLock { (table) throws(StoreError) -> SceneSnapshot in
                var id = scene.id ?? ""
                if scene.id == nil {
                    repeat { id = "scene-\(nextID.wrappingAdd(1, ordering: .relaxed).oldValue)" } while table.scenes[id] != nil
                } else if table.scenes[id] != nil {
                    throw StoreError.conflict("a scene with id \"\(id)\" exists; PUT /scenes/\(id) replaces it")
                }
                try checkCount(table, adding: id)
                try admit(id, weight: weight) { () throws(StoreError) in try ticket.append(.upload(id: id, version: 1, json: json)) }
                let snapshot = SceneSnapshot(id: id, version: 1, live: live)
                table.scenes[id] = Entry(.init(snapshot: snapshot, sessions: newSessions()))
                return snapshot
            }
        }
    }

    /// Creates or replaces scene `id` (`PUT`). Replacing drops every capture
    /// (each pointer's next event says so) and bumps the version.
    /// - Returns: the snapshot and whether it was created.
    public func put(_ upload: SceneUpload, id: String) throws(StoreError) -> (SceneSnapshot, created: Bool) {
        try put(upload.scene, id: id, weight: upload.weight, json: upload.json, jsonBytes: upload.jsonBytes)
    }

    public func put(_ scene: Scene, id: String, weight: Int = 0, json: [UInt8] = [], jsonBytes: Int? = nil) throws(StoreError) -> (
        SceneSnapshot, created: Bool
    ) {
        let weight = Weight(total: weight, json: jsonBytes ?? weight)
        var scene = scene
        scene.id = id
        let live = compile(scene)
        if let problem = live.compiled.numericProblem { throw StoreError.notFinite(problem, inPatch: false) }
        return try logged { (ticket) throws(StoreError) -> (SceneSnapshot, created: Bool) in
            try entries.withLock { (table) throws(StoreError) -> (SceneSnapshot, created: Bool) in
                if let entry = table.scenes[id] {
                    // Weighed under the scene's lock, so that no patch of it weighs in between.
                    let snapshot = try entry.state.withLock { (state) throws(StoreError) -> SceneSnapshot in
                        try admit(id, weight: weight) { () throws(StoreError) in
                            try ticket.append(.upload(id: id, version: try SceneStore.version(after: state.snapshot.version), json: json))
                        }
                        state.snapshot = SceneSnapshot(id: id, version: state.snapshot.version + 1, live: live)
                        state.sessions.dropAllCaptures()
                        return state.snapshot
                    }
                    return (snapshot, false)
                }
                try checkCount(table, adding: id)
                try admit(id, weight: weight) { () throws(StoreError) in try ticket.append(.upload(id: id, version: 1, json: json)) }
                let snapshot = SceneSnapshot(id: id, version: 1, live: live)
                table.scenes[id] = Entry(.init(snapshot: snapshot, sessions: newSessions()))
                return (snapshot, true)
            }
        }
    }

    /// Removes scene `id` with its captures; false if there was none.
    public func delete(_ id: String) throws(StoreError) -> Bool {
        try logged { (ticket) throws(StoreError) -> Bool in
            // Taken out under the lock, freed after it (O(the scene's size)),
            // so that no other request waits on the table meanwhile.
            let removed = try entries.withLock { (table) throws(StoreError) -> Entry? in
                guard let entry = table.scenes[id] else { return nil }
                try entry.state.withLock { (state) throws(StoreError) in
                    try ticket.append(.delete(id: id, version: state.snapshot.version))
                    state.remove()
                }
                table.scenes[id] = nil
                directory.changed()
                weights.withLock { _ = $0.set(id, nil) }
                return entry
            }
            return removed != nil
        }
    }

    /// Runs `change` on scene `id` under its lock and publishes the result
    /// as the next version. `change` gets the scene and its current version.
    ///
    /// The scene is changed in place when no reader holds its snapshot at
    /// that moment (usual: readers hold one for microseconds), so a change
    /// to one layer of a big scene does not copy the scene.
    /// - Throws: `notFound` for an unknown scene, or what `change` throws (then
    ///   nothing changes).
    public func update(
        _ id: String, _ change: (inout LiveScene, _ version: Int) throws(StoreError) -> Void
    ) throws(StoreError) -> SceneSnapshot {
        guard let entry = entries.withLock({ $0.scenes[id] }) else { throw StoreError.notFound("no scene \"\(id)\"") }
        return try entry.state.withLock { (state) throws(StoreError) -> SceneSnapshot in
            if state.removed { throw StoreError.notFound("no scene \"\(id)\"") }
            try state.changeInPlace { (live, version) throws(StoreError) -> Bool in
                try change(&live, version)
                return true
            }
            state.sessions.dropCaptures(missingFrom: state.snapshot.compiled)
            return state.snapshot
        }
    }

    public func patch(_ id: String, _ patch: LayerPatch) throws(StoreError) -> (SceneSnapshot, Layer) {
        var patched = Layer(id: patch.layerID)
        let snapshot = try logged { (ticket) throws(StoreError) -> SceneSnapshot in
            try update(id) { (live, version) throws(StoreError) in
                // Weighed and journaled once checked, before the scene changes:
                // a refused patch (`full`, a failed append) leaves it as it was.
                let applied = try patch.apply(to: &live, version: version, sceneID: id) { (change) throws(StoreError) in
                    try admit(id, patch, change: change) { () throws(StoreError) in
                        try ticket.append(
                            .patch(id: id, version: try SceneStore.version(after: version), layer: patch.layerID, json: patch.json))
                    }
                }
                patched = applied.layer
                ticket.noteReplayCost(work: applied.work, layers: live.compiled.layerCount, jsonBytes: jsonBytes(of: id))
            }
        }
        return (snapshot, patched)
    }

    /// Memory is always ready.
    public func health() -> StoreHealth { .ready }

    /// Everything in memory of this process: no read or write waits on
    /// anything but the scene's own lock.
    public var capabilities: StoreCapabilities {
        StoreCapabilities(
            backend: log == nil ? "memory" : "journal", readsMayBlock: false, writesMayBlock: false, shared: false,
            honoursMinVersion: false, keepsSubmittedJSON: log != nil)
    }

    public var location: String { "memory" }

    /// The snapshot of `id` (every scene is resident).
    public func residentSnapshot(_ id: String) -> SceneSnapshot? { snapshot(id) }

    /// Nothing to load, nothing runs in the background.
    public func start() {}
    public func close() {}

    func newSessions() -> PointerSessions {
        PointerSessions(maxPointers: limits.maxPointers, idleTimeout: limits.captureTimeout)
    }
}
