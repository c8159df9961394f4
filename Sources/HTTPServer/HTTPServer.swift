import CEpoll
import Dispatch
import Glibc
import HitBase
import Synchronization

/// An HTTP/1.1 server: one epoll event loop per core, no thread per
/// connection.
///
/// ```swift
/// let server = HTTPServer(configuration: ServerConfiguration(host: "127.0.0.1", port: 0)) { request in
///     HTTPResponse(status: 200, body: Array("hello".utf8))
/// }
/// let port = try server.start()
/// try server.stopOnSignals([SIGTERM, SIGINT])
/// server.waitUntilStopped()
/// ```
///
/// Threading: ``start()`` spawns ``ServerConfiguration/eventLoops``
/// threads. Each owns a listening socket (`SO_REUSEPORT`, same port) and
/// the connections it accepts; the handler runs on that thread, or on a
/// lower-priority worker thread for bodies of ``ServerConfiguration/offloadBodyBytes``
/// or more. Every method here may be called from any thread.
public final class HTTPServer: Sendable {
    private struct State {
        var started = false
        var loops: [EventLoop] = []
    }

    /// The configuration the server was created with.
    public let configuration: ServerConfiguration
    private let context: ServerContext
    private let state = Mutex(State())
    private let running = DispatchGroup()
    private let boundPort = Atomic<Int>(0)

    public convenience init(configuration: ServerConfiguration, handler: @escaping HTTPHandler) {
        self.init(configuration: configuration, responder: { request, _ in .response(handler(request)) })
    }

    /// A server whose responder decides where its work runs (``Placement``).
    public init(configuration: ServerConfiguration, responder: @escaping HTTPResponder) {
        self.configuration = configuration
        self.context = ServerContext(configuration: configuration, responder: responder)
    }

    /// A server nobody holds any more can never be stopped: shut it down.
    deinit {
        shutdown()
    }

    /// Binds, listens and starts the event loops.
    /// - Returns: the bound port (the ephemeral one when configured with 0).
    /// - Throws: ``HTTPServerError`` or ``SystemCallError``; nothing keeps
    ///   running after a throw.
    public func start() throws -> Int {
        signal(SIGPIPE, SIG_IGN)
        return try state.withLock { state throws -> Int in
            guard !state.started else { throw HTTPServerError.alreadyStarted }
            guard !context.shuttingDown.load(ordering: .sequentiallyConsistent) else { throw HTTPServerError.shutDown }
            guard configuration.eventLoops >= 1 else {
                throw HTTPServerError.invalidConfiguration("eventLoops must be at least 1")
            }
            let (fds, port) = try ListeningSocket.bind(
                host: configuration.host, port: configuration.port, count: configuration.eventLoops)
            var loops: [EventLoop] = []
            do {
                for (index, fd) in fds.enumerated() {
                    loops.append(try EventLoop(index: index, context: context, listenFD: fd))
                }
            } catch {
                for fd in fds { Glibc.close(fd) }
                throw error
            }
            for (started, loop) in loops.enumerated() {
                running.enter()
                let running = self.running
                do {
                    try ThreadLauncher.spawn(name: "hitroute-loop-\(loop.index)") {
                        loop.run()
                        running.leave()
                    }
                } catch {
                    running.leave()
                    // Stop the loops already running; release the others.
                    for runningLoop in loops[..<started] { runningLoop.post(.shutdown(deadline: 0)) }
                    for idleLoop in loops[started...] { idleLoop.teardown() }
                    throw error
                }
            }
            state.started = true
            state.loops = loops
            boundPort.store(port, ordering: .sequentiallyConsistent)
            return port
        }
    }

    /// The bound port once started, else 0.
    public var port: Int { boundPort.load(ordering: .sequentiallyConsistent) }

    /// True from the first call to ``shutdown()`` on (a readiness probe
    /// should answer 503 from then on).
    public var isShuttingDown: Bool { context.shuttingDown.load(ordering: .sequentiallyConsistent) }

    /// The number of connections open right now, across all loops.
    public var openConnections: Int { context.openConnections.load(ordering: .relaxed) }

    /// The WebSocket streams open right now, across all loops.
    public var openStreams: Int { context.openStreams.load(ordering: .relaxed) }

    /// What the server has counted so far, summed over its event loops
    /// (for a metrics scrape; from any thread).
    /// - Complexity: O(loops × route labels × methods × codes).
    public func statistics() -> ServerStatistics {
        var s = context.metrics.snapshot(openConnections: openConnections, openStreams: openStreams)
        let budget = context.bodyBudget
        s.bodyBuffer = (budget.inUse, budget.capacity, budget.refusals)
        let output = context.outputBudget
        s.responseBuffer = (output.queued, output.capacity, output.refusals)
        return s
    }

    /// Graceful shutdown; returns at once (see ``waitUntilStopped()``).
    ///
    /// Sets ``isShuttingDown``, closes the listening sockets, closes idle
    /// connections, lets requests in flight finish (their responses carry
    /// `Connection: close`), and closes whatever remains after
    /// ``ServerConfiguration/shutdownGracePeriod``. Safe to call more than
    /// once and from any thread, including a handler.
    public func shutdown() {
        guard context.shuttingDown.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged
        else { return }
        let deadline = MonotonicClock.nanoseconds() &+ configuration.shutdownGracePeriod.nanoseconds
        let loops = state.withLock { $0.loops }
        for loop in loops { loop.post(.shutdown(deadline: deadline)) }
        context.offload.stop()
    }

    /// Blocks until every event loop has stopped (at once if never started).
    public func waitUntilStopped() {
        running.wait()
    }

    /// Calls ``shutdown()`` when one of `signals` arrives.
    ///
    /// A handler for each signal wakes a thread of its own, which calls
    /// ``shutdown()``: the signal is caught whichever thread it lands on,
    /// whatever threads existed before. For one server per process (the
    /// handlers are process-wide). Example: `try server.stopOnSignals([SIGTERM, SIGINT])`.
    public func stopOnSignals(_ signals: [Int32]) throws(SystemCallError) {
        let fd = eventfd(0, Int32(EFD_CLOEXEC))
        guard fd >= 0 else { throw SystemCallError(function: "eventfd", errno: errno) }
        for number in signals where cepoll_forward_signal(number, fd) != 0 {
            let failure = SystemCallError(function: "sigaction", errno: errno)
            close(fd)
            throw failure
        }
        try ThreadLauncher.spawn(name: "hitroute-signals") { [weak self] in
            var count: UInt64 = 0
            while read(fd, &count, MemoryLayout<UInt64>.size) < 0 && errno == EINTR {}
            self?.shutdown()
        }
    }
}
