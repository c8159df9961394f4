import Foundation
import Glibc
import TestSupport
import XCTest

@testable import HTTPServer

/// ``BodyBudget`` over real sockets: bodies being received share one
/// budget; a body that does not fit is refused with 503 before it is read,
/// and every reservation comes back (handled, offloaded, closed mid-body).
final class LiveBodyBudgetTests: XCTestCase {
    static let budget = 1 << 20

    func configure(_ c: inout ServerConfiguration) {
        c.maxBufferedBodyBytes = LiveBodyBudgetTests.budget
        c.limits.maxBodyBytes = LiveBodyBudgetTests.budget
        // Uploads are held part-sent across other requests: however slow the
        // machine, the body timeout must not end them first.
        c.bodyReadTimeout = .seconds(3600)
    }

    /// Sends a POST /echo head announcing `length` bytes, then `sent` of them.
    func startUpload(_ port: Int, length: Int, sent: Int, expectContinue: Bool = false) throws -> TestClient {
        let c = try TestClient(port: port)
        let expect = expectContinue ? "Expect: 100-continue\r\n" : ""
        try c.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: \(length)\r\n\(expect)\r\n")
        if sent > 0 { try c.send([UInt8](repeating: 0x61, count: sent)) }
        return c
    }

    func reserved(_ server: HTTPServer) -> Int { server.statistics().bodyBuffer.reserved }

    func testABodyPastTheBudgetIsRefusedBeforeItIsRead() throws {
        try withServer(configure: configure) { server, port in
            XCTAssertEqual(server.statistics().bodyBuffer.capacity, LiveBodyBudgetTests.budget)
            let a = try startUpload(port, length: 600_000, sent: 1_000)
            XCTAssertTrue(eventually { reserved(server) == 600_000 })

            // 600 000 + 500 000 > 1 MiB: refused at its head, before any 100 Continue.
            let b = try startUpload(port, length: 500_000, sent: 0, expectContinue: true)
            let refused = try b.readResponse()
            XCTAssertEqual(refused.status, 503)
            XCTAssertEqual(refused["Retry-After"], "1")
            XCTAssertEqual(refused["Connection"], "close")
            XCTAssertTrue(refused.text.contains("/problems/busy"), refused.text)
            XCTAssertTrue(b.isClosedByPeer())
            XCTAssertEqual(server.statistics().bodyBuffer.refusals, 1)

            // Small bodies take nothing from it; one that fits is received.
            let small = try startUpload(port, length: 10_000, sent: 10_000)
            XCTAssertEqual(try small.readResponse().body.count, 10_000)
            let fits = try startUpload(port, length: 400_000, sent: 400_000)
            XCTAssertEqual(try fits.readResponse().body.count, 400_000)

            try a.send([UInt8](repeating: 0x61, count: 599_000))
            XCTAssertEqual(try a.readResponse().body.count, 600_000)
            XCTAssertTrue(eventually { reserved(server) == 0 })

            let retried = try startUpload(port, length: 500_000, sent: 500_000)
            XCTAssertEqual(try retried.readResponse().status, 200)
            XCTAssertTrue(eventually { reserved(server) == 0 })
            XCTAssertEqual(server.statistics().bodyBuffer.refusals, 1)
        }
    }

    /// A body handled on the loop (under the offload size) and one whose
    /// connection closes mid-body both give their bytes back.
    func testEveryReservationComesBack() throws {
        try withServer(configure: configure) { server, port in
            let onLoop = try startUpload(port, length: 30_000, sent: 30_000)
            XCTAssertEqual(try onLoop.readResponse().body.count, 30_000)
            XCTAssertEqual(reserved(server), 0)

            let abandoned = try startUpload(port, length: 900_000, sent: 5_000)
            XCTAssertTrue(eventually { reserved(server) == 900_000 })
            Glibc.shutdown(abandoned.fd, Int32(SHUT_RDWR))
            XCTAssertTrue(eventually { reserved(server) == 0 })
        }
    }

    func testAChunkedBodyReservesAsItGrows() throws {
        try withServer(configure: configure) { server, port in
            func chunk(_ n: Int) -> [UInt8] {
                Array(String(n, radix: 16).utf8) + [13, 10] + [UInt8](repeating: 0x62, count: n) + [13, 10]
            }
            let head = "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"

            let alone = try TestClient(port: port)
            try alone.send(head)
            try alone.send(chunk(40_000) + chunk(40_000) + Array("0\r\n\r\n".utf8))
            XCTAssertEqual(try alone.readResponse().body.count, 80_000)
            XCTAssertTrue(eventually { reserved(server) == 0 })

            // With 900 000 held, a chunked body past 16 KiB cannot take its 1 MiB step.
            let holder = try startUpload(port, length: 900_000, sent: 1)
            XCTAssertTrue(eventually { reserved(server) == 900_000 })
            let chunked = try TestClient(port: port)
            try chunked.send(head)
            try chunked.send(chunk(20_000))
            let refused = try chunked.readResponse()
            XCTAssertEqual(refused.status, 503)
            XCTAssertEqual(refused["Retry-After"], "1")
            XCTAssertTrue(eventually { reserved(server) == 900_000 })
            Glibc.shutdown(holder.fd, Int32(SHUT_RDWR))
            XCTAssertTrue(eventually { reserved(server) == 0 })
        }
    }

    /// A chunk that announces 256 KiB, of which 16 KiB arrive, gets a
    /// buffer of 256 KiB (room for sixteen times what was sent): that went
    /// uncounted, since only the bytes received were, so a few thousand such
    /// stalled uploads held gigabytes outside the budget. The reservation
    /// covers the buffer, and the next such upload no longer fits.
    func testAChunkedBodyReservesTheBufferItHoldsNotOnlyWhatArrived() throws {
        try withServer(configure: configure) { server, port in
            let head = "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
            let stalled = try TestClient(port: port)
            try stalled.send(head + "40000\r\n")
            try stalled.send([UInt8](repeating: 0x62, count: BodyBudget.freeBytes))
            XCTAssertTrue(eventually { reserved(server) == LiveBodyBudgetTests.budget }, "reserved \(reserved(server))")

            let next = try TestClient(port: port)
            try next.send(head + "40000\r\n")
            try next.send([UInt8](repeating: 0x62, count: BodyBudget.freeBytes))
            XCTAssertEqual(try next.readResponse().status, 503)
            Glibc.shutdown(stalled.fd, Int32(SHUT_RDWR))
            XCTAssertTrue(eventually { reserved(server) == 0 })
        }
    }
}
