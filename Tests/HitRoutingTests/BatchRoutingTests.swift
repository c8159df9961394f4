import TestSupport
import XCTest

@testable import HitRouting

/// `CompiledScene.targets(at:into:)` must answer exactly as `target(at:)`
/// point by point, interleaved or not, whatever the scene's shape.
final class BatchRoutingTests: XCTestCase {
    /// Every point's answer from a batch, interleaved (`interleavedFrom: 0`)
    /// in the grid's order or as given, one by one, and as the public call
    /// decides, against `target(at:)`.
    func assertBatchesMatchOneByOne(_ scene: CompiledScene, _ points: [Point], file: StaticString = #filePath, line: UInt = #line) {
        var expectedWork = 0
        let expected = points.map { Int32(scene.target(at: $0, work: &expectedWork) ?? -1) }
        for (interleaved, gridOrder) in [(0, 0), (0, Int.max), (Int.max, 0)] {
            var answers = [Int32](repeating: -7, count: points.count + 3)
            let work = points.withUnsafeBufferPointer { points in
                answers.withUnsafeMutableBufferPointer {
                    scene.targets(at: points, into: $0, interleavedFrom: interleaved, gridOrderFrom: gridOrder)
                }
            }
            // The same steps in another order: the same work, to the unit.
            XCTAssertEqual(work, expectedWork, "interleavedFrom \(interleaved), gridOrderFrom \(gridOrder)", file: file, line: line)
            if let i = points.indices.first(where: { answers[$0] != expected[$0] }) {
                XCTFail(
                    "interleavedFrom \(interleaved), gridOrderFrom \(gridOrder): point \(i) of \(points.count), \(points[i]): \(answers[i]), one by one \(expected[i])",
                    file: file, line: line)
            }
            XCTAssertEqual(Array(answers.suffix(3)), [-7, -7, -7], "slots past the points are left alone", file: file, line: line)
        }
        var public_ = [Int32](repeating: -7, count: points.count)
        points.withUnsafeBufferPointer { points in public_.withUnsafeMutableBufferPointer { scene.targets(at: points, into: $0) } }
        XCTAssertEqual(public_, expected, file: file, line: line)
        XCTAssertEqual(scene.targets(at: points).map { Int32($0 ?? -1) }, expected, file: file, line: line)
    }

    func randomPoints(_ count: Int, seed: UInt64, in range: ClosedRange<Double>) -> [Point] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { _ in Point(Double.random(in: range, using: &rng), Double.random(in: range, using: &rng)) }
    }

    /// A map of polygons (root grid) with a loose giant, a hidden layer and
    /// moved layers; a point count that is not a multiple of the group
    /// size; points outside the grid.
    func testAGridSceneAnswersAsOnePointAtATime() {
        var rng = SplitMix64(seed: 41)
        func r(_ lo: Double, _ hi: Double) -> Double { Double.random(in: lo...hi, using: &rng) }
        var layers = polygonMap(count: 2000, extent: 1500, corners: 3...24, spread: 0.3...1, using: &rng).enumerated().map { i, points in
            Layer(id: "p\(i)", shape: Shape(.polygon(points), fillRule: i % 5 == 0 ? .evenodd : nil))
        }
        layers[7].shape = rect(400, 400, 3000, 3000)  // too big for the grid: loose
        layers[8].hidden = true
        layers[9].transform = .parts(TransformParts(rotate: 30))
        var live = LiveScene(Scene(layers: layers))
        XCTAssertNotNil(live.compiled.indexes[Int(live.compiled.rootIndex)].gridView)
        assertBatchesMatchOneByOne(live.compiled, randomPoints(1237, seed: 42, in: -100...1700))
        for _ in 0..<20 { live.translateLayer(Int.random(in: 0..<2000, using: &rng), by: Point(r(-300, 300), r(-300, 300))) }
        assertBatchesMatchOneByOne(live.compiled, randomPoints(1000, seed: 43, in: -100...1700))
    }

    /// Nested scenes with every participation rule, with and without a
    /// root grid, and scenes too small for any index.
    func testNestedAndSmallScenesAnswerAsOnePointAtATime() {
        for seed in UInt64(1)...3 {
            let scene = CompiledScene(SiblingIndexTests.randomScene(seed: seed, count: 3000))
            assertBatchesMatchOneByOne(scene, randomPoints(700, seed: seed, in: -2000...2000))
        }
        let ring = CompiledScene(ringOverButton())
        assertBatchesMatchOneByOne(ring, randomPoints(300, seed: 5, in: 0...300))
        assertBatchesMatchOneByOne(ring, [])
        assertBatchesMatchOneByOne(CompiledScene(Scene(layers: [])), randomPoints(20, seed: 6, in: 0...10))
    }
}

extension CompiledScene {
    /// `targets(at:into:)` for an array: each point's target, or nil.
    func targets(at points: [Point]) -> [Int?] {
        var answers = [Int32](repeating: -1, count: points.count)
        points.withUnsafeBufferPointer { points in answers.withUnsafeMutableBufferPointer { targets(at: points, into: $0) } }
        return answers.map { $0 >= 0 ? Int($0) : nil }
    }
}
