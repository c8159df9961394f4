import Foundation
import HitRouting
import TestSupport
import XCTest

@testable import HitAPI

/// SPEC §11.1 over HTTP: `hover`, `leave`, `pointerType` and `boundary` in
/// single and batch answers, their validation and their scopes.
final class HoverRoutesTests: XCTestCase {
    let app = Application.testing({ $0.store.maxPointers = 3 })

    override func setUp() {
        XCTAssertEqual(app.call("PUT", "/scenes/ring-demo", ringScene).status, 201)
    }

    func hit(_ body: String) -> Reply { app.call("POST", "/scenes/ring-demo/hit", body) }

    /// The `boundary` of an answer as Foundation parsed it (nil when absent).
    func boundary(_ object: [String: Any]) -> NSDictionary? { (object["boundary"] as? [String: Any]).map { $0 as NSDictionary } }

    func expected(_ out: String?, _ leave: [String], _ over: String?, _ enter: [String], removed: [String] = []) -> NSDictionary {
        ["out": out ?? NSNull(), "leave": leave, "over": over ?? NSNull(), "enter": enter, "removed": removed] as NSDictionary
    }

    func testHoveringAcrossTheRingIsTheDOMSequence() {
        let steps: [(Double, Double, NSDictionary?)] = [
            (120, 120, expected(nil, [], "button", ["button"])),  // the ring's hole: the button
            (210, 120, expected("button", ["button"], "ring", ["ring"])),  // the band
            (215, 120, nil),  // still the band
            (10, 10, expected("ring", ["ring"], "button", ["button"])),  // a corner
            (300, 300, expected("button", ["button"], nil, [])),  // off the scene
        ]
        for (x, y, want) in steps {
            let r = hit(#"{"x":\#(x),"y":\#(y),"pointer":"mouse","phase":"hover","trace":false}"#)
            XCTAssertEqual(r.status, 200, r.text)
            XCTAssertEqual(boundary(r.object), want, "(\(x), \(y)): \(r.text)")
            XCTAssertEqual(r.object["captured"] as? Bool, false)
        }
        // The exact bytes of one answer: every member of boundary present, null for no layer.
        XCTAssertEqual(
            hit(#"{"x":120,"y":120,"pointer":"mouse","phase":"hover","trace":false}"#).text,
            #"{"scene":"ring-demo","version":1,"x":120,"y":120,"layer":"button","path":["button"],"action":"below.press","actionLayer":"button","local":{"x":120,"y":120},"captured":false,"boundary":{"out":null,"leave":[],"over":"button","enter":["button"],"removed":[]}}"#
        )
        XCTAssertEqual(
            boundary(hit(#"{"x":120,"y":120,"pointer":"mouse","phase":"leave"}"#).object), expected("button", ["button"], nil, []))
        // A plain hit has neither captured nor boundary.
        let plain = hit(#"{"x":120,"y":120}"#).object
        XCTAssertNil(plain["boundary"])
        XCTAssertNil(plain["captured"])
    }

    func testATouchAndAMouseDragOverTheRing() {
        // A touch: over nothing until its down, nothing after its up.
        XCTAssertNil(boundary(hit(#"{"x":210,"y":120,"pointer":"t","phase":"move","pointerType":"touch"}"#).object))
        XCTAssertEqual(
            boundary(hit(#"{"x":210,"y":120,"pointer":"t","phase":"down","pointerType":"touch"}"#).object),
            expected(nil, [], "ring", ["ring"]))
        XCTAssertNil(boundary(hit(#"{"x":120,"y":120,"pointer":"t","phase":"move","pointerType":"touch"}"#).object))  // captured
        XCTAssertEqual(
            boundary(hit(#"{"x":120,"y":120,"pointer":"t","phase":"up","pointerType":"touch"}"#).object),
            expected("ring", ["ring"], nil, []))
        // A mouse: after its up, what is under it.
        XCTAssertEqual(boundary(hit(#"{"x":210,"y":120,"pointer":"m","phase":"down"}"#).object), expected(nil, [], "ring", ["ring"]))
        XCTAssertEqual(
            boundary(hit(#"{"x":120,"y":120,"pointer":"m","phase":"up","pointerType":"mouse"}"#).object),
            expected("ring", ["ring"], "button", ["button"]))
    }

    func testAPatchUnderAStillPointerIsInItsNextAnswer() {
        _ = hit(#"{"x":210,"y":120,"pointer":"m","phase":"hover"}"#)
        XCTAssertEqual(app.call("PATCH", "/scenes/ring-demo/layers/ring", #"{"hidden":true}"#).status, 200)
        let next = hit(#"{"x":210,"y":120,"pointer":"m","phase":"hover"}"#).object
        XCTAssertEqual(next["version"] as? Int, 2)
        XCTAssertEqual(boundary(next), expected("ring", ["ring"], "button", ["button"]))
        // A replacement without the button: it is left, and removed.
        XCTAssertEqual(
            app.call("PUT", "/scenes/ring-demo", #"{"layers":[{"id":"other","shape":{"type":"rect","x":0,"y":0,"width":10,"height":10}}]}"#)
                .status, 200)
        XCTAssertEqual(
            boundary(hit(#"{"x":210,"y":120,"pointer":"m","phase":"hover"}"#).object),
            expected("button", ["button"], nil, [], removed: ["button"]))
        // A deleted scene forgets its pointers.
        _ = hit(#"{"x":5,"y":5,"pointer":"m","phase":"hover"}"#)
        XCTAssertEqual(app.call("DELETE", "/scenes/ring-demo").status, 204)
        XCTAssertEqual(app.call("PUT", "/scenes/ring-demo", ringScene).status, 201)
        XCTAssertEqual(boundary(hit(#"{"x":5,"y":5,"pointer":"m","phase":"hover"}"#).object), expected(nil, [], "button", ["button"]))
    }

    func testBatchEntriesCarryBoundaryWhereItChanged() throws {
        let r = app.call(
            "POST", "/scenes/ring-demo/hits",
            """
            {"points": [{"x":120,"y":120,"pointer":"m","phase":"hover"}, {"x":121,"y":120,"pointer":"m","phase":"hover"},
                        {"x":210,"y":120}, {"x":210,"y":120,"pointer":"m","phase":"hover","pointerType":"pen"},
                        {"x":210,"y":120,"pointer":"t","phase":"hover","pointerType":"touch"},
                        {"x":300,"y":300,"pointer":"m","phase":"leave"}]}
            """)
        XCTAssertEqual(r.status, 200, r.text)
        let results = try XCTUnwrap(r.object["results"] as? [[String: Any]])
        XCTAssertEqual(
            results.map(boundary),
            [
                expected(nil, [], "button", ["button"]), nil, nil, expected("button", ["button"], "ring", ["ring"]), nil,
                expected("ring", ["ring"], nil, []),
            ])
        XCTAssertEqual(results.map { $0["captured"] as? Bool }, [false, false, nil, false, false, false])
    }

    func testRememberedPointersCountTowardMaxPointers() {
        for p in ["a", "b", "c"] { XCTAssertEqual(hit(#"{"x":1,"y":1,"pointer":"\#(p)","phase":"hover"}"#).status, 200) }
        let fourth = hit(#"{"x":1,"y":1,"pointer":"d","phase":"hover"}"#)
        XCTAssertEqual(fourth.status, 429)
        XCTAssertEqual(fourth.object["type"] as? String, "/problems/too-many-pointers")
        XCTAssertEqual(hit(#"{"x":1,"y":1,"pointer":"d","phase":"hover","pointerType":"touch"}"#).status, 200)  // not remembered
        XCTAssertEqual(hit(#"{"x":1,"y":1,"pointer":"a","phase":"leave"}"#).status, 200)
        XCTAssertEqual(hit(#"{"x":1,"y":1,"pointer":"d","phase":"hover"}"#).status, 200)
    }

    func testValidationPointsAtTheField() {
        let cases: [(String, [String], [String])] = [
            (
                #"{"x":1,"y":1,"pointer":"p","phase":"hover","pointerType":"finger"}"#, ["/pointerType"],
                [#"must be one of "mouse", "pen", "touch""#]
            ),
            (#"{"x":1,"y":1,"pointerType":"pen"}"#, ["/pointerType"], ["describes a pointer: give pointer and phase with it"]),
            (
                #"{"x":1,"y":1,"pointer":"p","phase":"hovering"}"#, ["/phase", "/phase"],
                [#"must be one of "down", "move", "up", "cancel", "hover", "leave""#, "pointer and phase go together: phase is missing"]
            ),
            (#"{"x":1,"y":1,"pointer":"p","phase":"hover","pointerType":1}"#, ["/pointerType"], ["must be a string, not a number"]),
        ]
        for (body, pointers, messages) in cases {
            let r = hit(body)
            XCTAssertEqual(r.status, 422, body)
            XCTAssertEqual(r.pointers, pointers, body)
            XCTAssertEqual(r.messages, messages, body)
        }
        // A GET changes nothing: pointerType there is refused like pointer and phase.
        let get = app.call("GET", "/scenes/ring-demo/hit?x=1&y=1&pointerType=pen")
        XCTAssertEqual(get.status, 422)
        XCTAssertEqual(get.pointers, ["/pointerType"])
        let batch = app.call("POST", "/scenes/ring-demo/hits", #"{"points":[{"x":1,"y":1},{"x":1,"y":1,"pointerType":"touch"}]}"#)
        XCTAssertEqual(batch.status, 422)
        XCTAssertEqual(batch.pointers, ["/points/1/pointerType"])
    }

    /// Both decoders (the plain fast path and the reporting one) read
    /// `pointerType` alike, in any order of the keys.
    func testBothDecodersAgreeOnPointerType() throws {
        let bodies = [
            #"{"x":1,"y":2,"pointer":"p","phase":"hover","pointerType":"pen"}"#,
            #"{"pointerType":"touch","phase":"down","pointer":"p","y":2,"x":1,"trace":false}"#,
            #"{"x":1,"y":2,"pointer":"p","phase":"leave"}"#,
        ]
        for body in bodies {
            let bytes = Array(body.utf8)
            let fast = try bytes.withUnsafeBufferPointer { try HitRequestDecoder.decodeHit($0) }
            let slow = try bytes.withUnsafeBufferPointer { try HitRequestDecoder.decodeHit($0, fastPath: false) }
            XCTAssertEqual(fast, slow, body)
        }
        // The compact bodies (`CompactHitBody`) and their near misses, which the general path reads or refuses.
        let compact = [
            #"{"x":120,"y":120}"#, #"{"x":120,"y":120,"trace":false}"#, #"{"y":-3,"x":0,"all":true,"trace":true}"#,
            #"{"x":-0,"y":1}"#, #"{"x":01,"y":1}"#, #"{"x":1.5,"y":1}"#, #"{"x":1e2,"y":1}"#, #"{"x":123456789012345,"y":1}"#,
            #"{"x":1234567890123456,"y":1}"#, #"{"x":1,"x":2,"y":1}"#, #"{"x":1,"y":1,"trace":false,"trace":true}"#,
            #"{"x":1,"y":1,"trace":null}"#, #"{"x":1,"y":1} "#, #"{"x":1,"y":1,}"#, #"{"x":1}"#, #"{"x":-,"y":1}"#,
            #"{"x":1,"y":1,"all":fals}"#, #"{"x":1,"y":1,"z":1}"#, #"{"x":1,"y":1}x"#,
        ]
        for body in compact {
            let bytes = Array(body.utf8)
            let fast = Result { try bytes.withUnsafeBufferPointer { try HitRequestDecoder.decodeHit($0) } }
            let slow = Result { try bytes.withUnsafeBufferPointer { try HitRequestDecoder.decodeHit($0, fastPath: false) } }
            switch (fast, slow) {
            case (.success(let f), .success(let s)):
                XCTAssertEqual(f, s, body)
                XCTAssertEqual(f.point.x.sign, s.point.x.sign, body)
            case (.failure(let f), .failure(let s)): XCTAssertEqual("\(f)", "\(s)", body)
            default: XCTFail("\(body): \(fast) against \(slow)")
            }
        }
        let q = try Array(bodies[1].utf8).withUnsafeBufferPointer { try HitRequestDecoder.decodeHit($0) }
        XCTAssertEqual(q.point.pointerType, .touch)
        XCTAssertEqual(q.point.phase, .down)
        let batch = try Array(#"{"points":[{"x":1,"y":2,"pointer":"p","phase":"hover","pointerType":"pen"},{"x":3,"y":4}]}"#.utf8)
            .withUnsafeBufferPointer { try HitRequestDecoder.decodeBatch($0, maxPoints: 10) }
        XCTAssertEqual(batch.pointerEvents, [BatchQuery.PointerEvent(index: 0, pointer: "p", phase: .hover, type: .pen)])
        XCTAssertFalse(batch.needsInteract)
    }

    /// An open service refuses pointer phases, hover included, from another site's page.
    func testAForeignPageMayNotHoverOnAnOpenService() {
        let foreign = [("Origin", "http://evil.example"), ("Host", "127.0.0.1:8080")]
        let body = #"{"x":210,"y":120,"pointer":"mouse","phase":"hover"}"#
        let r = app.call("POST", "/scenes/ring-demo/hit", body, headers: foreign)
        XCTAssertEqual(r.status, 403)
        XCTAssertEqual(r.object["type"] as? String, "/problems/foreign-origin")
        XCTAssertEqual(app.call("POST", "/scenes/ring-demo/hits", #"{"points":[\#(body)]}"#, headers: foreign).status, 403)
        XCTAssertEqual(app.call("POST", "/scenes/ring-demo/hit", #"{"x":210,"y":120}"#, headers: foreign).status, 200)  // a plain hit
        XCTAssertEqual(
            app.call("POST", "/scenes/ring-demo/hit", body, headers: [("Origin", "http://127.0.0.1:8080"), ("Host", "127.0.0.1:8080")])
                .status, 200)
    }

    func testHoverNeedsReadAndTheOtherPhasesInteract() throws {
        let readKey = "read-key-0123456789abcdef"
        let interactKey = "interact-key-0123456789ab"
        let writeKey = "write-key-0123456789abcdef"
        let access = try AccessControl(file: try writeKeyFile("read \(readKey)\ninteract \(interactKey)\nwrite \(writeKey)\n", in: self))
        try withLiveService(access: access) { s in
            let write = [("Authorization", "Bearer \(writeKey)")]
            let read = [("Authorization", "Bearer \(readKey)")]
            let interact = [("Authorization", "Bearer \(interactKey)")]
            XCTAssertEqual(try s.send("PUT", "/scenes/ring-demo", ringScene, headers: write).status, 201)
            XCTAssertEqual(
                try s.send("POST", "/scenes/ring-demo/hit", #"{"x":210,"y":120,"pointer":"p","phase":"hover"}"#, headers: read).status, 200)
            XCTAssertEqual(
                try s.send(
                    "POST", "/scenes/ring-demo/hits", #"{"points":[{"x":1,"y":1,"pointer":"p","phase":"hover"}]}"#,
                    headers: read
                ).status, 200)
            for phase in ["leave", "down", "move", "up", "cancel"] {
                XCTAssertEqual(
                    try s.send("POST", "/scenes/ring-demo/hit", #"{"x":1,"y":1,"pointer":"p","phase":"\#(phase)"}"#, headers: read).status,
                    403, phase)
                XCTAssertEqual(
                    try s.send(
                        "POST", "/scenes/ring-demo/hits",
                        #"{"points":[{"x":1,"y":1,"pointer":"q","phase":"hover"},{"x":1,"y":1,"pointer":"p","phase":"\#(phase)"}]}"#,
                        headers: read
                    ).status, 403, phase)
                XCTAssertEqual(
                    try s.send(
                        "POST", "/scenes/ring-demo/hit", #"{"x":1,"y":1,"pointer":"p","phase":"\#(phase)"}"#,
                        headers: interact
                    ).status, 200, phase)
            }
        }
    }
}
