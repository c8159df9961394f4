import Foundation
import Glibc

/// A real `redis-server` for tests: started on a free loopback port in a
/// temporary directory, without persistence (`--save '' --appendonly no`),
/// stopped by its PID. Tests that need one call ``RedisServerProcess/start()``
/// and skip with a clear message when it returns nil (no `redis-server` on
/// PATH); CI installs the package so they run.
public final class RedisServerProcess: @unchecked Sendable {
    public let port: Int
    public let directory: String
    private var process: Process?
    private let executable: String
    private let extraArguments: [String]

    /// The path of `redis-server`, or nil.
    public static var executablePath: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") + ["/usr/bin", "/usr/sbin"] {
            let candidate = "\(dir)/redis-server"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// Why the Redis tests are skipped, when they are.
    public static let skipMessage = "redis-server is not on PATH (apt-get install redis-server); the Redis tests need the real server"

    /// Starts a server and waits until it answers PING; nil without `redis-server`.
    public static func start(arguments: [String] = []) throws -> RedisServerProcess? {
        guard let exe = executablePath else { return nil }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hitroute-redis-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let server = RedisServerProcess(port: freePort(), directory: dir, executable: exe, extra: arguments)
        try server.launch()
        return server
    }

    private init(port: Int, directory: String, executable: String, extra: [String]) {
        self.port = port
        self.directory = directory
        self.executable = executable
        self.extraArguments = extra
    }

    public var url: String { "redis://127.0.0.1:\(port)" }

    /// Starts (again, after ``stop()``) on the same port.
    public func launch() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments =
            [
                "--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                "--dir", directory, "--daemonize", "no", "--loglevel", "warning",
            ] + extraArguments
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        process = p
        // Wait for PING, with a deadline that is generous, not a speed bound.
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if ping() { return }
            usleep(10_000)
        }
        stop()
        throw NSError(
            domain: "RedisServerProcess", code: 1, userInfo: [NSLocalizedDescriptionKey: "redis-server did not answer PING on \(port)"])
    }

    /// Stops the server by its PID and waits for it to exit.
    public func stop() {
        guard let p = process else { return }
        process = nil
        if p.isRunning {
            kill(p.processIdentifier, SIGKILL)
            kill(p.processIdentifier, SIGCONT)
        }
        p.waitUntilExit()
    }

    /// SIGSTOP: the server keeps its sockets (connections stay open, the
    /// kernel still accepts new ones) and answers nothing until ``resume()``.
    public func pause() {
        if let p = process, p.isRunning { kill(p.processIdentifier, SIGSTOP) }
    }

    /// SIGCONT after ``pause()``.
    public func resume() {
        if let p = process { kill(p.processIdentifier, SIGCONT) }
    }

    /// Stops the server and removes its directory.
    public func shutdown() {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    deinit { stop() }

    /// One PING over a fresh socket: whether the server answers.
    public func ping() -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var tv = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        let ok = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard ok == 0 else { return false }
        let cmd = Array("PING\r\n".utf8)
        guard send(fd, cmd, cmd.count, Int32(MSG_NOSIGNAL)) == cmd.count else { return false }
        var buf = [UInt8](repeating: 0, count: 16)
        let n = recv(fd, &buf, 16, 0)
        // +PONG, or -NOAUTH from a server that wants a password: it is up.
        return n >= 5 && (buf.starts(with: Array("+PONG".utf8)) || buf.starts(with: Array("-NOAUTH".utf8)))
    }

    /// A port the kernel just handed out (bound, then closed).
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        return Int(UInt16(bigEndian: addr.sin_port))
    }
}
