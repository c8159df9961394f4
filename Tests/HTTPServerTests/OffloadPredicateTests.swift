import Foundation
import TestSupport
import XCTest

@testable import HTTPServer

/// `HandlerResult.onWorker`: the rest of a small request's work that its
/// responder hands over runs off the event loop, so one event loop keeps
/// answering while it works.
final class OffloadPredicateTests: XCTestCase {
    func request(_ path: String, body: Int) -> String {
        "POST \(path) HTTP/1.1\r\nHost: t\r\nContent-Length: \(body)\r\n\r\n" + String(repeating: "x", count: body)
    }

    /// With one event loop, `/wait` blocks its work until `/release` has
    /// been answered: only a `/wait` handed to a worker lets the loop read `/release`.
    func run(offloading: Bool, waitBody: Int) throws -> String {
        let released = DispatchSemaphore(value: 0)
        var outcome = ""
        try withTestServer(
            configure: { c in
                c.eventLoops = 1
            },
            responder: { request, placement in
                if request.path == "/release" {
                    released.signal()
                    return .response(HTTPResponse(status: 200, body: Array("released".utf8)))
                }
                @Sendable func wait() -> HTTPResponse {
                    // A generous bound, so that a loop blocked here ends the test instead of hanging it.
                    let signalled = released.wait(timeout: .now() + 20) == .success
                    return HTTPResponse(status: 200, body: Array((signalled ? "went on" : "blocked the loop").utf8))
                }
                return offloading && placement == .loop ? .onWorker(wait) : .response(wait())
            }
        ) { _, port in
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

    func testWorkHandedToAWorkerLetsTheLoopGoOn() throws {
        XCTAssertEqual(try run(offloading: true, waitBody: 1024), "went on")
    }
}
