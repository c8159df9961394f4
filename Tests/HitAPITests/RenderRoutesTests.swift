import Foundation
import Playground
import TestSupport
import XCTest

@testable import HTTPServer
@testable import HitAPI

/// SPEC §7 over the API: render.svg, the playground and its files.
final class RenderRoutesTests: XCTestCase {
    func testRenderSVGIsTheSceneWithItsRoutingOverlaid() {
        let app = Application.testing()
        XCTAssertEqual(app.call("PUT", "/scenes/ring-demo", ringScene).status, 201)
        let plain = app.call("GET", "/scenes/ring-demo/render.svg")
        XCTAssertEqual(plain.status, 200)
        XCTAssertEqual(plain.headers["Content-Type"], "image/svg+xml; charset=utf-8")
        XCTAssertEqual(plain.headers["Content-Security-Policy"], "default-src 'none'; style-src 'unsafe-inline'")
        XCTAssertEqual(plain.headers["ETag"], "\"1\"")
        XCTAssertTrue(plain.text.contains(#"<g data-layer="ring">"#))
        XCTAssertFalse(plain.text.contains("class=\"routing\""))
        let routed = app.call("GET", "/scenes/ring-demo/render.svg?x=210&y=120&regions=1&width=480")
        XCTAssertEqual(routed.status, 200)
        XCTAssertTrue(routed.text.contains(#"data-overlay="target" data-of="ring""#), routed.text)
        XCTAssertTrue(routed.text.contains(#"class="label""#))
        XCTAssertTrue(routed.text.contains(">ring → ring.select</text>"))
        XCTAssertTrue(routed.text.contains(#"class="regions""#))
        XCTAssertTrue(routed.text.contains(#"width="480" height="480""#))
        XCTAssertEqual(app.call("HEAD", "/scenes/ring-demo/render.svg").status, 200)
    }

    func testRenderQueryProblemsNameTheParameter() {
        let app = Application.testing()
        XCTAssertEqual(app.call("PUT", "/scenes/ring-demo", ringScene).status, 201)
        for (query, pointer) in [
            ("x=1", "/y"), ("y=1", "/x"), ("x=a&y=1", "/x"), ("x=1e999&y=1", "/x"), ("regions=2", "/regions"),
            ("width=0", "/width"), ("width=100000", "/width"), ("width=-5", "/width"), ("zoom=2", "/zoom"),
            ("x=1&x=2&y=1", "/x"), ("x=%zz&y=1", "/x"),
        ] {
            let r = app.call("GET", "/scenes/ring-demo/render.svg?\(query)")
            XCTAssertEqual(r.status, 422, query)
            XCTAssertEqual(r.pointers, [pointer], query)
        }
        XCTAssertEqual(app.call("GET", "/scenes/nope/render.svg").status, 404)
        XCTAssertEqual(app.call("POST", "/scenes/ring-demo/render.svg", "{}").status, 405)
    }

    func testAHostileSceneIsEscapedInTheRender() {
        let app = Application.testing()
        let scene = #"""
            {"id": "xss", "layers": [{"id": "a", "action": "\"><script>alert(1)</script>", "color": "red\" onload=\"alert(1)",
              "shape": {"type": "rect", "x": 0, "y": 0, "width": 10, "height": 10}}]}
            """#
        XCTAssertEqual(app.call("PUT", "/scenes/xss", scene).status, 201)
        let r = app.call("GET", "/scenes/xss/render.svg?x=5&y=5")
        XCTAssertEqual(r.status, 200)
        XCTAssertFalse(r.text.contains("<script"))
        XCTAssertFalse(r.text.contains("onload=\""))
        XCTAssertTrue(r.text.contains("a → &quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"), r.text)
    }

    func testTheIndexIsThePlaygroundForBrowsersAndJSONForOthers() throws {
        let app = Application.testing()
        let page = app.call("GET", "/", headers: [("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")])
        XCTAssertEqual(page.status, 200)
        XCTAssertEqual(page.headers["Content-Type"], "text/html; charset=utf-8")
        let policy = try XCTUnwrap(page.headers["Content-Security-Policy"])
        XCTAssertTrue(policy.hasPrefix("default-src 'self'; script-src 'self';"), policy)
        XCTAssertFalse(policy.contains("unsafe"), policy)
        XCTAssertTrue(page.text.contains(#"<script type="module" src="/playground.js"></script>"#))
        XCTAssertFalse(page.text.contains("<script>"), "no inline script")
        XCTAssertFalse(page.text.contains("http://") || page.text.contains("https://"), "no other origin")
        let index = app.call("GET", "/", headers: [("Accept", "application/json")])
        XCTAssertEqual(index.status, 200)
        XCTAssertEqual(index.object["openapi"] as? String, "/openapi.yaml")
        XCTAssertEqual(index.object["module"] as? String, "/hitroute.js")
        XCTAssertTrue((index.object["routes"] as? [String] ?? []).contains("GET /scenes/{id}/render.svg"))
        XCTAssertEqual(
            index.object["examples"] as? [String],
            ["/examples/overlapping-squares.json", "/examples/ring-over-button.json", "/examples/sprite-with-pass-through.json"])
        XCTAssertEqual(app.call("GET", "/").object["service"] as? String, "hitroute", "no Accept: JSON")
    }

    /// The embedded files are the repository's (run scripts/embed-playground.sh after editing them).
    func testTheServedFilesAreTheRepositorysFiles() throws {
        let app = Application.testing()
        var sources = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("Playground").path)
            .map { "Playground/\($0)" }
        sources += try FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("examples").path)
            .filter { $0.hasSuffix(".json") }.map { "examples/\($0)" }
        XCTAssertEqual(Set(PlaygroundFiles.all.map(\.source)), Set(sources), "run scripts/embed-playground.sh")
        for file in PlaygroundFiles.all {
            let onDisk = try String(contentsOf: repositoryRoot.appendingPathComponent(file.source), encoding: .utf8)
            XCTAssertTrue(file.text == onDisk, "\(file.source) differs from its embedded copy: run scripts/embed-playground.sh")
            let served = app.call("GET", file.path)
            XCTAssertEqual(served.status, 200, file.path)
            XCTAssertTrue(served.text == onDisk, file.path)
            XCTAssertEqual(served.headers["Content-Type"], file.contentType)
            XCTAssertEqual(served.headers["X-Content-Type-Options"], "nosniff")
            XCTAssertNotNil(served.headers["Content-Security-Policy"])
        }
        XCTAssertEqual(app.call("GET", "/hitroute.js").headers["Content-Type"], "text/javascript; charset=utf-8")
        XCTAssertEqual(app.call("GET", "/nothing.js").status, 404)
        XCTAssertEqual(app.call("GET", "/examples/none.json").status, 404)
        XCTAssertEqual(app.call("DELETE", "/hitroute.js").status, 405)
    }
}

/// Renders run on a worker thread, not on the event loop, and are bounded by `--max-render-bytes`.
final class LiveRenderTests: XCTestCase {
    private func gridScene(_ n: Int) -> String {
        let layers = (0..<n).map { k in
            #"{"id":"r\#(k)","shape":{"type":"rect","x":\#(k % 100 * 10),"y":\#(k / 100 * 10),"width":9,"height":9}}"#
        }
        return #"{"id":"grid","layers":[\#(layers.joined(separator: ","))]}"#
    }

    func testARenderIsAskedToRunOffTheLoopAndIsAnsweredFromThere() throws {
        let app = Application.testing()
        let scene = gridScene(2001)
        XCTAssertEqual(app.call("PUT", "/scenes/grid", scene).status, 201)
        XCTAssertEqual(app.call("PUT", "/scenes/small", ringScene.replacingOccurrences(of: "ring-demo", with: "small")).status, 201)
        let (big, document, small) = (
            Ran(app.callOnLoop(HTTPRequest(method: "GET", target: "/scenes/grid/render.svg"))),
            Ran(app.callOnLoop(HTTPRequest(method: "GET", target: "/scenes/grid"))),
            Ran(app.callOnLoop(HTTPRequest(method: "GET", target: "/scenes/small/render.svg")))
        )
        XCTAssertEqual(big, .worker, "not on the loop")
        XCTAssertEqual(document, .worker, "its document neither (BigSceneOffLoopTests)")
        XCTAssertEqual(small, .worker, "a small scene neither: one path can draw megabytes")
        XCTAssertEqual(app.respond(to: HTTPRequest(method: "GET", target: "/scenes/grid/render.svg")).status, 200, "off a loop it renders")
        try withTestServer(configure: { $0.limits = app.configuration.server.limits }, handler: { app.respond(to: $0) }) { _, port in
            let client = try TestClient(port: port)
            try client.send(request("GET", "/scenes/grid/render.svg?x=5&y=5"))
            let r = try client.readResponse()
            XCTAssertEqual(r.status, 200)
            let text = String(decoding: r.body, as: UTF8.self)
            XCTAssertTrue(text.hasSuffix("</svg>\n"))
            XCTAssertTrue(text.contains(#"<g data-layer="r2000">"#))
            XCTAssertTrue(text.contains(#"data-overlay="target" data-of="r0""#))
            // The same connection goes on as usual.
            try client.send(request("GET", "/scenes/grid/hit?x=15&y=5&trace=0"))
            XCTAssertEqual(json(try client.readResponse())["layer"] as? String, "r1")
        }
    }

    /// A path's short commands (`t.1.1`, 4 bytes) draw many times their
    /// size in SVG, and the overlays draw the geometry again. Past
    /// `--max-render-bytes` the render is a 422, and the writer never held
    /// much more than that.
    func testARenderLongerThanTheLimitIsA422() {
        let d = "M0 0" + String(repeating: "t.1.1", count: 2000)
        let scene = #"{"layers":[{"id":"p","shape":{"type":"path","d":"\#(d)"}}]}"#
        let plain = Application.testing()
        XCTAssertEqual(plain.call("PUT", "/scenes/p", scene).status, 201)
        let full = plain.call("GET", "/scenes/p/render.svg?regions=1")
        XCTAssertEqual(full.status, 200)
        let length = full.body.count
        XCTAssertGreaterThan(length, 10 * d.utf8.count, "the amplification the limit is for")
        let app = Application.testing { $0.maxRenderBytes = length - 1 }
        XCTAssertEqual(app.call("PUT", "/scenes/p", scene).status, 201)
        let refused = app.call("GET", "/scenes/p/render.svg?regions=1")
        XCTAssertEqual(refused.status, 422)
        XCTAssertEqual(refused.pointers, [""])
        XCTAssertTrue(refused.text.contains("--max-render-bytes (\(length - 1))"), refused.text)
        XCTAssertEqual(app.call("GET", "/scenes/p/render.svg").status, 200, "without the overlay it fits")
        let exact = Application.testing { $0.maxRenderBytes = length }
        XCTAssertEqual(exact.call("PUT", "/scenes/p", scene).status, 201)
        XCTAssertEqual(exact.call("GET", "/scenes/p/render.svg?regions=1").body, full.body, "a limit the render reaches exactly")
        XCTAssertEqual(try Configuration.parse(arguments: ["--max-render-bytes", "5000"], environment: [:]).renderByteLimit, 5000)
        XCTAssertEqual(try Configuration.parse(arguments: [], environment: [:]).renderByteLimit, 128 << 20)
        XCTAssertEqual(
            try Configuration.parse(arguments: ["--max-body-bytes", "1000000"], environment: [:]).renderByteLimit, 8_000_000,
            "8 × the body limit")
    }
}
