import Foundation
import TestSupport
import XCTest
@testable import HTTPServer

/// `ServerConfiguration.offloadsRequest`: small requests it picks run off
/// the event loop, so one event loop keeps answering while they work.
final class OffloadPredicateTests: XCTestCase {
    func request(_ path: String, body: Int) -> String {
        "POST \(path) HTTP/1.1\r\nHost: t\r\nContent-Length: \(body)\r\n\r\n" + String(repeating: "x", count: body)
    }

    /// With one event loop, `/wait` blocks its handler until `/release` has
    /// been answered: only an offloaded `/wait` lets the loop read `/release`.
    func run(offloading: Bool, waitBody: Int) throws -> String {
        let released = DispatchSemaphore(value: 0)
        var outcome = ""
        try withTestServer(configure: { c in
            c.eventLoops = 1
            if offloading { c.offloadsRequest = { $0.path == "/wait" } }
        }, handler: { request in
            if request.path == "/release" {
                released.signal()
                return HTTPResponse(status: 200, body: Array("released".utf8))
            }
            // A generous bound, so that a loop blocked here ends the test instead of hanging it.
            let signalled = released.wait(timeout: .now() + 20) == .success
            return HTTPResponse(status: 200, body: Array((signalled ? "went on" : "blocked the loop").utf8))
        }) { _, port in
            let waiting = try TestClient(port: port)
            try waiting.send(request("/wait", body: waitBody))
            let other = try TestClient(port: port)
            try other.send(request("/release", body: 0))
            let answer = try waiting.readResponse()
            outcome = String(decoding: answer.body, as: UTF8.self)
            if outcome == "went on" { XCTAssertEqual(String(decoding: try other.readResponse().body, as: UTF8.self), "released") }
        }
        return outcome
    }

    func testAPickedRequestOfAKibibyteRunsOffTheLoop() throws {
        XCTAssertEqual(try run(offloading: true, waitBody: ServerConfiguration.offloadCheckBytes), "went on")
    }
}
