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
        var outside = 0
        var inside = 0
        XCTAssertNil(scene.target(at: Point(-5, -5), work: &outside))
        XCTAssertEqual(outside, 1, "outside every bound: one layer looked at, no region read")
        _ = scene.target(at: Point(500, 501), work: &inside)
        XCTAssertGreaterThan(inside, 500, "inside the bounds: the pieces, most of them")
        var hitWork = 0
        _ = scene.hit(Point(500, 501), work: &hitWork)
        XCTAssertEqual(hitWork, inside, "hit and target read the same")
        var rects = 0
        let plain = CompiledScene(Scene(layers: [Layer(id: "r", shape: rect(0, 0, 10, 10))]))
        XCTAssertEqual(plain.target(at: Point(5, 5), work: &rects), 0)
        XCTAssertEqual(rects, 2, "a rectangle: one layer, one test")
    }

    /// 3,000 rectangles stacked over one another, the
    /// front ones further left, and one far away so that the siblings get
    /// a tree, not a grid. A point inside all of them draws all 3,000 from
    /// the tree in nearly the reverse of front-to-back order: they are
    /// counted as work, and sorted in O(k log k), not by insertion.
    func testAPointInsideThousandsOfStackedSiblingsCountsThem() {
        let n = 3000
        var layers = (0..<n).map { i in Layer(id: "r\(i)", shape: rect(Double(n - i), 0, 1e6, 10)) }
        layers.insert(Layer(id: "far", shape: rect(1e15, 0, 1, 1)), at: 0)
        let scene = CompiledScene(Scene(layers: layers))
        XCTAssertGreaterThanOrEqual(scene.rootIndex, 0)
        XCTAssertNil(scene.indexes[Int(scene.rootIndex)].gridView, "a tree: the far one spreads a grid too thin")
        var work = 0
        XCTAssertEqual(scene.target(at: Point(5000, 5), work: &work), n, "the front one, the last layer")
        XCTAssertGreaterThanOrEqual(work, n, "every candidate counted")
        XCTAssertEqual(scene.hit(Point(5000, 5)).target, n)
        XCTAssertNil(scene.hit(Point(0.5, 5)).target, "left of them all")
    }

    /// Candidates come out of a tree in any order; routing takes them one
    /// by one by ascending rank (sorted by insertion up to 16; beyond,
    /// chosen by scans for the first 4, then sorted).
    func testCandidatesComeFrontToBackWhateverTheirNumber() {
        var rng = SplitMix64(seed: 7)
        for count in [1, 2, 16, 17, 100, 5000] {
            let shuffled = (0..<count).map { _ in Int32.random(in: 0..<1000, using: &rng) }
            for ranks in [shuffled, shuffled.sorted(by: >), shuffled.sorted()] {
                var all = [Int32(-7)] + ranks + [-9]  // a slice inside the candidate stack
                var taken: [Int32] = []
                for t in 0..<count {
                    _ = Walk.bringFront(&all[1...count], taken: t)
                    taken.append(all[1 + t])
                }
                XCTAssertEqual(taken, ranks.sorted(), "\(count) ranks")
                XCTAssertEqual(all.sorted(), ([-7, -9] + ranks).sorted(), "the same candidates")
                XCTAssertEqual([all[0], all[count + 1]], [-7, -9], "nothing outside the slice touched")
            }
        }
    }

    /// A path of thousands of thin subpaths, the point between two of them.
    /// Each contour's bounds turn the point away at once, but there are as
    /// many as the path has subpaths, and each counts as work.
    func testContoursTheirBoundsTurnAwayAreCounted() throws {
        let d = (0..<2000).map { "M0 \($0 * 4)h100v1H0z" }.joined(separator: " ")
        let scene = CompiledScene(Scene(layers: [Layer(id: "bars", shape: try path(d))]))
        var work = 0
        XCTAssertNil(scene.target(at: Point(50, 2.5), work: &work), "between bars 0 and 1")
        XCTAssertGreaterThanOrEqual(work, 2000)
        work = 0
        XCTAssertEqual(scene.target(at: Point(50, 4.5), work: &work), 0, "in bar 1")
        XCTAssertGreaterThanOrEqual(work, 2000, "a fill reads every contour's winding")
    }

    /// A grid cell can list many siblings whose boxes miss the point (small
    /// ones packed into one cell, beside bigger ones that set the cell
    /// size). Reading past them counts as work.
    func testGridEntriesPassedOverAreCounted() {
        var layers: [Layer] = []
        for i in 0..<25 {
            for j in 0..<20 {  // 500 boxes of 0.01 on a 0.04 lattice inside [0, 1)²
                layers.append(Layer(id: "t\(i)-\(j)", shape: rect(Double(i) * 0.04, Double(j) * 0.04, 0.01, 0.01)))
            }
        }
        for k in 0..<500 {  // and 500 unit squares spread over 100 × 100
            layers.append(Layer(id: "u\(k)", shape: rect(Double(k % 25) * 4 + 2, Double(k / 25) * 4 + 20, 1, 1)))
        }
        let scene = CompiledScene(Scene(layers: layers))
        XCTAssertNotNil(scene.indexes[Int(scene.rootIndex)].gridView)
        var work = 0
        XCTAssertNil(scene.target(at: Point(0.425, 0.425), work: &work), "in a gap of the lattice")
        XCTAssertGreaterThanOrEqual(work, 100, "the cell's entries passed over")
        XCTAssertEqual(scene.target(at: Point(0.405, 0.405)), 10 * 20 + 10, "the box at lattice (10, 10)")
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

    /// A path of thousands of random cubics and a big batch, made small: the batch stops once over its limit, after at
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
            points.withUnsafeBufferPointer { p in
                answers.withUnsafeMutableBufferPointer { scene.targets(at: p, into: $0, workLimit: limit) }
            }
        }
        XCTAssertEqual(batch(limit: .max), total)
        XCTAssertEqual(batch(limit: total), total, "a limit the batch reaches exactly is not over it")
        let limit = total / 3
        let stopped = batch(limit: limit)
        XCTAssertGreaterThan(stopped, limit)
        XCTAssertLessThanOrEqual(stopped, limit + perPoint.max()!)
        // Where it stopped: the first point whose work crosses the limit.
        var sum = 0
        let crossing = perPoint.firstIndex {
            sum += $0
            return sum > limit
        }!
        XCTAssertEqual(stopped, perPoint[...crossing].reduce(0, +))
    }
}
