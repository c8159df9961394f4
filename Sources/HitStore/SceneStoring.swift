import HitRouting
import RESPClient

/// What the API layer asks of a store, whichever backend holds the scenes:
/// memory only (`SceneStore`), a local journal (`JournalStore`) or a store
/// shared by replicas (`RedisSceneStore`). Callers speak only this
/// protocol: they ask ``capabilities`` what a store can do, never which
/// type it is. ``StoreFactory`` picks the backend from the configuration.
///
/// Contract for every backend (run against all three by the store
/// contract tests):
/// - Reads answer from memory (a snapshot is two retains); a shared store
///   may answer a scene it does not hold by fetching it
///   (``StoreCapabilities/readsMayBlock``), and throws
///   ``StoreError/unavailable(_:)`` when it cannot.
/// - A write returns only once the change is as durable as the backend
///   promises (journal appended and, with `--fsync always`, synced; Redis
///   acknowledged). A write that cannot be made durable throws
///   ``StoreError/unavailable(_:)`` (or ``StoreError/full(_:_:)`` of
///   `.disk`) and is never acknowledged.
/// - Writes carry what the client submitted (the JSON of an upload, the
///   merge patch of a patch) so a backend can persist it as given.
/// - Pointer captures live in the process that took the `down`: they are
///   never persisted.
/// - Every failure is a ``StoreError``; no store asks which thread it runs
///   on. Where a call may block is stated by ``capabilities``, and the
///   caller decides where to run it.
public protocol SceneStoring: AnyObject, Sendable {
    /// What this store can do and promises.
    var capabilities: StoreCapabilities { get }
    /// Where the scenes are, for the start-up log (never a credential).
    var location: String { get }
    /// The current snapshot of scene `id`, nil when there is none. May
    /// fetch when ``StoreCapabilities/readsMayBlock`` and the scene is not
    /// resident.
    func snapshot(_ id: String) throws(StoreError) -> SceneSnapshot?
    /// The snapshot of `id` at `minVersion` or later when the store has
    /// it (`X-Min-Version`): a copy older than that is fetched first
    /// (``StoreCapabilities/honoursMinVersion``; others return the current one).
    func snapshot(_ id: String, minVersion: Int) throws(StoreError) -> SceneSnapshot?
    /// The snapshot of `id` if this process holds it now, without waiting
    /// on anything (nil: not held, or no such scene). O(1).
    func residentSnapshot(_ id: String) -> SceneSnapshot?
    /// The summary of every scene, ordered by id (`GET /scenes`).
    func summaries() throws(StoreError) -> [SceneSummary]
    /// Stores a new scene (`POST /scenes`): `.conflict` if its id exists,
    /// `.full` when full; without an id the store generates one.
    func create(_ upload: SceneUpload) throws(StoreError) -> SceneSnapshot
    /// Creates or replaces scene `id` (`PUT`); replacing drops every capture.
    func put(_ upload: SceneUpload, id: String) throws(StoreError) -> (SceneSnapshot, created: Bool)
    /// Removes scene `id` with its captures; false if there was none.
    func delete(_ id: String) throws(StoreError) -> Bool
    /// Merge-patches one layer (`PATCH /scenes/{id}/layers/{layerId}`):
    /// `.notFound` for an unknown scene or layer, `.preconditionFailed`
    /// when `If-Match` fails, `.invalidPatch`/`.invalidScene`/`.notFinite`
    /// when the patched layer is invalid. Returns the snapshot after and the layer.
    func patch(_ id: String, _ patch: LayerPatch) throws(StoreError) -> (SceneSnapshot, Layer)
    /// Applies one pointer event in arrival order with the scene's other
    /// changes; a drag publishes (and persists) the next version before it
    /// answers.
    func pointerEvent(_ id: String, _ event: PointerEvent) throws(StoreError) -> (PointerSessions.Outcome, SceneSnapshot)
    /// Routes every remembered pointer of `namespace` in scene `id` again
    /// at its last point against the scene's current version (the scene
    /// changed under it), and returns that version with the pointers whose
    /// hovered set or target changed since their previous answer or push,
    /// by pointer id (`PointerSessions.refresh`): what a stream pushes. Nil
    /// when the store holds no such scene here. Never waits on another process.
    func refreshPointers(_ id: String, namespace: UInt64) -> (SceneSnapshot, [PointerSessions.Change])?
    /// Forgets every pointer of `namespace` in scene `id`, releasing their
    /// captures (a stream closed).
    func forgetPointers(_ id: String, namespace: UInt64)
    /// Installs `observer`, called (on any thread, soon after) for each
    /// change to a scene that this process learns of from elsewhere: in a
    /// shared store, another replica's writes, once this replica's copy
    /// follows them (or the scene is gone). Changes made through this
    /// store's own calls are not reported (their caller knows of them);
    /// a store no other process writes never calls it. One observer: a
    /// second call replaces the first. `observer` must not block.
    func observeChanges(_ observer: @escaping @Sendable (SceneChange) -> Void)
    /// Whether writes can be taken now (for `/readyz`). Never waits on
    /// another process: it reports what the store last saw.
    func health() -> StoreHealth
    /// What the store holds, for metrics. O(scenes held), no round trip.
    func stats() -> StoreStats
    /// How long this process took to compile uploads (metrics).
    var compileTimes: CompileTimes { get }
    /// A shared store's cache of compiled scenes (metrics); nil for others.
    var cacheStats: CacheStats? { get }
    /// A remote store's exchanges with its server (metrics); nil for a
    /// store in this process.
    var remoteStatistics: RedisStatistics? { get }
    /// Loads what the store holds before it serves (a journal's recovery,
    /// while ``health()`` says `.starting`); then background work begins.
    /// Memory and Redis stores have nothing to load.
    func start() throws
    /// Stops background work (maintenance, subscriptions) and releases
    /// what the store holds (a directory lock). Idempotent.
    func close()
}

