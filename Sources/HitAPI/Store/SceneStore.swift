import Glibc
import HitBase
import HitJournal
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
        /// `LoopCost` bits seen so far (`isCostly`).
        let costly = Atomic<UInt8>(0)
        init(_ live: LiveScene) { self.live = live }
    }

    /// What was found too costly for an event loop in one version.
    public enum LoopCost: UInt8, Sendable {
        /// A single point read more than `Configuration.loopHitWork`.
        case points = 1
        /// A batch outgrew the loop's share (`Configuration.loopBatchWork`).
        case batches = 2
    }

    /// Whether this version was seen to cost that much: its hits (for
    /// `.points`) or batches then start on a worker thread, not on an
    /// event loop. A new version starts clear.
    public func isCostly(_ cost: LoopCost) -> Bool { box.costly.load(ordering: .relaxed) & cost.rawValue != 0 }

    /// Notes that this version costs that much.
    public func markCostly(_ cost: LoopCost) { box.costly.bitwiseOr(cost.rawValue, ordering: .relaxed) }

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
        /// Bytes the store holds at most, over all scenes: each scene's JSON
        /// as submitted (a scene takes about 2–3 times its JSON in memory)
        /// plus its decoded masks (`Scene.maskBytes`), moved by every patch
        /// (`LayerPatch.apply`); more is 507. Default 2 GiB.
        public var maxStoreBytes = 2 << 30
        public init() {}
    }

    /// The scenes by id.
    struct Table {
        var scenes: [String: Entry] = [:]
    }

    /// What each scene weighs against `maxStoreBytes` (its JSON as
    /// submitted, moved by each patch, plus its mask bytes), and the sum.
    ///
    /// Behind its own lock, always taken last and held for a few
    /// operations, so that a patch can weigh its scene while it holds that
    /// scene's lock (the table's lock is taken before a scene's, never
    /// after). A scene's weight changes only under its own lock (patch,
    /// replacement) or while the table's lock keeps its id from anyone
    /// else (create, delete, whose entry is marked removed first).
    struct Weights {
        var byID: [String: Weight] = [:]
        /// The sum of every scene's `total`.
        var bytes = 0

        /// Sets `id`'s weight; returns the one before (nil: none).
        @discardableResult
        mutating func set(_ id: String, _ weight: Weight?) -> Weight? {
            let previous = weight.map { byID.updateValue($0, forKey: id) } ?? byID.removeValue(forKey: id)
            bytes += (weight?.total ?? 0) - (previous?.total ?? 0)
            return previous
        }
    }

    /// What one scene weighs.
    struct Weight: Equatable {
        /// Bytes counted against `maxStoreBytes`: JSON and mask bytes.
        var total: Int
        /// The JSON part: as submitted, moved by each patch's rendering.
        var json: Int

        /// After a patch: never below zero (the JSON a layer was submitted
        /// as can be shorter than its rendering), saturating.
        func changed(by c: LayerPatch.WeightChange) -> Weight {
            Weight(total: Self.add(total, c.total), json: Self.add(json, c.json))
        }

        private static func add(_ a: Int, _ b: Int) -> Int {
            let (sum, overflow) = a.addingReportingOverflow(b)
            return overflow ? (b > 0 ? .max : 0) : max(0, sum)
        }
    }

    let entries = Mutex(Table())
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
        try create(upload.scene, weight: upload.weight, json: upload.json, jsonBytes: upload.jsonBytes)
    }

    public func create(_ scene: Scene, weight: Int = 0, json: [UInt8] = [], jsonBytes: Int? = nil) throws(Problem) -> SceneSnapshot {
        let weight = Weight(total: weight, json: jsonBytes ?? weight)
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
            try checkCount(table, adding: id)
            try admit(id, weight: weight) { () throws(Problem) in try ticket.append(.upload(id: id, version: 1, json: json)) }
            let snapshot = SceneSnapshot(id: id, version: 1, live: live)
            table.scenes[id] = Entry(.init(snapshot: snapshot, sessions: newSessions()))
            return snapshot
          }
        }
    }

    /// Creates or replaces scene `id` (`PUT`). Replacing drops every capture
    /// (each pointer's next event says so) and bumps the version.
    /// - Returns: the snapshot and whether it was created.
    public func put(_ upload: SceneUpload, id: String) throws(Problem) -> (SceneSnapshot, created: Bool) {
        try put(upload.scene, id: id, weight: upload.weight, json: upload.json, jsonBytes: upload.jsonBytes)
    }

    public func put(_ scene: Scene, id: String, weight: Int = 0, json: [UInt8] = [], jsonBytes: Int? = nil) throws(Problem) -> (SceneSnapshot, created: Bool) {
        let weight = Weight(total: weight, json: jsonBytes ?? weight)
        var scene = scene
        scene.id = id
        let live = compile(scene)
        if let problem = live.compiled.numericProblem { throw Problem.invalidScene(problem) }
        return try logged { (ticket) throws(Problem) -> (SceneSnapshot, created: Bool) in
          try entries.withLock { (table) throws(Problem) -> (SceneSnapshot, created: Bool) in
            if let entry = table.scenes[id] {
                // Weighed under the scene's lock, so that no patch of it weighs in between.
                let snapshot = try entry.state.withLock { (state) throws(Problem) -> SceneSnapshot in
                    try admit(id, weight: weight) { () throws(Problem) in
                        try ticket.append(.upload(id: id, version: try SceneStore.version(after: state.snapshot.version), json: json))
                    }
                    state.snapshot = SceneSnapshot(id: id, version: state.snapshot.version + 1, live: live)
                    state.sessions.dropAllCaptures()
                    return state.snapshot
                }
                return (snapshot, false)
            }
            try checkCount(table, adding: id)
            try admit(id, weight: weight) { () throws(Problem) in try ticket.append(.upload(id: id, version: 1, json: json)) }
            let snapshot = SceneSnapshot(id: id, version: 1, live: live)
            table.scenes[id] = Entry(.init(snapshot: snapshot, sessions: newSessions()))
            return (snapshot, true)
          }
        }
    }

    /// Removes scene `id` with its captures; false if there was none.
    public func delete(_ id: String) throws(Problem) -> Bool {
        try logged { (ticket) throws(Problem) -> Bool in
            // Taken out under the lock, freed after it (O(the scene's size)),
            // so that no other request waits on the table meanwhile.
            let removed = try entries.withLock { (table) throws(Problem) -> Entry? in
                guard let entry = table.scenes[id] else { return nil }
                try entry.state.withLock { (state) throws(Problem) in
                    try ticket.append(.delete(id: id, version: state.snapshot.version))
                    state.removed = true
                }
                table.scenes[id] = nil
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
                // Weighed and journaled once checked, before the scene changes:
                // a refused patch (507, a failed append) leaves it as it was.
                let applied = try patch.apply(to: &live, version: version, sceneID: id) { (change) throws(Problem) in
                    try admit(id, patch, change: change) { () throws(Problem) in
                        try ticket.append(.patch(id: id, version: try SceneStore.version(after: version), layer: patch.layerID, json: patch.json))
                    }
                }
                patched = applied.layer
                ticket.noteReplayCost(work: applied.work, layers: live.compiled.layerCount, jsonBytes: jsonBytes(of: id))
            }
        }
        return (snapshot, patched)
    }

    public func pointerEvent(_ id: String, _ event: PointerEvent) throws(Problem) -> (PointerSessions.Outcome, SceneSnapshot) {
        try logged { (ticket) throws(Problem) -> (PointerSessions.Outcome, SceneSnapshot) in
            try pointerEvent(id, event, ticket: &ticket)
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
        _ id: String, pointer: PointerKey, phase: PointerSessions.Phase, type: PointerType = .mouse, at point: Point, trace: Bool, all: Bool
    ) throws(Problem) -> (PointerSessions.Outcome, SceneSnapshot) {
        var ticket = LogTicket(log: nil)
        return try pointerEvent(
            id, PointerEvent(pointer: pointer, phase: phase, type: type, point: point, trace: trace, all: all), ticket: &ticket)
    }

    private func pointerEvent(
        _ id: String, _ event: PointerEvent, ticket: inout LogTicket
    ) throws(Problem) -> (PointerSessions.Outcome, SceneSnapshot) {
        let (pointer, phase) = (event.pointer, event.phase)
        guard let entry = entries.withLock({ $0.scenes[id] }) else { throw Problem.notFound("no scene \"\(id)\"") }
        let now = clock()
        let limits = self.limits
        return try entry.state.withLock { (state) throws(Problem) -> (PointerSessions.Outcome, SceneSnapshot) in
            if state.removed { throw Problem.notFound("no scene \"\(id)\"") }
            var sessions = state.sessions
            var outcome: PointerSessions.Outcome?
            try state.changeInPlace { (live, version) throws(Problem) -> Bool in
                // The layer a move or up may drag, as it is: a drag moves it
                // before its record is written, and a refused record must
                // leave it where it was (the version does not grow).
                let held = phase == .down ? nil : sessions.capture(of: pointer).flatMap { live.compiled.indexByID[$0.layer] }.map(Int.init)
                let before = held.map { live.model.layer(at: live.compiled.modelPath(of: $0)) }
                do throws(PointerSessions.Refusal) {
                    outcome = try sessions.apply(
                        pointer: pointer, phase: phase, type: event.type, at: event.point, to: &live,
                        trace: event.trace, all: event.all, now: now)
                } catch {
                    throw Problem.refused(error, scene: id, maxPointers: limits.maxPointers, captureTimeout: limits.captureTimeout)
                }
                if outcome!.moved, let n = outcome!.result.target {
                    let moved = live.model.layer(at: live.compiled.modelPath(of: n)).transform.translation
                    do throws(Problem) {
                        try ticket.append(.drag(id: id, version: try SceneStore.version(after: version), layer: live.compiled.ids[n], translation: moved))
                    } catch {
                        if let held, held == n, let before { live.replaceLayer(n, with: before) }
                        throw error
                    }
                }
                return outcome!.moved  // `!`: set, since apply did not throw
            }
            state.sessions = sessions
            return (outcome!, state.snapshot)
        }
    }

    // MARK: - Recovery (journal replay: no log, no limits)

    /// Sets scene `id` to `scene` at `version` (a replayed upload), weighing
    /// `json` bytes of JSON and `scene.maskBytes` as the upload did.
    func restore(_ id: String, scene: Scene, version: Int, json: Int) {
        let weight = Weight(total: json + scene.maskBytes, json: json)
        var scene = scene
        scene.id = id
        let snapshot = SceneSnapshot(id: id, version: version, live: LiveScene(scene))
        entries.withLock { table in
            table.scenes[id] = Entry(.init(snapshot: snapshot, sessions: newSessions()))
            weights.withLock { _ = $0.set(id, weight) }
        }
    }

    /// Removes scene `id` (a replayed delete); false if there was none.
    func restoreDelete(_ id: String) -> Bool {
        entries.withLock { table in
            guard table.scenes.removeValue(forKey: id) != nil else { return false }
            weights.withLock { _ = $0.set(id, nil) }
            return true
        }
    }

    /// Changes scene `id` and sets its version to `version` (a replayed
    /// patch or drag); `change` returns how the scene's weight changed
    /// (a patch's `admit` figure; nil for a drag, which moves a layer and
    /// keeps what the scene holds), applied as the live store applied it,
    /// without limits. Throws what `change` throws, or 404.
    func restoreChange(
        _ id: String, version: Int, _ change: (inout LiveScene, _ current: Int) throws(Problem) -> LayerPatch.WeightChange?
    ) throws(Problem) {
        guard let entry = entries.withLock({ $0.scenes[id] }) else { throw Problem.notFound("no scene \"\(id)\"") }
        try entry.state.withLock { (state) throws(Problem) in
            var weightChange: LayerPatch.WeightChange?
            try state.changeInPlace { (live, current) throws(Problem) -> Bool in
                weightChange = try change(&live, current)
                return true
            }
            state.snapshot = SceneSnapshot(id: id, version: version, live: state.snapshot.live)
            if let weightChange {
                weights.withLock { w in _ = w.set(id, (w.byID[id] ?? Weight(total: 0, json: 0)).changed(by: weightChange)) }
            }
        }
    }

    /// Bytes held over all scenes as `maxStoreBytes` counts them (what
    /// compaction weighs the journal against, and `/metrics` shows).
    var storedBytes: Int { weights.withLock { $0.bytes } }

    /// What scene `id` weighs against `maxStoreBytes`; nil when there is none.
    func weight(of id: String) -> Int? { weights.withLock { $0.byID[id]?.total } }

    /// The JSON part of scene `id`'s weight (0 for none).
    func jsonBytes(of id: String) -> Int { weights.withLock { $0.byID[id]?.json ?? 0 } }

    private func newSessions() -> PointerSessions {
        PointerSessions(maxPointers: limits.maxPointers, idleTimeout: limits.captureTimeout)
    }

    /// 507 when `id` would be one scene more than `maxScenes`.
    /// The version after `version`, checked before a change is recorded:
    /// 507 past ``JournalRecord/maxVersion`` (2^62), the largest a journal
    /// record holds, so that no change is written that a restart would
    /// refuse. Only a scene restored from a hand-made snapshot comes near
    /// it; below it, no version here (`+ 1` on publishing included) overflows.
    static func version(after version: Int) throws(Problem) -> Int {
        guard version < Int(JournalRecord.maxVersion) else {
            throw Problem(507, "store-full", "Store full",
                          "the scene is at version \(version), the largest a journal record holds; DELETE it and PUT it again to start over at 1")
        }
        return version + 1
    }

    private func checkCount(_ table: Table, adding id: String) throws(Problem) {
        if table.scenes[id] == nil && table.scenes.count >= limits.maxScenes {
            throw Problem(507, "store-full", "Store full", "the store holds its maximum of \(limits.maxScenes) scenes; delete one first")
        }
    }

    /// Sets scene `id`'s weight to `weight` (in place of its own, when it
    /// has one) unless the store would pass `maxStoreBytes` (507), then
    /// runs `then` (the journal append); when `then` throws, the weight
    /// before is put back. The caller holds the table's lock (a new id) or
    /// the scene's (a replacement).
    private func admit(_ id: String, weight: Weight, then: () throws(Problem) -> Void) throws(Problem) {
        let budget = limits.maxStoreBytes
        let previous = try weights.withLock { (w) throws(Problem) -> Weight? in
            let existing = w.byID[id]?.total ?? 0
            if w.bytes - existing > budget - weight.total {
                throw Problem(507, "store-full", "Store full",
                              "the scenes stored came as \(w.bytes) bytes of JSON; this one would pass the store's budget of \(budget) (--max-store-bytes); delete a scene first")
            }
            return w.set(id, weight)
        }
        try run(then, orRestore: id, to: previous)
    }

    /// Runs `then` (the journal append); when it throws, sets `id`'s
    /// weight back to `previous`.
    private func run(_ then: () throws(Problem) -> Void, orRestore id: String, to previous: Weight?) throws(Problem) {
        do throws(Problem) {
            try then()
        } catch {
            weights.withLock { _ = $0.set(id, previous) }
            throw error
        }
    }

    /// Moves scene `id`'s weight by a patch's `change` (the caller holds
    /// the scene's lock) unless the store would pass `maxStoreBytes`: the
    /// check of a replacement of the scene by its patched self, so 507
    /// with nothing changed. A patch that does not grow the scene is always
    /// admitted (it can only free room). A patch that grows the scene's
    /// JSON past what an upload may carry is a 413 (`checkSceneSize`).
    /// Then runs `then` as `admit` does.
    private func admit(_ id: String, _ patch: LayerPatch, change: LayerPatch.WeightChange, then: () throws(Problem) -> Void) throws(Problem) {
        let budget = limits.maxStoreBytes
        let previous = try weights.withLock { (w) throws(Problem) -> Weight? in
            let existing = w.byID[id] ?? Weight(total: 0, json: 0)
            let weight = existing.changed(by: change)
            try patch.checkSceneSize(weight.json, growth: change.json)
            if weight.total > existing.total && w.bytes - existing.total > budget - weight.total {
                throw Problem(507, "store-full", "Store full",
                              "the scenes stored weigh \(w.bytes) bytes (their JSON and decoded masks); this patch would bring scene \"\(id)\" from \(existing.total) to \(weight.total) bytes, past the store's budget of \(budget) (--max-store-bytes); delete a scene or shrink a layer first")
            }
            return w.set(id, weight)
        }
        try run(then, orRestore: id, to: previous)
    }


}
