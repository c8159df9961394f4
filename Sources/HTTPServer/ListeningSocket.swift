import Glibc

/// Errors ``HTTPServer/start()`` reports besides failed system calls.
public enum HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `getaddrinfo` could not resolve the configured host.
    case addressResolution(host: String, message: String)
    /// ``HTTPServer/start()`` was called twice.
    case alreadyStarted
    /// ``HTTPServer/start()`` was called after ``HTTPServer/shutdown()``.
    case shutDown
    /// A configuration value is out of range.
    case invalidConfiguration(String)

    public var description: String {
        switch self {
        case .addressResolution(let host, let message): return "cannot resolve \(host): \(message)"
        case .alreadyStarted: return "the server is already started"
        case .shutDown: return "the server has been shut down"
        case .invalidConfiguration(let what): return "invalid configuration: \(what)"
        }
    }
}

/// Non-blocking listening TCP sockets: one per event loop, all bound to the
/// same address with `SO_REUSEPORT` so the kernel spreads connections.
enum ListeningSocket {
    /// Binds `count` listening sockets to `host:port`. With port 0 the
    /// first socket picks an ephemeral port and the others join it.
    /// - Returns: the descriptors and the bound port.
    static func bind(host: String, port: Int, count: Int, backlog: Int32 = 1024) throws -> (fds: [Int32], port: Int) {
        guard (0...65535).contains(port) else { throw HTTPServerError.invalidConfiguration("port \(port)") }
        var fds: [Int32] = []
        do {
            let (first, address) = try bindFirst(host: host, port: port, backlog: backlog)
            fds.append(first)
            for _ in 1..<max(1, count) {
                fds.append(try open(address: address, backlog: backlog))
            }
            return (fds, boundPort(address))
        } catch {
            for fd in fds { Glibc.close(fd) }
            throw error
        }
    }

    /// Resolves `host` and binds the first address that works.
    private static func bindFirst(host: String, port: Int, backlog: Int32) throws -> (Int32, SocketAddress) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let list else {
            throw HTTPServerError.addressResolution(host: host, message: String(cString: gai_strerror(rc)))
        }
        defer { freeaddrinfo(list) }
        var lastError: Error = HTTPServerError.addressResolution(host: host, message: "no usable address")
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let info = entry {
            entry = info.pointee.ai_next
            let address = SocketAddress(info.pointee.ai_addr, length: info.pointee.ai_addrlen)
            do {
                if port != 0 { try ensureNotInUse(address) }
                let fd = try open(address: address, backlog: backlog)
                return (fd, try SocketAddress(localOf: fd))
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    /// SO_REUSEPORT would let a second server silently share a fixed port
    /// with the first; binding once without it first turns that mistake
    /// into the usual `EADDRINUSE`.
    private static func ensureNotInUse(_ address: SocketAddress) throws {
        let fd = try Syscall.call("socket") { socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        defer { Glibc.close(fd) }
        try setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
        _ = try address.withSockaddr { pointer, length in
            try Syscall.call("bind") { Glibc.bind(fd, pointer, length) }
        }
    }

    /// A non-blocking, close-on-exec socket with SO_REUSEADDR and
    /// SO_REUSEPORT, bound to `address` and listening.
    private static func open(address: SocketAddress, backlog: Int32) throws -> Int32 {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let fd = try Syscall.call("socket") { socket(address.family, type, 0) }
        do {
            try setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
            try setOption(fd, SOL_SOCKET, SO_REUSEPORT, 1)
            _ = try address.withSockaddr { pointer, length in
                try Syscall.call("bind") { Glibc.bind(fd, pointer, length) }
            }
            _ = try Syscall.call("listen") { listen(fd, backlog) }
            return fd
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) throws(SystemCallError) {
        var value = value
        _ = try Syscall.call("setsockopt") {
            setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    private static func boundPort(_ address: SocketAddress) -> Int {
        address.port
    }
}

/// A socket address of any family, stored by value.
struct SocketAddress {
    private var storage = sockaddr_storage()
    private var length: socklen_t

    init(_ address: UnsafePointer<sockaddr>, length: socklen_t) {
        self.length = length
        withUnsafeMutableBytes(of: &storage) { raw in
            raw.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(length)))
        }
    }

    /// The local address a socket is bound to (`getsockname`).
    init(localOf fd: Int32) throws(SystemCallError) {
        length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        var length = self.length
        _ = try withUnsafeMutableBytes(of: &storage) { raw throws(SystemCallError) in
            try Syscall.call("getsockname") {
                getsockname(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), &length)
            }
        }
        self.length = length
    }

    var family: Int32 { Int32(storage.ss_family) }

    var port: Int {
        withUnsafeBytes(of: storage) { raw in
            // sin_port and sin6_port share the offset after the family.
            let port = raw.load(fromByteOffset: 2, as: UInt16.self)
            return Int(UInt16(bigEndian: port))
        }
    }

    func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws -> T) rethrows -> T {
        try withUnsafeBytes(of: storage) { raw in
            try body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), length)
        }
    }
}

extension ListeningSocket {
    /// A peer address as text: `1.2.3.4:5678`, `[::1]:5678`, or empty for
    /// another family.
    static func describe(_ address: inout sockaddr_storage) -> String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = Int32(address.ss_family)
        /// `text` up to its terminating NUL.
        func written() -> String {
            String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return withUnsafeBytes(of: &address) { raw -> String in
            let port = Int(UInt16(bigEndian: raw.load(fromByteOffset: 2, as: UInt16.self)))
            switch family {
            case AF_INET:
                // sin_addr follows the family and the port.
                guard inet_ntop(AF_INET, raw.baseAddress! + 4, &text, socklen_t(text.count)) != nil else { return "" }
                return "\(written()):\(port)"
            case AF_INET6:
                // sin6_addr follows the family, the port and the flow label.
                guard inet_ntop(AF_INET6, raw.baseAddress! + 8, &text, socklen_t(text.count)) != nil else { return "" }
                return "[\(written())]:\(port)"
            default:
                return ""
            }
        }
    }
}
