import TestSupport
import XCTest

@testable import HitRouting

/// SPEC §2.1: slop grows the region (fill area ∪ stroke band) by its
/// Minkowski sum with the slop rectangle; an empty region stays empty, and
/// the zero-area parts of an outline (spikes, lines out and back) do not
/// grow at all.
final class SlopOfZeroAreaTests: XCTestCase {
    let slop5 = SlopEdges(top: 5, right: 5, bottom: 5, left: 5)

    func testFilledTwoPointPolylineDoesNotGrowIntoSlop() {
        let r = region(Shape(.polyline([Point(400, 100), Point(600, 100)])), slop: slop5)
        XCTAssertEqual(r.test(Point(500, 103)), .outside)
        XCTAssertEqual(r.test(Point(500, 100)), .outside)
        XCTAssertEqual(r.test(Point(398, 100)), .outside)
    }

    func testOutAndBackPathM400_100L600_100DoesNotGrowIntoSlop() throws {
        let r = region(try path("M 400 100 L 600 100"), slop: slop5)
        XCTAssertEqual(r.test(Point(500, 103)), .outside)
        let back = region(try path("M 400 100 L 600 100 L 400 100 Z"), slop: slop5)
        XCTAssertEqual(back.test(Point(500, 97)), .outside)
        let diagonal = region(try path("M 0 0 L 30 40 L 15 20 L 60 80"), slop: slop5)
        XCTAssertEqual(diagonal.test(Point(31, 40)), .outside)
    }

    func testSubpathDownALineAndBackUpDoesNotGrowButTheSquareBesideItDoes() throws {
        let r = region(try path("M0 0 H100 V100 H0 Z M200 0 V100 V0"), slop: slop5)
        XCTAssertEqual(r.test(Point(203, 50)), .outside)  // within 5 of the line only
        XCTAssertEqual(r.test(Point(103, 50)), .insideSlop)  // within 5 of the square
        XCTAssertEqual(r.test(Point(50, 50)), .inside)
    }

    func testSpikeOfAnOtherwiseProperOutlineDoesNotGrowIntoSlop() throws {
        // The right edge runs on down to (100, 200) and back up to (100, 100).
        let spiked = try path("M0 0 H100 V100 L100 200 L100 100 H0 Z")
        let r = region(spiked, slop: slop5)
        XCTAssertEqual(r.test(Point(103, 150)), .outside)
        XCTAssertEqual(r.test(Point(97, 150)), .outside)
        XCTAssertEqual(r.test(Point(103, 50)), .insideSlop)
        XCTAssertEqual(r.test(Point(50, 103)), .insideSlop)
        // Polygons alike, with the spike's tip at the ring's seam.
        let polygon = Shape(.polygon([Point(100, 200), Point(100, 100), Point(0, 100), Point(0, 0), Point(100, 0), Point(100, 100)]))
        let q = region(polygon, slop: slop5)
        XCTAssertEqual(q.test(Point(103, 150)), .outside)
        XCTAssertEqual(q.test(Point(103, 50)), .insideSlop)
        XCTAssertEqual(q.bounds, Box(minX: -5, minY: -5, maxX: 105, maxY: 200))  // the spike is in, not grown
    }

    func testStrokedOutAndBackPathStillGrowsBySlop() throws {
        let r = region(try path("M 400 100 L 600 100", stroke: 2), slop: slop5)
        XCTAssertEqual(r.test(Point(500, 100.5)), .insideStroke)
        XCTAssertEqual(r.test(Point(500, 105.9)), .insideSlop)
        XCTAssertEqual(r.test(Point(500, 106.1)), .outside)
    }

