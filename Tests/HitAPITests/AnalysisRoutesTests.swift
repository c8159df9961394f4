import Foundation
import TestSupport
import XCTest

@testable import HTTPServer
@testable import HitAPI

/// SPEC §12 over HTTP: audit, reach and diff answer from the same routing
/// as `/hits`, refuse every extreme parameter by name, and run off the
/// event loop.
final class AnalysisRoutesTests: XCTestCase {
    func ringApp(_ edit: (inout Configuration) -> Void = { _ in }) -> Application {
        let app = Application.testing(edit)
        XCTAssertEqual(app.call("PUT", "/scenes/ring-demo", ringScene).status, 201)
        return app
    }

    /// The grid's samples, from an answer's `region`, `resolution` and `samples`.
    func samples(_ answer: [String: Any]) -> [(Double, Double)] {
        let region = answer["region"] as! [String: Double]
        let r = answer["resolution"] as! Double
        let columns = Int((region["width"]! / r).rounded(.up))
        let rows = Int((region["height"]! / r).rounded(.up))
        XCTAssertEqual(columns * rows, answer["samples"] as? Int)
        let x: Double = region["x"]!
        let y: Double = region["y"]!
        var out: [(Double, Double)] = []
        for j in 0..<rows {
            for i in 0..<columns { out.append((x + (Double(i) + 0.5) * r, y + (Double(j) + 0.5) * r)) }
        }
        return out
    }

    /// Each target's area is its share of `/hits` answers over the same samples.
    func testAuditAreasAreTheShareOfHitsAnswers() throws {
        let app = ringApp()
        let r = app.call("GET", "/scenes/ring-demo/audit?resolution=6")
        XCTAssertEqual(r.status, 200, r.text)
        let answer = r.object
        // The summary bounds: the frame's stroke reaches 2 beyond the button.
        XCTAssertEqual(answer["region"] as? [String: Double], ["x": -2, "y": -2, "width": 244, "height": 244])
        let points = samples(answer)
        XCTAssertEqual(points.count, 41 * 41)
        let body = "{\"points\": [" + points.map { "{\"x\": \($0.0), \"y\": \($0.1)}" }.joined(separator: ",") + "]}"
        let hits = app.call("POST", "/scenes/ring-demo/hits", body).object["results"] as! [[String: Any]]
        var share: [String: Int] = [:]
        for h in hits { if let a = h["actionLayer"] as? String { share[a, default: 0] += 1 } }
        let targets = try XCTUnwrap(answer["targets"] as? [[String: Any]])
        XCTAssertEqual(targets.map { $0["layer"] as? String }, ["ring", "button"])  // visiting order
        for t in targets {
            let id = t["layer"] as! String
            XCTAssertEqual(t["area"] as? Double, Double(share[id] ?? 0) * 36, id)
            XCTAssertEqual(t["verdict"] as? String, "pass")
            XCTAssertEqual(t["size"] as? String, "pass")
        }
        // The ring covers the button's band.
        let button = targets[1]
        let covered = try XCTUnwrap(button["coveredBy"] as? [[String: Any]])
        XCTAssertEqual(covered.first?["layer"] as? String, "ring")
        XCTAssertEqual(covered.first?["area"] as? Double, Double(share["ring"]!) * 36)
        XCTAssertEqual((answer["blockers"] as? [[String: Any]])?.count, 0)
        // The ring's reach point is in its band, where a traced hit names it.
        let p = try XCTUnwrap(targets[0]["reachPoint"] as? [String: Double])
        XCTAssertEqual(app.call("GET", "/scenes/ring-demo/hit?x=\(p["x"]!)&y=\(p["y"]!)").object["layer"] as? String, "ring")
    }

    func testStandardsSetSizeAndSpacing() {
        let app = ringApp()
        for (standard, size, spacing) in [
            ("wcag-2.5.8", 24.0, 24.0 as Double?), ("wcag-2.5.5", 44, nil), ("android", 48, nil), ("apple", 44, nil),
        ] {
            let a = app.call("GET", "/scenes/ring-demo/audit?standard=\(standard)&resolution=8").object
            XCTAssertEqual(a["minSize"] as? Double, size, standard)
            XCTAssertEqual(a["spacing"] as? Double, spacing, standard)
            if spacing == nil { XCTAssertTrue(a["spacing"] is NSNull, standard) }
        }
        // A size nothing passes: too-small, and with no spacing exception.
        let big = app.call("GET", "/scenes/ring-demo/audit?minSize=1000&spacing=none&resolution=8").object
        let verdicts = (big["targets"] as! [[String: Any]]).map { $0["verdict"] as? String }
        XCTAssertEqual(verdicts, ["too-small", "too-small"])
        XCTAssertNil((big["targets"] as! [[String: Any]])[0]["spacing"])
    }

