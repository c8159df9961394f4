import Glibc
import Synchronization

/// One scene's current snapshot as its writers publish it, for readers
/// that take no lock: a reference swapped atomically (0: none published,
/// while the scene changes in place or once it is removed; the reader
/// then takes the store's locked path, which waits for the change).
///
/// A reader protects the reference it loads with its thread's hazard
/// (``SnapshotReaders``) before it copies the snapshot out; a writer frees
/// a replaced reference only once no reader's hazard names it. Writers of
/// one scene are serialised by its store (they publish under the scene's
/// lock), so `publish` never races another `publish` of the same scene.
final class PublishedSnapshot: Sendable {
    /// A published snapshot, retained once by ``current`` while published.
    final class Cell: Sendable {
        let snapshot: SceneSnapshot
        init(_ snapshot: SceneSnapshot) { self.snapshot = snapshot }
    }

    /// The published `Cell`'s address (`Unmanaged`, retained), or 0.
    private let current = Atomic<UInt>(0)
    /// A cache's use stamp (`SceneCache`'s least recently used order): the
    /// cache's tick when a lock-free read last found this scene.
    let lastUse = Atomic<UInt64>(0)

    init(_ snapshot: SceneSnapshot?) { publish(snapshot) }

    deinit {
        let old = current.exchange(0, ordering: .sequentiallyConsistent)
        if old != 0 { SnapshotReaders.retire(old) }
    }

    /// Publishes `snapshot` (nil: none) in place of the one before.
    func publish(_ snapshot: SceneSnapshot?) {
        let new = snapshot.map { UInt(bitPattern: Unmanaged.passRetained(Cell($0)).toOpaque()) } ?? 0
        let old = current.exchange(new, ordering: .sequentiallyConsistent)
        if old != 0 { SnapshotReaders.retire(old) }
    }

    /// Whether a snapshot is published (for its writers, under their lock).
    var isPublished: Bool { current.load(ordering: .relaxed) != 0 }

    /// The published snapshot, nil when none is; `stamp` as
    /// ``SnapshotDirectory/read(_:stamp:find:)`` says.
    @inline(__always)
    func read(_ reader: SnapshotReaders.Reader, stamp: UInt64? = nil) -> SceneSnapshot? {
        if let stamp, lastUse.load(ordering: .relaxed) != stamp { lastUse.store(stamp, ordering: .relaxed) }
        var p = current.load(ordering: .acquiring)
        guard p != 0 else { return nil }
        while true {
            reader.hazard.store(p, ordering: .sequentiallyConsistent)
            let again = current.load(ordering: .sequentiallyConsistent)
            if again == p { break }
            p = again
            if p == 0 {
                reader.hazard.store(0, ordering: .releasing)
                return nil
            }
        }
        // Protected by the hazard: no writer frees the cell meanwhile.
        let snapshot = Unmanaged<Cell>.fromOpaque(UnsafeRawPointer(bitPattern: p)!)._withUnsafeGuaranteedRef { $0.snapshot }
        reader.hazard.store(0, ordering: .releasing)
        return snapshot
    }
}

/// Where one store's scenes are found without a lock: a generation,
/// advanced whenever an entry leaves the store's table or another takes
/// its place (a scene that joins needs none: misses are not remembered),
/// and, in
/// each thread (``SnapshotReaders/Reader``), a few scenes found in that
/// table before, remembered with the generation they were found at. A
/// lookup that finds its scene remembered at the current generation reads
/// its ``PublishedSnapshot``: one atomic load validates it, and it takes
/// no lock and writes nothing another thread reads.
final class SnapshotDirectory: Sendable {
    private let generation = Atomic<UInt64>(0)
    /// `SnapshotReaders.key`, read here without its lazy global's check.
    private let key = SnapshotReaders.key

    init() {}

    /// Called by a store (under its table's lock) after an entry left its
    /// table or another entry took its place.
    func changed() { generation.wrappingAdd(1, ordering: .releasing) }

    /// Scene `id`'s published snapshot, found in this thread's memory or
    /// else by `find` (a lookup in the store's table); nil when `find`
    /// finds none or none is published now (the caller then takes its
    /// locked path). `stamp`, when given, is stored in the scene's
    /// `lastUse` unless it holds it already.
    @inline(__always)
    func read(_ id: String, stamp: UInt64? = nil, find: (String) -> PublishedSnapshot?) -> SceneSnapshot? {
        SnapshotReaders.withCurrent(key) { reader in
            // Loaded before `find`: a scene found is remembered at the
            // generation of a table at least as new as this.
            let g = generation.load(ordering: .acquiring)
            if let slot = reader.find(self, id, generation: g) {
                return slot.pointee.unretained.unsafelyUnwrapped._withUnsafeGuaranteedRef { $0.read(reader, stamp: stamp) }
            }
            guard let found = find(id) else { return nil }
            reader.remember(self, id, generation: g, found)
            return found.read(reader, stamp: stamp)
        }
    }
}

