import Foundation
import Glibc
import TestSupport
import XCTest

@testable import HTTPServer

/// Time bounds, the connection cap and graceful shutdown, with short
/// configured timeouts so nothing sleeps long. No upper bound on elapsed
/// time (a slow machine is not a failure): a timeout must not fire early
/// (lower bounds), and must fire while the client is still at work (order).
final class LiveTimeoutAndShutdownTests: XCTestCase {
    func testSlowlorisHeadIsCutOffAtTheHeaderTimeout() throws {
        try withServer(configure: { $0.headerReadTimeout = .milliseconds(500) }) { _, port in
            let client = try TestClient(port: port)
            let start = seconds()
            // One byte every 100 ms: progress never resets the head's clock,
            // so the 408 comes while the head still trickles in (it would
            // take over 60 s to send it all).
            let head = Array("GET /slow-loris HTTP/1.1\r\nHost: t\r\nX-Padding: \(String(repeating: "a", count: 600))".utf8)
            var sent = 0
            for byte in head {
                guard (try? client.send([byte])) != nil else { break }  // closed under us: the answer is read below
                sent += 1
                if client.waitReadable(timeout: 0.1) { break }
            }
            let r = try? client.readResponse()
            XCTAssertEqual(r?.status, 408)
            XCTAssertLessThan(sent, head.count, "the head's clock was reset by progress")
            XCTAssertGreaterThan(seconds() - start, 0.45)
        }
    }

    func testSilentConnectionIsClosedAtTheHeaderTimeout() throws {
        try withServer(configure: { $0.headerReadTimeout = .milliseconds(300) }) { server, port in
            let client = try TestClient(port: port)
            let start = seconds()
            XCTAssertTrue(client.isClosedByPeer())
            XCTAssertGreaterThan(seconds() - start, 0.25)
        }
    }

    func testIdleKeepAliveConnectionIsClosed() throws {
        try withServer(configure: { $0.idleTimeout = .milliseconds(300) }) { server, port in
            let client = try TestClient(port: port)
            try client.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
            _ = try client.readResponse()
            let start = seconds()
            XCTAssertTrue(client.isClosedByPeer())
            let elapsed = seconds() - start
            XCTAssertGreaterThan(elapsed, 0.2)
            XCTAssertTrue(eventually { server.openConnections == 0 })
        }
    }

    func testStalledBodyTimesOut() throws {
        try withServer(configure: { $0.bodyReadTimeout = .milliseconds(300) }) { _, port in
            let client = try TestClient(port: port)
            try client.send("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nabc")
            let start = seconds()
            XCTAssertEqual(try client.readResponse().status, 408)
            XCTAssertGreaterThan(seconds() - start, 0.25)
            XCTAssertTrue(client.isClosedByPeer())
        }
    }

    func testConnectionsPastTheCapGet503() throws {
        try withServer(configure: {
            $0.maxConnections = 2
            $0.eventLoops = 1
        }) { server, port in
            let a = try TestClient(port: port)
            let b = try TestClient(port: port)
            for c in [a, b] {
                try c.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
                XCTAssertEqual(try c.readResponse().status, 200)
            }
            let third = try TestClient(port: port)
            XCTAssertEqual(try third.readResponse().status, 503)
            XCTAssertEqual(server.openConnections, 2)
        }
    }