/// A decoded upload and the JSON it came as.
public struct SceneUpload: Sendable {
    public var scene: Scene
    /// The request body as submitted; empty unless the store asked for it
    /// (``StoreCapabilities/keepsSubmittedJSON``).
    public var json: [UInt8]
    /// Bytes counted against `--max-store-bytes`: the JSON the upload came
    /// as plus its decoded masks (`Scene.maskBytes`).
    public var weight: Int
    /// The part of `weight` that is JSON (what a later patch may grow only
    /// up to what an upload may carry).
    public var jsonBytes: Int

    public init(scene: Scene, json: [UInt8] = [], weight: Int, jsonBytes: Int? = nil) {
        self.scene = scene
        self.json = json
        self.weight = weight
        self.jsonBytes = jsonBytes ?? weight
    }
}

/// One pointer event of a hit (SPEC §5, §11.1), in scene coordinates.
public struct PointerEvent: Sendable {
    /// The pointer, in its client's namespace (``PointerKey/http`` or a stream's).
    public var pointer: PointerKey
    public var phase: PointerSessions.Phase
    public var type: PointerType
    public var point: Point
    public var trace: Bool
    public var all: Bool

    public init(pointer: PointerKey, phase: PointerSessions.Phase, type: PointerType = .mouse, point: Point, trace: Bool, all: Bool) {
        self.pointer = pointer
        self.phase = phase
        self.type = type
        self.point = point
        self.trace = trace
        self.all = all
    }
}

/// A change to one scene that a store learned of from elsewhere
/// (``SceneStoring/observeChanges(_:)``).
public enum SceneChange: Sendable, Equatable {
    /// Scene `id` may be at a new version (read it to know which).
    case changed(String)
    /// Scene `id` was deleted.
    case deleted(String)
}

/// Whether a store takes writes (SPEC §4.3 `/readyz`, §9, §10).
public enum StoreHealth: Sendable, Equatable {
    case ready
    /// Still loading (recovery at start): reads and writes are refused.
    case starting(String)
    /// Writes fail (a failed journal write or sync, Redis unreachable);
    /// hits on the scenes in memory go on.
    case unavailable(String)
}