/// The threads that read published snapshots, each with its hazard (the
/// cell it is copying a snapshot out of, or 0) and its remembered scenes;
/// and the cells replaced while a hazard named them, freed later.
///
/// A thread's ``Reader`` is made on its first read and kept in a
/// `pthread` key; when the thread exits it forgets its scenes and is
/// reused by a later thread. Readers never take the registry's lock
/// after their first read; writers take it to retire a cell.
enum SnapshotReaders {
    /// One thread's reading state. Only its thread touches `slots`; writers
    /// read `hazard`. A remembered scene stays referenced (with what it
    /// publishes: none once it left its store's table) until this
    /// thread's next read in the same store finds the generation moved,
    /// or another scene takes its slot.
    final class Reader: @unchecked Sendable {
        struct Slot {
            var directory: SnapshotDirectory?
            var generation: UInt64 = 0
            var id = ""
            var published: PublishedSnapshot? {
                didSet { unretained = published.map { Unmanaged.passUnretained($0) } }
            }
            /// `published`, lent to a read without a retain.
            private(set) var unretained: Unmanaged<PublishedSnapshot>?

            init() {}

            init(directory: SnapshotDirectory, generation: UInt64, id: String, published: PublishedSnapshot) {
                self.directory = directory
                self.generation = generation
                self.id = id
                self.published = published
                unretained = Unmanaged.passUnretained(published)
            }
        }

        let hazard = Atomic<UInt>(0)
        /// Remembered scenes (`slotCount`), replaced in turn. A reader
        /// lives as long as the process (the registry keeps it).
        let slots: UnsafeMutablePointer<Slot>
        var nextSlot = 0
        static let slotCount = 4

        init() {
            slots = .allocate(capacity: Reader.slotCount)
            slots.initialize(repeating: Slot(), count: Reader.slotCount)
        }

        /// The slot remembering `id` of `directory` at `generation`, if
        /// any; slots of `directory` at another generation are cleared.
        @inline(__always)
        func find(_ directory: SnapshotDirectory, _ id: String, generation: UInt64) -> UnsafeMutablePointer<Slot>? {
            for i in 0..<Reader.slotCount {
                let slot = slots + i
                guard slot.pointee.directory === directory else { continue }
                if slot.pointee.generation != generation {
                    slot.pointee = Slot()  // the table changed: found again when asked
                    continue
                }
                if slot.pointee.id == id { return slot }
            }
            return nil
        }

        func remember(_ directory: SnapshotDirectory, _ id: String, generation: UInt64, _ published: PublishedSnapshot) {
            var i = nextSlot
            for k in 0..<Reader.slotCount where slots[k].directory == nil {
                i = k
                break
            }
            if i == nextSlot { nextSlot = (nextSlot + 1) % Reader.slotCount }
            slots[i] = Slot(directory: directory, generation: generation, id: id, published: published)
        }

        /// Forgets every remembered scene (the thread exits).
        func forget() {
            for i in 0..<Reader.slotCount { slots[i] = Slot() }
            nextSlot = 0
        }
    }

    private struct Registry {
        var readers: [Reader] = []
        var idle: [Reader] = []
        /// Cells replaced while a reader's hazard named them.
        var retired: [UInt] = []
    }

    private static let registry = Mutex(Registry())

    static let key: pthread_key_t = {
        var key = pthread_key_t()
        let rc = pthread_key_create(&key) { raw in
            guard let raw else { return }
            SnapshotReaders.threadExited(Unmanaged<Reader>.fromOpaque(raw).takeUnretainedValue())
        }
        precondition(rc == 0, "pthread_key_create: \(rc)")
        return key
    }()

    /// Runs `body` with this thread's reader (`key`'s value).
    @inline(__always)
    static func withCurrent<R>(_ key: pthread_key_t, _ body: (Reader) -> R) -> R {
        if let raw = pthread_getspecific(key) { return Unmanaged<Reader>.fromOpaque(raw)._withUnsafeGuaranteedRef(body) }
        return body(register())
    }

    @inline(never)
    private static func register() -> Reader {
        let reader = registry.withLock { r in
            if let reader = r.idle.popLast() { return reader }
            let reader = Reader()
            r.readers.append(reader)
            return reader
        }
        // The registry keeps the reader alive; the key holds it unretained.
        pthread_setspecific(key, Unmanaged.passUnretained(reader).toOpaque())
        return reader
    }

    private static func threadExited(_ reader: Reader) {
        reader.forget()
        reader.hazard.store(0, ordering: .releasing)
        registry.withLock { $0.idle.append(reader) }
    }

    /// Frees `cell` (a `PublishedSnapshot.Cell`'s address, no longer
    /// published) once no reader's hazard names it, with every cell retired
    /// before that no hazard names now.
    static func retire(_ cell: UInt) {
        let free = registry.withLock { r -> [UInt] in
            r.retired.append(cell)
            var free: [UInt] = []
            r.retired.removeAll { c in
                for reader in r.readers where reader.hazard.load(ordering: .sequentiallyConsistent) == c { return false }
                free.append(c)
                return true
            }
            return free
        }
        // Outside the lock: a last snapshot of a big scene takes a while to free.
        for c in free { Unmanaged<PublishedSnapshot.Cell>.fromOpaque(UnsafeRawPointer(bitPattern: c)!).release() }
    }
}
