import Glibc
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
        minBackoff: Double = 0.05, maxBackoff: Double = 2, maxIdle: Int = 64
    ) {
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
    public func pipeline(_ commands: [[[UInt8]]]) throws(RedisError) -> [RESPValue] {
        let connection = try borrow()
        do {
            let replies = try connection.pipeline(commands)
            giveBack(connection)
            return replies
        } catch {
            failed(error)
            throw error
        }
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
        let idle = state.withLock { s -> [RedisConnection] in defer { s.idle = [] }; return s.idle }
        for c in idle { c.close() }
    }

    private func borrow() throws(RedisError) -> RedisConnection {
        let now = monotonic()
        let taken = state.withLock { s -> (RedisConnection?, RedisError?) in
            if let c = s.idle.popLast() { return (c, nil) }
            if now < s.retryAt, let e = s.lastError {
                return (nil, RedisError(.unreachable, "backing off after: \(e.message)"))
            }
            return (nil, nil)
        }
        if let c = taken.0 { return c }
        if let e = taken.1 { throw e }
        do {
            return try RedisConnection(endpoint, timeout: timeout, limits: limits)
        } catch {
            failed(error)
            throw error
        }
    }

    private func giveBack(_ connection: RedisConnection) {
        let extra = state.withLock { s -> RedisConnection? in
            s.lastError = nil
            s.backoff = 0
            s.retryAt = 0
            if s.idle.count < maxIdle { s.idle.append(connection); return nil }
            return connection
        }
        extra?.close()
    }

    private func failed(_ error: RedisError) {
        // A reply that is not RESP (or too big) breaks one connection, not
        // the server: that connection is gone, the others stay.
        if error.kind == .protocolError { return }
        let now = monotonic()
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