    func testReachSaysWhoTakesTheRestAndWhy() throws {
        let app = ringApp()
        let button = app.call("GET", "/scenes/ring-demo/layers/button/reach?resolution=6").object
        let lost = try XCTUnwrap(button["lost"] as? [[String: Any]])
        XCTAssertEqual(lost.map { $0["layer"] as? String }, ["ring"])
        XCTAssertEqual(lost.map { $0["reason"] as? String }, ["covered"])
        let point = try XCTUnwrap(lost[0]["point"] as? [String: Double])
        XCTAssertEqual(app.call("GET", "/scenes/ring-demo/hit?x=\(point["x"]!)&y=\(point["y"]!)").object["layer"] as? String, "ring")
        // The frame never takes hits: its own band is lost to what lies below, by its own flag.
        let frame = app.call("GET", "/scenes/ring-demo/layers/frame/reach?resolution=1").object
        XCTAssertEqual(frame["area"] as? Double, 0)
        XCTAssertTrue(frame["reachPoint"] is NSNull)
        let reasons = Set((frame["lost"] as! [[String: Any]]).map { $0["reason"] as! String })
        XCTAssertEqual(reasons, ["pointer-events-none"])
        XCTAssertEqual(app.call("GET", "/scenes/ring-demo/layers/nope/reach").status, 404)
    }

    func testDiffGroupsTheChangedSamples() throws {
        let app = ringApp()
        let nonzero = ringScene.replacingOccurrences(of: "\"evenodd\"", with: "\"nonzero\"").replacingOccurrences(
            of: "ring-demo", with: "ring-nz")
        XCTAssertEqual(app.call("PUT", "/scenes/ring-nz", nonzero).status, 201)
        let d = app.call("GET", "/scenes/ring-demo/diff?against=ring-nz&resolution=4").object
        let groups = try XCTUnwrap(d["groups"] as? [[String: Any]])
        XCTAssertEqual(groups.count, 1)
        XCTAssertEqual(groups[0]["from"] as? [String: String], ["layer": "button", "action": "below.press"])
        XCTAssertEqual(groups[0]["to"] as? [String: String], ["layer": "ring", "action": "ring.select"])
        XCTAssertEqual(d["changed"] as? Double, groups[0]["area"] as? Double)
        // The hole, 48 in radius: about π·48² of area.
        let area = try XCTUnwrap(d["changed"] as? Double)
        XCTAssertEqual(area, Double.pi * 48 * 48, accuracy: 400)
        XCTAssertEqual(app.call("GET", "/scenes/ring-demo/diff?against=ring-demo").object["changed"] as? Double, 0)
        XCTAssertEqual(app.call("GET", "/scenes/ring-demo/diff?against=missing").status, 404)
        XCTAssertEqual(app.call("GET", "/scenes/ring-demo/diff").pointers, ["/against"])
    }

    func testExtremeParametersAreNamedRefusals() {
        let app = ringApp { $0.maxAnalysisSamples = 10_000 }
        for (query, pointer) in [
            ("resolution=0", "/resolution"), ("resolution=-1", "/resolution"), ("resolution=nan", "/resolution"),
            ("resolution=1e999", "/resolution"), ("resolution=1e-300", "/resolution"), ("resolution=1", "/resolution"),
            ("resolution=1e200", "/resolution"), ("x=-1e308&y=0&width=1e308&height=1e308", "/resolution"),
            ("x=1.7e308&y=0&width=1e308&height=5", "/width"), ("x=0&y=0&width=5", "/height"),
            ("minSize=-1", "/minSize"), ("spacing=-3", "/spacing"), ("standard=iso", "/standard"), ("colour=red", "/colour"),
            ("resolution=2&resolution=3", "/resolution"),
        ] {
            let r = app.call("GET", "/scenes/ring-demo/audit?\(query)")
            XCTAssertEqual(r.status, 422, query + " " + r.text)
            XCTAssertEqual(r.pointers, [pointer], query)
        }
        // Far away, finite and small: answered, with nothing there.
        let far = app.call("GET", "/scenes/ring-demo/audit?x=-1e308&y=1e308&width=1e150&height=1e150&resolution=1e149")
        XCTAssertEqual(far.status, 200, far.text)
        XCTAssertEqual(
            (far.object["targets"] as? [[String: Any]])?.compactMap { $0["verdict"] as? String }, ["unreachable", "unreachable"])
        for path in ["/scenes/ring-demo/layers/ring/reach?resolution=0", "/scenes/ring-demo/diff?against=ring-demo&resolution=0"] {
            XCTAssertEqual(app.call("GET", path).pointers, ["/resolution"], path)
        }
    }

    func testTheWorkLimitCountsTheGrid() {
        let app = ringApp { $0.maxBatchWork = 5_000 }
        let r = app.call("GET", "/scenes/ring-demo/audit?resolution=1")
        XCTAssertEqual(r.status, 422)
        XCTAssertEqual(r.pointers, ["/resolution"])
        XCTAssertTrue((r.object["detail"] as? String ?? "").contains("--max-batch-work (5000)"), r.text)
        XCTAssertEqual(app.call("GET", "/scenes/ring-demo/audit?resolution=60").status, 200)
    }

