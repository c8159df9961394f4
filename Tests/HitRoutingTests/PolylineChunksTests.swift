import TestSupport
import XCTest

@testable import HitRouting

/// `PolylineChunks`: the queries that skip runs of a long outline answer as
/// the plain loops over every edge do, and skip what is far from the point.
final class PolylineChunksTests: XCTestCase {
    /// Rings of 65–400 points, and of 1,100–2,500 (several groups of runs), on a coarse lattice (many horizontal edges,
    /// vertices on the ray's line, repeated and retraced points), against
    /// points and boxes on and off the lattice: the same answers, closed
    /// and open.
    func testChunkedQueriesAnswerAsThePlainLoops() {
        var rng = SplitMix64(seed: 14)
        var work = 0
        for ring in 0..<30 {
            let n = Int.random(in: ring % 5 == 0 ? 1100...2500 : 65...400, using: &rng)
            var points: [Point] = []
            for _ in 0..<n {
                if !points.isEmpty, Int.random(in: 0..<8, using: &rng) == 0 {
                    points.append(points.randomElement(using: &rng)!)  // retrace an earlier vertex
                } else {
                    points.append(
                        Point(Double(Int.random(in: -20...20, using: &rng)) * 5, Double(Int.random(in: -20...20, using: &rng)) * 5))
                }
            }
            let chunks = PolylineChunks(points)
            XCTAssertFalse(chunks.isEmpty)
            for _ in 0..<120 {
                let onLattice = Bool.random(using: &rng)
                let p =
                    onLattice
                    ? Point(Double(Int.random(in: -22...22, using: &rng)) * 5, Double(Int.random(in: -22...22, using: &rng)) * 5)
                    : Point(Double.random(in: -110...110, using: &rng), Double.random(in: -110...110, using: &rng))
                XCTAssertEqual(Polyline.winding(points, chunks, p, work: &work), Polyline.winding(points, p), "winding at \(p)")
                let limit = [0.5, 2, 5, 13.25].randomElement(using: &rng)!
                let half = Double.random(in: 0...8, using: &rng)
                let q = Box(minX: p.x - half, minY: p.y - half / 2, maxX: p.x + half / 3, maxY: p.y + half)
                for closed in [true, false] {
                    XCTAssertEqual(
                        Polyline.isWithin(limit, of: points, closed: closed, chunks, p, work: &work),
                        Polyline.distance(points, closed: closed, to: p) <= limit, "point \(p) within \(limit)")
                    XCTAssertEqual(
                        Polyline.intersects(points, closed: closed, chunks, q, work: &work),
                        Polyline.intersects(points, closed: closed, q), "box \(q)")
                    XCTAssertEqual(
                        Polyline.isWithin(limit, of: points, closed: closed, chunks, q, work: &work),
                        Polyline.distance(points, closed: closed, to: q) <= limit, "box \(q) within \(limit)")
                }
            }
        }
    }

    func testShortOutlinesHaveNoRunsAndLongOnesCoverEveryPoint() {
        XCTAssertTrue(PolylineChunks((0..<64).map { Point(Double($0), 0) }).isEmpty)
        let points = (0..<100).map { Point(Double($0), Double($0 % 7)) }
        let chunks = PolylineChunks(points)
        XCTAssertEqual(chunks.boxes.count, 4)  // 32 + 32 + 32 + 4 edges, the last back to the first point
        XCTAssertEqual(chunks.boxes[3], Box(minX: 0, minY: 0, maxX: 99, maxY: 6))
        XCTAssertEqual(chunks.boxes[0], Box(minX: 0, minY: 0, maxX: 32, maxY: 6))
        XCTAssertEqual(chunks.groups, [Box(minX: 0, minY: 0, maxX: 99, maxY: 6)])
        // 2,000 edges: 63 runs in 2 groups, each the union of its runs.
        let long = PolylineChunks((0..<2000).map { Point(Double($0), Double($0 % 11)) })
        XCTAssertEqual(long.boxes.count, 63)
        XCTAssertEqual(long.groups.count, 2)
        for (g, group) in long.groups.enumerated() {
            XCTAssertEqual(group, long.boxes[long.runs(ofGroup: g)].reduce(into: Box.empty) { $0.formUnion($1) })
        }
        XCTAssertEqual(long.edges(ofGroup: 1, count: 2000), 1024..<2000)
    }

    /// A ring right of the point whose first edge's cross product
    /// overflows (its terms are ±∞, their difference NaN): an edge with both
    /// ends right of the point is decided from its ends in every loop, so
    /// the plain loop and the runs (which count a run right of the point
    /// from its ends) both find winding 0, the true answer.
    func testAnEdgeWhoseCrossProductOverflowsWindsAsItsRunDoes() {
        func ring(_ n: Int) -> [Point] {
            var points = [Point(2e10, -1e300), Point(1e10, 1e300)]
            for k in 1...n { points.append(Point(1e10 + 2e10 * Double(k) / Double(n), 1e300)) }  // along the top
            for k in 1...n { points.append(Point(3e10, 1e300 - 2e300 * Double(k) / Double(n + 1))) }  // down the right side
            return points
        }
        let p = Point(0, 0)
        let long = ring(40)
        let chunks = PolylineChunks(long)
        XCTAssertFalse(chunks.isEmpty)
        var work = 0
        XCTAssertEqual(Polyline.winding(long, p), 0)
        XCTAssertEqual(Polyline.winding(long, chunks, p, work: &work), 0)
        XCTAssertEqual(Polyline.crossing(long[0], long[1], p), 1, "down across the ray, both ends right of the point")
        // Short enough for the region's plain polygon loop: outside too.
        XCTAssertEqual(region(Shape(.polygon(ring(10)))).test(p), .outside)
        XCTAssertEqual(region(Shape(.polygon(ring(40)))).test(p), .outside)
    }

