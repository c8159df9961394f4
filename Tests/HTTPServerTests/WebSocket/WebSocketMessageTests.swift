import TestSupport
import XCTest

@testable import HTTPServer

/// Message assembly and the connection's state machine, without sockets.
final class WebSocketMessageTests: XCTestCase {
    func testFragmentsWithControlFramesInterleaved() {
        let bytes =
            clientText("Hel", fin: false) + clientFrame(.ping, [1, 2]) + clientFrame(.continuation, Array("lo, ".utf8), fin: false)
            + clientFrame(.pong, []) + clientFrame(.continuation, Array("world".utf8)) + clientText("next")
        XCTAssertEqual(actionsEverySplit(bytes), ["pong:12", "text:Hello, world", "text:next"])
    }

    func testEmptyFragmentsAndAnEmptyMessage() {
        let bytes =
            clientText("", fin: false) + clientFrame(.continuation, [], fin: false) + clientFrame(.continuation, []) + clientText("")
        XCTAssertEqual(actionsEverySplit(bytes), ["text:", "text:"])
    }

    func testContinuationWithoutAMessageAndANewMessageMidMessage() {
        XCTAssertEqual(
            actionsEverySplit(clientFrame(.continuation, Array("x".utf8))),
            ["close:1002:a continuation frame with no message begun:true"])
        XCTAssertEqual(
            actionsEverySplit(clientText("a", fin: false) + clientText("b")),
            ["close:1002:a new message began before the last one ended:true"])
        XCTAssertEqual(
            actionsEverySplit(clientText("a", fin: false) + clientFrame(.binary, [1])),
            ["close:1002:a new message began before the last one ended:true"])
    }

    func testBinaryIs1003AtItsFirstFrame() {
        XCTAssertEqual(
            actionsEverySplit(clientFrame(.binary, [1, 2, 3], fin: false)),
            ["close:1003:binary messages are not accepted; send text:true"])
    }

    func testInvalidUTF8Is1007AsSoonAsAFragmentShowsIt() {
        // Overlong "/", a surrogate, past U+10FFFF, a stray continuation, a truncated end.
        for bad: [UInt8] in [[0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0x80], [0xE2, 0x82]] {
            XCTAssertEqual(
                actionsEverySplit(clientFrame(.text, Array("ok".utf8) + bad)),
                ["close:1007:text message is not valid UTF-8:true"], "\(bad)")
        }
        // The first fragment is already invalid: closed before the rest arrives.
        XCTAssertEqual(actionsEverySplit(clientFrame(.text, [0xFF], fin: false)), ["close:1007:text message is not valid UTF-8:true"])
        // A character split across fragments is valid.
        let euro =
            clientFrame(.text, [0x61, 0xE2], fin: false) + clientFrame(.continuation, [0x82], fin: false)
            + clientFrame(.continuation, [0xAC])
        XCTAssertEqual(actionsEverySplit(euro), ["text:a€"])
        // Truncated at the final fragment.
        XCTAssertEqual(
            actionsEverySplit(clientFrame(.text, [0x61, 0xE2], fin: false) + clientFrame(.continuation, [0x82])),
            ["close:1007:text message is not valid UTF-8:true"])
    }

    func testUTF8ValidatorAgreesWithTheStandardLibrary() {
        var random = SplitMix64(seed: 1)
        for _ in 0..<20_000 {
            let n = Int(random.next() % 12)
            let bytes = (0..<n).map { _ -> UInt8 in
                let r = random.next()
                return r % 3 == 0
                    ? UInt8(truncatingIfNeeded: r >> 8)
                    : [0x41, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80, 0xED, 0xF4, 0x8F][Int(r >> 8) % 13]
            }
            let expected = String(validating: bytes, as: UTF8.self) != nil
            var v = UTF8Validator()
            XCTAssertEqual(v.feed(bytes) && v.isComplete, expected, "\(bytes)")
            // Split at every offset.
            for cut in 0...n {
                var w = UTF8Validator()
                XCTAssertEqual(w.feed(Array(bytes[..<cut])) && w.feed(Array(bytes[cut...])) && w.isComplete, expected, "\(bytes) at \(cut)")
            }
        }
    }

