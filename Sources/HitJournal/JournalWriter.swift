import Dispatch
import Glibc
import Synchronization

/// When appended records are synced to the disk (SPEC §9 `--fsync`).
public enum SyncMode: String, Sendable {
    /// Before a change is acknowledged; all changes pending at that moment
    /// share one `fsync` (group commit).
    case always
    /// At least once a second by a background thread: a crash of the
    /// machine loses about the last second, a crash of the process nothing
    /// (every acknowledged change was written to the kernel).
    case everysec
    /// Left to the kernel.
    case never
}

/// Appends records to the current journal segment with group commit.
///
/// `append` encodes a record into a buffer under a short lock and returns
/// its log sequence number (LSN: the byte position just after it, counted
/// over the life of the writer, across segments). `await` returns once the
/// record is written (`everysec`, `never`) or synced (`always`): the first
/// waiter to find its record pending becomes the flusher, takes the whole
/// buffer, writes it with one `write` and syncs it with one `fsync`; the
/// waiters that came meanwhile find theirs done, or flush the next batch.
///
/// A failed write or sync makes the writer *failed*: every waiter whose
/// record was not durable and every later append gets the error, until
/// `restart(fd:)` gives a fresh segment (written after a snapshot from
/// memory). The file that failed is never written again: after a failed
/// `fsync` Linux may have dropped the dirty pages, so the file's contents
/// are unknown.
public final class JournalWriter: Sendable {
    struct State {
        var fd: Int32
        var buffer: [UInt8] = []
        /// LSN of `buffer[0]`.
        var bufferStart: UInt64
        var written: UInt64
        var synced: UInt64
        var failure: JournalIOError?
        /// Bytes in the current segment, written or buffered.
        var segmentBytes: Int
        /// The last buffered record when it is a drag: where it starts,
        /// what it moves (scene and layer) and where its translation sits.
        var lastDrag: (start: Int, scene: String, layer: String, translationAt: Int)?
        var stopped = false
    }

    public let mode: SyncMode
    let io: any FileIO
    let path: Mutex<String>
    private let state: Mutex<State>
    /// Held by the one thread writing or syncing at a time.
    private let flushing = Mutex<Int>(0)
    /// Waits that found their record pending (for benchmarks: changes per sync).
    public let syncs = Atomic<Int>(0)

    /// Starts appending to `fd` (already holding `existingBytes`) at `path`.
    public init(fd: Int32, path: String, existingBytes: Int, mode: SyncMode, io: any FileIO = PosixFileIO()) {
        self.mode = mode
        self.io = io
        self.path = Mutex(path)
        self.state = Mutex(State(fd: fd, bufferStart: 0, written: 0, synced: 0, segmentBytes: existingBytes))
        if mode == .everysec { startSyncer() }
    }

    /// Buffers `record`; returns its LSN. A drag of the same scene and layer
    /// as the last buffered record replaces that record's translation and
    /// version in place (neither is acknowledged before the buffer is
    /// written, so no acknowledged step is lost).
    /// - Throws: the failure, once the writer has failed.
    public func append(_ record: JournalRecord) throws(JournalIOError) -> UInt64 {
        try state.withLock { (s) throws(JournalIOError) -> UInt64 in
            if let failure = s.failure { throw failure }
            if case .drag(let layer, let tx, let ty) = record.body {
                if let d = s.lastDrag, d.scene == record.sceneID, d.layer == layer {
                    JournalRecord.rewriteDrag(
                        &s.buffer, at: d.start, translationAt: d.translationAt, version: record.version, tx: tx, ty: ty)
                    return s.bufferStart + UInt64(s.buffer.count)
                }
                let start = s.buffer.count
                record.encode(into: &s.buffer)
                s.lastDrag = (
                    start, record.sceneID, layer,
                    JournalRecord.dragTranslationOffset(idBytes: record.sceneID.utf8.count, layerBytes: layer.utf8.count)
                )
                s.segmentBytes += s.buffer.count - start
            } else {
                let start = s.buffer.count
                record.encode(into: &s.buffer)
                s.lastDrag = nil
                s.segmentBytes += s.buffer.count - start
            }
            return s.bufferStart + UInt64(s.buffer.count)
        }
    }

