// Test support shared by the server's and the API's test suites: a
// blocking client with timeouts, and a server on an ephemeral port that is
// always shut down. Not linked into the service.
import Foundation
import Glibc
import HTTPServer

/// A blocking TCP client with receive/send timeouts, so no test can hang.
public final class TestClient {
    public struct Response {
        public var status: Int
        public var headers: [(String, String)]
        public var body: [UInt8]
        public subscript(name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public let fd: Int32
    var buffer: [UInt8] = []

    /// Connects to `host:port` (IPv4 or IPv6 literal) with `timeout` on every read and write.
    /// The timeout only keeps a broken test from hanging: it is long
    /// (`hangGuardSeconds`), so that a slow machine does not fail a test.
    public init(host: String = "127.0.0.1", port: Int, timeout: Double = hangGuardSeconds) throws {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let info = list else {
            throw Failure(description: "cannot resolve \(host)")
        }
        defer { freeaddrinfo(list) }
        fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        guard connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw Failure(description: "connect: errno \(code)")
        }
    }

    deinit { Glibc.close(fd) }

    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send: errno \(errno)") }
            offset += n
        }
    }

    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Reads more bytes into the buffer; false on EOF, throws on timeout or error.
    @discardableResult
    func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n > 0 {
            buffer.append(contentsOf: chunk[0..<n])
            return true
        }
        if n == 0 { return false }
        if errno == ECONNRESET { return false }
        throw Failure(description: errno == EAGAIN ? "read timed out" : "recv: errno \(errno)")
    }

    /// Reads one response. `head`: the request was HEAD (no body follows).
    public func readResponse(head: Bool = false) throws -> Response {
        var end: Int?
        while true {
            end = findHeadEnd()
            if end != nil { break }
            guard try fill() else { throw Failure(description: "EOF before a response head (\(buffer.count) bytes)") }
        }
        let headBytes = buffer[0..<end!]
        buffer.removeFirst(end! + 4)
        let lines = String(decoding: headBytes, as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, statusParts[0] == "HTTP/1.1", let status = Int(statusParts[1]) else {
            throw Failure(description: "bad status line \(lines[0])")
        }
        var headers: [(String, String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { throw Failure(description: "bad field \(line)") }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var response = Response(status: status, headers: headers, body: [])
        if head || status < 200 || status == 204 || status == 304 { return response }
        guard let lengthText = response["content-length"], let length = Int(lengthText) else {
            throw Failure(description: "no Content-Length")
        }
        while buffer.count < length {
            guard try fill() else { throw Failure(description: "EOF inside a body (\(buffer.count)/\(length))") }
        }
        response.body = Array(buffer[0..<length])
        buffer.removeFirst(length)
        return response
    }

    private func findHeadEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for i in 0...(buffer.count - 4)
        where buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 {
            return i
        }
        return nil
    }

    /// Waits for the server to close; true if EOF (or reset) arrived with no
    /// further bytes, false if bytes arrived or the read timed out.
    public func isClosedByPeer() -> Bool {
        do {
            let gotBytes = try fill()
            return !gotBytes && buffer.isEmpty
        } catch {
            return false
        }
    }

    /// Whether bytes (or EOF) are ready to read within `timeout` seconds.
    public func waitReadable(timeout: Double) -> Bool {
        if !buffer.isEmpty { return true }
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, Int32(timeout * 1000)) > 0
    }

    /// Bytes received but not consumed by `readResponse`.
    public var unread: Int { buffer.count }
}

/// How long a live test waits for something that must happen before it
/// calls it a failure (a hang guard, never a speed check): 60 s, or
/// `HITROUTE_TEST_HANG_GUARD` seconds. Tests assert what happened and in
/// which order, and lower bounds where a timeout must not fire early;
/// none asserts that something was fast.
public let hangGuardSeconds: Double = {
    if let text = ProcessInfo.processInfo.environment["HITROUTE_TEST_HANG_GUARD"], let s = Double(text), s > 0 { return s }
    return 60
}()

/// Polls `condition` every 10 ms until it holds or `hangGuardSeconds`
/// pass; returns whether it held.
public func eventually(_ condition: () -> Bool) -> Bool {
    let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(hangGuardSeconds * 1e9)
    while !condition() {
        if DispatchTime.now().uptimeNanoseconds > deadline { return false }
        usleep(10_000)
    }
    return true
}

/// Starts a server on an ephemeral port, runs `body`, and always shuts
/// the server down and waits for it, pass or fail.
public func withTestServer(
    host: String = "127.0.0.1",
    configure: (inout ServerConfiguration) -> Void = { _ in },
    handler: @escaping HTTPHandler,
    _ body: (HTTPServer, Int) throws -> Void
) throws {
    try withTestServer(host: host, configure: configure, responder: { request, _ in .response(handler(request)) }, body)
}

/// As above, with a responder that may hand its work to a worker (``HTTPResponder``).
public func withTestServer(
    host: String = "127.0.0.1",
    configure: (inout ServerConfiguration) -> Void = { _ in },
    responder: @escaping HTTPResponder,
    _ body: (HTTPServer, Int) throws -> Void
) throws {
    var configuration = ServerConfiguration(host: host, port: 0)
    configuration.logRequests = false
    configuration.eventLoops = 2
    configuration.shutdownGracePeriod = .seconds(2)
    configure(&configuration)
    let server = HTTPServer(configuration: configuration, responder: responder)
    let port = try server.start()
    defer {
        server.shutdown()
        server.waitUntilStopped()
    }
    try body(server, port)
}
