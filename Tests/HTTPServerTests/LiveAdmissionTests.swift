import Foundation
import Glibc
import Synchronization
import TestSupport
import XCTest

@testable import HTTPServer

/// The server's defences that act on a request's head alone (the
/// admission hook, the Host list) and the whole-body deadline, over real
/// sockets.
final class LiveAdmissionTests: XCTestCase {
    /// Refuses every head whose path starts with `/locked` with a 401.
    static let lockedPaths: @Sendable (inout HTTPRequest) -> HTTPResponse? = { head in
        guard head.path.hasPrefix("/locked") else { return nil }
        return HTTPResponse.problem(status: 401, slug: "unauthorized", title: "Unauthorized", detail: "no key", requestID: head.requestID)
    }

    /// A refused head gets its answer at once: no `100 Continue`, nothing
    /// reserved from the body budget, the body never read, the connection closed.
    func testRefusedHeadGetsNoContinueAndReservesNothing() throws {
        let seen = Atomic<Int>(0)
        try withServer(
            configure: {
                $0.admitsHead = LiveAdmissionTests.lockedPaths
                $0.maxBufferedBodyBytes = 1 << 20
                $0.limits.maxBodyBytes = 1 << 20
            },
            handler: { request in
                seen.add(1, ordering: .relaxed)
                return testHandler(request)
            }
        ) { server, port in
            var held: [TestClient] = []
            // Twice the budget announced by keyless heads: each is refused,
            // none holds any of it.
            for _ in 0..<2 {
                let c = try TestClient(port: port)
                try c.send("PUT /locked/x HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: \(1 << 20)\r\n\r\n")
                let r = try c.readResponse()
                XCTAssertEqual(r.status, 401, "the refusal, not 100 Continue")
                XCTAssertEqual(r["Connection"], "close")
                XCTAssertTrue(c.isClosedByPeer())
                held.append(c)
            }
            XCTAssertEqual(server.statistics().bodyBuffer.reserved, 0)
            // An admitted upload of the whole budget still fits.
            let writer = try TestClient(port: port)
            let body = [UInt8](repeating: 0x61, count: 1 << 20)
            try writer.send("PUT /open HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: \(body.count)\r\n\r\n")
            XCTAssertEqual(try writer.readResponse().status, 100)
            try writer.send(body)
            let r = try writer.readResponse()
            XCTAssertEqual(r.status, 200)
            XCTAssertEqual(r.text, "PUT /open  \(1 << 20)")
            XCTAssertEqual(seen.load(ordering: .relaxed), 1, "the refused requests never reached the handler")
        }
    }

    /// A refused head's body, sent anyway, is not read as a next request.
    func testBodyAfterARefusedHeadIsNotParsed() throws {
        try withServer(configure: { $0.admitsHead = LiveAdmissionTests.lockedPaths }) { _, port in
            let c = try TestClient(port: port)
            let smuggled = "GET /smuggled HTTP/1.1\r\nHost: t\r\n\r\n"
            try c.send("POST /locked HTTP/1.1\r\nHost: t\r\nContent-Length: \(smuggled.utf8.count)\r\n\r\n" + smuggled)
            XCTAssertEqual(try c.readResponse().status, 401)
            XCTAssertTrue(c.isClosedByPeer(), "one answer, then close")
        }
    }

    /// What the hook notes on an admitted head reaches that head's request,
    /// and no later request of the keep-alive connection: not one without
    /// a body (the hook is not asked), not one whose head it admits
    /// without a note.
    func testAdmissionReachesItsOwnRequestOnly() throws {
        let seen = Mutex<[UInt64]>([])
        try withServer(
            configure: {
                $0.admitsHead = { head in
                    if head.path == "/noted" { head.admission = 42 }
                    return nil
                }
            },
            handler: { request in
                seen.withLock { $0.append(request.admission) }
                return testHandler(request)
            }
        ) { _, port in
            let c = try TestClient(port: port)
            for request in [
                "POST /noted HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nab",
                "GET /noted HTTP/1.1\r\nHost: t\r\n\r\n",
                "POST /plain HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nab",
                "POST /noted HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nab",
            ] {
                try c.send(request)
                XCTAssertEqual(try c.readResponse().status, 200)
            }
            XCTAssertEqual(seen.withLock { $0 }, [42, 0, 0, 42])
        }
    }

    /// Heads without a body never reach the hook: the handler decides.
    func testHookIsAskedOnlyForHeadsWithABody() throws {
        try withServer(configure: { $0.admitsHead = LiveAdmissionTests.lockedPaths }) { _, port in
            let c = try TestClient(port: port)
            try c.send("GET /locked HTTP/1.1\r\nHost: t\r\n\r\n")
            XCTAssertEqual(try c.readResponse().status, 200)
        }
    }

    /// A body trickled a byte at a time, each byte well inside the body
    /// timeout, is cut off once the whole body has taken longer than it.
    func testTrickledBodyTimesOutAsAWhole() throws {
        let timeout = 0.6
        try withServer(configure: { $0.bodyReadTimeout = .milliseconds(Int64(timeout * 1000)) }) { _, port in
            let c = try TestClient(port: port)
            try c.send("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\n\r\n")
            let start = seconds()
            var answered = false
            // Up to 20 times the timeout (a byte per sixth of it): the old
            // per-read pause never expired here.
            for _ in 0..<120 {
                if c.waitReadable(timeout: timeout / 6) {
                    answered = true
                    break
                }
                try? c.send("x")
            }
            XCTAssertTrue(answered, "no answer while a body trickled for 20 × the body timeout")
            guard answered else { return }
            XCTAssertGreaterThanOrEqual(seconds() - start, timeout * 0.9)
            let r = try c.readResponse()
            XCTAssertEqual(r.status, 408)
            XCTAssertTrue(r.text.contains("request body was not received in time"), r.text)
            XCTAssertTrue(c.isClosedByPeer())
        }
    }

    /// Hosts outside the list are refused with 403 before the body;
    /// listed ones pass whatever their port and case.
    func testHostsOutsideTheListAre403() throws {
        try withServer(configure: { $0.limits.allowedHosts = .loopback }) { _, port in
            for host in ["localhost", "LOCALHOST:\(port)", "127.0.0.1:\(port)", "[::1]:8080", "127.0.0.1"] {
                let c = try TestClient(port: port)
                try c.send("GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n")
                XCTAssertEqual(try c.readResponse().status, 200, host)
            }
            for host in ["rebind.evil.example", "rebind.evil.example:\(port)", "localhost.evil.example", "127.0.0.2", "[::2]"] {
                let c = try TestClient(port: port)
                try c.send("POST / HTTP/1.1\r\nHost: \(host)\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
                let r = try c.readResponse()
                XCTAssertEqual(r.status, 403, host)
                XCTAssertTrue(r.text.contains("host-not-allowed"), r.text)
                XCTAssertTrue(c.isClosedByPeer())
            }
        }
    }
}
