import Foundation
import Glibc
import Synchronization
import TestSupport
import XCTest

@testable import HTTPServer

/// An echo session for the live tests: `slow:<ms>:<tag>` answers `done <tag>`
/// after work of that many ms on a worker; `close` closes with 4000;
/// `flood <n>` sends n answers of 1 KiB; `count` answers how many messages
/// arrived before it; anything else is echoed.
final class EchoSession: WebSocketSession {
    var seen = 0
    let closedCodes: CodeLog?
    init(closedCodes: CodeLog? = nil) { self.closedCodes = closedCodes }

    func received(_ message: UnsafeRawBufferPointer, on stream: WebSocketStream) {
        seen += 1
        let text = String(decoding: message, as: UTF8.self)
        if text.hasPrefix("slow:") {
            let parts = text.split(separator: ":")
            let ms = UInt32(parts[1]) ?? 0
            let tag = String(parts[2])
            stream.offload({
                usleep(ms * 1000)
                return tag
            }) { tag in stream.send(text: Array("done \(tag)".utf8)) }
        } else if text == "close" {
            stream.close(WebSocketCloseCode(4000), reason: "asked")
        } else if text.hasPrefix("flood ") {
            let kib = [UInt8](repeating: UInt8(ascii: "f"), count: 1024)
            for _ in 0..<(Int(text.dropFirst(6)) ?? 0) { stream.send(text: kib) }
        } else if text == "count" {
            stream.send(text: Array("\(seen)".utf8))
        } else {
            stream.send(text: message)
        }
    }

    func closed(_ stream: WebSocketStream, code: WebSocketCloseCode) {
        closedCodes?.append(code.rawValue)
    }
}

/// Close codes the sessions heard, in order.
final class CodeLog: Sendable {
    private let list = Mutex<[UInt16]>([])
    func append(_ code: UInt16) { list.withLock { $0.append(code) } }
    var codes: [UInt16] { list.withLock { $0 } }
}

/// `/ws` upgrades to an ``EchoSession`` (naming `echo` when offered);
/// other paths answer 404.
func webSocketHandler(closedCodes: CodeLog? = nil) -> HTTPHandler {
    { request in
        guard request.path == "/ws" else { return HTTPResponse(status: 404) }
        switch WebSocketHandshake.check(request) {
        case .refused(let response): return response
        case .accepted(let handshake):
            let chosen = handshake.offeredProtocols.contains("echo") ? "echo" : nil
            return .webSocketUpgrade(handshake, subprotocol: chosen) { _ in EchoSession(closedCodes: closedCodes) }
        }
    }
}

