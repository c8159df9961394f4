import CEpoll
import Glibc

/// Starts detached POSIX threads (event loops are long-lived and must not
/// occupy a Dispatch worker).
enum ThreadLauncher {
    private final class Start {
        let name: String
        let body: () -> Void
        init(_ name: String, _ body: @escaping () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Runs `body` on a new detached thread named `name` (at most 15 bytes
    /// are kept).
    static func spawn(name: String, _ body: @escaping @Sendable () -> Void) throws(SystemCallError) {
        let start = Unmanaged.passRetained(Start(name, body)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(
            &thread, nil,
            { argument in
                let start = Unmanaged<Start>.fromOpaque(argument!).takeRetainedValue()
                cepoll_set_thread_name(start.name)
                start.body()
                return nil
            }, start)
        guard rc == 0 else {
            Unmanaged<Start>.fromOpaque(start).release()
            throw SystemCallError(function: "pthread_create", errno: rc)
        }
        pthread_detach(thread)
    }
}
