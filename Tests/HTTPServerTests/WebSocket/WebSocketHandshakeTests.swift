import XCTest

@testable import HTTPServer

final class WebSocketHandshakeTests: XCTestCase {
    private let key = "dGhlIHNhbXBsZSBub25jZQ=="

    private func request(_ fields: [(String, String)], method: String = "GET", version: HTTPVersion = .http1_1) -> HTTPRequest {
        HTTPRequest(method: method, target: "/chat", version: version, headers: HTTPHeaders(fields))
    }

    private var valid: [(String, String)] {
        [
            ("Host", "server.example.com"), ("Upgrade", "websocket"), ("Connection", "Upgrade"),
            ("Sec-WebSocket-Key", key), ("Sec-WebSocket-Version", "13"),
        ]
    }

    private func status(_ outcome: WebSocketHandshake.Outcome) -> Int? {
        if case .refused(let r) = outcome { return r.status }
        return nil
    }

    /// RFC 6455 §1.3's example key and answer.
    func testTheRFCsAcceptValue() {
        XCTAssertEqual(WebSocketHandshake.acceptValue(key: key), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        guard case .accepted(let h) = WebSocketHandshake.check(request(valid)) else { return XCTFail() }
        XCTAssertEqual(h.accept, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        XCTAssertEqual(h.offeredProtocols, [])
    }

    func testTokensAreCaseInsensitiveListsAcrossFields() {
        var fields = valid
        fields[1] = ("Upgrade", "h2c, WebSocket")
        fields[2] = ("Connection", "keep-alive, upgrade")
        fields.append(("Sec-WebSocket-Protocol", "hitroute.v1, bearer.abc"))
        fields.append(("Sec-WebSocket-Protocol", " chat "))
        guard case .accepted(let h) = WebSocketHandshake.check(request(fields)) else { return XCTFail() }
        XCTAssertEqual(h.offeredProtocols, ["hitroute.v1", "bearer.abc", "chat"])
    }

    func testMalformedHandshakesAre400() {
        func without(_ name: String) -> [(String, String)] { valid.filter { $0.0 != name } }
        func replacing(_ name: String, _ value: String) -> [(String, String)] { without(name) + [(name, value)] }
        let cases: [(String, HTTPRequest)] = [
            ("POST", request(valid, method: "POST")),
            ("HTTP/1.0", request(valid, version: .http1_0)),
            ("no Upgrade", request(without("Upgrade"))),
            ("Upgrade: h2c", request(replacing("Upgrade", "h2c"))),
            ("no Connection", request(without("Connection"))),
            ("Connection: keep-alive", request(replacing("Connection", "keep-alive"))),
            ("no key", request(without("Sec-WebSocket-Key"))),
            ("two keys", request(valid + [("Sec-WebSocket-Key", key)])),
            ("short key", request(replacing("Sec-WebSocket-Key", "AQIDBA=="))),
            ("not base64", request(replacing("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ!!"))),
            ("no version", request(without("Sec-WebSocket-Version"))),
            ("two versions", request(valid + [("Sec-WebSocket-Version", "13")])),
        ]
        for (name, r) in cases {
            XCTAssertEqual(status(WebSocketHandshake.check(r)), 400, name)
        }
    }

    func testAnotherVersionIs426NamingThirteen() {
        for version in ["8", "14", "13, 8", ""] {
            var fields = valid.filter { $0.0 != "Sec-WebSocket-Version" }
            fields.append(("Sec-WebSocket-Version", version))
            guard case .refused(let r) = WebSocketHandshake.check(request(fields)) else { return XCTFail(version) }
            XCTAssertEqual(r.status, 426, version)
            XCTAssertEqual(r.headers["Sec-WebSocket-Version"], "13")
        }
    }

    func testTheUpgradeResponseNamesOnlyTheChosenProtocol() {
        guard case .accepted(let h) = WebSocketHandshake.check(request(valid + [("Sec-WebSocket-Protocol", "a, b")])) else {
            return XCTFail()
        }
        let r = HTTPResponse.webSocketUpgrade(h, subprotocol: "b") { _ in NullSession() }
        XCTAssertEqual(r.status, 101)
        XCTAssertEqual(r.headers["Sec-WebSocket-Protocol"], "b")
        XCTAssertEqual(r.headers["Sec-WebSocket-Accept"], "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        XCTAssertNil(r.headers["Sec-WebSocket-Extensions"])
        XCTAssertNotNil(r.upgrade)
    }
}

final class NullSession: WebSocketSession {
    func received(_ message: UnsafeRawBufferPointer, on stream: WebSocketStream) {}
}
