import Foundation
import Glibc
import TestSupport
import XCTest
@testable import HTTPServer

/// Time bounds, the connection cap and graceful shutdown, with short
/// configured timeouts so nothing sleeps long.
final class LiveTimeoutAndShutdownTests: XCTestCase {
    func testSlowlorisHeadIsCutOffAtTheHeaderTimeout() throws {
        try withServer(configure: { $0.headerReadTimeout = .milliseconds(500) }) { _, port in
            let client = try TestClient(port: port)
            let start = seconds()
            // One byte every 100 ms: progress never resets the head's clock.
            for byte in Array("GET /slow-loris HTTP/1.1\r\nHost: t\r\nX-Padding: aaaaaaaaaaaaaaaaaaaaaaaa".utf8) {
                try client.send([byte])
                if client.waitReadable(timeout: 0.1) || seconds() - start > 2 { break }
            }
            let elapsed = seconds() - start
            let r = try? client.readResponse()
            XCTAssertEqual(r?.status, 408)
            XCTAssertLessThan(elapsed, 1.5, "closed after \(elapsed) s")
            XCTAssertGreaterThan(seconds() - start, 0.45)
        }
    }

    func testSilentConnectionIsClosedAtTheHeaderTimeout() throws {
        try withServer(configure: { $0.headerReadTimeout = .milliseconds(300) }) { server, port in
            let client = try TestClient(port: port)
            let start = seconds()
            XCTAssertTrue(client.isClosedByPeer())
            XCTAssertLessThan(seconds() - start, 1.0)
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
            XCTAssertLessThan(elapsed, 1.0)
            usleep(50_000)
            XCTAssertEqual(server.openConnections, 0)
        }
    }

    func testStalledBodyTimesOut() throws {
        try withServer(configure: { $0.bodyReadTimeout = .milliseconds(300) }) { _, port in
            let client = try TestClient(port: port)
            try client.send("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nabc")
            let start = seconds()
            XCTAssertEqual(try client.readResponse().status, 408)
            XCTAssertLessThan(seconds() - start, 1.0)
            XCTAssertTrue(client.isClosedByPeer())
        }
    }

    func testConnectionsPastTheCapGet503() throws {
        try withServer(configure: { $0.maxConnections = 2; $0.eventLoops = 1 }) { server, port in
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
        configuration.shutdownGracePeriod = .seconds(3)
        let server = HTTPServer(configuration: configuration, handler: testHandler)
        let port = try server.start()
        defer { server.shutdown(); server.waitUntilStopped() }

        let idle = try TestClient(port: port)
        try idle.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        _ = try idle.readResponse()

        let busy = try TestClient(port: port)
        try busy.send("GET /slow?ms=500 HTTP/1.1\r\nHost: t\r\n\r\n")
        usleep(150_000)
        let start = seconds()
        XCTAssertFalse(server.isShuttingDown)
        server.shutdown()
        server.shutdown()
        XCTAssertTrue(server.isShuttingDown)

        // The idle keep-alive connection is closed at once…
        XCTAssertTrue(idle.isClosedByPeer())
        // …the in-flight request completes, marked as the last one…
        let r = try busy.readResponse()
        XCTAssertEqual(r.text, "slept")
        XCTAssertEqual(r["connection"], "close")
        XCTAssertTrue(busy.isClosedByPeer())
        // …and the loops stop without waiting out the grace period.
        server.waitUntilStopped()
        XCTAssertLessThan(seconds() - start, 2.0)
        XCTAssertThrowsError(try TestClient(port: port, timeout: 1))
    }

    func testGracePeriodBoundsAStuckRequest() throws {
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.logRequests = false
        configuration.shutdownGracePeriod = .milliseconds(300)
        configuration.offloadBodyBytes = 1
        let server = HTTPServer(configuration: configuration) { request in
            usleep(1_500_000)
            return testHandler(request)
        }
        let port = try server.start()
        let client = try TestClient(port: port)
        try client.send("POST /stuck HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\n\r\nx")
        usleep(100_000)
        let start = seconds()
        server.shutdown()
        server.waitUntilStopped()
        XCTAssertLessThan(seconds() - start, 1.0)
        XCTAssertTrue(client.isClosedByPeer())
    }

    func testStopOnSignal() throws {
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.logRequests = false
        let server = HTTPServer(configuration: configuration, handler: testHandler)
        try server.stopOnSignals([SIGUSR1])
        _ = try server.start()
        defer { server.shutdown(); server.waitUntilStopped() }
        // Process-directed: any thread may take it, including threads that
        // earlier tests started (Dispatch, Foundation) with their own masks.
        kill(getpid(), SIGUSR1)
        let start = seconds()
        while !server.isShuttingDown && seconds() - start < 2 { usleep(10_000) }
        XCTAssertTrue(server.isShuttingDown)
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
        let start = seconds()
        var refused = false
        while !refused && seconds() - start < 2 {
            refused = (try? TestClient(port: port, timeout: 1)) == nil
            if !refused { usleep(20_000) }
        }
        XCTAssertTrue(refused)
    }
}