    func testDegenerateFourPointPolygonTracingTwoEdgesOutAndBackIsNotAFullRectangle() {
        // Passed the axis-aligned-rectangle test, so (5, 5) was inside.
        let r = region(Shape(.polygon([Point(0, 0), Point(10, 0), Point(10, 10), Point(10, 0)])))
        XCTAssertEqual(r.test(Point(5, 5)), .outside)
        let flat = region(Shape(.polygon([Point(0, 0), Point(10, 0), Point(10, 0), Point(0, 0)])), slop: slop5)
        XCTAssertEqual(flat.test(Point(5, 2)), .outside)
    }

    // MARK: - Against a brute-force reference

    /// Whether the box `q` touches the fill of `plain` (the region without
    /// slop), by points: q's corners and centre, a grid over it, and points
    /// a hair to either side of every outline edge where it crosses q.
    func touchesFill(_ plain: Region, _ outline: [Point], _ q: Box) -> Bool {
        var probes = q.corners + [Point((q.minX + q.maxX) / 2, (q.minY + q.maxY) / 2)]
        for i in 0...16 {
            for j in 0...16 {
                probes.append(Point(q.minX + q.width * Double(i) / 16, q.minY + q.height * Double(j) / 16))
            }
        }
        for k in outline.indices {
            let a = outline[k]
            let b = outline[(k + 1) % outline.count]
            let before = outline[(k + outline.count - 1) % outline.count]
            let d = b - a
            guard d.lengthSquared > 0 else { continue }
            let e = before - a
            // Into the wedge at a vertex and out of it, unless the wedge is
            // flat (a probe on the line would meet the fill test's rounding).
            if q.contains(a), e.lengthSquared > 0, abs(d.x * e.y - d.y * e.x) > 1e-3 * d.length * e.length {
                let u = d * (1 / d.length) + e * (1 / e.length)
                probes += [a + u * 1e-6, a - u * 1e-6]
            }
            guard let (t0, t1) = clip(a, b, q) else { continue }
            let n = Point(-d.y, d.x) * (1e-6 / d.length)
            for i in 0...32 {
                let m = a.lerp(b, t0 + (t1 - t0) * Double(i) / 32)
                for probe in [m + n, m - n] where q.contains(probe) { probes.append(probe) }
            }
        }
        return probes.contains { plain.test($0) == .inside }
    }

    /// The parameters of the part of segment `a b` inside `q` (Liang–Barsky), or nil.
    func clip(_ a: Point, _ b: Point, _ q: Box) -> (Double, Double)? {
        var t0 = 0.0
        var t1 = 1.0
        let d = b - a
        for (p, r) in [(-d.x, a.x - q.minX), (d.x, q.maxX - a.x), (-d.y, a.y - q.minY), (d.y, q.maxY - a.y)] {
            if p == 0 {
                if r < 0 { return nil }
            } else if p < 0 {
                t0 = max(t0, r / p)
            } else {
                t1 = min(t1, r / p)
            }
        }
        return t0 <= t1 ? (t0, t1) : nil
    }

    /// A polygon on a coarse grid with spikes (runs out along a line and
    /// back) put in at random vertices, and sometimes a flat one.
    func spikyPolygon(_ rng: inout SplitMix64) -> [Point] {
        let cx = Double(Int.random(in: 0...60, using: &rng))
        let cy = Double(Int.random(in: 0...60, using: &rng))
        if Int.random(in: 0..<6, using: &rng) == 0 {
            let a = Point(cx, cy)
            let b = Point(cx + Double(Int.random(in: -20...20, using: &rng)), cy + Double(Int.random(in: -20...20, using: &rng)))
            return [a, b, a.lerp(b, 0.5)]  // no area at all
        }
        let n = Int.random(in: 3...7, using: &rng)
        var points: [Point] = (0..<n).map { k in
            let angle = Double(k) / Double(n) * 2 * .pi
            let r = Double(Int.random(in: 4...20, using: &rng))
            return Point((cx + r * cos(angle)).rounded(), (cy + r * sin(angle)).rounded())
        }
        for _ in 0..<Int.random(in: 0...2, using: &rng) {
            let k = Int.random(in: 0..<points.count, using: &rng)
            let v = points[k]
            let d = Point(Double(Int.random(in: -12...12, using: &rng)), Double(Int.random(in: -12...12, using: &rng)))
            let back = Int.random(in: 0...1, using: &rng) == 0 ? v : v + d * 0.5
            points.insert(contentsOf: [v + d, back], at: k + 1)
        }
        return points
    }

