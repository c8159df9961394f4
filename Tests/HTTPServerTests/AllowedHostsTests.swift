import TestSupport
import XCTest

@testable import HTTPServer

/// `HTTPLimits.allowedHosts` at the byte level: the parser refuses a head
/// whose Host is not listed with 403 at the Host value, in every split,
/// before any body; listed names match whatever their port and case.
final class AllowedHostsTests: XCTestCase {
    func head(host: String, body: String = "") -> [UInt8] {
        let framing = body.isEmpty ? "" : "Content-Length: \(body.utf8.count)\r\n"
        return Array("POST / HTTP/1.1\r\nHost: \(host)\r\n\(framing)\r\n\(body)".utf8)
    }

    func testListedHostsPassWhateverPortAndCase() {
        var limits = HTTPLimits()
        limits.allowedHosts = AllowedHosts(["localhost", "127.0.0.1", "[::1]", ".example.com", "api.test:9"])
        for host in [
            "localhost", "LocalHost:8080", "127.0.0.1:1", "[::1]", "[::1]:443", "example.com",
            "a.example.com", "A.B.Example.COM:80", "api.test", "api.test:1234",
        ] {
            let r = requests(parseEverySplit(head(host: host, body: "x"), limits: limits, randomSplits: 5))
            XCTAssertEqual(r.count, 1, host)
        }
    }

    func testOtherHostsAre403AtTheHostValueBeforeTheBody() {
        var limits = HTTPLimits()
        limits.allowedHosts = .loopback
        for host in [
            "rebind.evil.example", "localhost.evil.example", "evil-localhost", "127.0.0.2", "[::2]",
            "127.0.0.1.nip.io:80", "", "localhos", "xlocalhost",
        ] {
            let events = parseEverySplit(head(host: host, body: "body"), limits: limits, randomSplits: 5)
            guard case .error(let e)? = events.last else { return XCTFail("\(host): accepted") }
            XCTAssertEqual(e.kind, .hostNotAllowed, host)
            XCTAssertEqual(e.status, 403, host)
            XCTAssertEqual(e.slug, "host-not-allowed")
            XCTAssertEqual(e.offset, host.isEmpty ? 22 : 23, "at the Host value: \(host)")
            XCTAssertEqual(events.count, 1, "no head event, so no 100 Continue: \(host)")
        }
    }

    func testAnyAllowsEveryHostAndHTTP10WithoutHostPasses() {
        XCTAssertEqual(requests(parseEverySplit(head(host: "anything.example"))).count, 1)
        var limits = HTTPLimits()
        limits.allowedHosts = .loopback
        let r = requests(parseEverySplit(Array("GET / HTTP/1.0\r\n\r\n".utf8), limits: limits, randomSplits: 5))
        XCTAssertEqual(r.count, 1, "no Host, no browser: nothing to check")
    }

    func testDefaultFollowsTheBindAddress() {
        for host in ["127.0.0.1", "::1", "localhost", "127.1.2.3"] {
            XCTAssertEqual(AllowedHosts.defaultFor(bindAddress: host), .loopback, host)
        }
        for host in ["0.0.0.0", "::", "192.168.1.5", "example.com"] {
            XCTAssertEqual(AllowedHosts.defaultFor(bindAddress: host), .any, host)
        }
    }

    /// The request path's port stripping agrees with the general one.
    func testLengthWithoutPortIsWithoutPort() {
        for value in ["", ":", "a", "a:", "a:80", "127.0.0.1:8080", "[::1]", "[::1]:80", "[", "[::1", "x:y:z", "[a]b:1"] {
            let bytes = Array(value.utf8)
            let n = bytes.withUnsafeBufferPointer { AllowedHosts.lengthWithoutPort($0) }
            XCTAssertEqual(Array(bytes[0..<n]), Array(AllowedHosts.withoutPort(bytes[...])), value)
        }
    }
}
