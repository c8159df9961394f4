import Foundation
import Glibc
import TestSupport
import XCTest

@testable import HTTPServer

/// Seeded random traffic over the wire: pipelined requests of every
/// framing, written in random pieces, answered in order.
final class LiveRandomizedTests: XCTestCase {
    func testRandomPipelinesInRandomPieces() throws {
        try withServer(configure: { $0.offloadBodyBytes = 2000 }) { _, port in
            for seed in 0..<UInt64(12) {
                var rng = SplitMix64(seed: seed)
                let client = try TestClient(port: port)
                var wire: [UInt8] = []
                var expected: [String] = []
                for i in 0..<Int.random(in: 1...12, using: &rng) {
                    let size = Int.random(in: 0...5000, using: &rng)
                    let body = [UInt8](repeating: UInt8(ascii: "b"), count: size)
                    switch Int.random(in: 0..<3, using: &rng) {
                    case 0:
                        wire += Array("GET /g\(i) HTTP/1.1\r\nHost: t\r\n\r\n".utf8)
                        expected.append("GET /g\(i)  0")
                    case 1:
                        wire += Array("POST /p\(i) HTTP/1.1\r\nHost: t\r\nContent-Length: \(size)\r\n\r\n".utf8) + body
                        expected.append("POST /p\(i)  \(size)")
                    default:
                        wire += Array("PUT /c\(i) HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
                        var left = size
                        while left > 0 {
                            let chunk = min(left, Int.random(in: 1...1500, using: &rng))
                            wire += Array((String(chunk, radix: 16) + "\r\n").utf8) + body[0..<chunk] + Array("\r\n".utf8)
                            left -= chunk
                        }
                        wire += Array("0\r\n\r\n".utf8)
                        expected.append("PUT /c\(i)  \(size)")
                    }
                }
                var offset = 0
                while offset < wire.count {
                    let piece = min(wire.count - offset, Int.random(in: 1...3000, using: &rng))
                    try client.send(Array(wire[offset..<(offset + piece)]))
                    offset += piece
                }
                for text in expected {
                    XCTAssertEqual(try client.readResponse().text, text, "seed \(seed)")
                }
            }
        }
    }

    /// A byte every 20 ms for about 1 s against a 10 s body timeout: a slow
    /// body that arrives within the timeout as a whole is not cut off,
    /// with 10× room for a slow machine (`LiveAdmissionTests` shows a
    /// trickle past the timeout cut off).
    func testSlowButSteadyBodyIsNotCutOff() throws {
        try withServer(configure: {
            $0.bodyReadTimeout = .seconds(10)
            $0.headerReadTimeout = .milliseconds(1500)
        }) { _, port in
            let client = try TestClient(port: port)
            try client.send("POST /steady HTTP/1.1\r\nHost: t\r\nContent-Length: 50\r\n\r\n")
            for byte in Array(String(repeating: "1234567890", count: 5).utf8) {
                usleep(20_000)
                try client.send([byte])
            }
            XCTAssertEqual(try client.readResponse().text, "POST /steady  50")
        }
    }
}

/// Output backpressure: a peer that does not read stalls its own
/// connection only, and is dropped after the write timeout.
final class LiveBackpressureTests: XCTestCase {
    func testPipelinedBigResponsesPauseParsingAndResume() throws {
        try withServer { _, port in
            let client = try TestClient(port: port)
            let count = 12
            var wire = ""
            for i in 0..<count { wire += "GET /big?n=\(600_000 + i) HTTP/1.1\r\nHost: t\r\n\r\n" }
            try client.send(wire)
            XCTAssertTrue(client.waitReadable(timeout: hangGuardSeconds), "the first response starts")
            for i in 0..<count {
                XCTAssertEqual(try client.readResponse().body.count, 600_000 + i)
            }
        }
    }

    func testPeerThatNeverReadsIsDroppedAfterTheWriteTimeout() throws {
        // Prepared once: building it in the handler is slow in debug builds.
        let big = HTTPResponse(status: 200, body: [UInt8](repeating: 1, count: 24_000_000))
        try withServer(configure: { $0.writeTimeout = .milliseconds(300) }, handler: { _ in big }) { server, port in
            let client = try TestClient(port: port)
            var small: Int32 = 4096
            setsockopt(client.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
            try client.send("GET /big HTTP/1.1\r\nHost: t\r\n\r\n")
            XCTAssertTrue(client.waitReadable(timeout: hangGuardSeconds), "the response starts")
            XCTAssertEqual(server.openConnections, 1)
            let start = seconds()
            XCTAssertTrue(eventually { server.openConnections == 0 })
            XCTAssertGreaterThan(seconds() - start, 0.2)
        }
    }
}
