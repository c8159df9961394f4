/// Where a request's work runs: on the event loop that read it (inline,
/// between the loop's other connections: for work of microseconds), or on
/// a worker thread (the ones big bodies use, below the loops' priority:
/// for work that may wait on another process or take milliseconds).
///
/// The server decides only by size (bodies of at least
/// ``ServerConfiguration/offloadBodyBytes`` start on a worker); everything
/// else is the responder's to decide, once, before its work begins: it
/// answers on the loop, or hands the rest of its work to a worker
/// (``HandlerResult/onWorker(_:)``), which the server runs there. Nothing
/// is run twice.
public enum Placement: Sendable, Equatable {
    case loop
    case worker
}

/// What a responder returns: its answer, or the rest of its work, which
/// the server runs on a worker thread and answers from there.
public enum HandlerResult: Sendable {
    case response(HTTPResponse)
    case onWorker(@Sendable () -> HTTPResponse)

    /// The answer, running the rest of the work here if there is any.
    public func answer() -> HTTPResponse {
        switch self {
        case .response(let r): return r
        case .onWorker(let work): return work()
        }
    }
}

/// A responder: a request and where it runs in, an answer or the rest of
/// the work out (see ``Placement``).
public typealias HTTPResponder = @Sendable (HTTPRequest, Placement) -> HandlerResult
