import Glibc
import HitBase
import RESP

/// One blocking TCP connection to Redis, used by one thread at a time
/// (`Sendable` so that a pool can hand it from thread to thread, never to
/// two at once).
///
/// Every wait has a deadline (``ExchangeDeadline``, enforced with `poll`):
/// `timeout` seconds after the last byte moved, so a silent server costs a
/// timeout, never a hang, and a big document that keeps flowing at
/// ``ExchangeDeadline/minimumRate`` or more is never cut off; a server
/// that trickles slower is cut off too. After any ``RedisError`` the
/// connection is closed and must be discarded.
public final class RedisConnection: @unchecked Sendable {
    private var fd: Int32 = -1
    private var input: [UInt8] = []
    /// Where the bytes the reader has not consumed begin in `input`.
    private var inputStart = 0
    /// The reply being read: what earlier reads of it produced.
    private var reader: RESPReader
    /// What one `recv` reads into, before it joins `input`.
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
    let limits: RESPLimits
    let timeout: Double

    /// Connects, then sends `AUTH` (when a password is set) and `SELECT`
    /// (when the database is not 0) in one pipeline.
    public init(_ endpoint: RedisEndpoint, timeout: Double, limits: RESPLimits = RESPLimits()) throws(RedisError) {
        self.timeout = timeout
        self.limits = limits
        self.reader = RESPReader(limits: limits)
        try open(endpoint)
        var setup: [[[UInt8]]] = []
        if let password = endpoint.password { setup.append([Array("AUTH".utf8), Array(password.utf8)]) }
        if endpoint.database != 0 { setup.append([Array("SELECT".utf8), Array(String(endpoint.database).utf8)]) }
        if !setup.isEmpty {
            let replies = try pipeline(setup)
            for r in replies {
                if let m = r.errorMessage {
                    close()
                    // The message is the server's, never the password.
                    throw RedisError(.refused, m)
                }
            }
        }
    }

    deinit {
        close()
        scratch.deallocate()
    }

    public var isOpen: Bool { fd >= 0 }

    public func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// Sends `commands` in one write and reads their replies in order.
    public func pipeline(_ commands: [[[UInt8]]]) throws(RedisError) -> [RESPValue] {
        var out: [UInt8] = []
        for c in commands { RESPEncoder.appendCommand(c, to: &out) }
        var deadline = ExchangeDeadline(start: MonotonicClock.seconds(), timeout: timeout)
        try write(out, deadline: &deadline)
        var replies: [RESPValue] = []
        replies.reserveCapacity(commands.count)
        for _ in commands { replies.append(try read(deadline: &deadline)) }
        return replies
    }

    /// Sends one command and reads its reply.
    public func send(_ command: [[UInt8]]) throws(RedisError) -> RESPValue {
        try pipeline([command])[0]
    }

    /// Sends without reading (the subscriber's SUBSCRIBE).
    public func write(_ command: [[UInt8]]) throws(RedisError) {
        var deadline = ExchangeDeadline(start: MonotonicClock.seconds(), timeout: timeout)
        try write(RESPEncoder.command(command), deadline: &deadline)
    }

    /// The next value the server sends, waiting until `deadline` (a
    /// monotonic time in seconds); nil when nothing complete came by then
    /// and `idleOK` (a subscriber between messages).
    public func next(until deadline: Double, idleOK: Bool) throws(RedisError) -> RESPValue? {
        var deadline = ExchangeDeadline(start: MonotonicClock.seconds(), timeout: timeout, until: deadline)
        do {
            return try read(deadline: &deadline)
        } catch let e where e.kind == .timeout && idleOK && inputStart == input.count && !reader.isMidReply {
            return nil
        }
    }

    // MARK: - I/O

    private func read(deadline: inout ExchangeDeadline) throws(RedisError) -> RESPValue {
        while true {
            if inputStart < input.count {
                let read: (value: RESPValue?, end: Int)
                do {
                    read = try input.withUnsafeBufferPointer { (b) throws(RESPParseError) -> (value: RESPValue?, end: Int) in
                        try reader.read(b, from: inputStart)
                    }
                } catch {
                    close()
                    throw RedisError(.protocolError, error.description)
                }
                inputStart = read.end
                if let value = read.value {
                    if inputStart == input.count {
                        input.removeAll(keepingCapacity: input.capacity <= 1 << 20)
                        inputStart = 0
                    }
                    return value
                }
            }
            if inputStart > 0 {
                input.removeFirst(inputStart)
                inputStart = 0
            }
            try wait(for: Int16(POLLIN), until: deadline.at)
            let n = recv(fd, scratch.baseAddress, scratch.count, 0)
            if n > 0 {
                input.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[0..<n]))
                deadline.moved(n, now: MonotonicClock.seconds())
            } else {
                if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                let why = n == 0 ? "the server closed the connection" : String(cString: strerror(errno))
                close()
                throw RedisError(.connectionLost, why)
            }
        }
    }

    private func write(_ bytes: [UInt8], deadline: inout ExchangeDeadline) throws(RedisError) {
        guard fd >= 0 else { throw RedisError(.connectionLost, "connection closed") }
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBufferPointer { b in Glibc.send(fd, b.baseAddress! + sent, b.count - sent, Int32(MSG_NOSIGNAL)) }
            if n > 0 {
                sent += n
                deadline.moved(n, now: MonotonicClock.seconds())
                continue
            }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && errno == EAGAIN {
                try wait(for: Int16(POLLOUT), until: deadline.at)
                continue
            }
            let why = String(cString: strerror(errno))
            close()
            throw RedisError(.connectionLost, why)
        }
    }

    private func wait(for events: Int16, until deadline: Double) throws(RedisError) {
        guard fd >= 0 else { throw RedisError(.connectionLost, "connection closed") }
        while true {
            let left = deadline - MonotonicClock.seconds()
            if left <= 0 {
                throw RedisError(.timeout, "no reply within \(timeout) s")
            }
            var p = pollfd(fd: fd, events: events, revents: 0)
            let rc = poll(&p, 1, Int32(min(left * 1000, 60_000).rounded(.up)))
            if rc > 0 { return }
            if rc < 0 && errno != EINTR {
                close()
                throw RedisError(.connectionLost, String(cString: strerror(errno)))
            }
        }
    }

    private func open(_ endpoint: RedisEndpoint) throws(RedisError) {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(endpoint.host, String(endpoint.port), &hints, &list)
        guard rc == 0, let first = list else {
            throw RedisError(.unreachable, "cannot resolve \(endpoint.host): \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var ai: UnsafeMutablePointer<addrinfo>? = first
        let deadline = MonotonicClock.seconds() + timeout
        while let a = ai {
            ai = a.pointee.ai_next
            let s = socket(
                a.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard s >= 0 else {
                lastError = String(cString: strerror(errno))
                continue
            }
            var one: Int32 = 1
            setsockopt(s, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            if connect(s, a.pointee.ai_addr, a.pointee.ai_addrlen) == 0 || errno == EINPROGRESS {
                fd = s
                do {
                    try wait(for: Int16(POLLOUT), until: deadline)
                } catch {
                    lastError = error.message
                    close()
                    continue
                }
                var err: Int32 = 0
                var len = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &len)
                if err == 0 { return }
                lastError = String(cString: strerror(err))
                close()
            } else {
                lastError = String(cString: strerror(errno))
                Glibc.close(s)
            }
        }
        throw RedisError(.unreachable, "\(endpoint): \(lastError)")
    }
}
