import Foundation
import TestSupport
import XCTest

@testable import HitRouting

/// The spatial index must never change an answer: routing through it (no
/// trace) is compared with the linear walk (the trace path visits every layer).
final class SiblingIndexTests: XCTestCase {
    /// A seeded scene of `count` layers nested up to depth 4, with every
    /// participation rule mixed in.
    static func randomScene(seed: UInt64, count: Int, world: Double = 2000) -> Scene {
        var rng = SplitMix64(seed: seed)
        func r(_ lo: Double, _ hi: Double) -> Double { Double.random(in: lo...hi, using: &rng) }
        var made = 0
        func layer(depth: Int) -> Layer {
            made += 1
            let id = "L\(made)"
            let size = world / Double(2 << depth)
            var shape: Shape?
            switch Int.random(in: 0..<6, using: &rng) {
            case 0: shape = rect(r(-size, size), r(-size, size), r(1, size), r(1, size))
            case 1:
                shape = Shape(
                    .circle(cx: r(-size, size), cy: r(-size, size), r: r(1, size / 2)), fill: Bool.random(using: &rng), stroke: r(0, 6))
            case 2:
                let n = Int.random(in: 3...8, using: &rng)
                shape = Shape(.polygon((0..<n).map { _ in Point(r(-size, size), r(-size, size)) }), fillRule: .evenodd)
            case 3: shape = Shape(.compound([ellipse(0, 0, size, size / 2), ellipse(0, 0, size / 3, size / 4)]), fillRule: .evenodd)
            case 4: shape = Shape(.polyline([Point(-size, 0), Point(0, size), Point(size, -size)]), fill: false, stroke: r(1, 10))
            default: shape = nil
            }
            var l = Layer(id: id, shape: shape)
            if Int.random(in: 0..<5, using: &rng) == 0 { l.hitSlop = .insets(top: r(0, 9), right: r(0, 9), bottom: nil, left: r(0, 9)) }
            l.transform = .parts(
                TransformParts(
                    translate: Point(r(-world / 2, world / 2) / Double(depth + 1), r(-world / 2, world / 2) / Double(depth + 1)),
                    rotate: Bool.random(using: &rng) ? r(-180, 180) : nil,
                    scale: Int.random(in: 0..<4, using: &rng) == 0 ? .xy(r(0.5, 2), r(0.5, 2)) : nil))
            l.zIndex = Int.random(in: 0..<4, using: &rng) == 0 ? r(-3, 3).rounded() : nil
            switch Int.random(in: 0..<20, using: &rng) {
            case 0: l.hidden = true
            case 1: l.opacity = 0.005
            case 2: l.pointerEvents = PointerEvents.none
            case 3: l.pointerEvents = .childrenOnly
            case 4: l.pointerEvents = .selfOnly
            case 5: l.transform = .matrix(Affine(a: 1, b: 2, c: 2, d: 4, e: 0, f: 0))  // singular
            default: break
            }
            if shape != nil && Int.random(in: 0..<4, using: &rng) == 0 { l.clipChildren = true }
            if depth < 4 && made < count {
                let kids = Int.random(in: 0..<(depth == 0 ? 40 : 12), using: &rng)
                l.children = (0..<kids).compactMap { _ in made < count ? layer(depth: depth + 1) : nil }
            }
            return l
        }
        var layers: [Layer] = []
        while made < count { layers.append(layer(depth: 0)) }
        return Scene(layers: layers)
    }

    func assertIndexMatchesLinear(
        _ scene: CompiledScene, seed: UInt64, points: Int, world: Double = 2000,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        var rng = SplitMix64(seed: seed &+ 1000)
        for _ in 0..<points {
            let p = Point(Double.random(in: -world...world, using: &rng), Double.random(in: -world...world, using: &rng))
            let indexed = scene.hit(p)
            let linear = scene.hit(p, trace: true)
            if indexed.target != linear.target || indexed.local != linear.local || scene.target(at: p) != linear.target {
                XCTFail(
                    "seed \(seed), point \(p): index \(String(describing: indexed.target)) vs linear \(String(describing: linear.target))",
                    file: file, line: line)
                return
            }
        }
    }

