import TestSupport
import XCTest

@testable import HitRouting

/// What a drag reads: its subtree, and every layer only when the dragged
/// layer's old bounds reached an edge of the scene's; each move counts
/// what it reads as routing work.
final class DragCostTests: XCTestCase {
    /// `count` unit squares on a grid, and a draggable knob with a child in the middle.
    func scene(_ count: Int) -> LiveScene {
        var layers = (0..<count).map { k in Layer(id: "r\(k)", shape: rect(Double(k % 100) * 2, Double(k / 100) * 2, 1, 1)) }
        let knob = Layer(id: "knob", shape: rect(50, 20, 3, 3), draggable: true, children: [Layer(id: "k0", shape: rect(51.5, 21.5, 1, 1))])
        layers.append(knob)
        return LiveScene(Scene(layers: layers))
    }

    func drag(_ scene: inout LiveScene, from start: Point, along path: [Point]) throws -> [Int] {
        var sessions = PointerSessions()
        _ = try sessions.apply(pointer: "p", phase: .down, at: start, to: &scene, trace: false, all: false, now: 0)
        return try path.map { p in
            try sessions.apply(pointer: "p", phase: .move, at: p, to: &scene, trace: false, all: false, now: 0).work
        }
    }

    func testAMoveInsideTheSceneReadsItsSubtreeNotEveryLayer() throws {
        var live = scene(5000)
        let works = try drag(&live, from: Point(50.5, 20.5), along: (1...20).map { Point(50.5 + Double($0), 20.5 + Double($0) / 2) })
        XCTAssertEqual(live.compiled.targetID(70.5, 30.5), "knob", "moved by (20, 10)")
        XCTAssertEqual(live.compiled.targetID(72, 32), "k0", "and its child with it")
        for w in works { XCTAssertLessThan(w, 100, "a knob of 2 layers, among 5,002") }
        XCTAssertEqual(live.compiled.unionBounds, recomputed(live.compiled))
    }

    func testAMoveFromTheSceneEdgeReadsEveryLayerAndKeepsTheBoundsRight() throws {
        var live = scene(5000)
        // Out past the scene's far corner, then back: each move from the edge re-reads every bound.
        let works = try drag(&live, from: Point(50.5, 20.5), along: [Point(500, 400), Point(600, 500), Point(60, 30)])
        XCTAssertLessThan(works[0], 100, "from the middle")
        XCTAssertGreaterThanOrEqual(works[1], 5000, "from the edge")
        XCTAssertGreaterThanOrEqual(works[2], 5000)
        XCTAssertEqual(live.compiled.unionBounds, recomputed(live.compiled), "shrunk back")
        XCTAssertEqual(live.compiled.bounds, Box(minX: 0, minY: 0, maxX: 199, maxY: 99))
    }

    /// Random drags and patches: the bounds kept up step by step are the
    /// bounds computed afresh, every time.
    func testBoundsKeptUpByMovesAndPatchesAreTheSceneBounds() throws {
        var rng = SplitMix64(seed: 11)
        var layers: [Layer] = []
        for k in 0..<40 {
            let x = Double.random(in: -50...50, using: &rng)
            let y = Double.random(in: -50...50, using: &rng)
            let child = Layer(id: "c\(k)", shape: rect(x + 1, y + 1, 2, 2))
            layers.append(Layer(id: "g\(k)", shape: rect(x, y, 5, 5), draggable: true, children: k % 3 == 0 ? [child] : nil))
        }
        var live = LiveScene(Scene(layers: layers))
        for _ in 0..<300 {
            let n = Int.random(in: 0..<live.compiled.layerCount, using: &rng)
            let delta = Point(Double.random(in: -30...30, using: &rng), Double.random(in: -30...30, using: &rng))
            live.translateLayer(n, by: delta)
            XCTAssertEqual(live.compiled.unionBounds, recomputed(live.compiled))
        }
    }

    func recomputed(_ scene: CompiledScene) -> Box {
        var copy = scene
        copy.recomputeBounds()
        return copy.unionBounds
    }
}
