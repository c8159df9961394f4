import Glibc

/// Which threads are event loops, and the answer that moves a request off
/// one.
///
/// A handler that finds it must wait (a remote store's round trip, a cache
/// miss that compiles) while on a loop answers ``HTTPResponse/runOnWorker``;
/// the loop then runs the same request again on a worker thread (the ones
/// big bodies use), where ``isCurrent`` is false. Asking costs one
/// `pthread_getspecific`, so a handler asks only on its slow paths.
public enum LoopThread {
    private static let key: pthread_key_t = {
        var k = pthread_key_t()
        pthread_key_create(&k, nil)
        return k
    }()

    /// Marks the calling thread as an event loop (for its lifetime).
    static func markCurrent() {
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
    }

    /// Whether the calling thread is an event loop.
    public static var isCurrent: Bool { pthread_getspecific(key) != nil }
}

extension HTTPResponse {
    /// The status of ``runOnWorker``: never sent (not a valid status).
    static let runOnWorkerStatus = 0

    /// "Run this request again on a worker thread": see ``LoopThread``.
    /// Returned from a worker it is sent as 503.
    public static let runOnWorker = HTTPResponse(status: runOnWorkerStatus)
}
