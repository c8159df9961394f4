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
            try client.send(request("POST", "/scenes/ring-demo/hit", #"{"x":120,"y":120,"trace":false}"#)
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

    /// 64 clients × 500 hits while another client replaces the scene: every
    /// answer must match the scene of the version it names.
    func testHitsStayConsistentWhileTheSceneIsReplaced() throws {
        let evenOdd = ringScene
        let nonzero = ringScene.replacingOccurrences(of: "\"evenodd\"", with: "\"nonzero\"")
        try withAPI { port in
            let setup = try TestClient(port: port)
            try setup.send(request("PUT", "/scenes/ring-demo", evenOdd))
            XCTAssertEqual(try setup.readResponse().status, 201)
            let stop = ManagedAtomicFlag()
            let writer = Thread {
                var k = 0
                let client = try? TestClient(port: port)
                while !stop.isSet, let client {
                    k += 1
                    // Version v holds the even-odd ring when v is odd, the nonzero one when even.
                    try? client.send(request("PUT", "/scenes/ring-demo", k % 2 == 1 ? nonzero : evenOdd))
                    _ = try? client.readResponse()
                }
            }
            writer.start()
            let failures = ManagedCounter()
            DispatchQueue.concurrentPerform(iterations: 64) { _ in
                guard let client = try? TestClient(port: port) else { return failures.add() }
                for _ in 0..<500 {
                    guard (try? client.send(request("POST", "/scenes/ring-demo/hit", #"{"x":120,"y":120,"trace":false}"#))) != nil,
                          let r = try? client.readResponse() else { return failures.add() }
                    let body = json(r)
                    let version = body["version"] as? Int ?? 0
                    let expected = version % 2 == 1 ? "button" : "ring"
                    if body["layer"] as? String != expected { failures.add() }
                }
            }
            stop.set()
            while writer.isExecuting { usleep(1000) }
            XCTAssertEqual(failures.value, 0)
            // A fresh connection: `setup` sat idle through the hits, longer than the idle timeout on a loaded machine.
            let check = try TestClient(port: port)
            try check.send(request("GET", "/scenes/ring-demo"))
            let version = json(try check.readResponse())["version"] as? Int ?? 0
            XCTAssertGreaterThan(version, 10, "the scene was barely replaced while the hits ran")
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
        let deadline = Date().addingTimeInterval(10)
        while !text.contains("\n") && Date() < deadline {
            text += String(decoding: stderr.fileHandleForReading.availableData, as: UTF8.self)
        }
        let port = Int(text.split(separator: ":").last?.split(separator: "\n").first ?? "") ?? 0
        XCTAssertGreaterThan(port, 0, text)
        let client = try TestClient(port: port)
        try client.send(request("GET", "/readyz"))
        XCTAssertEqual(try client.readResponse().status, 200)
        kill(process.processIdentifier, SIGTERM)
        let stopBy = Date().addingTimeInterval(5)
        while process.isRunning && Date() < stopBy { usleep(10_000) }
        XCTAssertFalse(process.isRunning, "still running 5 s after SIGTERM")
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
