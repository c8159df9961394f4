import Glibc
import HitRouting
import Synchronization

/// An immutable, versioned scene as stored: what one request routes against.
public struct SceneSnapshot: Sendable {
    public let id: String
    public let version: Int
    public let live: LiveScene

    public var compiled: CompiledScene { live.compiled }

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
        public init() {}
    }

    private let entries = Mutex<[String: Entry]>([:])
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
        guard let entry = entries.withLock({ $0[id] }) else { return nil }
        return entry.state.withLock { $0.snapshot }
    }

    /// Snapshots of every scene, ordered by id.
    public func all() -> [SceneSnapshot] {
        let list = entries.withLock { Array($0.values) }
        return list.map { entry in entry.state.withLock { $0.snapshot } }.sorted { $0.id < $1.id }
    }

    // MARK: - Writing

    /// Stores a new scene (`POST /scenes`): 409 if `id` exists, 507 when full.
    /// Without an id, one is generated.
    public func create(_ scene: Scene) throws(Problem) -> SceneSnapshot {
        let live = LiveScene(scene)  // compile outside any lock
        return try entries.withLock { (entries) throws(Problem) -> SceneSnapshot in
            var id = scene.id ?? ""
            if scene.id == nil {
                repeat { id = "scene-\(nextID.wrappingAdd(1, ordering: .relaxed).oldValue)" } while entries[id] != nil
            } else if entries[id] != nil {
                throw Problem(409, "conflict", "Conflict", "a scene with id \"\(id)\" exists; PUT /scenes/\(id) replaces it")
            }
            guard entries.count < limits.maxScenes else { throw storeFull() }
            let snapshot = SceneSnapshot(id: id, version: 1, live: live)
            entries[id] = Entry(.init(snapshot: snapshot, sessions: newSessions()))
            return snapshot
        }
    }

    /// Creates or replaces scene `id` (`PUT`). Replacing drops every capture
    /// (each pointer's next event says so) and bumps the version.
    /// - Returns: the snapshot and whether it was created.
    public func put(_ scene: Scene, id: String) throws(Problem) -> (SceneSnapshot, created: Bool) {
        var scene = scene
        scene.id = id
        let live = LiveScene(scene)
        return try entries.withLock { (entries) throws(Problem) -> (SceneSnapshot, created: Bool) in
            if let entry = entries[id] {
                let snapshot = entry.state.withLock { state in
                    state.snapshot = SceneSnapshot(id: id, version: state.snapshot.version + 1, live: live)
                    state.sessions.dropAllCaptures()
                    return state.snapshot
                }
                return (snapshot, false)
            }
            guard entries.count < limits.maxScenes else { throw storeFull() }
            let snapshot = SceneSnapshot(id: id, version: 1, live: live)
            entries[id] = Entry(.init(snapshot: snapshot, sessions: newSessions()))
            return (snapshot, true)
        }
    }

    /// Removes scene `id` with its captures; false if there was none.
    public func delete(_ id: String) -> Bool {
        entries.withLock { $0.removeValue(forKey: id) != nil }
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
        guard let entry = entries.withLock({ $0[id] }) else { throw Problem.notFound("no scene \"\(id)\"") }
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
        guard let entry = entries.withLock({ $0[id] }) else { throw Problem.notFound("no scene \"\(id)\"") }
        let now = clock()
        let limits = self.limits
        return try entry.state.withLock { (state) throws(Problem) -> (PointerSessions.Outcome, SceneSnapshot) in
            var sessions = state.sessions
            var outcome: PointerSessions.Outcome?
            try state.changeInPlace { (live, _) throws(Problem) -> Bool in
                do {
                    outcome = try sessions.apply(
                        pointer: pointer, phase: phase, at: point, to: &live, trace: trace, all: all, now: now)
                } catch {
                    throw Problem(429, "too-many-pointers", "Too many pointers",
                                  "scene \"\(id)\" already holds \(limits.maxPointers) pointer captures; release one (up or cancel) or wait \(Int(limits.captureTimeout)) s for one to expire")
                }
                return outcome!.moved
            }
            state.sessions = sessions
            return (outcome!, state.snapshot)
        }
    }

    private func newSessions() -> PointerSessions {
        PointerSessions(maxPointers: limits.maxPointers, idleTimeout: limits.captureTimeout)
    }

    private func storeFull() -> Problem {
        Problem(507, "store-full", "Store full", "the store holds its maximum of \(limits.maxScenes) scenes; delete one first")
    }
}

/// Seconds since an arbitrary point, never going backwards.
@Sendable
public func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
