import Foundation
import Glibc
import HTTPServer
import TestSupport
import XCTest

@testable import HitAPI

/// The whole service (``Application/makeServer(_:access:)``) on an
/// ephemeral port, its request log written to a pipe that `body` may read
/// once the server has stopped; always shut down, pass or fail.
struct LiveService {
    let port: Int
    let app: Application

    /// A request over a fresh connection (`headers` in order, after Host).
    func send(_ method: String, _ target: String, _ body: String = "", headers: [(String, String)] = []) throws -> TestClient.Response {
        let client = try TestClient(port: port)
        var text = "\(method) \(target) HTTP/1.1\r\nHost: test\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if !body.isEmpty || ["POST", "PUT", "PATCH"].contains(method) {
            text += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
        }
        try client.send(text + "\r\n" + body)
        return try client.readResponse(head: method == "HEAD")
    }

    func scrape(accept: String? = nil, key: String? = nil) throws -> (TestClient.Response, ParsedExposition) {
        var headers: [(String, String)] = []
        if let accept { headers.append(("Accept", accept)) }
        if let key { headers.append(("Authorization", "Bearer \(key)")) }
        let r = try send("GET", "/metrics", headers: headers)
        XCTAssertEqual(r.status, 200, r.text)
        return (r, try ParsedExposition(r.text, openMetrics: accept?.contains("openmetrics") ?? false))
    }
}

/// Runs `body` against a live service; returns what it logged.
@discardableResult
func withLiveService(
    _ edit: (inout Configuration) -> Void = { _ in }, access: AccessControl = .open,
    _ body: (LiveService) throws -> Void
) throws -> String {
    var config = Configuration.live(eventLoops: 2)
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { throw XCTSkip("pipe: errno \(errno)") }
    // Non-blocking: a test that logs a lot must not stall a loop on a full pipe; it reads as it goes.
    _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
    config.server.logDescriptor = fds[1]
    edit(&config)
    let (server, app) = Application.makeServer(config, access: access)
    let reader = PipeReader(fd: fds[0])
    var failure: Error?
    do {
        let port = try server.start()
        defer {
            server.shutdown()
            server.waitUntilStopped()
        }
        try body(LiveService(port: port, app: app))
    } catch {
        failure = error
    }
    close(fds[1])
    let log = reader.finish()
    close(fds[0])
    if let failure { throw failure }
    return log
}

extension Configuration {
    /// A live test's service: an ephemeral port of 127.0.0.1, `eventLoops`
    /// loops, a 2 s shutdown grace and no request log.
    static func live(eventLoops: Int) -> Configuration {
        var config = Configuration()
        config.server.host = "127.0.0.1"
        config.server.port = 0
        config.server.eventLoops = eventLoops
        config.server.shutdownGracePeriod = .seconds(2)
        config.server.logRequests = false
        return config
    }
}

/// Drains a pipe on a thread of its own until its write end closes.
final class PipeReader: @unchecked Sendable {
    private let lock = NSLock()
    private var bytes: [UInt8] = []
    private let done = DispatchSemaphore(value: 0)

    init(fd: Int32) {
        Thread {
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                self.lock.withLock { self.bytes += chunk[0..<n] }
            }
            self.done.signal()
        }.start()
    }

    func finish() -> String {
        done.wait()
        return lock.withLock { String(decoding: bytes, as: UTF8.self) }
    }
}

/// A key file in a temporary directory, removed at the end of the test.
func writeKeyFile(_ text: String, in test: XCTestCase) throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hitroute-keys-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("keys").path
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}
