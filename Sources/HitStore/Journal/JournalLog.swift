import Glibc
import HitBase
import HitJournal
import HitRouting
import Synchronization

/// The journal as `SceneStore` sees it (`ChangeLog`): admission (refused
/// while starting or failed), the snapshot barrier, records appended under
/// the scene's lock, and the wait for durability.
///
/// The barrier is a writer-preferring read-write lock: every write holds it
/// shared for its critical section (apply + append, microseconds); a
/// snapshot holds it exclusively just long enough to switch segments and
/// take every scene's snapshot (retains, no copies). Hits never touch it.
final class JournalLog: ChangeLog, @unchecked Sendable {
    private let barrier: UnsafeMutablePointer<pthread_rwlock_t>
    let writer = Mutex<JournalWriter?>(nil)
    let status = Mutex<StoreHealth>(.starting("recovering the journal"))
    /// Whether the failure that made the store unavailable is a full disk
    /// (refusals are then 507, not 503).
    let failedFull = Atomic<Bool>(false)
    /// `noteReplayCost`'s sum for the current segment: reset when a
    /// snapshot starts a new one (JournalStore.snapshot).
    let segmentReplayCost = Atomic<Int>(0)

    init() {
        barrier = .allocate(capacity: 1)
        var attr = pthread_rwlockattr_t()
        pthread_rwlockattr_init(&attr)
        pthread_rwlockattr_setkind_np(&attr, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
        pthread_rwlock_init(barrier, &attr)
        pthread_rwlockattr_destroy(&attr)
    }

    deinit {
        pthread_rwlock_destroy(barrier)
        barrier.deallocate()
    }

    func admitting<R>(_ body: () throws(StoreError) -> R) throws(StoreError) -> R {
        switch status.withLock({ $0 }) {
        case .ready: break
        case .starting(let why): throw StoreError.unavailable("the store is starting: \(why)")
        case .unavailable(let why):
            throw failedFull.load(ordering: .relaxed) ? StoreError.full(.disk, why) : StoreError.unavailable(why)
        }
        pthread_rwlock_rdlock(barrier)
        defer { pthread_rwlock_unlock(barrier) }
        return try body()
    }

    /// Runs `body` with every write held off (the snapshot barrier).
    /// - Returns: what `body` returns, and the seconds writes were held off.
    func exclusive<R>(_ body: () throws(JournalIOError) -> R) throws(JournalIOError) -> (R, pause: Double) {
        let start = MonotonicClock.seconds()
        pthread_rwlock_wrlock(barrier)
        defer { pthread_rwlock_unlock(barrier) }
        let r = try body()
        return (r, MonotonicClock.seconds() - start)
    }

    func append(_ change: StoreChange) throws(StoreError) -> UInt64 {
        guard let w = writer.withLock({ $0 }) else { throw StoreError.unavailable("the journal is not open") }
        let record = JournalLog.record(change)
        if case .upload(let json) = record.body, json.count > JournalRecord.maxBodyBytes - 1024 {
            throw StoreError.tooLarge("a journal record holds at most \(JournalRecord.maxBodyBytes - 1024) bytes of JSON", [])
        }
        do {
            return try w.append(record)
        } catch {
            throw JournalLog.problem(error)
        }
    }

    func noteReplayCost(_ bytes: Int) {
        // Each figure is at most one scene's JSON (LogTicket.noteReplayCost),
        // so the sum cannot come near Int.max before a snapshot resets it.
        segmentReplayCost.wrappingAdd(bytes, ordering: .relaxed)
    }

    func await(_ ticket: UInt64) throws(StoreError) {
        guard let w = writer.withLock({ $0 }) else { throw StoreError.unavailable("the journal is not open") }
        do {
            try w.await(ticket)
        } catch {
            markFailed(error)
            throw JournalLog.problem(error)
        }
    }

    /// Refuses writes from now on, saying why (the maintenance thread
    /// rewrites a snapshot from memory and lifts this).
    func markFailed(_ error: JournalIOError) {
        status.withLock { s in
            if case .unavailable = s { return }
            failedFull.store(error.isFull, ordering: .relaxed)
            s = .unavailable("the journal failed: \(error); writes are refused until a snapshot from memory is written to a new segment")
        }
    }

    static func problem(_ error: JournalIOError) -> StoreError {
        if error.isFull {
            return StoreError.full(
                .disk, "the change was not stored: the journal's disk is full (\(error)); free space, the service resumes writes by itself")
        }
        return StoreError.unavailable("the change was not stored: the journal cannot be written (\(error))")
    }

    static func record(_ change: StoreChange) -> JournalRecord {
        switch change {
        case .upload(let id, let version, let json):
            return JournalRecord(sceneID: id, version: UInt64(version), body: .upload(json: json))
        case .delete(let id, let version):
            return JournalRecord(sceneID: id, version: UInt64(version), body: .delete)
        case .patch(let id, let version, let layer, let json):
            return JournalRecord(sceneID: id, version: UInt64(version), body: .patch(layer: layer, json: json))
        case .drag(let id, let version, let layer, let t):
            return JournalRecord(sceneID: id, version: UInt64(version), body: .drag(layer: layer, tx: t.x, ty: t.y))
        }
    }
}