final class LiveWebSocketTests: XCTestCase {
    func testHandshakeMessagesPingAndTheClosingHandshake() throws {
        let codes = CodeLog()
        try withServer(handler: webSocketHandler(closedCodes: codes)) { server, port in
            let c = try TestClient(port: port)
            let r = try c.openWebSocket("/ws", protocols: ["chat", "echo"], fields: [("Sec-WebSocket-Extensions", "permessage-deflate")])
            XCTAssertEqual(r.status, 101)
            XCTAssertEqual(r["Upgrade"], "websocket")
            XCTAssertEqual(r["Connection"], "Upgrade")
            XCTAssertEqual(r["Sec-WebSocket-Accept"], "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
            XCTAssertEqual(r["Sec-WebSocket-Protocol"], "echo")
            XCTAssertNil(r["Sec-WebSocket-Extensions"])
            XCTAssertNil(r["Content-Length"])
            XCTAssertTrue(eventually { server.openStreams == 1 })
            // Three messages and a ping in one write: all answered, in order.
            try c.send(
                TestClient.frame(opcode: 1, Array("one".utf8)) + TestClient.frame(opcode: 9, [7, 8])
                    + TestClient.frame(opcode: 1, Array("tw".utf8), fin: false) + TestClient.frame(opcode: 0, Array("o".utf8))
                    + TestClient.frame(opcode: 1, Array("three €".utf8)))
            XCTAssertEqual(try c.readFrame(), .init(fin: true, opcode: 1, payload: Array("one".utf8)))
            XCTAssertEqual(try c.readFrame(), .init(fin: true, opcode: 0xA, payload: [7, 8]))
            XCTAssertEqual(try c.readFrame()?.text, "two")
            XCTAssertEqual(try c.readFrame()?.text, "three €")
            try c.sendClose(1000)
            let close = try c.readFrame()
            XCTAssertEqual(close?.opcode, 8)
            XCTAssertEqual(close?.closeCode, 1000)
            XCTAssertTrue(c.isClosedByPeer())
            XCTAssertTrue(eventually { server.openStreams == 0 })
            XCTAssertEqual(codes.codes, [1000])
            let stats = server.statistics().streams
            XCTAssertEqual(stats.opened, 1)
            XCTAssertEqual(stats.messagesIn, 3)
            XCTAssertEqual(stats.messagesOut, 3)
        }
    }

    func testRefusedHandshakesOverTheWire() throws {
        try withServer(handler: webSocketHandler()) { _, port in
            let c = try TestClient(port: port)
            try c.send(
                "GET /ws HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: \(TestClient.exampleKey)\r\nSec-WebSocket-Version: 8\r\n\r\n"
            )
            let r = try c.readResponse()
            XCTAssertEqual(r.status, 426)
            XCTAssertEqual(r["Sec-WebSocket-Version"], "13")
            // The connection stays HTTP: a malformed handshake next is a 400.
            try c.send("GET /ws HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n")
            XCTAssertEqual(try c.readResponse().status, 400)
            try c.send("GET /ws HTTP/1.1\r\nHost: a\r\n\r\n")
            XCTAssertEqual(try c.readResponse().status, 400)
        }
    }

    func testFramingErrorsCloseWithTheirCodes() throws {
        try withServer(configure: { $0.webSocket.maxMessageBytes = 1000 }, handler: webSocketHandler()) { _, port in
            let cases: [([UInt8], UInt16)] = [
                ([0x81, 0x02, 0x68, 0x69], 1002),  // unmasked
                (TestClient.frame(opcode: 2, [1]), 1003),
                (TestClient.frame(opcode: 1, [0xC0, 0xAF]), 1007),
                (TestClient.frame(opcode: 1, Array(repeating: 0x61, count: 1001)), 1009),
                (
                    TestClient.frame(opcode: 1, Array(repeating: 0x61, count: 600), fin: false)
                        + TestClient.frame(opcode: 0, Array(repeating: 0x61, count: 600)), 1009
                ),
                (TestClient.frame(opcode: 0, [0x61]), 1002),
            ]
            for (bytes, code) in cases {
                let c = try TestClient(port: port)
                XCTAssertEqual(try c.openWebSocket("/ws").status, 101)
                try c.sendText("before")
                XCTAssertEqual(try c.readFrame()?.text, "before")
                try c.send(bytes)
                let close = try c.readFrame()
                XCTAssertEqual(close?.opcode, 8, "\(code)")
                XCTAssertEqual(close?.closeCode, code)
                XCTAssertTrue(c.isClosedByPeer(), "\(code)")
            }
        }
    }

    /// Offloaded work keeps the stream's order: the messages behind it wait.
    func testOffloadedMessagesKeepTheStreamsOrder() throws {
        try withServer(handler: webSocketHandler()) { _, port in
            let c = try TestClient(port: port)
            XCTAssertEqual(try c.openWebSocket("/ws").status, 101)
            try c.send(
                Array(
                    [
                        TestClient.frame(opcode: 1, Array("slow:50:a".utf8)), TestClient.frame(opcode: 1, Array("b".utf8)),
                        TestClient.frame(opcode: 1, Array("slow:1:c".utf8)), TestClient.frame(opcode: 1, Array("d".utf8)),
                        TestClient.frame(opcode: 1, Array("count".utf8)),
                    ].joined()))
            var answers: [String] = []
            for _ in 0..<5 { answers.append(try c.readFrame()?.text ?? "EOF") }
            XCTAssertEqual(answers, ["done a", "b", "done c", "d", "5"])
        }
    }

    /// Jobs from other threads reach the stream on its loop.
    func testPushesFromAnotherThread() throws {
        let handles = Mutex<[WebSocketStreamHandle]>([])
        let handler: HTTPHandler = { request in
            guard case .accepted(let h) = WebSocketHandshake.check(request) else { return HTTPResponse(status: 400) }
            return .webSocketUpgrade(h, subprotocol: nil) { stream in
                handles.withLock { $0.append(stream.handle) }
                return EchoSession()
            }
        }
        try withServer(handler: handler) { _, port in
            let c = try TestClient(port: port)
            XCTAssertEqual(try c.openWebSocket("/ws").status, 101)
            XCTAssertTrue(eventually { handles.withLock { $0.count } == 1 })
            let handle = handles.withLock { $0[0] }
            let pusher = Thread {
                for k in 0..<3 { handle.execute { stream in stream.send(text: Array("push \(k)".utf8)) } }
            }
            pusher.start()
            for k in 0..<3 { XCTAssertEqual(try c.readFrame()?.text, "push \(k)") }
        }
    }

    func testMaxStreamsRefusesTheNextUpgradeWith503() throws {
        try withServer(configure: { $0.maxStreams = 1 }, handler: webSocketHandler()) { server, port in
            let a = try TestClient(port: port)
            XCTAssertEqual(try a.openWebSocket("/ws").status, 101)
            let b = try TestClient(port: port)
            let refused = try b.openWebSocket("/ws")
            XCTAssertEqual(refused.status, 503)
            XCTAssertNotNil(refused["Retry-After"])
            XCTAssertEqual(server.statistics().streams.refused, 1)
            try a.sendClose(1000)
            XCTAssertEqual(try a.readFrame()?.closeCode, 1000)
            XCTAssertTrue(eventually { server.openStreams == 0 })
            let c = try TestClient(port: port)
            XCTAssertEqual(try c.openWebSocket("/ws").status, 101)
        }
    }

    func testIdleStreamsArePingedThenClosedWith1001() throws {
        try withServer(configure: { $0.webSocket.idleTimeout = 400_000_000 }, handler: webSocketHandler()) { _, port in
            let c = try TestClient(port: port)
            XCTAssertEqual(try c.openWebSocket("/ws").status, 101)
            let start = seconds()
            let ping = try c.readFrame()
            XCTAssertEqual(ping?.opcode, 9)
            XCTAssertGreaterThanOrEqual(seconds() - start, 0.2 - 0.02)
            let close = try c.readFrame()
            XCTAssertEqual(close?.opcode, 8)
            XCTAssertEqual(close?.closeCode, 1001)
            XCTAssertGreaterThanOrEqual(seconds() - start, 0.4 - 0.02)
            XCTAssertTrue(c.isClosedByPeer())
        }
    }

    func testAPongKeepsAStreamAlive() throws {
        try withServer(configure: { $0.webSocket.idleTimeout = 400_000_000 }, handler: webSocketHandler()) { _, port in
            let c = try TestClient(port: port)
            XCTAssertEqual(try c.openWebSocket("/ws").status, 101)
            for _ in 0..<3 {
                XCTAssertEqual(try c.readFrame()?.opcode, 9)
                try c.send(TestClient.frame(opcode: 0xA, []))
            }
            try c.sendText("alive")
            XCTAssertEqual(try c.readFrame()?.text, "alive")
        }
    }

    func testAClientThatDoesNotReadIsClosedWith1008() throws {
        try withServer(configure: { $0.webSocket.maxQueuedBytes = 64 * 1024 }, handler: webSocketHandler()) { _, port in
            let c = try TestClient(port: port)
            var size = Int32(4096)
            setsockopt(c.fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            XCTAssertEqual(try c.openWebSocket("/ws").status, 101)
            try c.sendText("flood 20000")
            var last: TestClient.Frame?
            while let frame = try c.readFrame() {
                last = frame
                if frame.opcode == 8 { break }
            }
            XCTAssertEqual(last?.opcode, 8)
            XCTAssertEqual(last?.closeCode, 1008)
        }
    }

    func testShutdownClosesEveryStreamWith1001() throws {
        let codes = CodeLog()
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.logRequests = false
        configuration.eventLoops = 2
        configuration.shutdownGracePeriod = .seconds(30)
        let server = HTTPServer(configuration: configuration, handler: webSocketHandler(closedCodes: codes))
        let port = try server.start()
        defer {
            server.shutdown()
            server.waitUntilStopped()
        }
        let clients = try (0..<4).map { _ in try TestClient(port: port) }
        for c in clients { XCTAssertEqual(try c.openWebSocket("/ws").status, 101) }
        XCTAssertTrue(eventually { server.openStreams == 4 })
        server.shutdown()
        for c in clients {
            let close = try c.readFrame()
            XCTAssertEqual(close?.opcode, 8)
            XCTAssertEqual(close?.closeCode, 1001)
            try c.sendClose(1001)
        }
        server.waitUntilStopped()
        XCTAssertEqual(codes.codes, [1001, 1001, 1001, 1001])
        XCTAssertEqual(server.openStreams, 0)
    }

    func testAPeerThatVanishesEndsTheSessionAsAbnormal() throws {
        let codes = CodeLog()
        try withServer(handler: webSocketHandler(closedCodes: codes)) { server, port in
            do {
                let c = try TestClient(port: port)
                XCTAssertEqual(try c.openWebSocket("/ws").status, 101)
                try c.sendText("x")
                XCTAssertEqual(try c.readFrame()?.text, "x")
            }
            XCTAssertTrue(eventually { server.openStreams == 0 })
            XCTAssertEqual(codes.codes, [1006])
        }
    }

    func testTheServersOwnCloseAwaitsThePeers() throws {
        let codes = CodeLog()
        try withServer(handler: webSocketHandler(closedCodes: codes)) { _, port in
            let c = try TestClient(port: port)
            XCTAssertEqual(try c.openWebSocket("/ws").status, 101)
            try c.sendText("close")
            let close = try c.readFrame()
            XCTAssertEqual(close?.closeCode, 4000)
            XCTAssertEqual(Array(close?.payload.dropFirst(2) ?? []), Array("asked".utf8))
            XCTAssertFalse(c.waitReadable(timeout: 0.2))  // waiting for ours
            try c.sendClose(4000)
            XCTAssertTrue(c.isClosedByPeer())
            XCTAssertEqual(codes.codes, [4000])
        }
    }
}