    /// A coherent outline of 100,000 vertices (a country's border, say): a
    /// point reads its groups' boxes and a few runs, not the edges.
    func testAPointInsideALongCoherentPolygonReadsAFewRuns() {
        var rng = SplitMix64(seed: 100)
        let n = 100_000
        let ring = (0..<n).map { k -> Point in
            let a = Double(k) / Double(n) * 2 * .pi
            let r = 400 + Double.random(in: -3...3, using: &rng)
            return Point(500 + r * cos(a), 500 + r * sin(a))
        }
        let chunks = PolylineChunks(ring)
        XCTAssertEqual(chunks.groups.count, 98)
        for p in [Point(500, 500), Point(898, 500.5), Point(100, 420), Point(-5, 500)] {
            var work = 0
            XCTAssertEqual(Polyline.winding(ring, chunks, p, work: &work), Polyline.winding(ring, p), "\(p)")
            XCTAssertLessThanOrEqual(work, chunks.groups.count + 4 * PolylineChunks.size * 2, "\(p)")
        }
    }

    /// An ellipse of radius 1e16 with a stroke of 68 and a slop of 1e-9,
    /// hit near its bounds' corner (an input the API fuzzer found). Its
    /// outline is flattened to thousands of points; a point's slop box is
    /// measured only against the runs near the point: none here.
    func testAHugeStrokedEllipseWithSlopReadsOnlyRunsNearThePoint() throws {
        let shape = Shape(.ellipse(cx: 1e16, cy: 1e16, rx: 1e16, ry: 1e16), stroke: 68)
        let slop = SlopEdges(top: 1e-9, right: 1e-9, bottom: 1e-9, left: 1e-9)
        let r = region(shape, slop: slop)
        var work = 0
        let contour = try XCTUnwrap(r.contours.first)
        XCTAssertGreaterThan(contour.outline.count, 1000)
        XCTAssertFalse(contour.outlineChunks.isEmpty)

        let p = Point(1.6145454545454545e-153, -9.999999999999814e-140)  // the input's point in the layer's space
        XCTAssertEqual(r.test(p), .outside)
        let q = Box(minX: p.x - slop.right, minY: p.y - slop.bottom, maxX: p.x + slop.left, maxY: p.y + slop.top)
        XCTAssertEqual(contour.outlineChunks.runsVisited(near: q, within: r.halfStroke, count: contour.outline.count), 0)

        // On the outline: in the stroke (measured exactly, from the ellipse's equation).
        XCTAssertEqual(r.test(Point(1e16, 0)), .insideStroke)
        XCTAssertEqual(r.test(Point(1e16, -40)), .outside)
        // At a vertex of the flattening: a few runs of the thousands;
        // and around the vertices the runs answer as every edge does.
        let outline = contour.outline
        let chunks = contour.outlineChunks
        let v = outline[0]
        let atV = Box(minX: v.x - 1e-9, minY: v.y - 1e-9, maxX: v.x + 1e-9, maxY: v.y + 1e-9)
        XCTAssertGreaterThan(chunks.boxes.count, 100)
        XCTAssertLessThanOrEqual(chunks.runsVisited(near: atV, within: r.halfStroke, count: outline.count), 4)
        XCTAssertTrue(Polyline.isWithin(r.halfStroke, of: outline, closed: contour.closed, chunks, atV, work: &work))
        for k in stride(from: 0, to: outline.count, by: max(1, outline.count / 12)) {
            for offset in [Point(0, 30), Point(-20, -40)] {
                let p = outline[k] + offset
                let q = Box(minX: p.x - 1e-9, minY: p.y - 1e-9, maxX: p.x + 1e-9, maxY: p.y + 1e-9)
                XCTAssertEqual(
                    Polyline.isWithin(r.halfStroke, of: outline, closed: contour.closed, chunks, q, work: &work),
                    Polyline.distance(outline, closed: contour.closed, to: q) <= r.halfStroke, "near vertex \(k)")
                XCTAssertEqual(
                    Polyline.intersects(outline, closed: true, chunks, q, work: &work), Polyline.intersects(outline, closed: true, q))
            }
        }
    }

    /// A filled polygon of many vertices (no stroke, no slop) is tested
    /// through its contour's runs, with the same answers as the plain loop.
    func testLongPolygonIsTestedThroughItsRuns() {
        let n = 1000
        let star = (0..<n).map { k -> Point in
            let a = Double(k) / Double(n) * 2 * .pi
            let d = k % 2 == 0 ? 100.0 : 60
            return Point(d * cos(a), d * sin(a))
        }
        let r = region(Shape(.polygon(star)))
        XCTAssertNil(r.plainPolygon)
        var rng = SplitMix64(seed: 7)
        for _ in 0..<2000 {
            let p = Point(Double.random(in: -110...110, using: &rng), Double.random(in: -110...110, using: &rng))
            let w = Polyline.winding(star, p)
            XCTAssertEqual(r.test(p), w != 0 ? .inside : .outside, "\(p)")
        }
    }
}
