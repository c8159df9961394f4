import Foundation
import HTTPServer
import TestSupport
import XCTest

@testable import HitAPI

/// The API through real sockets on an ephemeral port.
final class LiveAPITests: XCTestCase {
    func withAPI(_ edit: (inout Configuration) -> Void = { _ in }, _ body: (Int) throws -> Void) throws {
        let app = Application.testing(edit)
        try withTestServer(configure: { $0.limits = app.configuration.server.limits }, handler: { app.respond(to: $0) }) { _, port in
            try body(port)
        }
    }

    func testTheRingTableOverOneKeepAliveConnectionAndAPipeline() throws {
        try withAPI { port in
            let client = try TestClient(port: port)
            try client.send(request("PUT", "/scenes/ring-demo", ringScene, type: "application/x-www-form-urlencoded"))
            XCTAssertEqual(try client.readResponse().status, 201)
            // Three hits in one write: answered in order.
            try client.send(
                request("POST", "/scenes/ring-demo/hit", #"{"x":120,"y":120,"trace":false}"#)
                    + request("GET", "/scenes/ring-demo/hit?x=210&y=120&trace=0")
                    + request("POST", "/scenes/ring-demo/hit", #"{"x":10,"y":10}"#))
            let layers = try (0..<3).map { _ in json(try client.readResponse())["layer"] as? String }
            XCTAssertEqual(layers, ["button", "ring", "button"])
            let problem = try { () throws -> TestClient.Response in
                try client.send(request("POST", "/scenes/ring-demo/hit", #"{"x":"a"}"#))
                return try client.readResponse()
            }()
            XCTAssertEqual(problem.status, 422)
            XCTAssertEqual(problem["Content-Type"], "application/problem+json")
        }
    }

    func testBodyLimitIsA413() throws {
        try withAPI({ $0.server.limits.maxBodyBytes = 1024 }) { port in
            let client = try TestClient(port: port)
            try client.send(request("PUT", "/scenes/big", #"{"layers":[]"# + String(repeating: " ", count: 2000) + "}"))
            let r = try client.readResponse()
            XCTAssertEqual(r.status, 413)
        }
    }

    /// 64 clients × at least 500 hits while another client replaces the
    /// scene: every answer must match the scene of the version it names.
    ///
    /// Nothing here depends on the machine's speed: no connection sits
    /// idle across the work (the setup and the final check each use a
    /// fresh one, so the idle timeout cannot close them), the hitters go on
    /// until the writer has replaced the scene at least 10 times, however
    /// the threads are scheduled, and a writer whose connection fails
    /// opens another.
    func testHitsStayConsistentWhileTheSceneIsReplaced() throws {
        let evenOdd = ringScene
        let nonzero = ringScene.replacingOccurrences(of: "\"evenodd\"", with: "\"nonzero\"")
        try withAPI { port in
            let setup = try TestClient(port: port)
            try setup.send(request("PUT", "/scenes/ring-demo", evenOdd))
            XCTAssertEqual(try setup.readResponse().status, 201)
            let stop = ManagedAtomicFlag()
            let replaced = ManagedCounter()
            let writerErrors = ManagedCounter()
            let writer = Thread {
                var version = 1
                var client: TestClient?
                while !stop.isSet, writerErrors.value < 100 {
                    do {
                        let c: TestClient
                        if let client {
                            c = client
                        } else {
                            // A new connection learns the version first (a lost answer may have changed it).
                            c = try TestClient(port: port)
                            try c.send(request("GET", "/scenes/ring-demo"))
                            version = json(try c.readResponse())["version"] as? Int ?? version
                            client = c
                        }
                        // Version v holds the even-odd ring when v is odd, the nonzero one when even.
                        try c.send(request("PUT", "/scenes/ring-demo", (version + 1) % 2 == 1 ? evenOdd : nonzero))
                        let r = try c.readResponse()
                        if r.status == 200, let v = json(r)["version"] as? Int {
                            version = v
                            replaced.add()
                        }
                    } catch {
                        client = nil
                        writerErrors.add()
                    }
                }
            }
            writer.start()
            let failures = ManagedCounter()
            DispatchQueue.concurrentPerform(iterations: 64) { _ in
                guard let client = try? TestClient(port: port) else { return failures.add() }
                var i = 0
                while i < 500 || (replaced.value < 10 && writerErrors.value < 100) {
                    i += 1
                    guard (try? client.send(request("POST", "/scenes/ring-demo/hit", #"{"x":120,"y":120,"trace":false}"#))) != nil,
                        let r = try? client.readResponse()
                    else { return failures.add() }
                    let body = json(r)
                    let version = body["version"] as? Int ?? 0
                    let expected = version % 2 == 1 ? "button" : "ring"
                    if body["layer"] as? String != expected { failures.add() }
                }
            }
            stop.set()
            XCTAssertTrue(eventually { !writer.isExecuting })
            XCTAssertEqual(failures.value, 0)
            XCTAssertGreaterThanOrEqual(
                replaced.value, 10, "the scene was barely replaced while the hits ran (\(writerErrors.value) writer errors)")
            let check = try TestClient(port: port)
            try check.send(request("GET", "/scenes/ring-demo"))
            let version = json(try check.readResponse())["version"] as? Int ?? 0
            XCTAssertGreaterThanOrEqual(version, 1 + replaced.value, "every replacement counted")
        }
    }

    func testTheExecutableDrainsAndExitsZeroOnSIGTERM() throws {
        let binary = repositoryRoot.appendingPathComponent(".build/debug/hitroute")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw XCTSkip("no debug build of the hitroute executable at \(binary.path)")
        }
        let process = Process()
        process.executableURL = binary
        process.arguments = ["--port", "0", "--quiet", "--shutdown-grace", "2"]
        let stderr = Pipe()
        process.standardError = stderr
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        // The first line says where it listens.
        var text = ""
        let deadline = Date().addingTimeInterval(hangGuardSeconds)
        while !text.contains("\n") && Date() < deadline {
            text += String(decoding: stderr.fileHandleForReading.availableData, as: UTF8.self)
        }
        // (More lines may follow in the same read: the access notes.)
        let firstLine = text.split(separator: "\n").first ?? ""
        let port = Int(firstLine.split(separator: ":").last ?? "") ?? 0
        XCTAssertGreaterThan(port, 0, text)
        let client = try TestClient(port: port)
        try client.send("GET /readyz HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 200)
        // Bound to loopback, the executable answers loopback names only.
        let rebound = try TestClient(port: port)
        try rebound.send(request("GET", "/readyz"))
        XCTAssertEqual(try rebound.readResponse().status, 403)
        kill(process.processIdentifier, SIGTERM)
        XCTAssertTrue(eventually { !process.isRunning }, "still running \(hangGuardSeconds) s after SIGTERM")
        if !process.isRunning { XCTAssertEqual(process.terminationStatus, 0) }
    }
}

/// Raw HTTP/1.1 request text.
func request(_ method: String, _ path: String, _ body: String = "", type: String = "application/json") -> String {
    var text = "\(method) \(path) HTTP/1.1\r\nHost: test\r\n"
    if !body.isEmpty || method != "GET" { text += "Content-Type: \(type)\r\nContent-Length: \(body.utf8.count)\r\n" }
    return text + "\r\n" + body
}

func json(_ r: TestClient.Response) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(r.body))) as? [String: Any] ?? [:]
}

/// A flag and a counter shared across threads.
final class ManagedAtomicFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    var isSet: Bool { lock.withLock { flag } }
    func set() { lock.withLock { flag = true } }
}

final class ManagedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add() { lock.withLock { count += 1 } }
}