    func testAnEmptySceneHasAnEmptyGrid() {
        let app = Application.testing()
        XCTAssertEqual(app.call("PUT", "/scenes/empty", #"{"layers": []}"#).status, 201)
        let a = app.call("GET", "/scenes/empty/audit").object
        XCTAssertEqual(a["samples"] as? Int, 0)
        XCTAssertEqual((a["targets"] as? [Any])?.count, 0)
        XCTAssertEqual(app.call("GET", "/scenes/empty/diff?against=empty").object["changed"] as? Double, 0)
    }

    /// `render.svg?audit=1` tints the targets' cells, hatches blocked ones
    /// and marks reach points; `?diff=` tints the changed cells.
    func testRenderOverlays() throws {
        let app = ringApp()
        XCTAssertEqual(
            app.call(
                "PUT", "/scenes/veiled",
                #"""
                {"layers": [{"id": "b", "action": "go", "shape": {"type": "rect", "x": 0, "y": 0, "width": 10, "height": 100}},
                            {"id": "c", "action": "go", "shape": {"type": "rect", "x": 12, "y": 0, "width": 10, "height": 40}},
                            {"id": "veil", "shape": {"type": "rect", "x": 0, "y": 50, "width": 100, "height": 50}}]}
                """#
            ).status, 201)
        let audit = app.call("GET", "/scenes/veiled/render.svg?audit=1")
        XCTAssertEqual(audit.status, 200, audit.text)
        XCTAssertTrue(audit.text.contains("<g class=\"audit\" pointer-events=\"none\">"))
        XCTAssertTrue(audit.text.contains("fill=\"url(#hitroute-hatch)\""), "the veil's cells over b are hatched")
        XCTAssertEqual(audit.text.components(separatedBy: "<circle").count - 1, 2, "a reach point each")
        XCTAssertTrue(audit.text.contains("<title>b: too-small</title>"), "b is 10 wide and c close: its box outlined")
        let nz = ringScene.replacingOccurrences(of: "\"evenodd\"", with: "\"nonzero\"").replacingOccurrences(of: "ring-demo", with: "nz")
        XCTAssertEqual(app.call("PUT", "/scenes/nz", nz).status, 201)
        let diff = app.call("GET", "/scenes/ring-demo/render.svg?diff=nz")
        XCTAssertEqual(diff.status, 200)
        XCTAssertTrue(diff.text.contains("<g class=\"diff\" pointer-events=\"none\">"))
        XCTAssertTrue(diff.text.contains("fill-opacity=\"0.35\""), "the hole's cells")
        XCTAssertFalse(
            app.call("GET", "/scenes/ring-demo/render.svg?diff=ring-demo").text.contains("fill-opacity=\"0.35\""), "nothing changed")
        XCTAssertEqual(app.call("GET", "/scenes/ring-demo/render.svg?diff=missing").status, 404)
        XCTAssertEqual(app.call("GET", "/scenes/ring-demo/render.svg?audit=2").pointers, ["/audit"])
    }

    func testRoutesAndTheirTemplates() {
        XCTAssertEqual(Route(path: "/scenes/a/audit"), .audit("a"))
        XCTAssertEqual(Route(path: "/scenes/a/diff"), .diff("a"))
        XCTAssertEqual(Route(path: "/scenes/a/layers/b%2Fc/reach"), .reach(scene: "a", layer: "b/c"))
        XCTAssertNil(Route(path: "/scenes/a/layers/b/reach/more"))
        XCTAssertNil(Route(path: "/scenes/a/layers/b/other"))
        for (route, template) in [
            (Route.audit("a"), "/scenes/{id}/audit"), (.diff("a"), "/scenes/{id}/diff"),
            (.reach(scene: "a", layer: "b"), "/scenes/{id}/layers/{layerId}/reach"),
        ] {
            XCTAssertEqual(Route.templates[route.metricsLabel], template)
            XCTAssertEqual(route.methods, ["GET", "HEAD", "OPTIONS"])
        }
        XCTAssertEqual(ringApp().call("POST", "/scenes/ring-demo/audit").status, 405)
    }

    /// On an event loop the handlers hand the request to a worker before any work.
    func testOnAnEventLoopAnalysisMovesToAWorker() {
        let app = ringApp()
        for path in ["/scenes/ring-demo/audit", "/scenes/ring-demo/layers/ring/reach", "/scenes/ring-demo/diff?against=ring-demo"] {
            XCTAssertEqual(app.onLoop("GET", path), .worker, path)
        }
    }

    /// Through a real server: the audit answers from a worker.
    func testThroughARealSocket() throws {
        let app = Application.testing()
        try withTestServer(configure: { $0.limits = app.configuration.server.limits }, handler: { app.respond(to: $0) }) { _, port in
            let client = try TestClient(port: port)
            try client.send(request("PUT", "/scenes/ring-demo", ringScene))
            XCTAssertEqual(try client.readResponse().status, 201)
            try client.send(request("GET", "/scenes/ring-demo/audit?standard=apple"))
            let r = try client.readResponse()
            XCTAssertEqual(r.status, 200)
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.body)) as? [String: Any])
            XCTAssertEqual(object["samples"] as? Int, 512 * 512)
        }
    }
}
