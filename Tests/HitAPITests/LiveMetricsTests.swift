import Foundation
import TestSupport
import XCTest

@testable import HitAPI

/// `GET /metrics` over real sockets: what N requests add, exactly.
final class LiveMetricsTests: XCTestCase {
    let hitRoute = ["route": "/scenes/{id}/hit"]

    /// Points that route to nothing (outside the scene) are counted apart,
    /// by single hit and batch, on the fast path and the traced one.
    func testPointsThatRouteToNothingAreCounted() throws {
        try withLiveService { service in
            XCTAssertEqual(try service.send("PUT", "/scenes/ring-demo", ringScene).status, 201)
            let (_, before) = try service.scrape()
            XCTAssertEqual(try service.send("GET", "/scenes/ring-demo/hit?x=500&y=500").status, 200)
            XCTAssertEqual(try service.send("GET", "/scenes/ring-demo/hit?x=120&y=120").status, 200)
            let outside = #"{"points":[{"x":-5,"y":1},{"x":1,"y":1},{"x":999,"y":0}]}"#
            XCTAssertEqual(try service.send("POST", "/scenes/ring-demo/hits", outside).status, 200)
            let traced = #"{"trace":true,"points":[{"x":-5,"y":1},{"x":1,"y":1}]}"#
            XCTAssertEqual(try service.send("POST", "/scenes/ring-demo/hits", traced).status, 200)
            let (_, after) = try service.scrape()
            func grew(_ kind: String) -> Double {
                after.value("hitroute_points_unrouted_total", ["kind": kind])
                    - before.value("hitroute_points_unrouted_total", ["kind": kind])
            }
            XCTAssertEqual(grew("single"), 1)
            XCTAssertEqual(grew("batch"), 3)
        }
    }

