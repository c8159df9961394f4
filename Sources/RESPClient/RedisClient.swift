import Glibc
import HitBase
import RESP
import Synchronization

/// A pool of ``RedisConnection``s shared by any number of threads.
///
/// Each call borrows an idle connection (or opens one), runs its pipeline,
/// and gives it back. A connection that fails is dropped; the failure
/// starts a backoff (doubling from `minBackoff` to `maxBackoff`) during
/// which calls fail fast as `.unreachable` instead of each waiting for a
/// connect timeout: the service answers 503 at once while Redis is away,
/// and tries again at most once per backoff step. The first call that
/// succeeds ends the backoff.
///
/// Why a pool rather than one pipelined connection per event loop: the
/// callers are handlers on event loops and offload threads that block for
/// one round trip each; a borrowed connection per concurrent caller keeps
/// them independent, and the pool never holds more connections than the
/// callers that were ever in flight at once (bounded by `maxIdle` idle).
public final class RedisClient: Sendable {
    public let endpoint: RedisEndpoint
    public let timeout: Double
    let limits: RESPLimits
    let minBackoff: Double
    let maxBackoff: Double
    let maxIdle: Int
    /// Round trips, failures, connections, recoveries (and, through the
    /// store's subscriber, subscriptions and messages).
    public let statistics: RedisStatistics
    private let healthCheck = Atomic<Int>(0)  // 0 none, 1 running, 2 asked to stop

    private struct State {
        var idle: [RedisConnection] = []
        /// Monotonic time before which no new connection is tried.
        var retryAt = 0.0
        var backoff = 0.0
        var lastError: RedisError?
    }
    private let state: Mutex<State>

    public init(
        _ endpoint: RedisEndpoint, timeout: Double = 2, maxBulkBytes: Int = 512 << 20, maxElements: Int = 1 << 20,
        minBackoff: Double = 0.05, maxBackoff: Double = 2, maxIdle: Int = 64, statistics: RedisStatistics = RedisStatistics()
    ) {
        self.statistics = statistics
        self.endpoint = endpoint
        self.timeout = timeout
        var limits = RESPLimits()
        limits.maxBulkBytes = maxBulkBytes
        limits.maxElements = maxElements
        // The biggest reply is one document (a bulk) beside a few small values.
        limits.maxReplyBytes = min(maxBulkBytes, Int.max / 2) + (1 << 20)
        self.limits = limits
        self.minBackoff = minBackoff
        self.maxBackoff = maxBackoff
        self.maxIdle = maxIdle
        self.state = Mutex(State())
    }

    /// Whether the last exchange succeeded (no backoff in force).
    public var isHealthy: Bool { state.withLock { $0.lastError == nil } }

    /// The last failure, while it lasts.
    public var lastError: RedisError? { state.withLock { $0.lastError } }

    /// Runs `commands` as one pipeline on one connection; replies in order.
    /// Error replies are values; a ``RedisError`` means no reply.
    /// Counted in ``statistics`` unless it failed fast during a backoff
    /// (then nothing was tried).
    public func pipeline(_ commands: [[[UInt8]]]) throws(RedisError) -> [RESPValue] {
        let started = MonotonicClock.seconds()
        let connection: RedisConnection
        switch take(now: started) {
        case .idle(let c):
            connection = c
        case .backingOff(let e):
            throw e
        case .open:
            do {
                connection = try RedisConnection(endpoint, timeout: timeout, limits: limits)
                statistics.connectionOpened()
            } catch {
                count(since: started, error)
                failed(error)
                throw error
            }
        }
        do {
            let replies = try connection.pipeline(commands)
            count(since: started, nil)
            giveBack(connection)
            return replies
        } catch {
            count(since: started, error)
            failed(error)
            throw error
        }
    }

    private func count(since started: Double, _ error: RedisError?) {
        statistics.exchange(nanoseconds: UInt64(max(0, (MonotonicClock.seconds() - started) * 1e9)))
        if let error { statistics.failure(error.kind) }
    }

    /// Runs one command.
    public func send(_ command: [[UInt8]]) throws(RedisError) -> RESPValue {
        try pipeline([command])[0]
    }

    /// Runs one command given as text arguments.
    public func send(_ arguments: String...) throws(RedisError) -> RESPValue {
        try send(arguments.map { Array($0.utf8) })
    }

    /// Lets the next call connect at once (the server is known to be back).
    public func endBackoff() {
        state.withLock { s in s.retryAt = 0 }
    }

    /// Closes every idle connection (shutdown, tests).
    public func closeIdle() {
        let idle = state.withLock { s -> [RedisConnection] in
            defer { s.idle = [] }
            return s.idle
        }
        for c in idle { c.close() }
    }

    private enum Taken {
        case idle(RedisConnection)
        case backingOff(RedisError)
        case open
    }

    /// An idle connection, or the backoff's fast failure, or leave to open one.
    private func take(now: Double) -> Taken {
        state.withLock { s -> Taken in
            if let c = s.idle.popLast() { return .idle(c) }
            if now < s.retryAt, let e = s.lastError {
                return .backingOff(RedisError(.unreachable, "backing off after: \(e.message)"))
            }
            return .open
        }
    }

    /// Starts a thread that, while the last exchange failed, sends a PING
    /// every `interval` seconds (the backoff still spaces real attempts), so
    /// that health comes back within about `interval` plus the backoff
    /// (at most `maxBackoff`) of the server's return with no request
    /// arriving. Once per client; ``stopHealthCheck()`` ends it.
    public func startHealthCheck(every interval: Double = 0.5) {
        guard healthCheck.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged else { return }
        spawnThread { [self] in
            while healthCheck.load(ordering: .acquiring) == 1 {
                usleep(UInt32(max(0.01, interval) * 1_000_000))
                if healthCheck.load(ordering: .acquiring) == 1, !isHealthy { _ = try? send("PING") }
            }
        }
    }

    /// Asks the health check's thread to end (within its interval).
    public func stopHealthCheck() {
        healthCheck.store(2, ordering: .releasing)
    }

    private func giveBack(_ connection: RedisConnection) {
        let extra = state.withLock { s -> RedisConnection? in
            if s.lastError != nil { statistics.recovered() }
            s.lastError = nil
            s.backoff = 0
            s.retryAt = 0
            if s.idle.count < maxIdle {
                s.idle.append(connection)
                return nil
            }
            return connection
        }
        extra?.close()
    }

    private func failed(_ error: RedisError) {
        // A reply that is not RESP (or too big) breaks one connection, not
        // the server: that connection is gone, the others stay.
        if error.kind == .protocolError { return }
        let now = MonotonicClock.seconds()
        let idle = state.withLock { s -> [RedisConnection] in
            s.lastError = error
            s.backoff = s.backoff == 0 ? minBackoff : min(maxBackoff, s.backoff * 2)
            s.retryAt = now + s.backoff
            // The others share the server's fate: drop them too.
            defer { s.idle = [] }
            return s.idle
        }
        for c in idle { c.close() }
    }
}
