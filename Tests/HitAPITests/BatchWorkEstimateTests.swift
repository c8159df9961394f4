import Foundation
import TestSupport
import XCTest

@testable import HTTPServer
@testable import HitAPI

/// A big batch's work is estimated from 64 evenly spaced points before the
/// rest is routed: one that would pass `--max-batch-work` by far is refused
/// for the sample's cost (issue 30: 1,000–3,000 points over 20,000
/// subpaths were refused only after 2.6–3.3 s of routing).
final class BatchWorkEstimateTests: XCTestCase {
    /// 2,000 unit squares stacked at the origin, evenodd: a point inside
    /// reads every contour.
    static let subpaths =
        #"{"layers":[{"id":"p","shape":{"type":"path","fillRule":"evenodd","d":""# + String(repeating: "M0 0h10v10h-10z", count: 2_000)
        + #""}}]}"#

    func batch(_ n: Int) -> String {
        #"{"points":["# + Array(repeating: #"{"x":5,"y":5}"#, count: n).joined(separator: ",") + "]}"
    }

    func testABatchEstimatedPastTheLimitIsRefusedFromItsSample() throws {
        // One point reads about 2,000 × (16 + 4) units: the limit fits 100 points.
        let app = Application.testing { $0.maxBatchWork = 4_100_000 }
        XCTAssertEqual(app.call("PUT", "/scenes/s", Self.subpaths).status, 201)
        let refused = app.call("POST", "/scenes/s/hits", batch(3_000))
        XCTAssertEqual(refused.status, 422, refused.text)
        XCTAssertEqual(refused.pointers, ["/points"])
        let detail = refused.object["detail"] as? String ?? ""
        XCTAssertTrue(detail.contains("routing 64 of the batch's 3000 points, evenly spaced"), detail)
        // Under the sample's threshold the batch is routed and stopped at the limit, as before.
        let small = app.call("POST", "/scenes/s/hits", batch(500))
        XCTAssertEqual(small.status, 422)
        XCTAssertFalse((small.object["detail"] as? String ?? "").contains("evenly spaced"))
        // A batch that fits is answered whatever its size.
        let fits = Application.testing { $0.maxBatchWork = 200_000_000 }
        XCTAssertEqual(fits.call("PUT", "/scenes/s", Self.subpaths).status, 201)
        XCTAssertEqual(fits.call("POST", "/scenes/s/hits", batch(2_000)).status, 200)
    }

    /// The sample decides the same way every time (no clock, no load).
    func testTheEstimateIsDeterministic() {
        let app = Application.testing { $0.maxBatchWork = 4_100_000 }
        XCTAssertEqual(app.call("PUT", "/scenes/s", Self.subpaths).status, 201)
        let first = app.call("POST", "/scenes/s/hits", batch(2_048)).text
        for _ in 0..<3 { XCTAssertEqual(app.call("POST", "/scenes/s/hits", batch(2_048)).text, first) }
    }
}
