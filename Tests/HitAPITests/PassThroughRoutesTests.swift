import Foundation
import TestSupport
import XCTest

@testable import HitAPI

/// `passThrough` over HTTP: `receivers` in single and batch answers, the
/// trace's `pass` decisions, `all` stacks and pointer capture.
final class PassThroughRoutesTests: XCTestCase {
    let app = Application.testing()

    static let scene = """
        {"layers":[
          {"id":"button","action":"button.press","shape":{"type":"rect","x":0,"y":0,"width":100,"height":100}},
          {"id":"halo","passThrough":true,"shape":{"type":"rect","x":0,"y":0,"width":150,"height":150}},
          {"id":"overlay","action":"analytics.seen","passThrough":true,"children":[
            {"id":"tracker","passThrough":true,"shape":{"type":"rect","x":0,"y":0,"width":200,"height":200}}]}
        ]}
        """

    override func setUp() {
        XCTAssertEqual(app.call("PUT", "/scenes/p", Self.scene).status, 201)
    }

    func testSingleHitListsReceiversWithBubbledActions() throws {
        let reply = app.call("POST", "/scenes/p/hit", #"{"x":50,"y":50,"trace":false}"#)
        XCTAssertEqual(
            reply.text,
            #"{"scene":"p","version":1,"x":50,"y":50,"layer":"button","path":["button"],"action":"button.press","actionLayer":"button","local":{"x":50,"y":50},"receivers":[{"layer":"tracker","action":"analytics.seen","actionLayer":"overlay"},{"layer":"halo","action":null,"actionLayer":null}]}"#
        )
        let traced = app.call("GET", "/scenes/p/hit?x=50&y=50").object
        let trace = try XCTUnwrap(traced["trace"] as? [[String: Any]])
        XCTAssertEqual(
            trace.map { "\($0["layer"]!) \($0["decision"]!) \($0["reason"]!)" },
            ["tracker pass pass-through", "overlay miss no-shape", "halo pass pass-through", "button hit inside"])
        // No receivers: no member.
        XCTAssertNil(app.call("GET", "/scenes/p/hit?x=500&y=50").object["receivers"])
        let onlyReceivers = app.call("GET", "/scenes/p/hit?x=175&y=50&trace=0").object
        XCTAssertTrue(onlyReceivers["layer"] is NSNull)
        XCTAssertEqual((onlyReceivers["receivers"] as? [[String: Any]])?.map { $0["layer"] as? String }, ["tracker"])
    }

    func testAllStackHoldsReceiversThenTheTarget() {
        let stack = app.call("POST", "/scenes/p/hit", #"{"x":50,"y":50,"all":true,"trace":false}"#).object["stack"] as? [String]
        XCTAssertEqual(stack, ["tracker", "halo", "button"])
    }

    func testBatchEntriesCarryReceiversAsSingleHitsDo() throws {
        var rng = SplitMix64(seed: 5)
        let points = (0..<300).map { _ in
            (Double(Int.random(in: -20...420, using: &rng)) / 2, Double(Int.random(in: -20...420, using: &rng)) / 2)
        }
        let body = #"{"points":["# + points.map { #"{"x":\#($0.0),"y":\#($0.1)}"# }.joined(separator: ",") + "]}"
        let batch = try XCTUnwrap(app.call("POST", "/scenes/p/hits", body).object["results"] as? [[String: Any]])
        XCTAssertEqual(batch.count, points.count)
        for (i, (x, y)) in points.enumerated() {
            let single = app.call("POST", "/scenes/p/hit", #"{"x":\#(x),"y":\#(y),"trace":false}"#).object
            XCTAssertEqual(batch[i]["layer"] as? String, single["layer"] as? String, "(\(x), \(y))")
            XCTAssertEqual(
                (batch[i]["receivers"] as? [[String: Any]]).map { $0 as NSArray },
                (single["receivers"] as? [[String: Any]]).map { $0 as NSArray }, "(\(x), \(y))")
        }
        // Pointer phases in a batch: the target captures, the receivers do not
        // (nor are they hovered while it holds the capture).
        let phases = app.call(
            "POST", "/scenes/p/hits",
            #"{"points":[{"x":50,"y":50,"pointer":"f","phase":"down"},{"x":120,"y":120,"pointer":"f","phase":"move"},{"x":120,"y":120}]}"#)
        XCTAssertEqual(
            phases.text,
            #"{"scene":"p","version":1,"results":[{"layer":"button","action":"button.press","actionLayer":"button","receivers":[{"layer":"tracker","action":"analytics.seen","actionLayer":"overlay"},{"layer":"halo","action":null,"actionLayer":null}],"captured":true,"boundary":{"out":null,"leave":[],"over":"button","enter":["button"],"removed":[]}},{"layer":"button","action":"button.press","actionLayer":"button","captured":true},{"layer":null,"action":null,"actionLayer":null,"receivers":[{"layer":"tracker","action":"analytics.seen","actionLayer":"overlay"},{"layer":"halo","action":null,"actionLayer":null}]}]}"#
        )
    }

    func testPatchingPassThroughOnAndOff() {
        XCTAssertEqual(app.call("PATCH", "/scenes/p/layers/halo", #"{"passThrough":null}"#).status, 200)
        XCTAssertEqual(app.call("GET", "/scenes/p/hit?x=120&y=120").object["layer"] as? String, "halo")
        XCTAssertEqual(app.call("PATCH", "/scenes/p/layers/button", #"{"passThrough":true}"#).status, 200)
        let reply = app.call("GET", "/scenes/p/hit?x=50&y=50&trace=0").object
        XCTAssertEqual(reply["layer"] as? String, "halo")
        XCTAssertEqual(
            app.call("PATCH", "/scenes/p/layers/button", #"{"passThrough":1}"#).messages, ["must be true or false, not a number"])
    }
}
