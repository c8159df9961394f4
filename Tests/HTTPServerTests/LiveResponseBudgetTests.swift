import Foundation
import Glibc
import TestSupport
import XCTest

@testable import HTTPServer

/// ``OutputBudget`` over real sockets: responses a client does not read
/// count against one budget; while it is full a large answer becomes a 503
/// and small ones still flow; the count comes back when the bytes are sent
/// or the connection goes.
final class LiveResponseBudgetTests: XCTestCase {
    /// Far more than the server's socket buffer (at most 4 MiB by default) and the slow reader's take.
    static let unread = 12 << 20

    func configure(_ c: inout ServerConfiguration) {
        c.maxBufferedResponseBytes = 1 << 20
        // An answer stays unread across other requests: however slow the
        // machine, the write timeout must not close it first.
        c.writeTimeout = .seconds(3600)
    }

    func queued(_ server: HTTPServer) -> Int { server.statistics().responseBuffer.queued }

    /// A client that takes little into its socket buffer until it reads.
    func slowReader(_ port: Int) throws -> TestClient {
        let c = try TestClient(port: port)
        var size: Int32 = 64 << 10  // also turns receive autotuning off
        setsockopt(c.fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        return c
    }

    func testALargeAnswerWaitsForRoomAndSmallOnesFlow() throws {
        try withServer(configure: configure) { server, port in
            XCTAssertEqual(server.statistics().responseBuffer.capacity, 1 << 20)
            let reader = try slowReader(port)
            try reader.send("GET /big?n=\(LiveResponseBudgetTests.unread) HTTP/1.1\r\nHost: t\r\n\r\n")
            XCTAssertTrue(eventually { queued(server) >= 1 << 20 })

            let other = try TestClient(port: port)
            try other.send("GET /big?n=100000 HTTP/1.1\r\nHost: t\r\n\r\n")
            let refused = try other.readResponse()
            XCTAssertEqual(refused.status, 503)
            XCTAssertEqual(refused["Retry-After"], "1")
            XCTAssertTrue(refused.text.contains("/problems/busy"), refused.text)
            XCTAssertEqual(server.statistics().responseBuffer.refusals, 1)
            // Small answers flow on the same connection meanwhile.
            try other.send("GET /small HTTP/1.1\r\nHost: t\r\n\r\n")
            XCTAssertEqual(try other.readResponse().status, 200)

            XCTAssertEqual(try reader.readResponse().body.count, LiveResponseBudgetTests.unread)
            XCTAssertTrue(eventually { queued(server) == 0 })
            try other.send("GET /big?n=100000 HTTP/1.1\r\nHost: t\r\n\r\n")
            XCTAssertEqual(try other.readResponse().body.count, 100_000)
            XCTAssertEqual(server.statistics().responseBuffer.refusals, 1)
        }
    }

    func testAnAnswerDroppedWithItsConnectionIsNoLongerCounted() throws {
        try withServer(configure: configure) { server, port in
            do {
                let gone = try slowReader(port)
                try gone.send("GET /big?n=\(LiveResponseBudgetTests.unread) HTTP/1.1\r\nHost: t\r\n\r\n")
                XCTAssertTrue(eventually { queued(server) >= 1 << 20 })
                var linger = linger(l_onoff: 1, l_linger: 0)  // closed with a reset: the server's next write fails
                setsockopt(gone.fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
            }  // the client closes here
            XCTAssertTrue(eventually { queued(server) == 0 })
        }
    }
}
