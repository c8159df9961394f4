import Glibc
import HitRouting
import Synchronization

/// An immutable, versioned scene as stored: what one request routes against.
///
/// The scene sits behind one reference, so a snapshot copies (and a
/// request passes it around) for the price of two retains, not one per
/// array of the scene. `withCompiled` lends the compiled scene without a
/// copy; reading `compiled` may copy its arrays' references (measured: two
/// copies a single hit, before `withCompiled`).
public struct SceneSnapshot: Sendable {
    public let id: String
    public let version: Int
    private let box: Box

    private final class Box: Sendable {
        let live: LiveScene
        init(_ live: LiveScene) { self.live = live }
    }

    /// Runs `body` on the compiled scene, borrowed from the snapshot.
    @inline(__always)
    public func withCompiled<R>(_ body: (borrowing CompiledScene) throws -> R) rethrows -> R {
        try body(box.live.compiled)
    }

    public init(id: String, version: Int, live: LiveScene) {
        self.id = id
        self.version = version
        self.box = Box(live)
    }

    public var live: LiveScene {
        _read { yield box.live }
    }

    public var compiled: CompiledScene {
        _read { yield box.live.compiled }
    }

    /// An empty scene that holds a snapshot's place while it changes.
    static let vacant = LiveScene(Scene())
}

/// The scenes of the service in memory, safe under any number of
/// concurrent readers and writers: the memory-only backend of
/// `SceneStoring` (what runs without `--data-dir`).
///
/// Readers take a snapshot (two short lock holds, no copying) and route
/// without locks, so a hit never sees half an update and an upload never
/// holds up hits: compiling happens outside every lock, and only the final
/// swap of one reference is guarded. Changes to one scene (patches, pointer
/// events, replacements) are serialised by that scene's own lock, in
/// arrival order.
public final class SceneStore: SceneStoring {
    /// One scene's mutable state: its current snapshot and pointer captures.
    final class Entry: Sendable {
        struct State {
            var snapshot: SceneSnapshot
            var sessions: PointerSessions
            /// Set under this lock when the scene is deleted: a change that
            /// fetched the entry before is then refused (404), so no change
            /// is acknowledged (or journaled) after the scene's delete.
            var removed = false

            /// Lets `change` mutate the scene, in place when no reader holds
            /// the snapshot; publishes the next version when it returns true.
            /// When `change` throws, nothing changes.
            mutating func changeInPlace(_ change: (inout LiveScene, _ version: Int) throws(Problem) -> Bool) throws(Problem) {
                let id = snapshot.id, version = snapshot.version
                var scene = snapshot.live
                // Drop the store's own reference, so that `scene` is unique
                // unless a reader holds the snapshot right now.
                snapshot = SceneSnapshot(id: id, version: version, live: SceneSnapshot.vacant)
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
        init(_ state: State) { self.state = Mutex(state) }
    }

    public struct Limits: Sendable {
        /// Scenes held at once; more is 507. Default 10,000.
        public var maxScenes = 10_000
        /// Live pointer captures per scene; more is 429. Default 64.
        public var maxPointers = 64
        /// Seconds of inactivity after which a capture expires. Default 30.
        public var captureTimeout = 30.0
        /// Bytes of submitted JSON the store holds at most, over all scenes
        /// (a scene takes about 2–3 times its JSON in memory); more is 507.
        /// Default 2 GiB.
        public var maxStoreBytes = 2 << 30
        public init() {}
    }

    /// The scenes by id, and the bytes of JSON they were submitted as.
    struct Table {
        var scenes: [String: Entry] = [:]
        var weights: [String: Int] = [:]
        var bytes = 0

        mutating func set(_ id: String, _ entry: Entry, weight: Int) {
            bytes += weight - (weights[id] ?? 0)
            scenes[id] = entry
            weights[id] = weight
        }

        mutating func remove(_ id: String) -> Bool {
            guard scenes.removeValue(forKey: id) != nil else { return false }
            bytes -= weights.removeValue(forKey: id) ?? 0
            return true
        }
    }

