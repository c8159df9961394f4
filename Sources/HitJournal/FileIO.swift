import Glibc

/// The two system calls that make a journal durable, behind a seam so that
/// tests inject failures (a full disk, an I/O error) without a real one.
public protocol FileIO: Sendable {
    /// Writes all of `bytes` at the file's end; 0 or an errno.
    func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32
    /// `fsync(2)`; 0 or an errno.
    func fsync(_ fd: Int32) -> Int32
}

/// The real calls: `write(2)` until every byte is out (EINTR retried), `fsync(2)`.
public struct PosixFileIO: FileIO {
    public init() {}

    public func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        var done = 0
        while done < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if n == 0 { return EIO }
            done += n
        }
        return 0
    }

    public func fsync(_ fd: Int32) -> Int32 {
        Glibc.fsync(fd) == 0 ? 0 : errno
    }
}

extension FileIO {
    /// Writes all of `bytes` to `fd`, then syncs it.
    /// - Returns: nil, or the call that failed (`write` or `fsync`) and its errno.
    func writeSynced(_ fd: Int32, _ bytes: [UInt8]) -> (call: String, errno: Int32)? {
        let e = bytes.withUnsafeBytes { write(fd, $0) }
        if e != 0 { return ("write", e) }
        let s = fsync(fd)
        return s == 0 ? nil : ("fsync", s)
    }
}

/// A failed file operation: which, on what, and the errno.
public struct JournalIOError: Error, Sendable, CustomStringConvertible {
    public var operation: String
    public var path: String
    public var errno: Int32

    public init(_ operation: String, _ path: String, _ errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    /// The medium is full (or over a quota or file-size limit): 507 rather than 503.
    public var isFull: Bool { errno == ENOSPC || errno == EDQUOT || errno == EFBIG }

    public var description: String {
        "\(operation) \(path): \(String(cString: strerror(errno))) (errno \(errno))"
    }
}

/// Small file-system helpers over Glibc, each failing with a `JournalIOError`.
public enum Files {
    public static func openAppend(_ path: String, create: Bool) throws(JournalIOError) -> Int32 {
        let fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | (create ? O_CREAT | O_EXCL : 0), 0o644)
        if fd < 0 { throw JournalIOError("open", path, errno) }
        return fd
    }

    public static func openTruncate(_ path: String) throws(JournalIOError) -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if fd < 0 { throw JournalIOError("open", path, errno) }
        return fd
    }

    /// The whole file's bytes.
    public static func read(_ path: String) throws(JournalIOError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw JournalIOError("open", path, errno) }
        defer { close(fd) }
        var st = stat()
        if fstat(fd, &st) != 0 { throw JournalIOError("stat", path, errno) }
        let size = Int(st.st_size)
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        let failed: Int32 = bytes.withUnsafeMutableBytes { b in
            while done < size {
                let n = Glibc.read(fd, b.baseAddress! + done, size - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                if n == 0 { break }
                done += n
            }
            return 0
        }
        if failed != 0 { throw JournalIOError("read", path, failed) }
        if done < size { bytes.removeLast(size - done) }
        return bytes
    }

    public static func size(_ path: String) -> Int? {
        var st = stat()
        return stat(path, &st) == 0 ? Int(st.st_size) : nil
    }

    public static func fsyncDirectory(_ dir: String) throws(JournalIOError) {
        let fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd < 0 { throw JournalIOError("open", dir, errno) }
        defer { close(fd) }
        if Glibc.fsync(fd) != 0 { throw JournalIOError("fsync", dir, errno) }
    }

    public static func rename(_ from: String, _ to: String) throws(JournalIOError) {
        if Glibc.rename(from, to) != 0 { throw JournalIOError("rename", from, errno) }
    }

    public static func remove(_ path: String) {
        _ = unlink(path)
    }

    public static func truncate(_ path: String, to length: Int) throws(JournalIOError) {
        if Glibc.truncate(path, off_t(length)) != 0 { throw JournalIOError("truncate", path, errno) }
    }

    /// The names in `dir` (without `.` and `..`).
    public static func list(_ dir: String) throws(JournalIOError) -> [String] {
        guard let d = opendir(dir) else { throw JournalIOError("opendir", dir, errno) }
        defer { closedir(d) }
        var names: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Creates `dir` if it is missing (one level).
    public static func makeDirectory(_ dir: String) throws(JournalIOError) {
        if mkdir(dir, 0o755) != 0 && errno != EEXIST { throw JournalIOError("mkdir", dir, errno) }
    }

    /// Takes an exclusive `flock` on `dir/LOCK`, held as long as the
    /// returned descriptor is open (so for the life of the process).
    /// - Throws: EWOULDBLOCK when another process holds it.
    public static func lockDirectory(_ dir: String) throws(JournalIOError) -> Int32 {
        let path = dir + "/LOCK"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if fd < 0 { throw JournalIOError("open", path, errno) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let e = errno
            close(fd)
            throw JournalIOError("flock", path, e)
        }
        return fd
    }
}