    func testGracefulShutdownDrainsAnInFlightRequest() throws {
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.logRequests = false
        // Far longer than the drain takes even on a slow machine, so that
        // stopping before it is a fact and not a race.
        configuration.shutdownGracePeriod = .seconds(4 * hangGuardSeconds)
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let server = HTTPServer(configuration: configuration) { request in
            if request.path == "/held" {
                entered.signal()
                _ = release.wait(timeout: .now() + hangGuardSeconds)
                return HTTPResponse(status: 200, body: Array("slept".utf8))
            }
            return testHandler(request)
        }
        let port = try server.start()
        defer {
            release.signal()
            server.shutdown()
            server.waitUntilStopped()
        }

        let idle = try TestClient(port: port)
        try idle.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        _ = try idle.readResponse()

        let busy = try TestClient(port: port)
        try busy.send("GET /held HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(entered.wait(timeout: .now() + hangGuardSeconds), .success, "the request is in flight")
        let start = seconds()
        XCTAssertFalse(server.isShuttingDown)
        server.shutdown()
        server.shutdown()
        XCTAssertTrue(server.isShuttingDown)

        // The idle keep-alive connection is closed at once…
        XCTAssertTrue(idle.isClosedByPeer())
        release.signal()
        // …the in-flight request completes, marked as the last one…
        let r = try busy.readResponse()
        XCTAssertEqual(r.text, "slept")
        XCTAssertEqual(r["connection"], "close")
        XCTAssertTrue(busy.isClosedByPeer())
        // …and the loops stop without waiting out the grace period.
        server.waitUntilStopped()
        XCTAssertLessThan(seconds() - start, 4 * hangGuardSeconds)
        XCTAssertThrowsError(try TestClient(port: port, timeout: 1))
    }

    func testGracePeriodBoundsAStuckRequest() throws {
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.logRequests = false
        configuration.shutdownGracePeriod = .milliseconds(300)
        configuration.offloadBodyBytes = 1
        // The handler is stuck until the test lets it go, after the server stopped.
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let server = HTTPServer(configuration: configuration) { request in
            entered.signal()
            _ = release.wait(timeout: .now() + 4 * hangGuardSeconds)
            return testHandler(request)
        }
        defer { release.signal() }
        let port = try server.start()
        let client = try TestClient(port: port)
        try client.send("POST /stuck HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\n\r\nx")
        XCTAssertEqual(entered.wait(timeout: .now() + hangGuardSeconds), .success, "the request is in flight")
        let start = seconds()
        server.shutdown()
        server.waitUntilStopped()  // returns while the handler is still stuck
        XCTAssertGreaterThan(seconds() - start, 0.25)
        XCTAssertTrue(client.isClosedByPeer())
    }

    func testStopOnSignal() throws {
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.logRequests = false
        let server = HTTPServer(configuration: configuration, handler: testHandler)
        try server.stopOnSignals([SIGUSR1])
        _ = try server.start()
        defer {
            server.shutdown()
            server.waitUntilStopped()
        }
        // Process-directed: any thread may take it, including threads that
        // earlier tests started (Dispatch, Foundation) with their own masks.
        kill(getpid(), SIGUSR1)
        XCTAssertTrue(eventually { server.isShuttingDown })
    }

    func testLifecycleEdges() throws {
        let never = HTTPServer(configuration: ServerConfiguration(), handler: testHandler)
        never.waitUntilStopped()
        never.shutdown()
        XCTAssertThrowsError(try never.start())

        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.logRequests = false
        let server = HTTPServer(configuration: configuration, handler: testHandler)
        let port = try server.start()
        XCTAssertGreaterThan(port, 0)
        XCTAssertEqual(server.port, port)
        XCTAssertThrowsError(try server.start())
        server.shutdown()
        server.waitUntilStopped()
        server.waitUntilStopped()
    }
}

final class ListeningSocketTests: XCTestCase {
    func testFixedPortAlreadyInUseIsAnError() throws {
        try withServer { _, port in
            var configuration = ServerConfiguration(host: "127.0.0.1", port: port)
            configuration.logRequests = false
            let second = HTTPServer(configuration: configuration, handler: testHandler)
            XCTAssertThrowsError(try second.start()) { error in
                XCTAssertEqual((error as? SystemCallError)?.errno, EADDRINUSE, "\(error)")
            }
        }
    }

    func testUnresolvableHostIsAnError() {
        var configuration = ServerConfiguration(host: "no such host.invalid", port: 0)
        configuration.logRequests = false
        let server = HTTPServer(configuration: configuration, handler: testHandler)
        XCTAssertThrowsError(try server.start())
    }

    func testEveryLoopAcceptsOnTheSamePort() throws {
        try withServer(configure: { $0.eventLoops = 4 }) { server, port in
            var clients: [TestClient] = []
            for i in 0..<32 {
                let client = try TestClient(port: port)
                try client.send("GET /c\(i) HTTP/1.1\r\nHost: t\r\n\r\n")
                clients.append(client)
            }
            for (i, client) in clients.enumerated() {
                XCTAssertEqual(try client.readResponse().text, "GET /c\(i)  0")
            }
            XCTAssertEqual(server.openConnections, 32)
        }
    }
}

final class ServerLifetimeTests: XCTestCase {
    func testDroppingTheServerStopsIt() throws {
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.logRequests = false
        var server: HTTPServer? = HTTPServer(configuration: configuration, handler: testHandler)
        let port = try server!.start()
        let client = try TestClient(port: port)
        try client.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        _ = try client.readResponse()
        server = nil
        XCTAssertTrue(client.isClosedByPeer())
        // Each loop closes its own listener on its own thread: allow it a moment.
        XCTAssertTrue(eventually { (try? TestClient(port: port, timeout: 1)) == nil })
    }
}
