/// What a store promises about itself, so that callers ask what it can do
/// rather than which backend it is (placement of work, `X-Min-Version`,
/// uploads, metrics).
public struct StoreCapabilities: Sendable, Equatable {
    /// The backend's name for metrics and logs: `memory`, `journal`, `redis`.
    public var backend: String
    /// Whether a read of a scene that is not resident (``SceneStoring/residentSnapshot(_:)``
    /// is nil) may wait on another process (a cache miss fetched over the
    /// network). False: every read answers from memory.
    public var readsMayBlock: Bool
    /// Whether a write (and a pointer event, which may write or look up a
    /// capture) may wait on another process: a network round trip, not a
    /// local append.
    public var writesMayBlock: Bool
    /// Whether other processes (replicas) share the scenes.
    public var shared: Bool
    /// Whether ``SceneStoring/snapshot(_:minVersion:)`` may fetch a newer
    /// version than the one held (`X-Min-Version`): only a shared store
    /// can be behind.
    public var honoursMinVersion: Bool
    /// Whether uploads must carry the JSON as submitted (`SceneUpload.json`):
    /// a store that writes it as given says yes; one that does not lets a
    /// big body be freed before it is compiled.
    public var keepsSubmittedJSON: Bool

    public init(
        backend: String, readsMayBlock: Bool, writesMayBlock: Bool, shared: Bool, honoursMinVersion: Bool,
        keepsSubmittedJSON: Bool
    ) {
        self.backend = backend
        self.readsMayBlock = readsMayBlock
        self.writesMayBlock = writesMayBlock
        self.shared = shared
        self.honoursMinVersion = honoursMinVersion
        self.keepsSubmittedJSON = keepsSubmittedJSON
    }
}
