import Foundation
import HTTPServer
import XCTest

@testable import HitAPI

final class SceneRoutesTests: XCTestCase {
    let app = Application.testing()

    func testCreateGetListDelete() throws {
        let created = app.call("POST", "/scenes", ringScene)
        XCTAssertEqual(created.status, 201, created.text)
        XCTAssertEqual(created.headers["Location"], "/scenes/ring-demo")
        XCTAssertEqual(created.object["id"] as? String, "ring-demo")
        XCTAssertEqual(created.object["version"] as? Int, 1)
        XCTAssertEqual(created.object["layers"] as? Int, 3)
        XCTAssertEqual(created.object["bounds"] as? [String: Double], ["x": -2, "y": -2, "width": 244, "height": 244])
        XCTAssertEqual(app.call("POST", "/scenes", ringScene).status, 409)

        let got = app.call("GET", "/scenes/ring-demo")
        XCTAssertEqual(got.status, 200)
        XCTAssertEqual(got.headers["ETag"], "\"1\"")
        XCTAssertEqual(got.headers["Content-Type"], "application/json; charset=utf-8")
        // As submitted, plus id and version; nothing filled in.
        var expected = try JSONSerialization.jsonObject(with: Data(ringScene.utf8)) as! [String: Any]
        expected["version"] = 1
        XCTAssertEqual(got.object as NSDictionary, expected as NSDictionary)

        let list = app.call("GET", "/scenes").object["scenes"] as? [[String: Any]]
        XCTAssertEqual(list?.map { $0["id"] as? String }, ["ring-demo"])
        XCTAssertEqual(app.call("DELETE", "/scenes/ring-demo").status, 204)
        XCTAssertEqual(app.call("GET", "/scenes/ring-demo").status, 404)
        XCTAssertEqual(app.call("DELETE", "/scenes/ring-demo").status, 404)
    }

