import Dispatch
import Glibc
import Synchronization

/// Threads that run handlers for big request bodies (see
/// ``ServerConfiguration/offloadBodyBytes``) at a lower CPU priority than
/// the event loops (`nice` +19), so that decoding a big upload never takes
/// a core away from the small requests the loops answer meanwhile.
///
/// Threads start on the first job; ``stop()`` lets them finish the jobs
/// already queued and exit.
final class OffloadPool: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var started = false
        var stopped = false
    }

    private let state = Mutex(State())
    private let wakeups = DispatchSemaphore(value: 0)
    private let threads: Int
    /// Added to the threads' nice value: lower priority than the loops.
    /// +19 is CFS weight 15 against the loops' 1024, so a busy loop keeps
    /// about 98.5% of a shared core while an upload still progresses under
    /// full load.
    static let niceness: Int32 = 19

    init(threads: Int) {
        self.threads = max(1, threads)
    }

    /// Queues `job`; false once stopped.
    @discardableResult
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        let startThreads = state.withLock { state -> Bool? in
            guard !state.stopped else { return nil }
            state.jobs.append(job)
            defer { state.started = true }
            return !state.started
        }
        guard let startThreads else { return false }
        if startThreads {
            for k in 0..<threads {
                do {
                    try ThreadLauncher.spawn(name: "hitroute-work-\(k)") { [self] in work() }
                } catch {
                    // No worker thread: run this job on Dispatch rather than never.
                    DispatchQueue.global().async { [self] in work(untilEmpty: true) }
                }
            }
        }
        wakeups.signal()
        return true
    }

    /// Lets queued jobs finish, then the threads exit.
    func stop() {
        let started = state.withLock { state -> Bool in
            state.stopped = true
            return state.started
        }
        if started { for _ in 0..<threads { wakeups.signal() } }
    }

    private func work(untilEmpty: Bool = false) {
        // On Linux the nice value belongs to the calling thread alone.
        if !untilEmpty { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, OffloadPool.niceness) }
        while true {
            if !untilEmpty { wakeups.wait() }
            let next = state.withLock { state -> (job: (@Sendable () -> Void)?, exit: Bool) in
                if state.jobs.isEmpty { return (nil, state.stopped || untilEmpty) }
                return (state.jobs.removeFirst(), false)
            }
            if let job = next.job { job() } else if next.exit { return }
        }
    }
}
