import Foundation
import XCTest

@testable import HitAPI

final class HitRoutesTests: XCTestCase {
    let app = Application.testing()

    override func setUp() {
        XCTAssertEqual(app.call("PUT", "/scenes/ring-demo", ringScene).status, 201)
    }

    func layer(_ r: Reply) -> String? { r.object["layer"] as? String }

    func testTheSpecRingTableOverPostAndGet() {
        for (x, y, expected) in [(120, 120, "button"), (210, 120, "ring"), (10, 10, "button")] {
            XCTAssertEqual(layer(app.call("POST", "/scenes/ring-demo/hit", #"{"x": \#(x), "y": \#(y)}"#)), expected)
            XCTAssertEqual(layer(app.call("GET", "/scenes/ring-demo/hit?x=\(x)&y=\(y)")), expected)
        }
    }

    func testTheAnswerMatchesTheSpecExample() throws {
        let r = app.call("POST", "/scenes/ring-demo/hit", #"{"x": 120, "y": 120, "trace": true, "all": false}"#)
        XCTAssertEqual(r.status, 200)
        let expected = """
            {"scene": "ring-demo", "version": 1, "x": 120, "y": 120,
             "layer": "button", "path": ["button"],
             "action": "below.press", "actionLayer": "button",
             "local": {"x": 120, "y": 120},
             "trace": [
               {"layer": "frame",  "decision": "skip", "reason": "pointer-events-none"},
               {"layer": "ring",   "decision": "miss", "reason": "in-hole",
                "detail": "even-odd: inside 2 contours", "local": {"x": 120, "y": 120}},
               {"layer": "button", "decision": "hit",  "reason": "inside",
                "local": {"x": 120, "y": 120}}]}
            """
        XCTAssertEqual(
            r.object as NSDictionary,
            try JSONSerialization.jsonObject(with: Data(expected.utf8)) as! NSDictionary)
        XCTAssertEqual(
            r.text,
            #"{"scene":"ring-demo","version":1,"x":120,"y":120,"layer":"button","path":["button"],"action":"below.press","actionLayer":"button","local":{"x":120,"y":120},"trace":[{"layer":"frame","decision":"skip","reason":"pointer-events-none"},{"layer":"ring","decision":"miss","reason":"in-hole","detail":"even-odd: inside 2 contours","local":{"x":120,"y":120}},{"layer":"button","decision":"hit","reason":"inside","local":{"x":120,"y":120}}]}"#
        )
    }

    func testMissAnswersNullsAndTraceCanBeOff() {
        let r = app.call("GET", "/scenes/ring-demo/hit?x=500&y=500&trace=0")
        XCTAssertEqual(
            r.text,
            #"{"scene":"ring-demo","version":1,"x":500,"y":500,"layer":null,"path":null,"action":null,"actionLayer":null,"local":null}"#)
    }

    func testAllListsTheStack() {
        let r = app.call("POST", "/scenes/ring-demo/hit", #"{"x": 210, "y": 120, "trace": false, "all": true}"#)
        XCTAssertEqual(r.object["stack"] as? [String], ["ring", "button"])
        XCTAssertNil(r.object["trace"])
    }

    func testBatchAnswersInOrder() {
        let r = app.call("POST", "/scenes/ring-demo/hits", #"{"points": [{"x":120,"y":120},{"x":210,"y":120},{"x":999,"y":0}]}"#)
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(
            r.text,
            #"{"scene":"ring-demo","version":1,"results":[{"layer":"button","action":"below.press","actionLayer":"button"},{"layer":"ring","action":"ring.select","actionLayer":"ring"},{"layer":null,"action":null,"actionLayer":null}]}"#
        )
        let traced = app.call("POST", "/scenes/ring-demo/hits", #"{"points": [{"x":120,"y":120}], "trace": true}"#)
        XCTAssertEqual(((traced.object["results"] as? [[String: Any]])?.first?["trace"] as? [Any])?.count, 3)
    }

    func testBadHitRequestsPointAtTheCulprit() {
        let r = app.call("POST", "/scenes/ring-demo/hit", #"{"y": "1", "trace": 3, "extra": 1, "phase": "down"}"#)
        XCTAssertEqual(r.status, 422)
        XCTAssertEqual(r.object["type"] as? String, "/problems/invalid-request")
        XCTAssertEqual(Set(r.pointers), ["/y", "/trace", "/extra", "/x", "/pointer"])
        let q = app.call("GET", "/scenes/ring-demo/hit?x=abc&trace=maybe&zoom=2")
        XCTAssertEqual(Set(q.pointers), ["/x", "/y", "/trace", "/zoom"])
        XCTAssertEqual(app.call("GET", "/scenes/ring-demo/hit?x=1e999&y=0").pointers, ["/x"])
        XCTAssertEqual(app.call("POST", "/scenes/nope/hit", #"{"x":1,"y":1}"#).status, 404)
        XCTAssertEqual(app.call("POST", "/scenes/ring-demo/hit", "").status, 400)
        let batch = app.call("POST", "/scenes/ring-demo/hits", #"{"points": [{"x":1,"y":1},{"x":1}]}"#)
        XCTAssertEqual(batch.pointers, ["/points/1/y"])
        let tooMany = Application.testing { $0.maxBatchPoints = 2 }
        _ = tooMany.call("PUT", "/scenes/s", ringScene)
        XCTAssertEqual(
            tooMany.call("POST", "/scenes/s/hits", #"{"points":[{"x":1,"y":1},{"x":1,"y":1},{"x":1,"y":1}]}"#).pointers, ["/points"])
    }

    func testATracedBatchOverAHugeSceneIsRefusedUpFront() {
        let layers = (0..<3000).map { #"{"id":"l\#($0)","shape":{"type":"rect","x":0,"y":0,"width":10,"height":10}}"# }
        XCTAssertEqual(app.call("PUT", "/scenes/wide", #"{"layers":["# + layers.joined(separator: ",") + "]}").status, 201)
        let points = "[" + Array(repeating: #"{"x":1,"y":1}"#, count: 1000).joined(separator: ",") + "]"
        let traced = app.call("POST", "/scenes/wide/hits", #"{"points":\#(points),"trace":true}"#)
        XCTAssertEqual(traced.status, 422)
        XCTAssertEqual(traced.pointers, ["/trace"])
        XCTAssertEqual(app.call("POST", "/scenes/wide/hits", #"{"points":\#(points),"all":true}"#).pointers, ["/all"])
        XCTAssertEqual(app.call("POST", "/scenes/wide/hits", #"{"points":\#(points)}"#).status, 200)
    }

    func testHeadAndHealth() {
        XCTAssertEqual(app.call("HEAD", "/scenes/ring-demo").status, 200)
        XCTAssertEqual(app.call("GET", "/readyz").object["status"] as? String, "ready")
        let draining = Application(configuration: Configuration(), isShuttingDown: { true })
        XCTAssertEqual(draining.call("GET", "/readyz").status, 503)
        XCTAssertEqual(app.call("GET", "/openapi.yaml").headers["Content-Type"], "application/yaml; charset=utf-8")
    }
}

final class ExampleScenesTests: XCTestCase {
    func load(_ name: String) throws -> String {
        try String(contentsOf: repositoryRoot.appendingPathComponent("examples/\(name)"), encoding: .utf8)
    }

    func testTheRingExampleReproducesTheSpecTable() throws {
        let app = Application.testing()
        XCTAssertEqual(app.call("POST", "/scenes", try load("ring-over-button.json")).status, 201)
        for (x, y, expected) in [(120, 120, "button"), (210, 120, "ring"), (10, 10, "button")] {
            XCTAssertEqual(app.call("GET", "/scenes/ring-demo/hit?x=\(x)&y=\(y)").object["layer"] as? String, expected)
        }
    }

    func testTheSquaresExampleRoutesThroughTheLargerSquares() throws {
        let app = Application.testing()
        let created = app.call("POST", "/scenes", try load("overlapping-squares.json"))
        XCTAssertEqual(created.status, 201, created.text)
        let id = created.object["id"] as? String ?? ""
        XCTAssertEqual(app.call("GET", "/scenes/\(id)/hit?x=100&y=100").object["layer"] as? String, "square1")
        XCTAssertEqual(app.call("GET", "/scenes/\(id)/hit?x=300&y=300").object["layer"] as? String, "square3")
    }
}
