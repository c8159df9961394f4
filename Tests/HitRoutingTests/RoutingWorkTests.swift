import TestSupport
import XCTest
@testable import HitRouting

/// `Walk.work`, the measure a batch is bounded by: it counts what routing
/// reads, the same in every way of routing a batch, and a batch stops soon
/// after its limit.
final class RoutingWorkTests: XCTestCase {
    /// One path of `count` random cubics over 0–1000 squared: long pieces
    /// that cross everywhere, so that no run can be skipped and a point
    /// inside the bounds reads nearly every piece.
    func randomCurves(_ count: Int, seed: UInt64) throws -> CompiledScene {
        var rng = SplitMix64(seed: seed)
        var d = "M 500 500"
        for _ in 0..<count {
            d += " C"
            for _ in 0..<6 { d += " \(Int.random(in: 0...1000, using: &rng))" }
        }
        return CompiledScene(Scene(layers: [Layer(id: "curves", shape: try path(d))]))
    }

    func testWorkCountsWhatAPointReads() throws {
        let scene = try randomCurves(500, seed: 1)
        var outside = 0, inside = 0
        XCTAssertNil(scene.target(at: Point(-5, -5), work: &outside))
        XCTAssertEqual(outside, 0, "outside every bound: no region is read")
        _ = scene.target(at: Point(500, 501), work: &inside)
        XCTAssertGreaterThan(inside, 500, "inside the bounds: the pieces, most of them")
        var hitWork = 0
        _ = scene.hit(Point(500, 501), work: &hitWork)
        XCTAssertEqual(hitWork, inside, "hit and target read the same")
        var rects = 0
        let plain = CompiledScene(Scene(layers: [Layer(id: "r", shape: rect(0, 0, 10, 10))]))
        XCTAssertEqual(plain.target(at: Point(5, 5), work: &rects), 0)
        XCTAssertEqual(rects, 1, "a rectangle is one test")
    }

    /// A mask reads its one pixel, and with a stroke or slop the pixel
    /// lines it scans: the fewer of the rows or columns within reach.
    func testAMaskCountsTheLinesItScans() {
        // Opaque but for column 60.
        let alpha = (0..<200 * 100).map { $0 % 200 == 60 ? UInt8(0) : 255 }
        let plain = region(maskShape(0, 0, 200, 100, columns: 200, rows: 100, alpha))
        var work = 0
        XCTAssertEqual(plain.test(Point(50, 50), work: &work), .inside)
        XCTAssertEqual(work, 1)
        let stroked = region(maskShape(0, 0, 200, 100, columns: 200, rows: 100, alpha, fill: false, stroke: 20))
        work = 0
        XCTAssertEqual(stroked.test(Point(50, 50), work: &work), .insideStroke, "10 from the clear column")
        // One scan of the 21 lines within 10 of the point (rows 40…60), counted as 1 + 20.
        XCTAssertEqual(work, 1 + 1 + 20)
        work = 0
        XCTAssertEqual(stroked.test(Point(30, 50), work: &work), .outside)
        XCTAssertEqual(work, 1 + 1 + 20)
    }

    /// The case (a path of thousands of random cubics, then a big
    /// batch), made small: the batch stops once over its limit, after at
    /// most one more point's work.
    func testABatchStopsSoonAfterItsWorkLimit() throws {
        let scene = try randomCurves(1000, seed: 2)
        var rng = SplitMix64(seed: 3)
        let points = (0..<300).map { _ in Point(Double.random(in: 0...1000, using: &rng), Double.random(in: 0...1000, using: &rng)) }
        var perPoint: [Int] = []
        for p in points {
            var w = 0
            _ = scene.target(at: p, work: &w)
            perPoint.append(w)
        }
        let total = perPoint.reduce(0, +)
        var answers = [Int32](repeating: -1, count: points.count)
        func batch(limit: Int) -> Int {
            points.withUnsafeBufferPointer { p in answers.withUnsafeMutableBufferPointer { scene.targets(at: p, into: $0, workLimit: limit) } }
        }
        XCTAssertEqual(batch(limit: .max), total)
        XCTAssertEqual(batch(limit: total), total, "a limit the batch reaches exactly is not over it")
        let limit = total / 3
        let stopped = batch(limit: limit)
        XCTAssertGreaterThan(stopped, limit)
        XCTAssertLessThanOrEqual(stopped, limit + perPoint.max()!)
        // Where it stopped: the first point whose work crosses the limit.
        var sum = 0
        let crossing = perPoint.firstIndex { sum += $0; return sum > limit }!
        XCTAssertEqual(stopped, perPoint[...crossing].reduce(0, +))
    }
}
