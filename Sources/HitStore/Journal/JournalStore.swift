import Dispatch
import Glibc
import HitJSON
import HitJournal
import HitRouting
import Synchronization

/// How the journal backend runs (SPEC §9; flags in `Configuration`).
public struct JournalOptions: Sendable {
    /// `--data-dir`: where the journal, snapshots and lock live.
    public var directory: String
    /// `--fsync`: when appended records reach the disk. Default everysec.
    public var fsync: SyncMode = .everysec
    /// `--repair`: at start, keep what is intact instead of refusing to
    /// start: a segment's valid prefix, every intact snapshot record, the
    /// files left when a listed one is missing (`JournalStore.recover`).
    public var repair = false
    /// `--compact-factor`: write a snapshot when the current segment holds
    /// more than this many times the live scenes' JSON. Default 4.
    public var compactFactor = 4.0
    /// No snapshot for a segment smaller than this. Default 16 MiB.
    public var compactMinBytes = 16 << 20

    public init(directory: String) { self.directory = directory }
}

/// The durable backend (`--data-dir`): the scenes live in memory (a
/// `SceneStore`, so hits are as fast as without a journal) and every change
/// is appended to a journal before it is acknowledged.
///
/// Life: `init` locks the directory (`flock`, so a second process cannot
/// share it); `recover()` loads the newest snapshot and replays the journal
/// while `/readyz` says 503; then a maintenance thread writes snapshots
/// when the journal outgrows the live data, and after a failed write or
/// sync rewrites a snapshot from memory into a new segment before writes
/// are taken again.
public final class JournalStore: SceneStoring {
    let options: JournalOptions
    let io: any FileIO
    let log: JournalLog
    let memory: SceneStore
    let say: @Sendable (String) -> Void
    /// The `flock`ed descriptor of `LOCK` (-1 once closed).
    let lockFD: Atomic<Int32>
    /// The current segment's sequence (snapshots are numbered after the
    /// segment they precede).
    let segment = Mutex<UInt64>(0)
    /// What `MANIFEST` lists now (rewritten at start and by every snapshot).
    let manifest = Mutex(JournalManifest(snapshot: nil, segments: []))
    let loaded = Atomic<Bool>(false)
    let stopping = Atomic<Bool>(false)
    let maintenanceDone = DispatchSemaphore(value: 0)
    /// What the last snapshot cost (for logs and benchmarks).
    let lastSnapshot = Mutex<SnapshotReport?>(nil)
    /// Bytes of the segments earlier runs wrote after the newest snapshot:
    /// replayed at every start until a snapshot replaces them, so they
    /// count toward compaction with the current segment's.
    let earlierSegmentBytes = Atomic<Int>(0)
    /// What replaying this start's segments cost beyond their bytes: the
    /// patches' replay costs (`LogTicket.replayCost`), added to
    /// `earlierSegmentBytes` once recovery ends.
    let replayedCost = Atomic<Int>(0)

    public struct SnapshotReport: Sendable {
        public var scenes: Int
        public var bytes: Int
        public var seconds: Double
        /// How long writes were held off (switching segments, taking snapshots).
        public var pause: Double
    }

    /// Locks `options.directory` (creating it when missing).
    /// - Throws: when the directory cannot be made or another process holds it.
    public init(
        options: JournalOptions, limits: SceneStore.Limits = .init(), io: any FileIO = PosixFileIO(),
        log say: @escaping @Sendable (String) -> Void = { _ in }
    ) throws(JournalIOError) {
        self.options = options
        self.io = io
        self.say = say
        try Files.makeDirectory(options.directory)
        lockFD = Atomic(try Files.lockDirectory(options.directory))
        log = JournalLog()
        memory = SceneStore(limits: limits, log: log)
    }

    deinit {
        let fd = lockFD.exchange(-1, ordering: .relaxed)
        if fd >= 0 { Glibc.close(fd) }
    }

    // MARK: - SceneStoring

    public func snapshot(_ id: String) throws(StoreError) -> SceneSnapshot? {
        guard loaded.load(ordering: .acquiring) else { throw StoreError.unavailable("the store is starting: recovering the journal") }
        return memory.snapshot(id)
    }

    public func summaries() throws(StoreError) -> [SceneSummary] {
        guard loaded.load(ordering: .acquiring) else { throw StoreError.unavailable("the store is starting: recovering the journal") }
        return memory.summaries()
    }

    public func create(_ upload: SceneUpload) throws(StoreError) -> SceneSnapshot { try memory.create(upload) }

    public func put(_ upload: SceneUpload, id: String) throws(StoreError) -> (SceneSnapshot, created: Bool) {
        try memory.put(upload, id: id)
    }

    public func delete(_ id: String) throws(StoreError) -> Bool { try memory.delete(id) }

    public func patch(_ id: String, _ patch: LayerPatch) throws(StoreError) -> (SceneSnapshot, Layer) {
        try memory.patch(id, patch)
    }

    public func pointerEvent(_ id: String, _ event: PointerEvent) throws(StoreError) -> (PointerSessions.Outcome, SceneSnapshot) {
        guard loaded.load(ordering: .acquiring) else { throw StoreError.unavailable("the store is starting: recovering the journal") }
        return try memory.pointerEvent(id, event)
    }

    public func refreshPointers(_ id: String, namespace: UInt64) -> (SceneSnapshot, [PointerSessions.Change])? {
        memory.refreshPointers(id, namespace: namespace)
    }

    public func forgetPointers(_ id: String, namespace: UInt64) { memory.forgetPointers(id, namespace: namespace) }

    public func health() -> StoreHealth { log.status.withLock { $0 } }

    /// In memory like the memory store; a write waits for its group
    /// commit (a local append, synced as `--fsync` says), not for another
    /// process; uploads keep their JSON, which the journal writes as given.
    public var capabilities: StoreCapabilities { memory.capabilities }

    /// The snapshot of `id`, once recovery has loaded the scenes.
    public func residentSnapshot(_ id: String) -> SceneSnapshot? {
        loaded.load(ordering: .acquiring) ? memory.snapshot(id) : nil
    }

    public func stats() -> StoreStats { memory.stats() }

    public var location: String { "a journal in \(options.directory)" }

    public var compileTimes: CompileTimes { memory.compileTimes }

    /// Recovers the journal (`recover()`).
    public func start() throws { try recover() }

    // MARK: - Shutdown

    /// Stops the maintenance thread, syncs what is buffered, refuses
    /// further writes and unlocks the directory.
    public func close() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if loaded.load(ordering: .acquiring) { maintenanceDone.wait() }
        log.status.withLock { $0 = .unavailable("the store is closed") }
        if let w = log.writer.withLock({ $0 }) {
            w.stop()
            try? w.sync()
        }
        let fd = lockFD.exchange(-1, ordering: .relaxed)
        if fd >= 0 { Glibc.close(fd) }
    }

    var directory: String { options.directory }

    func path(_ name: String) -> String { options.directory + "/" + name }
}