    func testAMessageOverTheLimitInFragmentsIs1009() {
        var limits = WebSocketLimits()
        limits.maxMessageBytes = 10
        let bytes =
            clientText("12345", fin: false) + clientFrame(.continuation, Array("67890".utf8), fin: false)
            + clientFrame(.continuation, Array("1".utf8))
        XCTAssertEqual(actionsEverySplit(bytes, limits: limits), ["close:1009:frame of 1 bytes over the message limit:true"])
        let exact = clientText("12345", fin: false) + clientFrame(.continuation, Array("67890".utf8))
        XCTAssertEqual(actionsEverySplit(exact, limits: limits), ["text:1234567890"])
    }

    func testThePeersCloseIsEchoedAndEndsTheStream() {
        XCTAssertEqual(actionsEverySplit(clientFrame(.close, closeBody(1000, "bye")) + clientText("late")), ["close:1000::true"])
        XCTAssertEqual(actionsEverySplit(clientFrame(.close, closeBody(4404))), ["close:4404::true"])
        XCTAssertEqual(actionsEverySplit(clientFrame(.close, [])), ["close:1000::true"])
        XCTAssertEqual(actionsEverySplit(clientFrame(.close, [3])), ["close:1002:a close frame of one byte:true"])
        for code: UInt16 in [0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000] {
            XCTAssertEqual(actionsEverySplit(clientFrame(.close, closeBody(code))), ["close:1002:close code \(code) may not be sent:true"])
        }
        XCTAssertEqual(
            actionsEverySplit(clientFrame(.close, closeBody(1000) + [0xFF])), ["close:1007:close reason is not valid UTF-8:true"])
    }

    func testTheServersCloseAwaitsThePeersThenEnds() {
        var m = WebSocketStateMachine(limits: WebSocketLimits(), now: 0)
        XCTAssertEqual(
            m.close(.goingAway, reason: "shutting down", now: 10), .sendClose(.goingAway, reason: "shutting down", thenClose: false))
        XCTAssertNil(m.close(.normal, now: 11))
        // Messages and pings after our close are discarded; the peer's close ends it.
        let bytes = clientText("ignored") + clientFrame(.ping, [1]) + clientFrame(.close, closeBody(1001))
        let r = bytes.withUnsafeBytes { m.read($0, now: 20) }
        XCTAssertEqual(r.action, .closeSocket)
        XCTAssertEqual(r.used, bytes.count)
        XCTAssertEqual(m.state, .closed)
        XCTAssertEqual(m.closeCode, .goingAway)
    }

    func testAnUnansweredCloseTimesOut() {
        var limits = WebSocketLimits()
        limits.closingTimeout = 100
        var m = WebSocketStateMachine(limits: limits, now: 0)
        _ = m.close(.normal, now: 1_000)
        XCTAssertEqual(m.deadline, 1_100)
        XCTAssertNil(m.tick(now: 1_099))
        XCTAssertEqual(m.tick(now: 1_100), .closeSocket)
        XCTAssertEqual(m.deadline, .max)
    }

    func testIdleStreamsArePingedThenClosedByTheInjectedClock() {
        var limits = WebSocketLimits()
        limits.idleTimeout = 1_000
        var m = WebSocketStateMachine(limits: limits, now: 0)
        XCTAssertEqual(m.deadline, 500)
        XCTAssertNil(m.tick(now: 499))
        XCTAssertEqual(m.tick(now: 500), .sendPing)
        XCTAssertNil(m.tick(now: 600))
        XCTAssertEqual(m.deadline, 1_000)
        // A pong is a sign of life: the clock starts again.
        let pong = clientFrame(.pong, [])
        XCTAssertEqual(pong.withUnsafeBytes { m.read($0, now: 900) }.action, .needMoreData)
        XCTAssertEqual(m.deadline, 1_400)
        XCTAssertEqual(m.tick(now: 1_400), .sendPing)
        XCTAssertNil(m.tick(now: 1_899))
        XCTAssertEqual(m.tick(now: 1_900), .sendClose(.goingAway, reason: "idle", thenClose: true))
        XCTAssertEqual(m.closeCode, .goingAway)
        XCTAssertNil(m.tick(now: 5_000))
    }
}