    func testSlopOfSpikyPolygonsMatchesABruteForceReference() {
        for seed in UInt64(0)..<150 {
            var rng = SplitMix64(seed: seed)
            let outline = spikyPolygon(&rng)
            let shape = Shape(.polygon(outline), fillRule: Bool.random(using: &rng) ? .evenodd : .nonzero)
            let s = SlopEdges(
                top: Double(Int.random(in: 0...6, using: &rng)), right: Double(Int.random(in: 0...6, using: &rng)),
                bottom: Double(Int.random(in: 0...6, using: &rng)), left: Double(Int.random(in: 0...6, using: &rng)))
            let grown = region(shape, slop: s)
            let plain = region(shape)
            for _ in 0..<200 {
                let p = Point(Double.random(in: -30...100, using: &rng), Double.random(in: -30...100, using: &rng))
                let q = Box(minX: p.x - s.right, minY: p.y - s.bottom, maxX: p.x + s.left, maxY: p.y + s.top)
                let expected = plain.test(p) == .inside || touchesFill(plain, outline, q)
                guard grown.test(p).isHit != expected else { continue }
                // Probes can miss a sliver only by a hair: a disagreement must vanish when q grows or shrinks by 1e-3.
                let wider = Box(minX: q.minX - 1e-3, minY: q.minY - 1e-3, maxX: q.maxX + 1e-3, maxY: q.maxY + 1e-3)
                let narrower = Box(minX: q.minX + 1e-3, minY: q.minY + 1e-3, maxX: q.maxX - 1e-3, maxY: q.maxY - 1e-3)
                if grown.test(p).isHit ? !touchesFill(plain, outline, wider) : touchesFill(plain, outline, narrower) {
                    XCTFail("seed \(seed), p \(p), outline \(outline), slop \(s): region says \(grown.test(p)), reference \(expected)")
                    break
                }
            }
        }
    }

    func testIndexedScenesOfSpikyPolygonsWithSlopRouteAsALinearScan() {
        for seed in UInt64(0)..<6 {
            var rng = SplitMix64(seed: seed)
            var layers: [Layer] = []
            for k in 0..<80 {  // enough for the sibling grid or tree
                let offset = Point(Double(k % 10) * 50, Double(k / 10) * 50)
                let outline = spikyPolygon(&rng).map { $0 + offset }
                layers.append(
                    Layer(
                        id: "l\(k)", shape: Shape(.polygon(outline)),
                        hitSlop: Bool.random(using: &rng) ? .uniform(Double(Int.random(in: 1...6, using: &rng))) : nil,
                        zIndex: Double(Int.random(in: 0...2, using: &rng))))
            }
            let scene = CompiledScene(Scene(layers: layers))
            XCTAssertNil(scene.numericProblem)
            let regions = layers.map { region($0.shape!, slop: $0.hitSlop?.edges ?? .zero) }
            // Front to back: higher zIndex first, later entries first on ties.
            let order = layers.indices.sorted { i, j in
                layers[i].zIndex! != layers[j].zIndex! ? layers[i].zIndex! > layers[j].zIndex! : i > j
            }
            for _ in 0..<2_000 {
                let p = Point(Double.random(in: -20...560, using: &rng), Double.random(in: -20...460, using: &rng))
                let expected = order.first { regions[$0].test(p).isHit }.map { "l\($0)" }
                XCTAssertEqual(scene.targetID(p.x, p.y), expected, "seed \(seed), p \(p)")
                XCTAssertEqual(scene.target(at: p).map { scene.ids[$0] }, expected, "seed \(seed), p \(p)")
            }
        }
    }
}