    /// Returns once the record ending at `lsn` is durable as the mode promises.
    /// - Throws: the write or sync failure that kept it from being so.
    public func await(_ lsn: UInt64) throws(JournalIOError) {
        while true {
            let done = try state.withLock { (s) throws(JournalIOError) -> Bool in
                if isDurable(s, lsn) { return true }
                if let failure = s.failure { throw failure }
                return false
            }
            if done { return }
            flushing.withLock { _ in flushBuffer(sync: mode == .always) }
        }
    }

    private func isDurable(_ s: State, _ lsn: UInt64) -> Bool {
        mode == .always ? s.synced >= lsn : s.written >= lsn
    }

    /// Writes the buffer (and syncs, when `sync`). Call with `flushing` held.
    private func flushBuffer(sync: Bool) {
        let taken = state.withLock { s -> (fd: Int32, bytes: [UInt8], end: UInt64)? in
            if s.failure != nil { return nil }
            let bytes = s.buffer
            s.buffer = []
            s.buffer.reserveCapacity(bytes.count)
            s.bufferStart += UInt64(bytes.count)
            s.lastDrag = nil
            if bytes.isEmpty && (!sync || s.synced >= s.written) { return nil }
            return (s.fd, bytes, s.bufferStart)
        }
        guard let taken else { return }
        let p = path.withLock { $0 }
        if !taken.bytes.isEmpty {
            let e = taken.bytes.withUnsafeBytes { io.write(taken.fd, $0) }
            if e != 0 { return fail(JournalIOError("write", p, e)) }
            state.withLock { $0.written = taken.end }
        }
        if sync {
            syncs.wrappingAdd(1, ordering: .relaxed)
            let e = io.fsync(taken.fd)
            if e != 0 { return fail(JournalIOError("fsync", p, e)) }
            state.withLock { $0.synced = max($0.synced, taken.end) }
        }
    }

    private func fail(_ error: JournalIOError) {
        state.withLock { s in if s.failure == nil { s.failure = error } }
    }

    /// The failure that stopped the writer, if any.
    public var failure: JournalIOError? { state.withLock { $0.failure } }

    /// Bytes in the current segment.
    public var segmentBytes: Int { state.withLock { $0.segmentBytes } }

    /// Writes and syncs what is buffered (shutdown, `everysec`'s tick).
    public func sync() throws(JournalIOError) {
        flushing.withLock { _ in flushBuffer(sync: true) }
        if let f = failure { throw f }
    }

    /// Finishes the current segment (everything buffered written and, unless
    /// `never`, synced) and continues in `fd`, a new segment holding
    /// `existingBytes` (its header). Returns the old descriptor, to close.
    /// Call with no appends running (the store's snapshot barrier).
    public func rotate(to fd: Int32, path newPath: String, existingBytes: Int) throws(JournalIOError) -> Int32 {
        try flushing.withLock { (_) throws(JournalIOError) -> Int32 in
            flushBuffer(sync: mode != .never)
            if let f = failure { throw f }
            path.withLock { $0 = newPath }
            return state.withLock { s in
                let old = s.fd
                s.fd = fd
                s.segmentBytes = existingBytes
                return old
            }
        }
    }

    /// After a failure: drops what was buffered (the snapshot written from
    /// memory holds it) and continues, healthy, in `fd`. Every LSN handed out
    /// so far counts as durable. Returns the old descriptor, to close.
    public func restart(fd: Int32, path newPath: String, existingBytes: Int) -> Int32 {
        flushing.withLock { _ in
            path.withLock { $0 = newPath }
            return state.withLock { s in
                let old = s.fd
                s.bufferStart += UInt64(s.buffer.count)
                s.buffer = []
                s.lastDrag = nil
                s.written = s.bufferStart
                s.synced = s.bufferStart
                s.failure = nil
                s.fd = fd
                s.segmentBytes = existingBytes
                return old
            }
        }
    }

    /// Stops the background syncer (the writer stays usable).
    public func stop() {
        state.withLock { $0.stopped = true }
    }

    private func startSyncer() {
        let queue = DispatchQueue(label: "hitroute-journal-sync")
        queue.async { [self] in
            while !state.withLock({ $0.stopped }) {
                usleep(250_000)
                let due = state.withLock { s in s.failure == nil && (s.synced < s.written || !s.buffer.isEmpty) }
                if due { flushing.withLock { _ in flushBuffer(sync: true) } }
            }
        }
    }
}
