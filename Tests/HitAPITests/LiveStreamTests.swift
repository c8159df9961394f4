import Foundation
import Glibc
import HTTPServer
import TestSupport
import XCTest

@testable import HitAPI

/// `GET /scenes/{id}/stream` over real sockets (SPEC §11.2).
final class LiveStreamTests: XCTestCase {
    private func open(
        _ service: LiveService, _ scene: String = "ring-demo", protocols: [String] = ["hitroute.v1"],
        fields: [(String, String)] = []
    ) throws -> (TestClient, TestClient.Response) {
        let c = try TestClient(port: service.port)
        return (c, try c.openWebSocket("/scenes/\(scene)/stream", protocols: protocols, fields: fields))
    }

    private func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }

    func testEachMessageIsAnsweredAsPOSTHitAnswersItWithSeq() throws {
        try withLiveService { service in
            XCTAssertEqual(try service.send("PUT", "/scenes/ring-demo", ringScene).status, 201)
            let (c, r) = try open(service, protocols: ["hitroute.v1", "other"])
            XCTAssertEqual(r.status, 101)
            XCTAssertEqual(r["Sec-WebSocket-Protocol"], "hitroute.v1")
            let bodies = [#"{"x":120,"y":120}"#, #"{"x":210,"y":120,"trace":false}"#, #"{"x":10,"y":10,"all":true}"#]
            // All in one write: answered in order.
            try c.send(
                Array(
                    bodies.enumerated().map { k, b in
                        TestClient.frame(opcode: 1, Array((String(b.dropLast()) + #","seq":\#(k)}"#).utf8))
                    }.joined()))
            for (k, body) in bodies.enumerated() {
                let message = try XCTUnwrap(try c.readFrame()).text
                let http = try service.send("POST", "/scenes/ring-demo/hit", body).text
                // Exactly the HTTP answer, then seq.
                XCTAssertEqual(message, String(http.dropLast()) + #","seq":\#(k)}"#)
            }
            try c.sendText(#"{"x":1,"y":2,"seq":"a-7"}"#)
            XCTAssertEqual(json(try XCTUnwrap(try c.readFrame()).text)["seq"] as? String, "a-7")
        }
    }

    func testABadMessageIsAnErrorAndTheStreamStaysOpen() throws {
        try withLiveService { service in
            XCTAssertEqual(try service.send("PUT", "/scenes/ring-demo", ringScene).status, 201)
            let (c, _) = try open(service)
            try c.sendText(#"{"x":"left","seq":3}"#)
            let error = json(try XCTUnwrap(try c.readFrame()).text)
            XCTAssertEqual(error["type"] as? String, "error")
            XCTAssertEqual(error["seq"] as? Int, 3)
            XCTAssertEqual(error["status"] as? Int, 422)
            XCTAssertEqual(error["problem"] as? String, "/problems/invalid-request")
            let pointers = (error["errors"] as? [[String: Any]])?.compactMap { $0["pointer"] as? String }
            XCTAssertEqual(Set(pointers ?? []), ["/x", "/y"])
            try c.sendText("not json")
            XCTAssertEqual(json(try XCTUnwrap(try c.readFrame()).text)["status"] as? Int, 400)
            try c.sendText(#"{"x":120,"y":120,"seq":4}"#)
            XCTAssertEqual(json(try XCTUnwrap(try c.readFrame()).text)["layer"] as? String, "button")
        }
    }

    func testRefusalsComeBeforeAnyUpgrade() throws {
        try withLiveService { service in
            XCTAssertEqual(try service.send("PUT", "/scenes/ring-demo", ringScene).status, 201)
            XCTAssertEqual(try open(service, "nope").1.status, 404)
            XCTAssertEqual(try open(service, protocols: ["other"]).1.status, 400)
            XCTAssertEqual(try service.send("GET", "/scenes/ring-demo/stream").status, 400)
            let c = try TestClient(port: service.port)
            try c.send(
                "GET /scenes/ring-demo/stream HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: \(TestClient.exampleKey)\r\nSec-WebSocket-Version: 7\r\nSec-WebSocket-Protocol: hitroute.v1\r\n\r\n"
            )
            let r = try c.readResponse()
            XCTAssertEqual(r.status, 426)
            XCTAssertEqual(r["Sec-WebSocket-Version"], "13")
        }
    }

    func testKeysInTheHeaderOrTheBearerSubprotocolAndScopesPerMessage() throws {
        let readKey = "read-key-0123456789"
        let interactKey = "interact-key-0123456789"
        let writeKey = "write-key-0123456789"
        let access = AccessControl(keys: try APIKeys(parsing: "read \(readKey)\ninteract \(interactKey)\nwrite \(writeKey)"))
        func b64url(_ s: String) -> String {
            Data(s.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let log = try withLiveService({ _ in }, access: access) { service in
            XCTAssertEqual(
                try service.send("PUT", "/scenes/ring-demo", ringScene, headers: [("Authorization", "Bearer \(writeKey)")]).status, 201)
            XCTAssertEqual(try open(service).1.status, 401)
            XCTAssertEqual(try open(service, protocols: ["hitroute.v1", "bearer.\(b64url("not-a-key-at-all-x"))"]).1.status, 401)
            XCTAssertEqual(try open(service, protocols: ["hitroute.v1", "bearer.%%%"]).1.status, 401)
            // A read key opens; a pointer phase needs interact: 403 as a message.
            let (c, r) = try open(service, protocols: ["hitroute.v1", "bearer.\(b64url(readKey))"])
            XCTAssertEqual(r.status, 101)
            XCTAssertEqual(r["Sec-WebSocket-Protocol"], "hitroute.v1")
            try c.sendText(#"{"x":210,"y":120,"pointer":"p","phase":"down","seq":1}"#)
            let refused = json(try XCTUnwrap(try c.readFrame()).text)
            XCTAssertEqual(refused["status"] as? Int, 403)
            XCTAssertEqual(refused["seq"] as? Int, 1)
            try c.sendText(#"{"x":210,"y":120,"seq":2}"#)
            XCTAssertEqual(json(try XCTUnwrap(try c.readFrame()).text)["layer"] as? String, "ring")
            let (d, r2) = try open(service, fields: [("Authorization", "Bearer \(interactKey)")])
            XCTAssertEqual(r2.status, 101)
            try d.sendText(#"{"x":210,"y":120,"pointer":"p","phase":"down"}"#)
            XCTAssertEqual(json(try XCTUnwrap(try d.readFrame()).text)["captured"] as? Bool, true)
        }
        XCTAssertFalse(log.contains(readKey))
        XCTAssertFalse(log.contains(b64url(readKey)))
    }

    /// A stream's "p" is neither another stream's nor HTTP's; closing a stream releases its captures.
    func testPointersBelongToTheirStream() throws {
        try withLiveService { service in
            XCTAssertEqual(try service.send("PUT", "/scenes/ring-demo", ringScene).status, 201)
            let (a, _) = try open(service)
            let (b, _) = try open(service)
            try a.sendText(#"{"x":210,"y":120,"pointer":"p","phase":"down"}"#)
            XCTAssertEqual(json(try XCTUnwrap(try a.readFrame()).text)["layer"] as? String, "ring")
            // b's "p" is not captured: its move routes geometrically.
            try b.sendText(#"{"x":120,"y":120,"pointer":"p","phase":"move"}"#)
            XCTAssertEqual(json(try XCTUnwrap(try b.readFrame()).text)["layer"] as? String, "button")
            XCTAssertEqual(
                json(try service.send("POST", "/scenes/ring-demo/hit", #"{"x":120,"y":120,"pointer":"p","phase":"move"}"#).text)["layer"]
                    as? String, "button")
            // a's "p" is.
            try a.sendText(#"{"x":120,"y":120,"pointer":"p","phase":"move"}"#)
            let moved = json(try XCTUnwrap(try a.readFrame()).text)
            XCTAssertEqual(moved["layer"] as? String, "ring")
            XCTAssertEqual(moved["captured"] as? Bool, true)
        }
    }

    func testVersionPushesAndDeleteCloses4404() throws {
        try withLiveService { service in
            XCTAssertEqual(try service.send("PUT", "/scenes/ring-demo", ringScene).status, 201)
            let (c, _) = try open(service)
            XCTAssertEqual(try service.send("PATCH", "/scenes/ring-demo/layers/button", #"{"action":"x"}"#).status, 200)
            XCTAssertEqual(try c.readFrame()?.text, #"{"type":"scene","version":2}"#)
            XCTAssertEqual(try service.send("PUT", "/scenes/ring-demo", ringScene).status, 200)
            XCTAssertEqual(try c.readFrame()?.text, #"{"type":"scene","version":3}"#)
            XCTAssertEqual(try service.send("DELETE", "/scenes/ring-demo").status, 204)
            XCTAssertEqual(try c.readFrame()?.text, #"{"type":"scene","deleted":true}"#)
            let close = try c.readFrame()
            XCTAssertEqual(close?.opcode, 8)
            XCTAssertEqual(close?.closeCode, 4404)
            let (_, metrics) = try service.scrape()
            XCTAssertEqual(metrics.value("hitroute_stream_pushes_total"), 3)
        }
    }

    /// A change under a still pointer of the stream is pushed after the
    /// scene's version (SPEC §11.1), once: its next answer says nothing.
    func testABoundaryIsPushedAfterTheSceneChangedUnderAPointer() throws {
        try withLiveService { service in
            XCTAssertEqual(try service.send("PUT", "/scenes/ring-demo", ringScene).status, 201)
            let (c, _) = try open(service)
            let hover = #"{"x":210,"y":120,"pointer":"mouse","phase":"hover","trace":false}"#
            try c.send(TestClient.frame(opcode: 1, Array(hover.utf8)))
            XCTAssertEqual(json(try XCTUnwrap(try c.readFrame()).text)["layer"] as? String, "ring")
            XCTAssertEqual(try service.send("PATCH", "/scenes/ring-demo/layers/ring", #"{"hidden":true}"#).status, 200)
            XCTAssertEqual(try c.readFrame()?.text, #"{"type":"scene","version":2}"#)
            XCTAssertEqual(
                try c.readFrame()?.text,
                #"{"type":"boundary","pointer":"mouse","version":2,"layer":"button","boundary":{"out":"ring","leave":["ring"],"over":"button","enter":["button"],"removed":[]}}"#
            )
            try c.send(TestClient.frame(opcode: 1, Array(hover.utf8)))
            XCTAssertNil(json(try XCTUnwrap(try c.readFrame()).text)["boundary"])
        }
    }

    /// A client that sends faster than it reads: moves of one pointer are
    /// coalesced, the down and up are answered, in order, and every move is
    /// accounted for by an answer's `coalesced` count.
    func testMovesCoalesceUnderBackpressureAndDownsAndUpsDoNot() throws {
        try withLiveService { service in
            XCTAssertEqual(try service.send("PUT", "/scenes/ring-demo", ringScene).status, 201)
            let (c, _) = try open(service)
            var size = Int32(4096)
            setsockopt(c.fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            let moves = 3000
            var bytes = TestClient.frame(opcode: 1, Array(#"{"x":5,"y":5,"pointer":"q","phase":"down","seq":0}"#.utf8))
            for k in 1...moves {
                bytes += TestClient.frame(opcode: 1, Array(#"{"x":\#(k % 200),"y":5,"pointer":"p","phase":"move","seq":\#(k)}"#.utf8))
            }
            bytes += TestClient.frame(opcode: 1, Array(#"{"x":5,"y":5,"pointer":"q","phase":"up","seq":-1}"#.utf8))
            let (fd, payload) = (c.fd, bytes)
            let writer = Thread {
                var offset = 0
                while offset < payload.count {
                    let n = payload[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    if n <= 0 { return }
                    offset += n
                }
            }
            writer.start()
            var seqs: [Int] = []
            var accounted = 0
            while seqs.last != -1 {
                let answer = json(try XCTUnwrap(try c.readFrame()).text)
                let seq = try XCTUnwrap(answer["seq"] as? Int)
                if seq > 0 { accounted += 1 + (answer["coalesced"] as? Int ?? 0) }
                seqs.append(seq)
            }
            XCTAssertEqual(seqs.first, 0)
            XCTAssertEqual(accounted, moves)
            XCTAssertEqual(seqs.dropFirst().dropLast(), seqs.dropFirst().dropLast().sorted()[...])
            XCTAssertEqual(seqs[seqs.count - 2], moves)  // the last move is never dropped
            XCTAssertLessThan(seqs.count, moves + 2, "nothing was coalesced")
        }
    }
}