    let entries = Mutex(Table())
    let limits: Limits
    /// Seconds on a monotonic clock (injected by tests).
    let clock: @Sendable () -> Double
    /// How long uploads took to compile (metrics).
    public let compileTimes = CompileTimes()
    private let nextID = Atomic<Int>(1)
    /// Where changes are journaled (nil: memory only).
    let log: (any ChangeLog)?

    public init(limits: Limits = Limits(), clock: @escaping @Sendable () -> Double = monotonicSeconds) {
        self.limits = limits
        self.clock = clock
        self.log = nil
    }

    init(limits: Limits, clock: @escaping @Sendable () -> Double = monotonicSeconds, log: any ChangeLog) {
        self.limits = limits
        self.clock = clock
        self.log = log
    }

    /// Runs a write: inside the log's admission when there is a log, then
    /// waits until what it appended is durable. Memory only: just `body`.
    @inline(__always)
    private func logged<R>(_ body: (inout LogTicket) throws(Problem) -> R) throws(Problem) -> R {
        var ticket = LogTicket(log: log)
        guard let log else { return try body(&ticket) }
        let result = try log.admitting { () throws(Problem) -> R in try body(&ticket) }
        if ticket.lsn != 0 { try log.await(ticket.lsn) }
        return result
    }

    // MARK: - Reading

    /// The current snapshot of scene `id`.
    public func snapshot(_ id: String) -> SceneSnapshot? {
        guard let entry = entries.withLock({ $0.scenes[id] }) else { return nil }
        return entry.state.withLock { $0.snapshot }
    }

    /// Snapshots of every scene, ordered by id.
    public func all() -> [SceneSnapshot] {
        let list = entries.withLock { Array($0.scenes.values) }
        return list.map { entry in entry.state.withLock { $0.snapshot } }.sorted { $0.id < $1.id }
    }

    public func summaries() -> [SceneSummary] { all().map(SceneSummary.init) }

    // MARK: - Writing

    /// Stores a new scene (`POST /scenes`): 409 if `id` exists, 507 when
    /// full. Without an id, one is generated. `weight` is the size of the
    /// JSON it came as, counted against `maxStoreBytes`.
    public func create(_ upload: SceneUpload) throws(Problem) -> SceneSnapshot {
        try create(upload.scene, weight: upload.weight, json: upload.json)
    }

    public func create(_ scene: Scene, weight: Int = 0, json: [UInt8] = []) throws(Problem) -> SceneSnapshot {
        let live = compile(scene)  // outside any lock
        if let problem = live.compiled.numericProblem { throw Problem.invalidScene(problem) }
        return try logged { (ticket) throws(Problem) -> SceneSnapshot in
          try entries.withLock { (table) throws(Problem) -> SceneSnapshot in
            var id = scene.id ?? ""
            if scene.id == nil {
                repeat { id = "scene-\(nextID.wrappingAdd(1, ordering: .relaxed).oldValue)" } while table.scenes[id] != nil
            } else if table.scenes[id] != nil {
                throw Problem(409, "conflict", "Conflict", "a scene with id \"\(id)\" exists; PUT /scenes/\(id) replaces it")
            }
            try checkRoom(table, adding: weight, replacing: nil)
            try ticket.append(.upload(id: id, version: 1, json: json))
            let snapshot = SceneSnapshot(id: id, version: 1, live: live)
            table.set(id, Entry(.init(snapshot: snapshot, sessions: newSessions())), weight: weight)
            return snapshot
          }
        }
    }

    /// Creates or replaces scene `id` (`PUT`). Replacing drops every capture
    /// (each pointer's next event says so) and bumps the version.
    /// - Returns: the snapshot and whether it was created.
    public func put(_ upload: SceneUpload, id: String) throws(Problem) -> (SceneSnapshot, created: Bool) {
        try put(upload.scene, id: id, weight: upload.weight, json: upload.json)
    }

