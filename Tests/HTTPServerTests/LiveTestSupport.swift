import Foundation
import Glibc
import HitBase
import TestSupport
import XCTest

@testable import HTTPServer

/// Echoes what it saw, with a few test routes:
/// `/big?n=N` N bytes; `/slow?ms=N` sleeps first; `/close` asks to close;
/// `/echo` returns the body; anything else `"<method> <path> <query> <body length>"`.
let testHandler: HTTPHandler = { request in
    let query = request.query ?? ""
    func number() -> Int { Int(query.split(separator: "=").last ?? "0") ?? 0 }
    switch request.path {
    case "/big":
        let n = number()
        return HTTPResponse(
            status: 200, headers: ["Content-Type": "application/octet-stream"],
            body: (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
    case "/slow":
        usleep(UInt32(number() * 1000))
        return HTTPResponse(status: 200, body: Array("slept".utf8))
    case "/close":
        return HTTPResponse(status: 200, headers: ["Connection": "close"], body: Array("bye".utf8))
    case "/echo":
        return HTTPResponse(status: 200, body: request.body)
    default:
        return HTTPResponse(
            status: 200, headers: ["Content-Type": "text/plain"],
            body: Array("\(request.method) \(request.path) \(query) \(request.body.count)".utf8))
    }
}

extension XCTestCase {
    /// Starts a server with `testHandler` (unless given another) on an
    /// ephemeral port; see `withTestServer`.
    func withServer(
        host: String = "127.0.0.1",
        configure: (inout ServerConfiguration) -> Void = { _ in },
        handler: @escaping HTTPHandler = testHandler,
        _ body: (HTTPServer, Int) throws -> Void
    ) throws {
        try withTestServer(host: host, configure: configure, handler: handler, body)
    }
}

/// Seconds since an arbitrary origin (monotonic).
func seconds() -> Double {
    Double(MonotonicClock.nanoseconds()) / 1e9
}
