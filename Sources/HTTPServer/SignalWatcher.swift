import CEpoll
import Glibc

/// Runs code on a thread of its own each time a signal arrives.
///
/// The signal's handler (installed with `sigaction`, whichever thread the
/// signal lands on) only adds 1 to an eventfd; the watcher thread reads it
/// and calls the body, so the body may do anything (read files, take
/// locks). Signals that arrive while the body runs are coalesced into one
/// more call. Example: `try SignalWatcher.watch(SIGHUP) { reloadKeys() }`.
public enum SignalWatcher {
    /// Calls `body` after every delivery of `signal`, for the life of the
    /// process. A later `watch` of the same signal (or
    /// ``HTTPServer/stopOnSignals(_:)`` for it) takes the signal over.
    public static func watch(_ signal: Int32, _ body: @escaping @Sendable () -> Void) throws(SystemCallError) {
        let fd = eventfd(0, Int32(EFD_CLOEXEC))
        guard fd >= 0 else { throw SystemCallError(function: "eventfd", errno: errno) }
        if cepoll_forward_signal(signal, fd) != 0 {
            let failure = SystemCallError(function: "sigaction", errno: errno)
            close(fd)
            throw failure
        }
        try ThreadLauncher.spawn(name: "hitroute-signal-\(signal)") {
            var count: UInt64 = 0
            while true {
                let n = read(fd, &count, MemoryLayout<UInt64>.size)
                if n < 0 && errno == EINTR { continue }
                guard n == MemoryLayout<UInt64>.size else { return }
                body()
            }
        }
    }
}