    public func put(_ scene: Scene, id: String, weight: Int = 0, json: [UInt8] = []) throws(Problem) -> (SceneSnapshot, created: Bool) {
        var scene = scene
        scene.id = id
        let live = compile(scene)
        if let problem = live.compiled.numericProblem { throw Problem.invalidScene(problem) }
        return try logged { (ticket) throws(Problem) -> (SceneSnapshot, created: Bool) in
          try entries.withLock { (table) throws(Problem) -> (SceneSnapshot, created: Bool) in
            try checkRoom(table, adding: weight, replacing: id)
            if let entry = table.scenes[id] {
                let snapshot = try entry.state.withLock { (state) throws(Problem) -> SceneSnapshot in
                    try ticket.append(.upload(id: id, version: state.snapshot.version + 1, json: json))
                    state.snapshot = SceneSnapshot(id: id, version: state.snapshot.version + 1, live: live)
                    state.sessions.dropAllCaptures()
                    return state.snapshot
                }
                table.set(id, entry, weight: weight)
                return (snapshot, false)
            }
            try ticket.append(.upload(id: id, version: 1, json: json))
            let snapshot = SceneSnapshot(id: id, version: 1, live: live)
            table.set(id, Entry(.init(snapshot: snapshot, sessions: newSessions())), weight: weight)
            return (snapshot, true)
          }
        }
    }

    /// Removes scene `id` with its captures; false if there was none.
    public func delete(_ id: String) throws(Problem) -> Bool {
        try logged { (ticket) throws(Problem) -> Bool in
            try entries.withLock { (table) throws(Problem) -> Bool in
                guard let entry = table.scenes[id] else { return false }
                try entry.state.withLock { (state) throws(Problem) in
                    try ticket.append(.delete(id: id, version: state.snapshot.version))
                    state.removed = true
                }
                return table.remove(id)
            }
        }
    }

    /// Runs `change` on scene `id` under its lock and publishes the result
    /// as the next version. `change` gets the scene and its current version.
    ///
    /// The scene is changed in place when no reader holds its snapshot at
    /// that moment (usual: readers hold one for microseconds), so a change
    /// to one layer of a big scene does not copy the scene.
    /// - Throws: 404 for an unknown scene, or what `change` throws (then
    ///   nothing changes).
    public func update(
        _ id: String, _ change: (inout LiveScene, _ version: Int) throws(Problem) -> Void
    ) throws(Problem) -> SceneSnapshot {
        guard let entry = entries.withLock({ $0.scenes[id] }) else { throw Problem.notFound("no scene \"\(id)\"") }
        return try entry.state.withLock { (state) throws(Problem) -> SceneSnapshot in
            if state.removed { throw Problem.notFound("no scene \"\(id)\"") }
            try state.changeInPlace { (live, version) throws(Problem) -> Bool in
                try change(&live, version)
                return true
            }
            state.sessions.dropCaptures(missingFrom: state.snapshot.compiled)
            return state.snapshot
        }
    }

    public func patch(_ id: String, _ patch: LayerPatch) throws(Problem) -> (SceneSnapshot, Layer) {
        var patched = Layer(id: patch.layerID)
        let snapshot = try logged { (ticket) throws(Problem) -> SceneSnapshot in
            try update(id) { (live, version) throws(Problem) in
                patched = try patch.apply(to: &live, version: version, sceneID: id)
                try ticket.append(.patch(id: id, version: version + 1, layer: patch.layerID, json: patch.json))
            }
        }
        return (snapshot, patched)
    }

    public func pointerEvent(_ id: String, _ event: PointerEvent) throws(Problem) -> (PointerSessions.Outcome, SceneSnapshot) {
        try logged { (ticket) throws(Problem) -> (PointerSessions.Outcome, SceneSnapshot) in
            try pointerEvent(id, pointer: event.pointer, phase: event.phase, at: event.point, trace: event.trace, all: event.all, ticket: &ticket)
        }
    }

    /// Memory is always ready.
    public func health() -> StoreHealth { .ready }

    public var keepsSubmittedJSON: Bool { false }

    /// Applies one pointer event to scene `id` (SPEC §5), in arrival order
    /// with the scene's other events.
    /// - Returns: the outcome and the snapshot it was answered from (a drag
    ///   publishes the next version first).
    public func pointerEvent(
        _ id: String, pointer: String, phase: PointerSessions.Phase, at point: Point, trace: Bool, all: Bool
    ) throws(Problem) -> (PointerSessions.Outcome, SceneSnapshot) {
        var ticket = LogTicket(log: nil)
        return try pointerEvent(id, pointer: pointer, phase: phase, at: point, trace: trace, all: all, ticket: &ticket)
    }

