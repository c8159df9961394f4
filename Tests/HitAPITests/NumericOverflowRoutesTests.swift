import Foundation
import XCTest

@testable import HitAPI

/// SPEC §1: a scene whose computed numbers would not be finite is a 422
/// naming the first field that makes it so; no answer ever holds a
/// non-finite number. Each test is named after the input that found a trap
/// (the process died in `JSONWriter.number` or on an `Int(Double)`).
final class NumericOverflowRoutesTests: XCTestCase {
    let app = Application.testing()

    /// PUTs a scene of the given layers (JSON) as scene `a`.
    func put(_ layers: String) -> Reply {
        app.call("PUT", "/scenes/a", #"{"layers": [\#(layers)]}"#)
    }

    /// Asserts a 422 `/problems/invalid-scene` whose one pointer is `pointer`.
    func assertInvalid(_ reply: Reply, at pointer: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(reply.status, 422, reply.text, file: file, line: line)
        XCTAssertEqual(reply.object["type"] as? String, "/problems/invalid-scene", file: file, line: line)
        XCTAssertEqual(reply.pointers, [pointer], reply.text, file: file, line: line)
    }

    /// Every number anywhere in a JSON value is finite (Foundation parses
    /// `1e999` as infinity, so a non-finite number written as text shows).
    func assertAllFinite(_ value: Any?, file: StaticString = #filePath, line: UInt = #line) {
        switch value {
        case let d as Double: XCTAssertTrue(d.isFinite, "\(d)", file: file, line: line)
        case let a as [Any]: for element in a { assertAllFinite(element, file: file, line: line) }
        case let o as [String: Any]: for element in o.values { assertAllFinite(element, file: file, line: line) }
        default: break
        }
    }

    func testRectAt1e308WithWidth1e308Is422NamingWidth() {
        assertInvalid(
            put(#"{"id":"r","shape":{"type":"rect","x":1e308,"y":0,"width":1e308,"height":10}}"#),
            at: "/layers/0/shape/width")
        XCTAssertEqual(app.call("GET", "/scenes/a").status, 404)  // nothing stored
    }

    func testRectAtY1e308WithHeight1e308NamesHeight() {
        assertInvalid(
            put(#"{"id":"r","shape":{"type":"rect","x":0,"y":1e308,"width":1,"height":1e308}}"#),
            at: "/layers/0/shape/height")
    }

    func testNestedScales1e200Are422NamingTheInnerScale() {
        let scene = #"""
            {"id":"outer","transform":{"scale":1e200},"children":[
              {"id":"inner","transform":{"scale":1e200},"children":[
                {"id":"leaf","shape":{"type":"rect","x":0,"y":0,"width":1,"height":1}}]}]}
            """#
        assertInvalid(put(scene), at: "/layers/0/children/0/transform/scale")
    }

    func testNestedMatricesOfScale1e200AndTranslate1e200NameTheInnerMatrix() {
        let scene = #"""
            {"id":"outer","transform":{"matrix":[1e200,0,0,1e200,0,0]},"children":[
              {"id":"inner","transform":{"matrix":[1,0,0,1,1e200,0]}}]}
            """#
        // The outer matrix alone is fine (its determinant, 1e400, is not, but its inverse is).
        assertInvalid(put(scene), at: "/layers/0/children/0/transform/matrix")
    }

    func testEllipseAt1e308WithStroke1e308NamesStroke() {
        assertInvalid(
            put(#"{"id":"e","shape":{"type":"ellipse","cx":1e308,"cy":0,"rx":10,"ry":10,"stroke":1.7e308}}"#),
            at: "/layers/0/shape/stroke")
    }

    func testEllipseWithStroke1e308AtTheOriginIsServedWithFiniteNumbers() {
        // Bounds of ±5e307: finite, so the scene is valid; every answer stays finite.
        let reply = put(#"{"id":"e","shape":{"type":"ellipse","cx":0,"cy":0,"rx":10,"ry":10,"stroke":1e308}}"#)
        XCTAssertEqual(reply.status, 201, reply.text)
        assertAllFinite(reply.json)
        let hit = app.call("POST", "/scenes/a/hit", #"{"x":1e307,"y":-1e307,"trace":true,"all":true}"#)
        XCTAssertEqual(hit.status, 200, hit.text)
        XCTAssertEqual(hit.object["layer"] as? String, "e")
        assertAllFinite(hit.json)
    }

    func testHitSlop1e308OnARectNamesHitSlop() {
        assertInvalid(
            put(#"{"id":"r","hitSlop":1e308,"shape":{"type":"rect","x":1e308,"y":0,"width":1e300,"height":1}}"#),
            at: "/layers/0/hitSlop")
        assertInvalid(
            put(#"{"id":"r","hitSlop":{"top":1,"left":1.7e308},"shape":{"type":"rect","x":-1e308,"y":0,"width":1e300,"height":1}}"#),
            at: "/layers/0/hitSlop/left")
    }

    func testPolygonPointsAtPlusAndMinus1e308NameTheSecondPoint() {
        assertInvalid(
            put(#"{"id":"p","shape":{"type":"polygon","points":[[-1e308,0],[1e308,0],[0,1]]}}"#),
            at: "/layers/0/shape/points/1")
    }

    func testCompoundMemberCircleWithR1e308NamesR() {
        let shape =
            #"{"type":"compound","shapes":[{"type":"rect","x":0,"y":0,"width":1,"height":1},{"type":"circle","cx":1e308,"cy":0,"r":1e308}]}"#
        assertInvalid(put(#"{"id":"c","hitShape":\#(shape)}"#), at: "/layers/0/hitShape/shapes/1/r")
    }

    func testTwoRectsAtPlusAndMinus1e308AreAScene422NamingTheSecond() {
        // Each layer is finite; the summary's bounds (width 2e308) are not.
        let layers = #"""
            {"id":"left","shape":{"type":"rect","x":-1e308,"y":0,"width":1,"height":1}},
            {"id":"right","shape":{"type":"rect","x":1e308,"y":0,"width":1,"height":1}}
            """#
        assertInvalid(put(layers), at: "/layers/1/shape")
    }

    func testTranslate1e308AroundARectAt1e308NamesTheShape() {
        assertInvalid(
            put(#"{"id":"r","transform":{"translate":[1e308,0]},"shape":{"type":"rect","x":1e308,"y":0,"width":1,"height":1}}"#),
            at: "/layers/0/shape")
    }

    func testTranslatePlusOrigin1e308NamesOrigin() {
        assertInvalid(
            put(#"{"id":"r","transform":{"translate":[1e308,0],"origin":[1e308,0]}}"#),
            at: "/layers/0/transform/origin")
    }

    func testRotate1e300IsServedNotATrap() {
        // `Int(turns)` trapped for a whole number of quarter turns beyond Int.max.
        let reply = put(#"{"id":"r","transform":{"rotate":1e300},"shape":{"type":"rect","x":0,"y":0,"width":10,"height":10}}"#)
        XCTAssertEqual(reply.status, 201, reply.text)
        XCTAssertEqual(app.call("GET", "/scenes/a/hit?x=5&y=5").status, 200)
    }

    func testArcWithRadii1e300IsServedWithFiniteNumbers() {
        let reply = put(#"{"id":"p","hitSlop":2,"shape":{"type":"path","d":"M0 0 A1e300 1e300 0 0 1 10 0 Z","stroke":1}}"#)
        XCTAssertEqual(reply.status, 201, reply.text)
        assertAllFinite(reply.json)
        let hit = app.call("POST", "/scenes/a/hit", #"{"x":5,"y":0.5,"trace":true}"#)
        XCTAssertEqual(hit.status, 200, hit.text)
        assertAllFinite(hit.json)
    }

    func testHitAt1e308UnderAMatrixOfScale1eMinus300IsAMissWithoutLocal() {
        // The point's local image (x 1e608) overflows: not inside anything, and the trace leaves `local` out.
        let reply = put(
            #"{"id":"thin","transform":{"matrix":[1e-300,0,0,1e300,0,0]},"shape":{"type":"rect","x":0,"y":0,"width":1,"height":1}}"#)
        XCTAssertEqual(reply.status, 201, reply.text)
        let hit = app.call("POST", "/scenes/a/hit", #"{"x":1e308,"y":1e308,"trace":true,"all":true}"#)
        XCTAssertEqual(hit.status, 200, hit.text)
        XCTAssertTrue(hit.object["layer"] is NSNull)
        let trace = hit.object["trace"] as? [[String: Any]]
        XCTAssertEqual(trace?.first?["reason"] as? String, "outside")
        XCTAssertNil(trace?.first?["local"])
        assertAllFinite(hit.json)
    }

    func testHitAt1e308InAShearedPolygonsCoverWithoutTraceIsTheSameMissAsWithTrace() {
        // Eight siblings build the root's index and the polygon's cover. Its inverse
        // (x = 2x' - 2y') is finite, but at (1.05e308, 5.2e307) the term 2x' overflows:
        // the cover must not call the point a hit, and no answer may hold a local x
        // of inf (JSONWriter.number traps on it).
        let rects = (0..<7).map { #"{"id":"a\#($0)","shape":{"type":"rect","x":0,"y":0,"width":1,"height":1}}"# }
        let sheared = #"""
            {"id":"big","transform":{"matrix":[0.5,0,1,1,0,0]},"shape":{"type":"polygon",
             "points":[[3.6e307,4.5e307],[1.44e308,4.5e307],[1.17e308,5.85e307],[9e306,5.85e307]]}}
            """#
        XCTAssertEqual(put((rects + [sheared]).joined(separator: ",")).status, 201)
        for trace in [false, true] {
            for body in [
                #"{"x":1.05e308,"y":5.2e307,"trace":\#(trace)}"#,
                #"{"x":1.05e308,"y":5.2e307,"trace":\#(trace),"pointer":"p","phase":"down"}"#,
            ] {
                let hit = app.call("POST", "/scenes/a/hit", body)
                XCTAssertEqual(hit.status, 200, hit.text)
                XCTAssertTrue(hit.object["layer"] is NSNull, hit.text)  // the local image overflows: inside nothing
                assertAllFinite(hit.json)
            }
        }
        // Where nothing overflows, the cover still answers, with or without a trace.
        for trace in [0, 1] {
            let hit = app.call("GET", "/scenes/a/hit?x=7.5e307&y=4.8e307&trace=\(trace)")
            XCTAssertEqual(hit.object["layer"] as? String, "big", hit.text)
            assertAllFinite(hit.json)
        }
    }

    func testPatchToWidth1e308Is422NamingWidthAndChangesNothing() {
        XCTAssertEqual(put(#"{"id":"r","shape":{"type":"rect","x":1e308,"y":0,"width":1e307,"height":1}}"#).status, 201)
        let patch = app.call("PATCH", "/scenes/a/layers/r", #"{"shape":{"type":"rect","x":1e308,"y":0,"width":1e308,"height":1}}"#)
        XCTAssertEqual(patch.status, 422, patch.text)
        XCTAssertEqual(patch.pointers, ["/shape/width"])
        let scene = app.call("GET", "/scenes/a")
        XCTAssertEqual(scene.object["version"] as? Int, 1)
        XCTAssertEqual(app.call("GET", "/scenes/a/hit?x=1.05e308&y=0.5").object["layer"] as? String, "r")
    }

    func testPatchOfAParentsScaleThatOverflowsAChildNamesTheScale() {
        let scene = #"""
            {"id":"p","children":[{"id":"c","shape":{"type":"rect","x":1e300,"y":0,"width":1,"height":1}}]}
            """#
        XCTAssertEqual(put(scene).status, 201)
        let patch = app.call("PATCH", "/scenes/a/layers/p", #"{"transform":{"scale":1e10}}"#)
        XCTAssertEqual(patch.status, 422, patch.text)
        XCTAssertEqual(patch.pointers, ["/transform/scale"])
        XCTAssertEqual(app.call("GET", "/scenes/a").object["version"] as? Int, 1)
    }

    func testDragMovesOf1e308RepeatedlyAreRefusedOnceTheyWouldOverflow() {
        let scene = #"{"id":"d","draggable":true,"shape":{"type":"rect","x":0,"y":0,"width":10,"height":10}}"#
        XCTAssertEqual(put(scene).status, 201)
        func event(_ phase: String, _ x: Double) -> Reply {
            app.call("POST", "/scenes/a/hit", #"{"x":\#(x),"y":5,"pointer":"f","phase":"\#(phase)","trace":true}"#)
        }
        XCTAssertEqual(event("down", 5).object["layer"] as? String, "d")
        var last: Reply?
        var refused = 0
        for x in [1e308, -1e308, 1.7e308, -1.7e308, 1e308] {
            let r = event("move", x)
            assertAllFinite(r.json)
            if r.status == 422 {
                refused += 1
                XCTAssertEqual(r.object["type"] as? String, "/problems/invalid-request")
            } else {
                XCTAssertEqual(r.status, 200, r.text)
                last = r
            }
        }
        XCTAssertGreaterThan(refused, 0)
        XCTAssertNotNil(last)
        let stored = app.call("GET", "/scenes/a")
        XCTAssertEqual(stored.status, 200)
        assertAllFinite(stored.json)
        let summary = app.call("GET", "/scenes")
        assertAllFinite(summary.json)
        XCTAssertEqual(event("up", 5).status, 200)
    }
}