    func testIndexedRoutingEqualsTheLinearWalk() {
        for seed in UInt64(1)...3 {
            let scene = CompiledScene(Self.randomScene(seed: seed, count: 4000))
            XCTAssertFalse(scene.indexes.isEmpty)
            #if DEBUG
                XCTAssertNil(scene.checkIndexes())
            #endif
            assertIndexMatchesLinear(scene, seed: seed, points: 2000)
        }
    }

    func testIndexFollowsDraggedLayers() {
        var live = LiveScene(Self.randomScene(seed: 9, count: 3000))
        var rng = SplitMix64(seed: 99)
        for _ in 0..<200 {
            let n = Int.random(in: 0..<live.compiled.layerCount, using: &rng)
            live.translateLayer(n, by: Point(Double.random(in: -300...300, using: &rng), Double.random(in: -300...300, using: &rng)))
        }
        assertMatchesAFreshCompile(live, seed: 9)
    }

    /// An updated scene must answer like the same model compiled from
    /// scratch, and its index like its own linear walk.
    func assertMatchesAFreshCompile(_ live: LiveScene, seed: UInt64, file: StaticString = #filePath, line: UInt = #line) {
        #if DEBUG
            XCTAssertNil(live.compiled.checkIndexes(), file: file, line: line)
        #endif
        assertIndexMatchesLinear(live.compiled, seed: seed, points: 2000, file: file, line: line)
        let fresh = CompiledScene(live.model)
        var rng = SplitMix64(seed: seed &+ 7)
        for _ in 0..<2000 {
            let p = Point(Double.random(in: -2000...2000, using: &rng), Double.random(in: -2000...2000, using: &rng))
            let a = live.compiled.hit(p)
            let b = fresh.hit(p)
            XCTAssertEqual(a.target, b.target, "\(p)", file: file, line: line)
            XCTAssertEqual(a.local, b.local, "\(p)", file: file, line: line)
        }
    }

    func testReplacedLayersAnswerLikeAFreshCompile() {
        var live = LiveScene(Self.randomScene(seed: 11, count: 3000))
        var rng = SplitMix64(seed: 111)
        func r(_ lo: Double, _ hi: Double) -> Double { Double.random(in: lo...hi, using: &rng) }
        for round in 0..<150 {
            // Half the time a layer with children, so that changes reach a subtree.
            var n = Int.random(in: 0..<live.compiled.layerCount, using: &rng)
            if round % 2 == 0 { while live.compiled.nodes[n].childCount == 0 { n = (n + 1) % live.compiled.layerCount } }
            var layer = live.model.layer(at: live.compiled.modelPath(of: n))
            switch round % 6 {
            case 0:
                layer.transform = .parts(
                    TransformParts(translate: Point(r(-500, 500), r(-500, 500)), rotate: r(-90, 90), scale: .uniform(r(0.5, 3))))
            case 1: layer.zIndex = r(-3, 3).rounded()
            case 2: layer.hidden = !(layer.hidden ?? false)
            case 3:
                // A rect, or a plain polygon (whose vertices the node reads in place).
                layer.shape =
                    round % 12 == 3
                    ? rect(r(-100, 0), r(-100, 0), r(1, 300), r(1, 300))
                    : Shape(.polygon((0..<5).map { _ in Point(r(-300, 300), r(-300, 300)) }))
                layer.hitShape = nil
            case 4:
                layer.pointerEvents =
                    [PointerEvents.auto, PointerEvents.none, .childrenOnly, .selfOnly][Int.random(in: 0..<4, using: &rng)]
            default:
                layer.shape = nil
                layer.hitShape = nil
                layer.clipChildren = nil
            }
            live.replaceLayer(n, with: layer)
        }
        assertMatchesAFreshCompile(live, seed: 11)
        let fresh = CompiledScene(live.model)
        XCTAssertEqual(live.compiled.roots, fresh.roots)
        XCTAssertEqual(live.compiled.order, fresh.order)
        for (k, (a, b)) in zip(live.compiled.nodes, fresh.nodes).enumerated() {
            for (x, y) in [(a.sceneBounds.minX, b.sceneBounds.minX), (a.sceneBounds.maxY, b.sceneBounds.maxY)] {
                XCTAssertTrue(x == y || abs(x - y) <= 1e-9 * max(1, abs(y)), "layer \(k): \(a.sceneBounds) vs \(b.sceneBounds)")
            }
        }
    }