    func testPostWithoutIDGeneratesOne() {
        let r = app.call("POST", "/scenes", #"{"layers": []}"#)
        XCTAssertEqual(r.status, 201)
        let id = r.object["id"] as? String ?? ""
        XCTAssertFalse(id.isEmpty)
        XCTAssertEqual(r.headers["Location"], "/scenes/\(id)")
        XCTAssertTrue(r.object["bounds"] is NSNull)
    }

    func testPutCreatesThenReplacesAndBumpsTheVersion() {
        XCTAssertEqual(app.call("PUT", "/scenes/ring-demo", ringScene).status, 201)
        let replaced = app.call("PUT", "/scenes/ring-demo", #"{"layers": []}"#)
        XCTAssertEqual(replaced.status, 200)
        XCTAssertEqual(replaced.object["version"] as? Int, 2)
        XCTAssertEqual((app.call("GET", "/scenes/ring-demo").object["layers"] as? [Any])?.count, 0)
        let mismatch = app.call("PUT", "/scenes/other", ringScene)
        XCTAssertEqual(mismatch.status, 422)
        XCTAssertEqual(mismatch.pointers, ["/id"])
        XCTAssertEqual(app.call("PUT", "/scenes/bad%20id", #"{"layers": []}"#).status, 422)
    }

    func testEveryProblemIsReportedWithAPointer() {
        let body = """
            {"layers": [
              {"id": "a", "shape": {"type": "rect", "x": 0, "y": 0, "width": 10, "height": 10}},
              {"id": "b", "shape": {"type": "ellipse", "cx": 0, "cy": 0, "rx": -1, "ry": 5}},
              {"id": "c", "opacity": 2, "pointerEvents": "nope", "hitslop": 3},
              {"id": "a", "clipChildren": true, "transform": {"matrix": [1,0,0,1,0,0], "rotate": 3}},
              {"shape": {"type": "path", "d": "M0 0 L10"}, "children": [{"id": "d", "shape": {"type": "star"}}]}
            ]}
            """
        let r = app.call("POST", "/scenes", body)
        XCTAssertEqual(r.status, 422)
        XCTAssertEqual(r.headers["Content-Type"], "application/problem+json")
        XCTAssertEqual(r.object["type"] as? String, "/problems/invalid-scene")
        XCTAssertEqual(r.object["status"] as? Int, 422)
        XCTAssertEqual(
            Set(r.pointers),
            [
                "/layers/1/shape/rx", "/layers/2/opacity", "/layers/2/pointerEvents", "/layers/2/hitslop",
                "/layers/3/id", "/layers/3/transform/matrix", "/layers/3/clipChildren", "/layers/4/shape/d",
                "/layers/4/children/0/shape/type", "/layers/4/id",
            ])
        XCTAssertTrue(r.messages.contains("duplicate id \"a\""), "\(r.messages)")
        XCTAssertTrue(r.messages.contains { $0.contains("offset 8: truncated command") }, "\(r.messages)")
        XCTAssertEqual(r.object["detail"] as? String, "10 problems in the scene")
    }

    func testNonFiniteNumbersAreValidationErrorsNotSyntaxErrors() {
        let r = app.call("POST", "/scenes", #"{"layers": [{"id": "a", "zIndex": 1e999}]}"#)
        XCTAssertEqual(r.status, 422)
        XCTAssertEqual(r.pointers, ["/layers/0/zIndex"])
    }

    func testMalformedJSONIsA400NamingTheOffset() {
        let r = app.call("POST", "/scenes", #"{"layers": [}"#)
        XCTAssertEqual(r.status, 400)
        XCTAssertEqual(r.object["type"] as? String, "/problems/malformed-request")
        XCTAssertTrue((r.object["detail"] as? String ?? "").contains("at byte 12"), r.text)
    }

    func testHostileNestingAndSizesAreRefusedCleanly() {
        let deep = String(repeating: #"{"id":"x","children":["#, count: 100_000) + String(repeating: "]}", count: 100_000)
        let r = app.call("POST", "/scenes", #"{"layers":["# + deep + "]}")
        XCTAssertTrue([400, 422].contains(r.status), r.text)
        let tooMany = app.call(
            "POST", "/scenes",
            #"{"layers":[{"id":"p","shape":{"type":"polygon","points":["#
                + Array(repeating: "[1,2]", count: 100_001).joined(separator: ",") + "]}}]}")
        XCTAssertEqual(tooMany.status, 422)
        XCTAssertEqual(tooMany.pointers, ["/layers/0/shape/points"])
        let compound = String(repeating: #"{"type":"compound","shapes":["#, count: 50_000) + String(repeating: "]}", count: 50_000)
        XCTAssertTrue([400, 422].contains(app.call("POST", "/scenes", #"{"layers":[{"id":"c","shape":"# + compound + "}]}").status))
    }

    func testLimitsAreConfigurable() {
        let small = Application.testing {
            $0.scene.maxLayers = 2
            $0.store.maxScenes = 1
        }
        let r = small.call("POST", "/scenes", #"{"layers":[{"id":"a"},{"id":"b"},{"id":"c"}]}"#)
        XCTAssertEqual(r.status, 422)
        XCTAssertEqual(r.pointers, ["/layers/2"])
        XCTAssertEqual(small.call("POST", "/scenes", #"{"layers":[]}"#).status, 201)
        let full = small.call("POST", "/scenes", #"{"layers":[]}"#)
        XCTAssertEqual(full.status, 507)
        XCTAssertEqual(full.object["type"] as? String, "/problems/store-full")
    }

    func testTheStoreKeepsABudgetOfSubmittedBytes() {
        let small = Application.testing { $0.store.maxStoreBytes = 1000 }
        let scene = #"{"layers":[{"id":"a","shape":{"type":"rect","x":0,"y":0,"width":1,"height":1}}]}"#  // 80 bytes
        for k in 0..<12 { XCTAssertEqual(small.call("PUT", "/scenes/s\(k)", scene).status, 201) }  // 960 bytes
        let full = small.call("PUT", "/scenes/s12", scene)
        XCTAssertEqual(full.status, 507)
        XCTAssertEqual(small.call("PUT", "/scenes/s0", scene).status, 200)  // a replacement takes its own room
        XCTAssertEqual(small.call("DELETE", "/scenes/s0").status, 204)
        XCTAssertEqual(small.call("PUT", "/scenes/s12", scene).status, 201)
    }

    func testPatchMergesOneLayerAndHonoursIfMatch() {
        XCTAssertEqual(app.call("PUT", "/scenes/ring-demo", ringScene).status, 201)
        let patched = app.call(
            "PATCH", "/scenes/ring-demo/layers/ring", #"{"hidden": true, "color": null}"#,
            headers: [("If-Match", "\"1\""), ("Content-Type", "application/merge-patch+json")])
        XCTAssertEqual(patched.status, 200, patched.text)
        XCTAssertEqual(patched.headers["ETag"], "\"2\"")
        XCTAssertEqual(patched.object["hidden"] as? Bool, true)
        XCTAssertNil(patched.object["color"])
        XCTAssertNil(patched.object["children"])
        // The ring no longer takes its band.
        XCTAssertEqual(app.call("GET", "/scenes/ring-demo/hit?x=210&y=120").object["layer"] as? String, "button")
        XCTAssertEqual(
            app.call(
                "PATCH", "/scenes/ring-demo/layers/ring", #"{"hidden": false}"#,
                headers: [("If-Match", "\"1\"")]
            ).status, 412)
        // Nested merge: only rx changes in the shape... of a rect, which has no rx.
        let bad = app.call("PATCH", "/scenes/ring-demo/layers/button", #"{"shape": {"rx": 3}}"#)
        XCTAssertEqual(bad.status, 422)
        XCTAssertEqual(bad.pointers, ["/shape/rx"])
        XCTAssertEqual(app.call("PATCH", "/scenes/ring-demo/layers/button", #"{"shape": {"width": 100}}"#).status, 200)
        XCTAssertEqual(app.call("GET", "/scenes/ring-demo/hit?x=150&y=10").object["layer"] as? String, nil)
        let forbidden = app.call("PATCH", "/scenes/ring-demo/layers/button", #"{"id": "x", "children": []}"#)
        XCTAssertEqual(forbidden.status, 422)
        XCTAssertEqual(Set(forbidden.pointers), ["/id", "/children"])
        XCTAssertEqual(app.call("PATCH", "/scenes/ring-demo/layers/nope", "{}").status, 404)
        XCTAssertEqual(app.call("PATCH", "/scenes/ring-demo/layers/button", "[1]").status, 422)
        XCTAssertEqual(app.call("GET", "/scenes/ring-demo").headers["ETag"], "\"3\"")
    }

    func testRoutingErrors() {
        XCTAssertEqual(app.call("GET", "/nope").status, 404)
        let notAllowed = app.call("DELETE", "/scenes")
        XCTAssertEqual(notAllowed.status, 405)
        XCTAssertEqual(notAllowed.headers["Allow"], "GET, HEAD, POST, OPTIONS")
        let wrongType = app.call("POST", "/scenes", ringScene, headers: [("Content-Type", "application/xml")])
        XCTAssertEqual(wrongType.status, 415)
        for type in ["application/json; charset=utf-8", "application/vnd.hit+json", "text/plain", "application/x-www-form-urlencoded"] {
            XCTAssertEqual(app.call("PUT", "/scenes/t", #"{"layers":[]}"#, headers: [("Content-Type", type)]).status / 100, 2, type)
        }
    }

    func testCORSAndPreflight() {
        let r = app.call("GET", "/healthz", headers: [("Origin", "https://app.example")])
        XCTAssertEqual(r.headers["Access-Control-Allow-Origin"], "*")
        XCTAssertEqual(r.object["status"] as? String, "ok")
        let pre = app.call("OPTIONS", "/scenes/x/hit", headers: [("Origin", "https://a"), ("Access-Control-Request-Method", "POST")])
        XCTAssertEqual(pre.status, 204)
        XCTAssertEqual(pre.headers["Access-Control-Allow-Methods"], "GET, HEAD, POST, OPTIONS")
        let strict = Application.testing { $0.corsOrigins = ["https://good.example"] }
        XCTAssertEqual(
            strict.call("GET", "/healthz", headers: [("Origin", "https://good.example")]).headers["Access-Control-Allow-Origin"],
            "https://good.example")
        XCTAssertNil(strict.call("GET", "/healthz", headers: [("Origin", "https://evil.example")]).headers["Access-Control-Allow-Origin"])
    }

    /// Every answer carries each CORS field once, after its own fields:
    /// JSON answers, answers with fields of their own, problems, preflights.
    func testCORSFieldsAppearOnceInOrder() {
        func fields(_ r: Reply) -> [String] { r.headers.map { "\($0.name): \($0.value)" } }
        let cors = ["Access-Control-Allow-Origin: *", "Access-Control-Expose-Headers: ETag, Location, WWW-Authenticate, X-Request-Id"]
        XCTAssertEqual(fields(app.call("GET", "/healthz")), ["Content-Type: application/json; charset=utf-8"] + cors)
        let created = fields(app.call("PUT", "/scenes/cors", #"{"layers":[]}"#))
        XCTAssertEqual(Array(created.suffix(4)), ["Content-Type: application/json; charset=utf-8"] + cors + ["Vary: Origin"], "\(created)")
        XCTAssertTrue(created.contains { $0.hasPrefix("ETag: ") }, "\(created)")
        let problem = fields(app.call("GET", "/scenes/none"))
        XCTAssertEqual(Array(problem.suffix(2)), cors, "\(problem)")
        XCTAssertEqual(problem.filter { $0.hasPrefix("Access-Control-Allow-Origin") }.count, 1)
        let pre = fields(app.call("OPTIONS", "/scenes/x/hit", headers: [("Origin", "https://a")]))
        XCTAssertEqual(Array(pre.suffix(2)), cors, "\(pre)")
        let strict = Application.testing { $0.corsOrigins = ["https://good.example"] }
        XCTAssertEqual(
            fields(strict.call("GET", "/healthz", headers: [("Origin", "https://good.example")])),
            [
                "Content-Type: application/json; charset=utf-8", "Vary: Origin", "Access-Control-Allow-Origin: https://good.example",
                "Access-Control-Expose-Headers: ETag, Location, WWW-Authenticate, X-Request-Id",
            ])
        XCTAssertEqual(fields(strict.call("GET", "/healthz")), ["Content-Type: application/json; charset=utf-8", "Vary: Origin"])
    }

    /// With a list of origins every answer depends on `Origin` (the allowed
    /// one reads it, any other or none does not), so each says `Vary:
    /// Origin`; with `*` none does. A preflight echoes the requested headers.
    func testVaryOriginWhereTheAnswerDependsOnIt() {
        func vary(_ r: Reply) -> [String] {
            r.headers.filter { $0.name == "Vary" }.flatMap { $0.value.split(separator: ",").map { String($0).trimmed } }
        }
        let strict = Application.testing { $0.corsOrigins = ["https://good.example", "https://other.example"] }
        XCTAssertEqual(strict.call("PUT", "/scenes/v", #"{"layers":[]}"#).status, 201)
        for origin in ["https://good.example", "https://evil.example", nil] {
            let headers = origin.map { [("Origin", $0)] } ?? []
            for (method, target) in [
                ("GET", "/scenes/v"), ("GET", "/scenes/v/hit?x=1&y=1"), ("GET", "/scenes/nope"), ("GET", "/metrics"),
                ("GET", "/scenes/v/render.svg"), ("POST", "/scenes/v/hit"),
            ] {
                let r = strict.call(method, target, method == "POST" ? #"{"x":1,"y":1}"# : "", headers: headers)
                XCTAssertEqual(vary(r), ["Origin"], "\(method) \(target) from \(origin ?? "no origin")")
                XCTAssertEqual(r.headers["Access-Control-Allow-Origin"], origin == "https://good.example" ? origin : nil)
            }
        }
        let pre = strict.call(
            "OPTIONS", "/scenes/v/hit",
            headers: [
                ("Origin", "https://evil.example"), ("Access-Control-Request-Method", "POST"),
                ("Access-Control-Request-Headers", "content-type"),
            ])
        XCTAssertEqual(Set(vary(pre)), ["Origin", "Access-Control-Request-Headers"])
        XCTAssertNil(pre.headers["Access-Control-Allow-Origin"])
        XCTAssertEqual(vary(app.call("GET", "/healthz", headers: [("Origin", "https://a.example")])), [], "* does not depend on Origin")
        // Open and `*`: a write is refused from a foreign page, so its answer depends on Origin.
        let foreign = app.call("PUT", "/scenes/w", #"{"layers":[]}"#, headers: [("Origin", "https://evil.example")])
        XCTAssertEqual(foreign.status, 403)
        XCTAssertEqual(vary(foreign), ["Origin"])
        XCTAssertEqual(vary(app.call("PUT", "/scenes/w", #"{"layers":[]}"#)), ["Origin"])
        XCTAssertEqual(
            vary(
                app.call(
                    "POST", "/scenes/w/hit", #"{"x":1,"y":1,"pointer":"p","phase":"down"}"#, headers: [("Origin", "https://evil.example")])),
            ["Origin"])
        XCTAssertEqual(vary(app.call("GET", "/scenes/w/hit?x=1&y=1", headers: [("Origin", "https://evil.example")])), [])
    }
}

/// Found by review: GET, HEAD, PATCH and DELETE of a big scene ran on the
/// event loop, and each costs O(the scene): writing its document, a
/// rescale or re-sort of 250,000 siblings, freeing it. Past
/// `Application.bigSceneLayers` layers they move to a worker.
final class BigSceneOffLoopTests: XCTestCase {
    func testRequestsAboutABigSceneLeaveTheLoop() {
        let app = Application.testing()
        let rects = (0...Application.bigSceneLayers).map { k in
            #"{"id":"r\#(k)","shape":{"type":"rect","x":\#(k % 100 * 10),"y":\#(k / 100 * 10),"width":9,"height":9}}"#
        }
        XCTAssertEqual(app.call("PUT", "/scenes/big", #"{"layers":[\#(rects.joined(separator: ","))]}"#).status, 201)
        XCTAssertEqual(app.call("PUT", "/scenes/small", #"{"layers":[\#(rects[0])]}"#).status, 201)
        func onLoop(_ method: String, _ target: String, _ body: String = "") -> Ran {
            var headers = HTTPHeaders()
            if !body.isEmpty { headers.set("Content-Type", "application/merge-patch+json") }
            return Ran(app.callOnLoop(HTTPRequest(method: method, target: target, headers: headers, body: Array(body.utf8))))
        }
        let worker = Ran.worker
        XCTAssertEqual(onLoop("GET", "/scenes/big"), worker)
        XCTAssertEqual(onLoop("HEAD", "/scenes/big"), worker)
        XCTAssertEqual(onLoop("PATCH", "/scenes/big/layers/r5", #"{"zIndex":1}"#), worker)
        XCTAssertEqual(onLoop("DELETE", "/scenes/big"), worker)
        XCTAssertEqual(onLoop("GET", "/scenes/small"), 200)
        XCTAssertEqual(onLoop("PATCH", "/scenes/small/layers/r0", #"{"zIndex":1}"#), 200)
        XCTAssertEqual(onLoop("GET", "/scenes/big/hit?x=5&y=5"), 200, "hits stay on the loop")
        XCTAssertEqual(app.call("PATCH", "/scenes/big/layers/r5", #"{"zIndex":1}"#).status, 200, "off a loop it is done")
        XCTAssertEqual(app.call("DELETE", "/scenes/big").status, 204)
        XCTAssertEqual(onLoop("DELETE", "/scenes/small"), 204)
        XCTAssertEqual(onLoop("DELETE", "/scenes/nothing"), 404)
    }
}
