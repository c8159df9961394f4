import Glibc
import HitBase
import RESP
import Synchronization

/// A connection of its own that SUBSCRIBEs to channels and hands every
/// message to `onMessage`, on a thread of its own.
///
/// When the connection breaks it reconnects with backoff (doubling from
/// `minBackoff` to `maxBackoff`), and calls `onConnect` each time the
/// subscription is (re)established: messages sent while it was away are
/// lost (pub/sub is at most once), so the owner revalidates what it holds.
public final class RedisSubscriber: Sendable {
    public typealias Message = @Sendable (_ channel: String, _ payload: [UInt8]) -> Void

    let endpoint: RedisEndpoint
    let channels: [String]
    let timeout: Double
    let minBackoff: Double
    let maxBackoff: Double
    let onMessage: Message
    /// Seconds without a message after which the subscriber PINGs.
    let pingAfter: Double = 5
    let onConnect: @Sendable () -> Void
    let onDisconnect: @Sendable (RedisError) -> Void
    /// Subscriptions made and messages received are counted here.
    let statistics: RedisStatistics?
    private let stopped = Atomic<Bool>(false)
    private let running = Atomic<Bool>(false)
    /// Whether a subscription is in force right now.
    public var isSubscribed: Bool { subscribed.load(ordering: .acquiring) }
    private let subscribed = Atomic<Bool>(false)

    public init(
        _ endpoint: RedisEndpoint, channels: [String], timeout: Double = 2,
        minBackoff: Double = 0.05, maxBackoff: Double = 2,
        onConnect: @escaping @Sendable () -> Void, onDisconnect: @escaping @Sendable (RedisError) -> Void = { _ in },
        statistics: RedisStatistics? = nil, onMessage: @escaping Message
    ) {
        self.statistics = statistics
        self.endpoint = endpoint
        self.channels = channels
        self.timeout = timeout
        self.minBackoff = minBackoff
        self.maxBackoff = maxBackoff
        self.onConnect = onConnect
        self.onDisconnect = onDisconnect
        self.onMessage = onMessage
    }

    /// Starts the subscriber's thread (once).
    public func start() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        spawnThread { [self] in run() }
    }

    /// Asks the thread to end; it does within `timeout` seconds.
    public func stop() { stopped.store(true, ordering: .releasing) }

    private func run() {
        var backoff = 0.0
        while !stopped.load(ordering: .acquiring) {
            do throws(RedisError) {
                let c = try RedisConnection(endpoint, timeout: timeout)
                try c.write([Array("SUBSCRIBE".utf8)] + channels.map { Array($0.utf8) })
                for _ in channels {
                    guard let confirm = try c.next(until: MonotonicClock.seconds() + timeout, idleOK: false),
                        confirm.elements?.first?.string == "subscribe"
                    else { throw RedisError(.protocolError, "SUBSCRIBE not confirmed") }
                }
                backoff = 0
                statistics?.subscribed()
                subscribed.store(true, ordering: .releasing)
                onConnect()
                // A silent connection (a cut without a reset) is found by
                // PING: sent after `pingAfter` seconds without a message,
                // it must be answered within `timeout`.
                var lastHeard = MonotonicClock.seconds()
                var pinged = false
                while !stopped.load(ordering: .acquiring) {
                    // Wake at least every half second to notice stop().
                    guard let v = try c.next(until: MonotonicClock.seconds() + min(timeout, 0.5), idleOK: true) else {
                        let idle = MonotonicClock.seconds() - lastHeard
                        if !pinged && idle > pingAfter {
                            try c.write([Array("PING".utf8)])
                            pinged = true
                        } else if pinged && idle > pingAfter + timeout {
                            c.close()
                            throw RedisError(.timeout, "the subscription answered no PING within \(timeout) s")
                        }
                        continue
                    }
                    lastHeard = MonotonicClock.seconds()
                    pinged = false
                    if let e = v.elements, e.count == 3, e[0].string == "message", let ch = e[1].string, let payload = e[2].bytes {
                        statistics?.message()
                        onMessage(ch, payload)
                    }
                }
                c.close()
            } catch {
                subscribed.store(false, ordering: .releasing)
                onDisconnect(error)
                backoff = backoff == 0 ? minBackoff : min(maxBackoff, backoff * 2)
                var slept = 0.0
                while slept < backoff && !stopped.load(ordering: .acquiring) {
                    usleep(10_000)
                    slept += 0.01
                }
            }
        }
        subscribed.store(false, ordering: .releasing)
        running.store(false, ordering: .releasing)
    }
}

/// Runs `body` on a new detached POSIX thread.
func spawnThread(_ body: @escaping @Sendable () -> Void) {
    final class Box {
        let body: @Sendable () -> Void
        init(_ b: @escaping @Sendable () -> Void) { body = b }
    }
    let arg = Unmanaged.passRetained(Box(body)).toOpaque()
    var t = pthread_t()
    let rc = pthread_create(
        &t, nil,
        { a in
            Unmanaged<Box>.fromOpaque(a!).takeRetainedValue().body()
            return nil
        }, arg)
    if rc == 0 {
        pthread_detach(t)
    } else {
        Unmanaged<Box>.fromOpaque(arg).takeRetainedValue().body()
    }
}
