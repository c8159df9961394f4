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

/// The scenes of the service, safe under any number of concurrent readers
/// and writers.
///
/// Readers take a snapshot (two short lock holds, no copying) and route
/// without locks, so a hit never sees half an update and an upload never
/// holds up hits: compiling happens outside every lock, and only the final
/// swap of one reference is guarded. Changes to one scene (patches, pointer
/// events, replacements) are serialised by that scene's own lock, in
/// arrival order.
public final class SceneStore: Sendable {
    /// One scene's mutable state: its current snapshot and pointer captures.
    final class Entry: Sendable {
        struct State {
            var snapshot: SceneSnapshot
            var sessions: PointerSessions

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
    private struct Table {
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

    private let entries = Mutex(Table())
    private let limits: Limits
    /// Seconds on a monotonic clock (injected by tests).
    private let clock: @Sendable () -> Double
    private let nextID = Atomic<Int>(1)

    public init(limits: Limits = Limits(), clock: @escaping @Sendable () -> Double = monotonicSeconds) {
        self.limits = limits
        self.clock = clock
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

    // MARK: - Writing

    /// Stores a new scene (`POST /scenes`): 409 if `id` exists, 507 when
    /// full. Without an id, one is generated. `weight` is the size of the
    /// JSON it came as, counted against `maxStoreBytes`.
    public func create(_ scene: Scene, weight: Int = 0) throws(Problem) -> SceneSnapshot {
        let live = LiveScene(scene)  // compile outside any lock
        if let problem = live.compiled.numericProblem { throw Problem.invalidScene(problem) }
        return try entries.withLock { (table) throws(Problem) -> SceneSnapshot in
            var id = scene.id ?? ""
            if scene.id == nil {
                repeat { id = "scene-\(nextID.wrappingAdd(1, ordering: .relaxed).oldValue)" } while table.scenes[id] != nil
            } else if table.scenes[id] != nil {
                throw Problem(409, "conflict", "Conflict", "a scene with id \"\(id)\" exists; PUT /scenes/\(id) replaces it")
            }
            try checkRoom(table, adding: weight, replacing: nil)
            let snapshot = SceneSnapshot(id: id, version: 1, live: live)
            table.set(id, Entry(.init(snapshot: snapshot, sessions: newSessions())), weight: weight)
            return snapshot
        }
    }

    /// Creates or replaces scene `id` (`PUT`). Replacing drops every capture
    /// (each pointer's next event says so) and bumps the version.
    /// - Returns: the snapshot and whether it was created.
    public func put(_ scene: Scene, id: String, weight: Int = 0) throws(Problem) -> (SceneSnapshot, created: Bool) {
        var scene = scene
        scene.id = id
        let live = LiveScene(scene)
        if let problem = live.compiled.numericProblem { throw Problem.invalidScene(problem) }
        return try entries.withLock { (table) throws(Problem) -> (SceneSnapshot, created: Bool) in
            try checkRoom(table, adding: weight, replacing: id)
            if let entry = table.scenes[id] {
                table.set(id, entry, weight: weight)
                let snapshot = entry.state.withLock { state in
                    state.snapshot = SceneSnapshot(id: id, version: state.snapshot.version + 1, live: live)
                    state.sessions.dropAllCaptures()
                    return state.snapshot
                }
                return (snapshot, false)
            }
            let snapshot = SceneSnapshot(id: id, version: 1, live: live)
            table.set(id, Entry(.init(snapshot: snapshot, sessions: newSessions())), weight: weight)
            return (snapshot, true)
        }
    }

    /// Removes scene `id` with its captures; false if there was none.
    public func delete(_ id: String) -> Bool {
        entries.withLock { $0.remove(id) }
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
            try state.changeInPlace { (live, version) throws(Problem) -> Bool in
                try change(&live, version)
                return true
            }
            state.sessions.dropCaptures(missingFrom: state.snapshot.compiled)
            return state.snapshot
        }
    }

    /// Applies one pointer event to scene `id` (SPEC §5), in arrival order
    /// with the scene's other events.
    /// - Returns: the outcome and the snapshot it was answered from (a drag
    ///   publishes the next version first).
    public func pointerEvent(
        _ id: String, pointer: String, phase: PointerSessions.Phase, at point: Point, trace: Bool, all: Bool
    ) throws(Problem) -> (PointerSessions.Outcome, SceneSnapshot) {
        guard let entry = entries.withLock({ $0.scenes[id] }) else { throw Problem.notFound("no scene \"\(id)\"") }
        let now = clock()
        let limits = self.limits
        return try entry.state.withLock { (state) throws(Problem) -> (PointerSessions.Outcome, SceneSnapshot) in
            var sessions = state.sessions
            var outcome: PointerSessions.Outcome?
            try state.changeInPlace { (live, _) throws(Problem) -> Bool in
                do throws(PointerSessions.Refusal) {
                    outcome = try sessions.apply(
                        pointer: pointer, phase: phase, at: point, to: &live, trace: trace, all: all, now: now)
                } catch {
                    switch error {
                    case .tooManyPointers:
                        throw Problem(429, "too-many-pointers", "Too many pointers",
                                      "scene \"\(id)\" already holds \(limits.maxPointers) pointer captures; release one (up or cancel) or wait \(Int(limits.captureTimeout)) s for one to expire")
                    case .moveOverflows(let layer, let problem):
                        throw Problem(422, "invalid-request", "Invalid request",
                                      "dragging layer \"\(layer)\" to this point would take its scene beyond the finite range (\(problem.message)); nothing moved and the capture stays",
                                      issues: [ValidationIssue(pointer: "", message: "moves layer \"\(layer)\" too far")])
                    }
                }
                return outcome!.moved  // `!`: set, since apply did not throw
            }
            state.sessions = sessions
            return (outcome!, state.snapshot)
        }
    }

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
