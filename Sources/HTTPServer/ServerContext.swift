import Synchronization

/// The simple handler signature: a request in, a response out, wherever
/// the server runs it (an event loop thread, or a worker thread for bodies
/// of at least ``ServerConfiguration/offloadBodyBytes``); it must not
/// block for long. ``HTTPResponder`` lets a handler move its work to a worker.
public typealias HTTPHandler = @Sendable (HTTPRequest) -> HTTPResponse

/// What every event loop of one server shares: configuration, handler,
/// and the open-connection count (the only cross-loop mutable state,
/// touched once per connection, never per request).
final class ServerContext: Sendable {
    let configuration: ServerConfiguration
    let responder: HTTPResponder
    let openConnections = Atomic<Int>(0)
    /// WebSocket streams open across all loops (counted at the upgrade,
    /// against ``ServerConfiguration/maxStreams``).
    let openStreams = Atomic<Int>(0)
    /// Set by ``HTTPServer/shutdown()``; read (relaxed) when encoding each
    /// response so a request answered during shutdown says `Connection: close`
    /// even before its loop has seen the shutdown message.
    let shuttingDown = Atomic<Bool>(false)
    /// Runs the handlers of big requests, below the loops' priority.
    let offload: OffloadPool
    /// The bytes of request bodies all loops together may hold.
    let bodyBudget: BodyBudget
    /// The bytes of responses all loops together may hold queued.
    let outputBudget: OutputBudget
    /// Requests, durations, bytes and connections, one shard per loop.
    let metrics: ServerMetrics

    // Timeouts in nanoseconds.
    let headerTimeout: UInt64
    let bodyTimeout: UInt64
    let idleTimeout: UInt64
    let writeTimeout: UInt64
    /// How long a closing connection keeps reading (and discarding) after
    /// its last response, so the peer receives the response rather than a
    /// reset: 2 s.
    let lingerTimeout: UInt64 = 2_000_000_000
    /// Timeout sweep period: a quarter of the shortest timeout, 10…250 ms.
    let tick: UInt64

    init(configuration: ServerConfiguration, responder: @escaping HTTPResponder) {
        self.configuration = configuration
        self.responder = responder
        offload = OffloadPool(threads: configuration.eventLoops)
        bodyBudget = BodyBudget(capacity: configuration.maxBufferedBodyBytes)
        outputBudget = OutputBudget(capacity: configuration.maxBufferedResponseBytes, loops: max(1, configuration.eventLoops))
        metrics = ServerMetrics(routeLabels: configuration.routeLabels, loops: max(1, configuration.eventLoops))
        headerTimeout = configuration.headerReadTimeout.nanoseconds
        bodyTimeout = configuration.bodyReadTimeout.nanoseconds
        idleTimeout = configuration.idleTimeout.nanoseconds
        writeTimeout = configuration.writeTimeout.nanoseconds
        let shortest = min(
            headerTimeout, bodyTimeout, idleTimeout, writeTimeout,
            configuration.webSocket.idleTimeout / 2, configuration.webSocket.closingTimeout)
        tick = min(250_000_000, max(10_000_000, shortest / 4))
    }
}
