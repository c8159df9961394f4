import XCTest

@testable import HitAnalysis
@testable import HitRouting

/// The grid's definition (SPEC §12) and its refusals: every extreme
/// parameter is a named refusal or a finite grid, never a trap.
final class SampleGridTests: XCTestCase {
    let max = GridRequest.defaultMaxSamples

    func testSamplesAreCellCentresAndCountsRoundUp() throws {
        let g = try GridRequest(x: 10, y: 20, width: 10, height: 4.5, resolution: 2).grid(defaultRegion: nil, maxSamples: max)
        XCTAssertEqual(g.columns, 5)
        XCTAssertEqual(g.rows, 3)  // ⌈4.5 / 2⌉
        XCTAssertEqual(g.sample(0, 0), Point(11, 21))
        XCTAssertEqual(g.sample(7), Point(15, 23))  // (2, 1)
        XCTAssertEqual(g.area(3), 12)
    }

    func testDefaultsAreTheBoundsAndTheirLargerSideOver512() throws {
        let g = try GridRequest().grid(defaultRegion: Box(minX: -4, minY: 0, maxX: 1020, maxY: 256), maxSamples: max)
        XCTAssertEqual(g.resolution, 2)
        XCTAssertEqual(g.columns, 512)
        XCTAssertEqual(g.rows, 128)
        XCTAssertEqual(g.x, -4)
        let empty = try GridRequest().grid(defaultRegion: nil, maxSamples: max)
        XCTAssertEqual(empty.count, 0)
        XCTAssertEqual(empty.resolution, 1)
    }

    func refusal(_ r: GridRequest, bounds: Box? = nil, maxSamples: Int? = nil) -> String? {
        do {
            _ = try r.grid(defaultRegion: bounds, maxSamples: maxSamples ?? max)
            return nil
        } catch {
            guard case .invalid(let parameter, _) = error else { return "?" }
            return parameter
        }
    }

    func testExtremeResolutionsAreRefusedByName() {
        for r in [0, -1, .nan, .infinity, -.infinity, 1e-300, .leastNonzeroMagnitude] {
            XCTAssertEqual(refusal(GridRequest(x: 0, y: 0, width: 100, height: 100, resolution: r)), "resolution", "\(r)")
        }
        // ⌈width / r⌉ beyond Int.
        XCTAssertEqual(refusal(GridRequest(x: 0, y: 0, width: 1e308, height: 1, resolution: 1e-10)), "resolution")
        // One more sample than allowed.
        XCTAssertEqual(refusal(GridRequest(x: 0, y: 0, width: 2049, height: 2048, resolution: 1)), "resolution")
        XCTAssertNil(refusal(GridRequest(x: 0, y: 0, width: 2048, height: 2048, resolution: 1)))
        XCTAssertEqual(refusal(GridRequest(x: 0, y: 0, width: 10, height: 10, resolution: 1), maxSamples: 99), "resolution")
        // A huge resolution: one cell, but its area overflows.
        XCTAssertEqual(refusal(GridRequest(x: 0, y: 0, width: 1, height: 1, resolution: 1e200)), "resolution")
        XCTAssertNil(refusal(GridRequest(x: 0, y: 0, width: 1, height: 1, resolution: 1e150)))
        // Its edge beyond the finite range.
        XCTAssertEqual(refusal(GridRequest(x: 1e308, y: 0, width: 1, height: 1, resolution: 1.7e308)), "resolution")
    }

    func testExtremeRegionsAreRefusedByNameOrServed() throws {
        XCTAssertEqual(refusal(GridRequest(x: 1.7e308, y: 0, width: 1e308, height: 1)), "width")
        XCTAssertEqual(refusal(GridRequest(x: 0, y: 1.7e308, width: 1, height: 1e308)), "height")
        XCTAssertEqual(refusal(GridRequest(x: 0, y: 0, width: -1, height: 1)), "width")
        XCTAssertEqual(refusal(GridRequest(x: .nan, y: 0, width: 1, height: 1)), "x")
        XCTAssertEqual(refusal(GridRequest(x: 0, y: 0, width: 1)), "height")
        // Far out but finite: the default resolution gives 512 columns.
        let g = try GridRequest(x: -1e308, y: 1e308, width: 1e140, height: 1e140).grid(defaultRegion: nil, maxSamples: max)
        XCTAssertEqual(g.columns, 512)
        XCTAssert(g.sample(g.count - 1).isFinite)
        // The default over bounds too large for the cells' area.
        XCTAssertEqual(refusal(GridRequest(), bounds: Box(minX: -1e300, minY: -1e300, maxX: 1e300, maxY: 1e300)), "resolution")
        // A region without height has no samples, however fine the resolution.
        XCTAssertEqual(try GridRequest(x: 0, y: 0, width: 5, height: 0).grid(defaultRegion: nil, maxSamples: max).count, 0)
        XCTAssertEqual(
            try GridRequest(x: 0, y: 0, width: 1e300, height: 0, resolution: 1e-300).grid(defaultRegion: nil, maxSamples: max).count, 0)
        // No samples, but a cell's area beyond the finite range: every area
        // in the answer would be 0 × ∞.
        XCTAssertEqual(refusal(GridRequest(x: 0, y: 0, width: 2400, height: 0, resolution: 6.4e307)), "resolution")
    }

    func testSpansNeverTrap() throws {
        let g = try GridRequest(x: 0, y: 0, width: 10, height: 10, resolution: 1).grid(defaultRegion: nil, maxSamples: max)
        XCTAssertEqual(g.columns(from: -.infinity, to: .infinity), 0..<10)
        XCTAssertEqual(g.columns(from: -.greatestFiniteMagnitude, to: .greatestFiniteMagnitude), 0..<10)
        XCTAssertEqual(g.columns(from: 20, to: 30), 0..<0)
        XCTAssertEqual(g.columns(from: .nan, to: .nan), 0..<0)
        XCTAssertEqual(g.columns(from: 3.2, to: 3.4), 1..<5)  // one wider each side
    }

    func testAnEmptySceneHasNothingToAudit() throws {
        let scene = CompiledScene(Scene(layers: []))
        let g = try GridRequest().grid(defaultRegion: scene.bounds, maxSamples: max)
        let report = try Audit.run(scene, grid: g, minSize: 24, spacing: 24, workLimit: .max)
        XCTAssert(report.targets.isEmpty && report.blockers.isEmpty)
        let diff = try Diff.run(scene, scene, grid: g, workLimit: .max)
        XCTAssertEqual(diff.changed, 0)
    }
}