    func testNHitsAddExactlyNToTheCountersAndTheHistogram() throws {
        try withLiveService { service in
            XCTAssertEqual(try service.send("PUT", "/scenes/ring-demo", ringScene).status, 201)
            let (_, before) = try service.scrape()
            let n = 37
            for i in 0..<n {
                // Alternate POST and GET: both are the same route template.
                let r =
                    i % 2 == 0
                    ? try service.send("POST", "/scenes/ring-demo/hit", #"{"x":120,"y":120,"trace":false}"#)
                    : try service.send("GET", "/scenes/ring-demo/hit?x=210&y=120&trace=0")
                XCTAssertEqual(r.status, 200)
            }
            XCTAssertEqual(
                try service.send("POST", "/scenes/ring-demo/hits", #"{"points":[{"x":1,"y":1},{"x":2,"y":2},{"x":3,"y":3}]}"#).status, 200)
            XCTAssertEqual(try service.send("POST", "/scenes/nope/hit", #"{"x":1,"y":1}"#).status, 404)
            let (_, after) = try service.scrape()
            try before.checkHistograms()
            try after.checkHistograms()
            func grew(_ name: String, _ labels: [String: String]) -> Double { after.value(name, labels) - before.value(name, labels) }
            XCTAssertEqual(
                grew("hitroute_http_requests_total", hitRoute.merging(["method": "POST", "code": "200"]) { a, _ in a }), Double((n + 1) / 2)
            )
            XCTAssertEqual(
                grew("hitroute_http_requests_total", hitRoute.merging(["method": "GET", "code": "200"]) { a, _ in a }), Double(n / 2))
            XCTAssertEqual(grew("hitroute_http_requests_total", hitRoute.merging(["code": "404"]) { a, _ in a }), 1)
            XCTAssertEqual(grew("hitroute_http_request_duration_seconds_count", hitRoute), Double(n + 1))
            XCTAssertEqual(
                grew("hitroute_http_request_duration_seconds_bucket", hitRoute.merging(["le": "+Inf"]) { a, _ in a }), Double(n + 1))
            XCTAssertGreaterThan(grew("hitroute_http_request_duration_seconds_sum", hitRoute), 0)
            // By method and status class too.
            XCTAssertEqual(
                grew("hitroute_http_request_duration_seconds_count", hitRoute.merging(["method": "POST", "code": "2xx"]) { a, _ in a }),
                Double((n + 1) / 2))
            XCTAssertEqual(
                grew("hitroute_http_request_duration_seconds_count", hitRoute.merging(["method": "GET", "code": "2xx"]) { a, _ in a }),
                Double(n / 2))
            XCTAssertEqual(
                grew("hitroute_http_request_duration_seconds_count", hitRoute.merging(["method": "POST", "code": "4xx"]) { a, _ in a }), 1)
            XCTAssertEqual(grew("hitroute_points_routed_total", ["kind": "single"]), Double(n))
            XCTAssertEqual(grew("hitroute_points_routed_total", ["kind": "batch"]), 3)
            XCTAssertEqual(grew("hitroute_points_unrouted_total", ["kind": "single"]), 0, "every hit found a layer")
            XCTAssertEqual(grew("hitroute_points_unrouted_total", ["kind": "batch"]), 0)
            XCTAssertEqual(grew("hitroute_http_requests_total", ["route": "/metrics"]), 1, "the first scrape is counted by the second")
            // Every request came on a connection of its own.
            XCTAssertEqual(grew("hitroute_http_connections_accepted_total", [:]), Double(n + 3))
            // The scrape itself is in flight while it is answered.
            XCTAssertEqual(after.value("hitroute_http_requests_in_flight"), 1)
            XCTAssertGreaterThanOrEqual(after.value("hitroute_http_connections_open"), 1)
            XCTAssertEqual(after.value("hitroute_scenes"), 1)
            XCTAssertEqual(after.value("hitroute_layers"), 3)
            XCTAssertEqual(after.value("hitroute_store_bytes"), Double(ringScene.utf8.count))
            XCTAssertEqual(after.value("hitroute_scene_compile_seconds_count"), 1)
            XCTAssertEqual(after.value("hitroute_build_info", ["version": ServiceMetrics.version]), 1)
            XCTAssertGreaterThan(after.value("process_resident_memory_bytes"), 0)
            // Labels are route templates, never ids.
            let routes = Set(after.families.flatMap(\.samples).compactMap { $0.labels["route"] })
            XCTAssertTrue(routes.isSubset(of: Set(Route.templates)), "\(routes)")
            XCTAssertFalse(
                after.families.flatMap(\.samples).contains { $0.labels.values.contains { $0.contains("ring-demo") || $0.contains("nope") } }
            )
        }
    }

    func testBucketsOfTheDurationHistogramAreCumulative() throws {
        try withLiveService { service in
            XCTAssertEqual(try service.send("PUT", "/scenes/ring-demo", ringScene).status, 201)
            for _ in 0..<20 { _ = try service.send("GET", "/scenes/ring-demo/hit?x=1&y=1") }
            let (_, parsed) = try service.scrape()
            try parsed.checkHistograms()
            let buckets = parsed.family("hitroute_http_request_duration_seconds")!.samples
                .filter { $0.name.hasSuffix("_bucket") && $0.labels["route"] == "/scenes/{id}/hit" }
            XCTAssertEqual(buckets.count, 20)
            XCTAssertEqual(buckets.first?.labels["le"], "1e-05")
            XCTAssertEqual(buckets.last?.labels["le"], "+Inf")
            XCTAssertEqual(buckets.last?.value, 20)
            XCTAssertEqual(buckets.map(\.value), buckets.map(\.value).sorted())
        }
    }

    func testOpenMetricsWhenAskedWithTheHeaderPrometheusSends() throws {
        try withLiveService { service in
            let accept =
                "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"
            let (r, parsed) = try service.scrape(accept: accept)
            XCTAssertEqual(r["Content-Type"], "application/openmetrics-text; version=1.0.0; charset=utf-8")
            XCTAssertTrue(parsed.sawEOF)
            XCTAssertEqual(parsed.family("hitroute_http_requests")?.type, "counter")
            XCTAssertEqual(parsed.family("hitroute_build_info")?.type, "gauge")
            let (plain, text) = try service.scrape()
            XCTAssertEqual(plain["Content-Type"], "text/plain; version=0.0.4; charset=utf-8")
            XCTAssertFalse(text.sawEOF)
            XCTAssertEqual(text.family("hitroute_http_requests_total")?.type, "counter")
            // HEAD answers the same fields and no body.
            let head = try service.send("HEAD", "/metrics")
            XCTAssertEqual(head.status, 200)
            XCTAssertTrue(head.body.isEmpty)
        }
    }

    func testRejectionsAreCountedByReason() throws {
        try withLiveService({
            $0.server.limits.maxBodyBytes = 64
            $0.server.limits.maxHeaderBytes = 512
        }) { service in
            XCTAssertEqual(try service.send("POST", "/scenes", String(repeating: " ", count: 100)).status, 413)
            XCTAssertEqual(try service.send("GET", "/healthz", headers: [("X-Big", String(repeating: "a", count: 600))]).status, 431)
            let (_, parsed) = try service.scrape()
            XCTAssertEqual(parsed.value("hitroute_http_rejected_requests_total", ["reason": "body_too_large"]), 1)
            XCTAssertEqual(parsed.value("hitroute_http_rejected_requests_total", ["reason": "headers_too_large"]), 1)
            XCTAssertEqual(parsed.value("hitroute_http_rejected_requests_total", ["reason": "unauthorized"]), 0)
            // Server-made answers count under the route "unmatched".
            XCTAssertEqual(parsed.value("hitroute_http_requests_total", ["route": "unmatched", "code": "431"]), 1)
        }
    }
}
