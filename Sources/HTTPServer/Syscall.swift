import Glibc

/// A failed system call: which function, and its `errno`.
public struct SystemCallError: Error, Sendable, Equatable, CustomStringConvertible {
    public let function: String
    public let errno: Int32

    public init(function: String, errno: Int32) {
        self.function = function
        self.errno = errno
    }

    public var description: String {
        "\(function) failed: \(String(cString: strerror(errno))) (errno \(errno))"
    }
}

/// The outcome of a non-blocking call: a result, "try again later"
/// (`EAGAIN`/`EWOULDBLOCK`), or a failure.
enum IOResult: Equatable {
    case done(Int)
    case wouldBlock
    case failed(SystemCallError)
}

/// The one place system calls are made from: every call retries `EINTR`,
/// and failures carry the function's name and `errno`.
enum Syscall {
    /// Runs `body` (a call that returns -1 and sets `errno` on failure),
    /// retrying `EINTR`; throws any other failure.
    @inline(__always)
    static func call<T: FixedWidthInteger>(_ function: StaticString, _ body: () -> T) throws(SystemCallError) -> T {
        while true {
            let result = body()
            if result != -1 { return result }
            let code = errno
            if code == EINTR { continue }
            throw SystemCallError(function: String(describing: function), errno: code)
        }
    }

    /// Like ``call(_:_:)`` for a non-blocking descriptor: `EAGAIN` and
    /// `EWOULDBLOCK` become `.wouldBlock`; no throwing on the hot path.
    @inline(__always)
    static func nonBlocking(_ function: StaticString, _ body: () -> Int) -> IOResult {
        while true {
            let result = body()
            if result >= 0 { return .done(result) }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return .wouldBlock }
            return .failed(SystemCallError(function: String(describing: function), errno: code))
        }
    }
}
