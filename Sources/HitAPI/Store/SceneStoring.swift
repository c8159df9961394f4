import HitJSON
import HitRouting

/// What the API layer asks of a store, whichever backend holds the scenes:
/// memory only (`SceneStore`), a local journal (`--data-dir`) or a remote
/// store (Redis). Handlers speak only this protocol.
///
/// Contract for every backend:
/// - Reads answer from memory (a snapshot is two retains); a remote backend
///   may answer a cache miss by fetching, and fail with 503
///   `/problems/store-unavailable` when it cannot.
/// - A write returns only once the change is as durable as the backend
///   promises (journal appended and, with `--fsync always`, synced; Redis
///   acknowledged). A write that cannot be made durable throws 503
///   `/problems/store-unavailable` (or 507 `/problems/store-full` when the
///   medium is full) and is never acknowledged.
/// - Writes carry what the client submitted (the JSON of an upload, the
///   merge patch of a patch) so a backend can persist it as given.
/// - Pointer captures live in the process that took the `down` (SPEC §5,
///   §9, §10): they are never persisted.
public protocol SceneStoring: AnyObject, Sendable {
    /// The current snapshot of scene `id`, nil when there is none.
    func snapshot(_ id: String) throws(Problem) -> SceneSnapshot?
    /// The snapshot of `id` at `minVersion` or later when the store has
    /// it (`X-Min-Version`): a cache older than that fetches first.
    func snapshot(_ id: String, minVersion: Int) throws(Problem) -> SceneSnapshot?
    /// The summary of every scene, ordered by id (`GET /scenes`).
    func summaries() throws(Problem) -> [SceneSummary]
    /// Stores a new scene (`POST /scenes`): 409 if its id exists, 507 when
    /// full; without an id the store generates one.
    func create(_ upload: SceneUpload) throws(Problem) -> SceneSnapshot
    /// Creates or replaces scene `id` (`PUT`); replacing drops every capture.
    func put(_ upload: SceneUpload, id: String) throws(Problem) -> (SceneSnapshot, created: Bool)
    /// Removes scene `id` with its captures; false if there was none.
    func delete(_ id: String) throws(Problem) -> Bool
    /// Merge-patches one layer (`PATCH /scenes/{id}/layers/{layerId}`):
    /// 404 unknown scene or layer, 412 when `If-Match` fails, 422 when the
    /// patched layer is invalid. Returns the snapshot after and the layer.
    func patch(_ id: String, _ patch: LayerPatch) throws(Problem) -> (SceneSnapshot, Layer)
    /// Applies one pointer event (SPEC §5) in arrival order with the
    /// scene's other changes; a drag publishes (and persists) the next
    /// version before it answers.
    func pointerEvent(_ id: String, _ event: PointerEvent) throws(Problem) -> (PointerSessions.Outcome, SceneSnapshot)
    /// Routes every remembered pointer of `namespace` in scene `id` again
    /// at its last point against the scene's current version (SPEC §11.1:
    /// the scene changed under it), and returns that version with the
    /// pointers whose hovered set or target changed since their previous
    /// answer or push, by pointer id (`PointerSessions.refresh`): what a
    /// stream pushes. Nil when the store holds no such scene here.
    func refreshPointers(_ id: String, namespace: UInt64) -> (SceneSnapshot, [PointerSessions.Change])?
    /// Forgets every pointer of `namespace` in scene `id`, releasing their
    /// captures (a stream closed).
    func forgetPointers(_ id: String, namespace: UInt64)
    /// Whether writes can be taken now (for `/readyz`).
    func health() -> StoreHealth
    /// Whether uploads must carry their submitted JSON (`SceneUpload.json`).
    /// A memory-only store says no, so a big body can be freed before it
    /// is compiled, as before.
    var keepsSubmittedJSON: Bool { get }
}

/// A decoded upload and the JSON it came as.
public struct SceneUpload: Sendable {
    public var scene: Scene
    /// The request body as submitted; empty unless the store asked for it
    /// (`SceneStoring.keepsSubmittedJSON`).
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

/// Whether a store takes writes (SPEC §4.3 `/readyz`, §9, §10).
public enum StoreHealth: Sendable, Equatable {
    case ready
    /// Still loading (recovery at start): hits and writes wait.
    case starting(String)
    /// Writes fail (a failed journal write or sync, Redis unreachable);
    /// hits on the scenes in memory go on.
    case unavailable(String)
}

extension Problem {
    /// 503 `/problems/store-unavailable`: the change was not made durable
    /// and is not acknowledged.
    public static func storeUnavailable(_ detail: String) -> Problem {
        var p = Problem(503, "store-unavailable", "Store unavailable", detail)
        p.headers.set("Retry-After", "1")
        return p
    }

    /// 507 `/problems/store-full`.
    public static func storeFull(_ detail: String) -> Problem {
        Problem(507, "store-full", "Store full", detail)
    }
}
