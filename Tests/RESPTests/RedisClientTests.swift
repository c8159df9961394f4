import Dispatch
import Foundation
import Glibc
import HitBase
import RESP
import Synchronization
import TestSupport
import XCTest

@testable import RESPClient

/// The client against a real `redis-server` on a free loopback port.
final class RedisClientTests: XCTestCase {
    var redis: RedisServerProcess!

    override func setUpWithError() throws {
        guard let r = try RedisServerProcess.start() else { throw XCTSkip(RedisServerProcess.skipMessage) }
        redis = r
    }

    override func tearDown() {
        redis?.shutdown()
    }

    var endpoint: RedisEndpoint { RedisEndpoint(host: "127.0.0.1", port: redis.port) }

    func testEndpointURLs() {
        XCTAssertEqual(RedisEndpoint(url: "redis://h:7000/3"), RedisEndpoint(host: "h", port: 7000, database: 3))
        XCTAssertEqual(RedisEndpoint(url: "redis://h"), RedisEndpoint(host: "h"))
        XCTAssertEqual(RedisEndpoint(url: "redis://[::1]:7000"), RedisEndpoint(host: "::1", port: 7000))
        for bad in ["http://h", "redis://", "redis://u:p@h", "redis://h:0", "redis://h:70000", "redis://h/x", "redis://h:x"] {
            XCTAssertNil(RedisEndpoint(url: bad), bad)
        }
        XCTAssertEqual(RedisEndpoint(url: "redis://h:1/2", password: "secret")!.description, "redis://h:1/2")
    }

    func testPipelineRepliesInOrderWithErrorsAsValues() throws {
        let client = RedisClient(endpoint)
        let replies = try client.pipeline([
            [Array("SET".utf8), Array("k".utf8), [0, 13, 10, 255]],
            [Array("GET".utf8), Array("k".utf8)],
            [Array("INCR".utf8), Array("k".utf8)],  // not an integer: an error reply
            [Array("GET".utf8), Array("missing".utf8)],
            [Array("PING".utf8)],
        ])
        XCTAssertEqual(replies[0], .simple("OK"))
        XCTAssertEqual(replies[1], .bulk([0, 13, 10, 255]))
        XCTAssertNotNil(replies[2].errorMessage)
        XCTAssertEqual(replies[3], .bulk(nil))
        XCTAssertEqual(replies[4], .simple("PONG"))
    }

    func testBulkStringsUpToTheLimit() throws {
        let big = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let client = RedisClient(endpoint, maxBulkBytes: big.count)
        XCTAssertEqual(try client.send([Array("SET".utf8), Array("big".utf8), big]), .simple("OK"))
        XCTAssertEqual(try client.send([Array("GET".utf8), Array("big".utf8)]), .bulk(big))
        let small = RedisClient(endpoint, maxBulkBytes: big.count - 1)
        XCTAssertThrowsError(try small.send([Array("GET".utf8), Array("big".utf8)])) { e in
            XCTAssertEqual((e as? RedisError)?.kind, .protocolError)
        }
        // The client that saw garbage dropped that connection and works on.
        XCTAssertEqual(try small.send("PING"), .simple("PONG"))
    }

    func testSelectKeepsDatabasesApart() throws {
        var one = endpoint
        one.database = 1
        _ = try RedisClient(one).send("SET", "k", "in-1")
        XCTAssertEqual(try RedisClient(endpoint).send("GET", "k"), .bulk(nil))
        XCTAssertEqual(try RedisClient(one).send("GET", "k").string, "in-1")
    }

    func testAuth() throws {
        redis.shutdown()
        guard let r = try RedisServerProcess.start(arguments: ["--requirepass", "s3cret-s3cret-s3cret"]) else {
            throw XCTSkip(RedisServerProcess.skipMessage)
        }
        redis = r
        XCTAssertNotNil(try RedisClient(endpoint).send("GET", "k").errorMessage)  // NOAUTH
        var good = endpoint
        good.password = "s3cret-s3cret-s3cret"
        XCTAssertEqual(try RedisClient(good).send("PING"), .simple("PONG"))
        var bad = endpoint
        bad.password = "wrong-wrong-wrong"
        XCTAssertThrowsError(try RedisClient(bad).send("PING")) { e in
            let error = e as? RedisError
            XCTAssertEqual(error?.kind, .refused)
            XCTAssertFalse(error?.message.contains("wrong-wrong") ?? true, "the password is never in a message")
        }
    }

