import TestSupport
import XCTest

@testable import HitAnalysis
@testable import HitRouting

/// Hand-made scenes whose answers can be read off the geometry, and the
/// work limit.
final class AnalysisCasesTests: XCTestCase {
    func grid(_ x: Double, _ y: Double, _ w: Double, _ h: Double, _ r: Double) throws -> SampleGrid {
        try GridRequest(x: x, y: y, width: w, height: h, resolution: r).grid(defaultRegion: nil, maxSamples: GridRequest.defaultMaxSamples)
    }

    /// A 30 × 30 button half under an invisible overlay: the overlay blocks
    /// it, the button's square and reach point sit in its free half.
    func testAnOverlayBlocksHalfAButton() throws {
        let scene = CompiledScene(
            Scene(layers: [
                Layer(id: "button", action: "press", shape: Shape(.rect(x: 0, y: 0, width: 30, height: 30, cornerRadius: nil))),
                Layer(id: "overlay", shape: Shape(.rect(x: 15, y: 0, width: 30, height: 30, cornerRadius: nil))),
            ]))
        let report = try Audit.run(scene, grid: try grid(0, 0, 60, 30, 1), minSize: 24, spacing: 24, workLimit: .max)
        XCTAssertEqual(report.targets.count, 1)
        let t = report.targets[0]
        XCTAssertEqual(t.area, 15 * 30)
        XCTAssertEqual(t.box, CellBox(x: 0, y: 0, width: 15, height: 30))
        XCTAssertEqual(t.largestSquare, CellSquare(x: 0, y: 0, side: 15))
        XCTAssertFalse(t.sizePasses)
        XCTAssertEqual(t.spacingPasses, true)  // no other target at all
        XCTAssertEqual(t.verdict, .pass)
        XCTAssertEqual(t.coveredBy.map(\.layer), [1])
        XCTAssertEqual(t.coveredBy.map(\.area), [15 * 30])
        // Column 7 is 8 cells from the ring on the left and from the
        // overlay; row 7 is the first 8 cells from the ring above.
        XCTAssertEqual(t.reachPoint, Point(7.5, 7.5))
        XCTAssertEqual(t.clearance, 8)
        XCTAssertEqual(report.blockers, [Blocker(layer: 1, area: 15 * 30, covers: [0])])

        let reach = try Reach.run(scene, layer: 0, grid: try grid(0, 0, 60, 30, 1), workLimit: .max)
        XCTAssertEqual(reach.area, 15 * 30)
        XCTAssertEqual(reach.lost, [ReachReport.Lost(taker: 1, reason: "covered", cells: 450, area: 450, point: Point(15.5, 0.5))])
    }

    func testTheWorkLimitRefusesAnAudit() throws {
        let scene = CompiledScene(
            Scene(
                layers: (0..<20).map {
                    Layer(id: "r\($0)", action: "a", shape: Shape(.rect(x: Double($0), y: 0, width: 50, height: 50, cornerRadius: nil)))
                }))
        let g = try grid(0, 0, 70, 50, 0.5)
        XCTAssertThrowsError(try Audit.run(scene, grid: g, minSize: 24, spacing: 24, workLimit: 1000)) {
            XCTAssertEqual($0 as? AnalysisError, .tooMuchWork(limit: 1000))
        }
        let report = try Audit.run(scene, grid: g, minSize: 24, spacing: 24, workLimit: .max)
        XCTAssertNoThrow(try Audit.run(scene, grid: g, minSize: 24, spacing: 24, workLimit: report.work))
    }

    /// A map of many polygons, routed through the root grid's interleaved
    /// walks, against the brute force.
    func testABigMapEqualsBruteForce() throws {
        var rng = SplitMix64(seed: 5)
        let layers = (0..<600).map { k -> Layer in
            let c = Point(Double.random(in: 0...400, using: &rng), Double.random(in: 0...400, using: &rng))
            let n = Int.random(in: 3...9, using: &rng)
            let radius = Double.random(in: 4...30, using: &rng)
            let points = (0..<n).map { i -> Point in
                let angle = Double(i) / Double(n) * 2 * .pi
                return Point(c.x + radius * cos(angle), c.y + radius * sin(angle))
            }
            return Layer(id: "p\(k)", action: k % 3 == 0 ? nil : "a\(k % 5)", shape: Shape(.polygon(points)))
        }
        let scene = CompiledScene(Scene(layers: layers))
        let g = try grid(0, 0, 400, 400, 12)
        let report = try Audit.run(scene, grid: g, minSize: 24, spacing: 24, workLimit: .max)
        let expected = BruteForce(scene, g).audit(minSize: 24, spacing: 24)
        XCTAssertEqual(report.targets, expected.targets)
        XCTAssertEqual(report.blockers, expected.blockers)
        XCTAssertFalse(report.blockers.isEmpty)
    }
}

extension AnalysisCasesTests {
    /// A spacing as large as numbers go reads the whole grid around a lone
    /// failing target: those reads count toward the work limit.
    func testAHugeSpacingCountsItsReads() throws {
        let scene = CompiledScene(
            Scene(layers: [
                Layer(id: "small", action: "a", shape: Shape(.rect(x: 0, y: 0, width: 4, height: 4, cornerRadius: nil))),
                Layer(id: "far", shape: Shape(.rect(x: 290, y: 290, width: 4, height: 4, cornerRadius: nil))),
            ]))
        let g = try grid(0, 0, 300, 300, 1)
        let narrow = try Audit.run(scene, grid: g, minSize: 24, spacing: 24, workLimit: .max)
        let huge = try Audit.run(scene, grid: g, minSize: 24, spacing: 1e308, workLimit: .max)
        XCTAssertEqual(huge.targets[0].spacingPasses, true)
        XCTAssertGreaterThanOrEqual(huge.work - narrow.work, 300 * 300 - 24 * 24, "every sample read once more")
        XCTAssertThrowsError(try Audit.run(scene, grid: g, minSize: 24, spacing: 1e308, workLimit: huge.work - 1)) {
            XCTAssertEqual($0 as? AnalysisError, .tooMuchWork(limit: huge.work - 1))
        }
    }
}
