import Foundation
import TestSupport
import XCTest

@testable import HTTPServer
@testable import HitAPI

/// `--max-batch-work`: a batch whose routing would read more than the
/// limit is a 422 naming `/points`, on every way a batch is routed (targets
/// only, traced, `all`, with pointer events); a batch under it answers as
/// single hits do.
final class BatchWorkRoutesTests: XCTestCase {
    /// A path of 400 random cubics over 0–1000 squared: every point inside
    /// its bounds reads most of its pieces.
    static let curves: String = {
        var rng = SplitMix64(seed: 14)
        var d = "M 500 500"
        for _ in 0..<400 {
            d += " C"
            for _ in 0..<6 { d += " \(Int.random(in: 0...1000, using: &rng))" }
        }
        return #"{"layers": [{"id": "curves", "shape": {"type": "path", "d": "\#(d)"}}]}"#
    }()

    func points(_ count: Int, extra: String = "") -> String {
        var rng = SplitMix64(seed: 15)
        let points = (0..<count).map { i in
            #"{"x": \#(Int.random(in: 0...1000, using: &rng)), "y": \#(Int.random(in: 0...1000, using: &rng))\#(i == 0 ? extra : "")}"#
        }
        return "[" + points.joined(separator: ",") + "]"
    }

    func testABatchOverItsWorkIsA422AtPoints() {
        let app = Application.testing { $0.maxBatchWork = 20_000 }
        XCTAssertEqual(app.call("PUT", "/scenes/c", Self.curves).status, 201)
        for body in [
            #"{"points": \#(points(200))}"#,
            #"{"points": \#(points(200)), "trace": true}"#,
            #"{"points": \#(points(200)), "all": true}"#,
            #"{"points": \#(points(200, extra: #", "pointer": "p", "phase": "down""#))}"#,
        ] {
            let r = app.call("POST", "/scenes/c/hits", body)
            XCTAssertEqual(r.status, 422, String(body.suffix(60)) + String(r.text.prefix(300)))
            XCTAssertEqual(r.object["type"] as? String, "/problems/invalid-request")
            XCTAssertEqual(r.pointers, ["/points"])
            XCTAssertTrue((r.object["detail"] as? String ?? "").contains("--max-batch-work (20000)"), r.text)
        }
        // A point or two fit, and the service goes on answering.
        XCTAssertEqual(app.call("POST", "/scenes/c/hits", #"{"points": \#(points(1))}"#).status, 200)
        XCTAssertEqual(app.call("GET", "/scenes/c/hit?x=500&y=500").status, 200)
    }

    func testABatchUnderTheDefaultAnswersAsSingleHits() throws {
        let app = Application.testing()
        XCTAssertEqual(app.call("PUT", "/scenes/c", Self.curves).status, 201)
        let body = points(300)
        let r = app.call("POST", "/scenes/c/hits", #"{"points": \#(body)}"#)
        XCTAssertEqual(r.status, 200, r.text)
        let results = try XCTUnwrap(r.object["results"] as? [[String: Any]])
        let asked = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [[String: Int]])
        XCTAssertEqual(results.count, 300)
        var hits = 0
        for (p, result) in zip(asked, results) {
            let single = app.call("GET", "/scenes/c/hit?x=\(p["x"]!)&y=\(p["y"]!)")
            XCTAssertEqual(result["layer"] as? String, single.object["layer"] as? String, "\(p)")
            if result["layer"] is String { hits += 1 }
        }
        XCTAssertGreaterThan(hits, 0)
        XCTAssertLessThan(hits, 300, "the curves have holes: some points miss")
    }

    /// On an event loop a batch reads at most `Configuration.loopBatchWork`;
    /// past it the request starts again on a worker, where the whole
    /// `--max-batch-work` applies. A batch with pointer events and more
    /// than one point goes to a worker before anything is applied.
    func testOnAnEventLoopABatchPastTheLoopsShareMovesToAWorker() {
        let app = Application.testing { $0.maxBatchWork = 1 << 40 }
        XCTAssertEqual(app.call("PUT", "/scenes/c", Self.curves).status, 201)
        let heavy = #"{"points": \#(points(1000))}"#
        let traced = #"{"points": \#(points(1000)), "trace": true}"#
        let light = #"{"points": \#(points(3))}"#
        XCTAssertEqual(app.onLoop("POST", "/scenes/c/hits", light), 200)
        let one = #"{"points": [{"x": 1, "y": 1, "pointer": "p", "phase": "down"}]}"#
        XCTAssertEqual(app.onLoop("POST", "/scenes/c/hits", one), 200)
        let events = #"{"points": [{"x": 1, "y": 1, "pointer": "p", "phase": "down"}, {"x": 2, "y": 2}]}"#
        XCTAssertEqual(app.onLoop("POST", "/scenes/c/hits", events), .worker)
        XCTAssertEqual(app.onLoop("POST", "/scenes/c/hits", heavy), .worker)
        XCTAssertEqual(app.call("POST", "/scenes/c/hits", heavy).status, 200, "off the loop it is answered")
        XCTAssertEqual(app.call("PUT", "/scenes/c", Self.curves).status, 200)
        XCTAssertEqual(app.onLoop("POST", "/scenes/c/hits", traced), .worker)
    }

    /// Through a real server: a small batch (22 KB, so its handler starts
    /// on the loop) that reads more than the loop's share is answered from
    /// a worker: 200 under a high limit, the 422 under one between the
    /// loop's share and what the batch reads.
    func testLiveHeavySmallBatchesAreAnsweredFromAWorker() throws {
        let app = Application.testing()
        XCTAssertEqual(app.call("PUT", "/scenes/c", Self.curves).status, 201)
        let body = #"{"points": \#(points(1000))}"#
        XCTAssertLessThan(body.utf8.count, 64 * 1024)
        let expected = app.call("POST", "/scenes/c/hits", #"{"points": \#(points(40))}"#)
        XCTAssertEqual(expected.status, 200)
        try withLiveService({ $0.maxBatchWork = 1 << 40 }) { service in
            XCTAssertEqual(try service.send("PUT", "/scenes/c", Self.curves).status, 201)
            let r = try service.send("POST", "/scenes/c/hits", body)
            XCTAssertEqual(r.status, 200, String(r.text.prefix(300)))
            let results = (try JSONSerialization.jsonObject(with: Data(r.text.utf8)) as? [String: Any])?["results"] as? [[String: Any]]
            XCTAssertEqual(results?.count, 1000)
            let first = (expected.object["results"] as? [[String: Any]])?.map { $0["layer"] as? String }
            XCTAssertEqual(results?.prefix(40).map { $0["layer"] as? String }, first)
        }
        try withLiveService({ $0.maxBatchWork = 2 * Configuration().loopBatchWork }) { service in
            XCTAssertEqual(try service.send("PUT", "/scenes/c", Self.curves).status, 201)
            let r = try service.send("POST", "/scenes/c/hits", body)
            XCTAssertEqual(r.status, 422, String(r.text.prefix(300)))
            XCTAssertTrue(r.text.contains(#""pointer":"/points""#), String(r.text.prefix(300)))
            XCTAssertTrue(r.text.contains("--max-batch-work (2000000)"), String(r.text.prefix(300)))
        }
    }

    /// Once one point of a scene's version read more than
    /// `Configuration.loopHitWork`, that version's hits and batches run on a
    /// worker; other scenes, and the next version, stay on the loop.
    func testHitsOfACostlySceneMoveOffTheLoop() {
        var rng = SplitMix64(seed: 16)
        var d = "M 500 500"
        for _ in 0..<20_000 {
            d += " C"
            for _ in 0..<6 { d += " \(Int.random(in: 0...1000, using: &rng))" }
        }
        let costly = #"{"layers": [{"id": "curves", "shape": {"type": "path", "d": "\#(d)"}}]}"#
        let app = Application.testing()
        XCTAssertEqual(app.call("PUT", "/scenes/c", costly).status, 201)
        XCTAssertEqual(app.call("PUT", "/scenes/ring-demo", ringScene).status, 201)
        func onLoop(_ method: String, _ target: String, _ body: String? = nil) -> Ran {
            app.onLoop(method, target, body)
        }
        XCTAssertEqual(onLoop("GET", "/scenes/c/hit?x=500&y=501"), 200, "the first costly point is answered where it is")
        XCTAssertEqual(onLoop("GET", "/scenes/c/hit?x=10&y=20"), .worker)
        XCTAssertEqual(onLoop("POST", "/scenes/c/hit", #"{"x": 1, "y": 2}"#), .worker)
        XCTAssertEqual(onLoop("POST", "/scenes/c/hits", #"{"points": [{"x": 1, "y": 2}]}"#), .worker)
        let down = #"{"x": 500, "y": 501, "pointer": "p", "phase": "down"}"#
        XCTAssertEqual(onLoop("POST", "/scenes/c/hit", down), .worker, "before the event is applied")
        XCTAssertEqual(app.call("POST", "/scenes/c/hit", down).status, 200)
        XCTAssertEqual(app.call("GET", "/scenes/c/hit?x=10&y=20").status, 200, "off the loop it is answered")
        for _ in 0..<3 { XCTAssertEqual(onLoop("GET", "/scenes/ring-demo/hit?x=120&y=120"), 200) }
        XCTAssertEqual(app.call("PUT", "/scenes/c", costly).status, 200)
        XCTAssertEqual(onLoop("GET", "/scenes/c/hit?x=-5&y=-5"), 200, "a new version starts clear")
        XCTAssertEqual(onLoop("GET", "/scenes/c/hit?x=-5&y=-5"), 200, "and a point outside reads nothing")
        // A pointer event that reads as much marks its version too.
        XCTAssertEqual(onLoop("POST", "/scenes/c/hit", #"{"x": 500, "y": 501, "pointer": "q", "phase": "move"}"#), 200)
        XCTAssertEqual(onLoop("GET", "/scenes/c/hit?x=-5&y=-5"), .worker)
    }

    /// With the loop's share lowered to 1,000: a one-point batch with a
    /// pointer event stays on its loop whatever it reads (it could not
    /// start again once the event is applied); a batch that starts again
    /// is counted once; and after it the version's batches start on a
    /// worker, but not its single hits.
    func testARestartedBatchAppliesAndCountsNothingTwice() throws {
        let app = Application.testing { $0.loopBatchWork = 1000 }
        XCTAssertEqual(app.call("PUT", "/scenes/c", Self.curves).status, 201)
        XCTAssertEqual(app.call("PUT", "/scenes/ring-demo", ringScene).status, 201)
        func onLoop(_ method: String, _ target: String, _ body: String? = nil) -> Reply? {
            app.callOnLoop(method, target, body)
        }
        func batchPoints() -> Double {
            let line = app.call("GET", "/metrics").text.split(separator: "\n")
                .first { $0.hasPrefix(#"hitroute_points_routed_total{kind="batch"}"#) }
            return Double(line?.split(separator: " ").last ?? "") ?? -1
        }
        // A point inside the curves (one read costs about 3,000 there).
        let inside = try XCTUnwrap(
            (0..<200).lazy.map { 300 + Double($0) }
                .first { app.call("GET", "/scenes/c/hit?x=\($0)&y=500").object["layer"] as? String == "curves" })
        let down = onLoop("POST", "/scenes/c/hits", #"{"points": [{"x": \#(inside), "y": 500, "pointer": "p", "phase": "down"}]}"#)
        XCTAssertEqual(Ran(down), 200)
        XCTAssertEqual((down?.object["results"] as? [[String: Any]])?.first?["captured"] as? Bool, true)
        let up = onLoop("POST", "/scenes/c/hits", #"{"points": [{"x": \#(inside), "y": 500, "pointer": "p", "phase": "up"}]}"#)
        XCTAssertEqual((up?.object["results"] as? [[String: Any]])?.first?["captured"] as? Bool, true, "the down was applied once")

        let before = batchPoints()
        let three = #"{"points": \#(points(3))}"#
        XCTAssertEqual(Ran(onLoop("POST", "/scenes/c/hits", three)), .worker)
        XCTAssertEqual(app.call("POST", "/scenes/c/hits", three).status, 200)
        XCTAssertEqual(batchPoints() - before, 3, "counted where it was answered, once")

        let outside = #"{"points": [{"x": -5, "y": -5}]}"#
        XCTAssertEqual(Ran(onLoop("POST", "/scenes/c/hits", outside)), .worker, "this version's batches")
        XCTAssertEqual(Ran(onLoop("GET", "/scenes/c/hit?x=-5&y=-5")), 200, "not its single hits")
        XCTAssertEqual(Ran(onLoop("POST", "/scenes/ring-demo/hits", #"{"points": [{"x": 120, "y": 120}]}"#)), 200, "nor other scenes")
    }

    func testTheLimitIsAFlagAndAnEnvironmentVariable() throws {
        XCTAssertEqual(try Configuration.parse(arguments: [], environment: [:]).maxBatchWork, 70_000_000)
        XCTAssertEqual(try Configuration.parse(arguments: ["--max-batch-work", "1000"], environment: [:]).maxBatchWork, 1000)
        XCTAssertEqual(try Configuration.parse(arguments: [], environment: ["HITROUTE_MAX_BATCH_WORK": "77"]).maxBatchWork, 77)
        XCTAssertThrowsError(try Configuration.parse(arguments: ["--max-batch-work", "0"], environment: [:]))
    }
}