    /// A listening socket on an ephemeral loopback port (a fake server), and its port.
    func listenOnLoopback() -> (Int32, Int) {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        listen(listener, 4)
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &len) } }
        return (listener, Int(UInt16(bigEndian: addr.sin_port)))
    }

    /// A server that accepts and never answers costs a timeout, not a hang.
    func testSilentServerTimesOut() throws {
        let (listener, port) = listenOnLoopback()
        defer { close(listener) }
        let client = RedisClient(RedisEndpoint(host: "127.0.0.1", port: port), timeout: 0.2)
        XCTAssertThrowsError(try client.send("PING")) { e in XCTAssertEqual((e as? RedisError)?.kind, .timeout) }
        XCTAssertFalse(client.isHealthy)
    }

    /// A server that sends its reply a byte just inside every timeout
    /// (`$94`, then a byte every 0.15 s against a timeout of 0.2 s) is cut
    /// off: the exchange's deadline counts from its start, not from the
    /// last byte, so it gives up with most of the reply unsent.
    func testATricklingServerIsCutOff() throws {
        let (listener, port) = listenOnLoopback()
        defer { close(listener) }
        let sent = Atomic<Int>(0)
        let done = DispatchSemaphore(value: 0)
        Thread {
            defer { done.signal() }
            let c = accept(listener, nil, nil)
            guard c >= 0 else { return }
            defer { close(c) }
            var request = [UInt8](repeating: 0, count: 256)
            _ = recv(c, &request, request.count, 0)
            let head = Array("$94\r\n".utf8)
            guard Glibc.send(c, head, head.count, Int32(MSG_NOSIGNAL)) == head.count else { return }
            for _ in 0..<96 {
                usleep(150_000)
                var b: UInt8 = 0x61
                guard Glibc.send(c, &b, 1, Int32(MSG_NOSIGNAL)) == 1 else { return }  // the client has gone
                sent.add(1, ordering: .relaxed)
            }
        }.start()
        let client = RedisClient(RedisEndpoint(host: "127.0.0.1", port: port), timeout: 0.2)
        XCTAssertThrowsError(try client.send("GET", "k")) { e in XCTAssertEqual((e as? RedisError)?.kind, .timeout) }
        XCTAssertLessThan(sent.load(ordering: .relaxed), 94, "cut off before the reply was complete")
        done.wait()
    }

    /// A subscriber between messages may wait past its timeout (nil: idle);
    /// one whose message stopped halfway may not. The reader consumes a
    /// message's complete parts as they come, so an empty buffer does not
    /// mean "between messages": a stall after `*3 $7 message` is a timeout.
    func testAMessageThatStopsHalfwayIsATimeoutNotIdle() throws {
        let (listener, port) = listenOnLoopback()
        defer { close(listener) }
        let done = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let sent = DispatchSemaphore(value: 0)
        Thread {
            defer { done.signal() }
            let c = accept(listener, nil, nil)
            guard c >= 0 else { return }
            defer { close(c) }
            release.wait()  // idle first
            let half = Array("*3\r\n$7\r\nmessage\r\n".utf8)
            _ = Glibc.send(c, half, half.count, Int32(MSG_NOSIGNAL))
            sent.signal()  // on loopback, in the client's socket once sent
            release.wait()
        }.start()
        let connection = try RedisConnection(RedisEndpoint(host: "127.0.0.1", port: port), timeout: 0.2)
        XCTAssertNil(try connection.next(until: MonotonicClock.seconds() + 0.3, idleOK: true))
        release.signal()
        sent.wait()
        XCTAssertThrowsError(try connection.next(until: MonotonicClock.seconds() + 0.3, idleOK: true)) { e in
            XCTAssertEqual((e as? RedisError)?.kind, .timeout)
        }
        release.signal()
        done.wait()
    }

    /// The deadline's rule on an injected clock: a flow of at least a MiB a
    /// second keeps it moving; a trickle does not; a later first deadline stays.
    func testTheExchangeDeadline() {
        var flow = ExchangeDeadline(start: 0, timeout: 2)
        XCTAssertEqual(flow.at, 2)
        flow.moved(1 << 20, now: 0.9)
        XCTAssertEqual(flow.at, 2.9)
        flow.moved(1 << 20, now: 1.8)
        XCTAssertEqual(flow.at, 3.8)
        var trickle = ExchangeDeadline(start: 0, timeout: 2)
        for k in 1...100 { trickle.moved(1, now: 1.5 * Double(k)) }
        XCTAssertLessThan(trickle.at, 2.001)
        var subscriber = ExchangeDeadline(start: 0, timeout: 2, until: 30)
        subscriber.moved(10, now: 5)
        XCTAssertEqual(subscriber.at, 30)
    }

    /// Stopped: calls fail (fast while backing off); restarted: they recover.
    func testReconnectsAfterRestart() throws {
        let client = RedisClient(endpoint, timeout: 1, minBackoff: 0.01, maxBackoff: 0.05)
        XCTAssertEqual(try client.send("PING"), .simple("PONG"))
        redis.stop()
        XCTAssertThrowsError(try client.send("PING"))
        XCTAssertThrowsError(try client.send("PING"))  // backing off, or refused
        XCTAssertFalse(client.isHealthy)
        try redis.launch()
        var reply: RESPValue?
        for _ in 0..<1_000 where reply == nil {
            reply = try? client.send("PING")
            if reply == nil { usleep(10_000) }
        }
        XCTAssertEqual(reply, .simple("PONG"))
        XCTAssertTrue(client.isHealthy)
    }

    func testConcurrentCallersEachGetTheirReplies() throws {
        let client = RedisClient(endpoint)
        let failures = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { t in
            for i in 0..<200 {
                let key = "k\(t)"
                let r = try? client.pipeline([
                    [Array("SET".utf8), Array(key.utf8), Array("\(i)".utf8)], [Array("GET".utf8), Array(key.utf8)],
                ])
                if r?[1].string != "\(i)" { failures.add(1, ordering: .relaxed) }
            }
        }
        XCTAssertEqual(failures.load(ordering: .relaxed), 0)
    }

    /// Messages arrive; after a restart the subscriber resubscribes and
    /// says so through onConnect (the owner then revalidates).
    func testSubscriberReceivesAndResubscribes() throws {
        let got = Mutex<[String]>([])
        let connects = Atomic<Int>(0)
        let sub = RedisSubscriber(
            endpoint, channels: ["ch"], timeout: 1, minBackoff: 0.01, maxBackoff: 0.05,
            onConnect: { connects.add(1, ordering: .relaxed) }
        ) { channel, payload in
            got.withLock { $0.append("\(channel):\(String(decoding: payload, as: UTF8.self))") }
        }
        sub.start()
        defer { sub.stop() }
        let client = RedisClient(endpoint, minBackoff: 0.01, maxBackoff: 0.05)
        func publishUntilSeen(_ text: String) {
            for _ in 0..<2_000 {
                _ = try? client.send("PUBLISH", "ch", text)
                if got.withLock({ $0.contains("ch:\(text)") }) { return }
                usleep(5_000)
            }
        }
        publishUntilSeen("one")
        XCTAssertTrue(got.withLock { $0.contains("ch:one") })
        XCTAssertEqual(connects.load(ordering: .relaxed), 1)
        redis.stop()
        try redis.launch()
        publishUntilSeen("two")
        XCTAssertTrue(got.withLock { $0.contains("ch:two") })
        XCTAssertEqual(connects.load(ordering: .relaxed), 2)
    }

    /// SPEC §10: a write in flight when Redis pauses (SIGSTOP) times out and
    /// marks the client unhealthy; after SIGCONT the health check's PING
    /// makes it healthy again with no caller trying. Without the health
    /// check nothing would: the client stays unhealthy (checked first).
    func testHealthComesBackAfterAPauseWithNobodyCalling() throws {
        func pausedWrite(_ client: RedisClient) {
            XCTAssertEqual(try client.send("SET", "k", "before"), .simple("OK"))
            redis.pause()
            let failed = Atomic<Bool>(false)
            let writer = Thread { failed.store((try? client.send("SET", "k", "during")) == nil, ordering: .releasing) }
            writer.start()
            // The write fails by its own timeout (0.3 s); wait for it without a speed bound.
            let deadline = Date().addingTimeInterval(60)
            while !failed.load(ordering: .acquiring) && Date() < deadline { usleep(10_000) }
            XCTAssertTrue(failed.load(ordering: .acquiring), "the write in flight failed")
            XCTAssertFalse(client.isHealthy)
            redis.resume()
        }
        let idle = RedisClient(endpoint, timeout: 0.3, minBackoff: 0.01, maxBackoff: 0.05)
        pausedWrite(idle)
        usleep(500_000)  // ten backoff steps with nobody calling
        XCTAssertFalse(idle.isHealthy, "without a health check, nothing brings the client back")

        let checked = RedisClient(endpoint, timeout: 0.3, minBackoff: 0.01, maxBackoff: 0.05)
        checked.startHealthCheck(every: 0.05)
        defer { checked.stopHealthCheck() }
        pausedWrite(checked)
        let deadline = Date().addingTimeInterval(60)
        while !checked.isHealthy && Date() < deadline { usleep(10_000) }
        XCTAssertTrue(checked.isHealthy, "healthy again after SIGCONT, by the health check alone")
        let stats = checked.statistics.snapshot()
        XCTAssertGreaterThanOrEqual(stats.errors[RedisStatistics.errorKinds.firstIndex(of: "timeout")!], 1)
        XCTAssertGreaterThanOrEqual(stats.recoveries, 1)
        // The write that timed out was still in the paused server's socket:
        // Redis may carry it out once continued (a failed write's outcome is unknown).
        XCTAssertTrue(["before", "during"].contains(try checked.send("GET", "k").string ?? ""))
    }

    /// Every exchange tried is in the histogram; fast failures while
    /// backing off are not; failures are counted by kind; a subscriber
    /// counts its subscriptions and messages.
    func testStatisticsCountExchangesFailuresAndMessages() throws {
        let stats = RedisStatistics()
        let client = RedisClient(endpoint, timeout: 1, minBackoff: 5, maxBackoff: 5, statistics: stats)
        for _ in 0..<7 { XCTAssertEqual(try client.send("PING"), .simple("PONG")) }
        var s = stats.snapshot()
        XCTAssertEqual(s.bucketCounts.reduce(0, +), 7)
        XCTAssertGreaterThan(s.sumSeconds, 0)
        XCTAssertEqual(s.connectionsOpened, 1)
        let got = Atomic<Int>(0)
        let sub = RedisSubscriber(endpoint, channels: ["stats"], timeout: 1, onConnect: {}, statistics: stats) { _, _ in
            got.add(1, ordering: .relaxed)
        }
        sub.start()
        defer { sub.stop() }
        for _ in 0..<2_000 where got.load(ordering: .relaxed) < 3 {
            _ = try? client.send("PUBLISH", "stats", "m")
            usleep(5_000)
        }
        s = stats.snapshot()
        XCTAssertEqual(s.subscriptions, 1)
        XCTAssertEqual(s.messages, UInt64(got.load(ordering: .relaxed)))
        XCTAssertGreaterThanOrEqual(s.messages, 3)
        let before = s.bucketCounts.reduce(0, +)
        redis.stop()
        XCTAssertThrowsError(try client.send("PING"))  // tried: the idle connection is found broken
        XCTAssertThrowsError(try client.send("PING"))  // fast, backing off: not an exchange
        s = stats.snapshot()
        XCTAssertEqual(s.bucketCounts.reduce(0, +), before + 1)
        XCTAssertEqual(s.errors.reduce(0, +), 1)
    }
}