    private func pointerEvent(
        _ id: String, pointer: String, phase: PointerSessions.Phase, at point: Point, trace: Bool, all: Bool,
        ticket: inout LogTicket
    ) throws(Problem) -> (PointerSessions.Outcome, SceneSnapshot) {
        guard let entry = entries.withLock({ $0.scenes[id] }) else { throw Problem.notFound("no scene \"\(id)\"") }
        let now = clock()
        let limits = self.limits
        return try entry.state.withLock { (state) throws(Problem) -> (PointerSessions.Outcome, SceneSnapshot) in
            if state.removed { throw Problem.notFound("no scene \"\(id)\"") }
            var sessions = state.sessions
            var outcome: PointerSessions.Outcome?
            try state.changeInPlace { (live, version) throws(Problem) -> Bool in
                do throws(PointerSessions.Refusal) {
                    outcome = try sessions.apply(
                        pointer: pointer, phase: phase, at: point, to: &live, trace: trace, all: all, now: now)
                } catch {
                    throw Problem.refused(error, scene: id, maxPointers: limits.maxPointers, captureTimeout: limits.captureTimeout)
                }
                if outcome!.moved, let n = outcome!.result.target {
                    let moved = live.model.layer(at: live.compiled.modelPath(of: n)).transform.translation
                    try ticket.append(.drag(id: id, version: version + 1, layer: live.compiled.ids[n], translation: moved))
                }
                return outcome!.moved  // `!`: set, since apply did not throw
            }
            state.sessions = sessions
            return (outcome!, state.snapshot)
        }
    }

    // MARK: - Recovery (journal replay: no log, no limits)

    /// Sets scene `id` to `scene` at `version` (a replayed upload).
    func restore(_ id: String, scene: Scene, version: Int, weight: Int) {
        var scene = scene
        scene.id = id
        let snapshot = SceneSnapshot(id: id, version: version, live: LiveScene(scene))
        entries.withLock { table in
            table.set(id, Entry(.init(snapshot: snapshot, sessions: newSessions())), weight: weight)
        }
    }

    /// Removes scene `id` (a replayed delete); false if there was none.
    func restoreDelete(_ id: String) -> Bool {
        entries.withLock { $0.remove(id) }
    }

    /// Changes scene `id` and sets its version to `version` (a replayed
    /// patch or drag). Throws what `change` throws, or 404.
    func restoreChange(_ id: String, version: Int, _ change: (inout LiveScene, _ current: Int) throws(Problem) -> Void) throws(Problem) {
        guard let entry = entries.withLock({ $0.scenes[id] }) else { throw Problem.notFound("no scene \"\(id)\"") }
        try entry.state.withLock { (state) throws(Problem) in
            try state.changeInPlace { (live, current) throws(Problem) -> Bool in
                try change(&live, current)
                return true
            }
            state.snapshot = SceneSnapshot(id: id, version: version, live: state.snapshot.live)
        }
    }

    /// Bytes of submitted JSON held over all scenes (what compaction weighs
    /// the journal against).
    var storedBytes: Int { entries.withLock { $0.bytes } }

    private func newSessions() -> PointerSessions {
        PointerSessions(maxPointers: limits.maxPointers, idleTimeout: limits.captureTimeout)
    }

    /// 507 unless one more scene of `weight` bytes fits (in place of
    /// `replacing`, when that one exists).
    private func checkRoom(_ table: Table, adding weight: Int, replacing id: String?) throws(Problem) {
        let existing = id.flatMap { table.weights[$0] }
        if existing == nil && table.scenes.count >= limits.maxScenes {
            throw Problem(507, "store-full", "Store full", "the store holds its maximum of \(limits.maxScenes) scenes; delete one first")
        }
        if table.bytes - (existing ?? 0) + weight > limits.maxStoreBytes {
            throw Problem(507, "store-full", "Store full",
                          "the scenes stored came as \(table.bytes) bytes of JSON; this one would pass the store's budget of \(limits.maxStoreBytes) (--max-store-bytes); delete a scene first")
        }
    }
}

/// Seconds since an arbitrary point, never going backwards.
@Sendable
public func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
