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

    /// Has the kernel back the whole pages inside `range` with memory now
    /// (`madvise(MADV_POPULATE_WRITE)`, Linux 5.14): one call instead of a
    /// page fault per page on first write. A hint; failures are ignored.
    static func prefault(_ range: UnsafeMutableRawBufferPointer) {
        guard let start = range.baseAddress else { return }
        let page = UInt(sysconf(Int32(_SC_PAGESIZE)))
        let first = (UInt(bitPattern: start) + page - 1) & ~(page - 1)
        let end = (UInt(bitPattern: start) + UInt(range.count)) & ~(page - 1)
        guard end > first else { return }
        _ = madvise(UnsafeMutableRawPointer(bitPattern: first), Int(end - first), madvisePopulateWrite)
    }

    /// `MADV_POPULATE_WRITE`, which Glibc's headers here may not name.
    static let madvisePopulateWrite: Int32 = 23

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
