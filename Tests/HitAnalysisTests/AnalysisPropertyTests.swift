import TestSupport
import XCTest

@testable import HitAnalysis
@testable import HitRouting

/// On seeded random scenes, every §12 answer equals the brute-force one
/// (`BruteForce`: per-sample traced routing with `all` stacks, exhaustive
/// square and distance searches), field by field and exactly.
final class AnalysisPropertyTests: XCTestCase {
    func grid(_ g: GridChoice) throws -> SampleGrid {
        try GridRequest(x: g.x, y: g.y, width: g.width, height: g.height, resolution: g.resolution)
            .grid(defaultRegion: nil, maxSamples: GridRequest.defaultMaxSamples)
    }

    func testAuditEqualsBruteForce() throws {
        // What the seeds exercised, so that the comparison is not vacuous.
        var seen = Set<String>()
        defer {
            for need in ["blocker", "coveredBy", "spacing pass", "spacing fail", "size pass", "unreachable", "indexed"] {
                XCTAssert(seen.contains(need), "no seed gave \(need)")
            }
        }
        for seed in UInt64(0)..<150 {
            var random = RandomScenes(seed: seed)
            let scene = CompiledScene(random.scene())
            guard scene.numericProblem == nil else { continue }
            let g = try grid(random.grid())
            let brute = BruteForce(scene, g)
            for (minSize, spacing) in [(24.0, 24.0 as Double?), (10, 8), (44, nil)] {
                let report = try Audit.run(scene, grid: g, minSize: minSize, spacing: spacing, workLimit: .max)
                let expected = brute.audit(minSize: minSize, spacing: spacing)
                XCTAssertEqual(report.targets.count, expected.targets.count, "seed \(seed)")
                for (a, b) in zip(report.targets, expected.targets) where a != b {
                    XCTFail("seed \(seed), minSize \(minSize): target \(scene.ids[a.layer])\n got \(a)\nwant \(b)")
                }
                XCTAssertEqual(report.blockers, expected.blockers, "seed \(seed)")
                if !report.blockers.isEmpty { seen.insert("blocker") }
                for t in report.targets {
                    if !t.coveredBy.isEmpty { seen.insert("coveredBy") }
                    if let p = t.spacingPasses { seen.insert(p ? "spacing pass" : "spacing fail") }
                    if t.sizePasses { seen.insert("size pass") }
                    if t.verdict == .unreachable { seen.insert("unreachable") }
                }
                if scene.rootIndex >= 0 { seen.insert("indexed") }
            }
        }
    }

    func testReachEqualsBruteForce() throws {
        var seen = Set<String>()
        defer {
            for need in [
                "covered", "ancestor-clipped", "ancestor-hidden", "pass-through", "children-only", "hidden", "ancestor-self-only",
                "singular-transform", "no-shape", "reached",
            ] {
                XCTAssert(seen.contains(need), "no seed gave \(need)")
            }
        }
        for seed in UInt64(1000)..<1120 {
            var random = RandomScenes(seed: seed)
            let scene = CompiledScene(random.scene())
            guard scene.numericProblem == nil else { continue }
            let g = try grid(random.grid())
            let brute = BruteForce(scene, g)
            for n in 0..<scene.layerCount {
                let report = try Reach.run(scene, layer: n, grid: g, workLimit: .max)
                if let reason = report.reason {
                    seen.insert(reason)
                    XCTAssertEqual(report.cells, 0)
                    XCTAssert(scene.sceneToLocal(n) == nil || scene.region(of: n) == nil, "seed \(seed) layer \(scene.ids[n])")
                    continue
                }
                let expected = brute.reach(n)
                XCTAssertEqual(report.cells, expected.cells, "seed \(seed) layer \(scene.ids[n])")
                XCTAssertEqual(report.reachPoint, expected.reachPoint, "seed \(seed) layer \(scene.ids[n])")
                XCTAssertEqual(report.clearance, expected.clearance, "seed \(seed) layer \(scene.ids[n])")
                XCTAssertEqual(report.lost, expected.lost, "seed \(seed) layer \(scene.ids[n])")
                for l in report.lost { seen.insert(l.reason) }
                if report.cells > 0 { seen.insert("reached") }
            }
        }
    }

    func testDiffEqualsBruteForce() throws {
        for seed in UInt64(2000)..<2100 {
            var random = RandomScenes(seed: seed)
            let a = CompiledScene(random.scene())
            random.next = 0  // the same ids again, on other layers
            let b = CompiledScene(random.scene())
            guard a.numericProblem == nil, b.numericProblem == nil else { continue }
            let g = try grid(random.grid())
            let report = try Diff.run(a, b, grid: g, workLimit: .max)
            var groups: [String: (Int, Int)] = [:]
            var boxes: [String: (Int, Int, Int, Int)] = [:]
            var changed = 0
            for s in 0..<g.count {
                let p = g.sample(s)
                let ta = a.hit(p).target
                let tb = b.hit(p).target
                let fa = ta.map { (a.ids[$0], a.action(for: $0)?.action) }
                let fb = tb.map { (b.ids[$0], b.action(for: $0)?.action) }
                if fa?.0 == fb?.0 && fa?.1 == fb?.1 { continue }
                changed += 1
                let key = "\(ta ?? -1) \(tb ?? -1)"
                let (i, j) = (s % g.columns, s / g.columns)
                groups[key] = groups[key].map { ($0.0 + 1, $0.1) } ?? (1, s)
                let box = boxes[key] ?? (i, j, i, j)
                boxes[key] = (min(box.0, i), min(box.1, j), max(box.2, i), max(box.3, j))
            }
            let expected = groups.sorted { $0.value.0 != $1.value.0 ? $0.value.0 > $1.value.0 : $0.value.1 < $1.value.1 }.map { e in
                let parts = e.key.split(separator: " ").map { Int($0)! }
                let bx = boxes[e.key]!
                let cb = g.cellBox(bx.0, bx.1, bx.2, bx.3)
                return DiffReport.Group(
                    from: parts[0] >= 0 ? parts[0] : nil, to: parts[1] >= 0 ? parts[1] : nil, cells: e.value.0,
                    area: g.area(e.value.0), box: CellBox(x: cb.x, y: cb.y, width: cb.width, height: cb.height),
                    point: g.sample(e.value.1))
            }
            XCTAssertEqual(report.groups, expected, "seed \(seed)")
            XCTAssertEqual(report.changedCells, changed, "seed \(seed)")
        }
    }
}