    /// Many similar siblings (a map of polygons) take the grid; a few huge
    /// ones stay loose; moved ones go loose and are still found.
    func testGridOfManySimilarSiblingsMatchesTheLinearWalk() {
        var rng = SplitMix64(seed: 21)
        func r(_ lo: Double, _ hi: Double) -> Double { Double.random(in: lo...hi, using: &rng) }
        var layers = polygonMap(count: 3000, extent: 2000, corners: 5...12, spread: 0.5...1, using: &rng).enumerated().map { i, points in
            Layer(id: "p\(i)", shape: Shape(.polygon(points)), zIndex: i % 7 == 0 ? 1 : nil)
        }
        layers[5].shape = rect(-1000, -1000, 4000, 4000)  // covers everything: loose
        layers[6].hidden = true
        var live = LiveScene(Scene(layers: layers))
        XCTAssertTrue(live.compiled.indexes[Int(live.compiled.rootIndex)].usesGrid)
        assertIndexMatchesLinear(live.compiled, seed: 21, points: 3000)
        for _ in 0..<100 {
            live.translateLayer(Int.random(in: 0..<3000, using: &rng), by: Point(r(-500, 500), r(-500, 500)))
        }
        var unhidden = live.model.layers[6]
        unhidden.hidden = nil
        live.replaceLayer(6, with: unhidden)
        assertMatchesAFreshCompile(live, seed: 22)
    }

    /// The grid stores boxes in fixed-point steps of its cells: points
    /// exactly on box edges and cell lines must still find every sibling.
    func testGridFindsPointsOnBoxEdgesAndCellLines() {
        var rng = SplitMix64(seed: 31)
        let layers: [Layer] = (0..<300).map { i in
            let x = Double(Int.random(in: 0..<60, using: &rng))
            let y = Double(Int.random(in: 0..<60, using: &rng))
            let w = Double(Int.random(in: 1...6, using: &rng))
            let h = Double(Int.random(in: 1...6, using: &rng))
            // Rects are half-open; ellipses and triangles include points on their right and bottom edges.
            switch i % 3 {
            case 0: return Layer(id: "r\(i)", shape: rect(x, y, w, h))
            case 1: return Layer(id: "e\(i)", shape: ellipse(x + w / 2, y + h / 2, w / 2, h / 2))
            default: return Layer(id: "t\(i)", shape: Shape(.polygon([Point(x, y), Point(x + w, y + h), Point(x, y + h)])))
            }
        }
        let scene = CompiledScene(Scene(layers: layers))
        XCTAssertTrue(scene.indexes[Int(scene.rootIndex)].usesGrid)
        for y in stride(from: -1.0, through: 67, by: 0.5) {
            for x in stride(from: -1.0, through: 67, by: 0.5) {
                let p = Point(x, y)
                XCTAssertEqual(scene.hit(p).target, scene.hit(p, trace: true).target, "\(p)")
            }
        }
    }

    func testTheStackThroughAnIndexMatchesTheLinearOne() {
        let scene = CompiledScene(Self.randomScene(seed: 3, count: 2000))
        var rng = SplitMix64(seed: 3)
        for _ in 0..<500 {
            let p = Point(Double.random(in: -2000...2000, using: &rng), Double.random(in: -2000...2000, using: &rng))
            let stack = scene.hit(p, all: true).stack ?? []
            XCTAssertEqual(stack.first, scene.hit(p).target)
        }
    }
}
