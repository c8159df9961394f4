import Foundation
import TestSupport
import XCTest

@testable import HitRouting

/// SPEC §3 pass-through: a layer that would be the target is a receiver instead, and visiting goes on.
final class PassThroughTests: XCTestCase {
    /// button (bottom), halo (pass-through, above it), analytics (pass-through, on top, full canvas),
    /// and a pass-through "under" layer below the button, which the point never reaches.
    func scene() -> CompiledScene {
        CompiledScene(
            Scene(layers: [
                Layer(id: "under", action: "under.seen", shape: rect(0, 0, 100, 100), passThrough: true),
                Layer(id: "button", action: "button.press", shape: rect(10, 10, 50, 50)),
                Layer(id: "halo", shape: rect(0, 0, 70, 70), passThrough: true),
                Layer(
                    id: "group", action: "analytics", passThrough: true,
                    children: [
                        Layer(id: "analytics", shape: rect(0, 0, 100, 100), passThrough: true)
                    ]),
            ]))
    }

    func ids(_ scene: CompiledScene, _ layers: [Int]) -> [String] { layers.map { scene.ids[$0] } }

    func testReceiversAboveTheTargetAndNoneBelow() {
        let s = scene()
        let r = s.hit(Point(20, 20), trace: true)
        XCTAssertEqual(r.target.map { s.ids[$0] }, "button")
        XCTAssertEqual(ids(s, r.receivers), ["analytics", "halo"])
        XCTAssertEqual(
            s.traceSummary(20, 20),
            [
                "analytics pass pass-through", "group miss no-shape", "halo pass pass-through", "button hit inside",
            ])
        XCTAssertEqual(r.trace[0].detail?.description, "inside; passThrough lets the point go on to the layers below")
        // Each receiver's action bubbles as a target's would.
        XCTAssertEqual(s.action(for: r.receivers[0]).map { s.ids[$0.layer] }, "group")
        XCTAssertNil(s.action(for: r.receivers[1]))
    }

    func testWithNothingBelowOnlyReceivers() {
        let s = scene()
        let r = s.hit(Point(80, 80))
        XCTAssertEqual(ids(s, r.receivers), ["analytics", "under"])
        XCTAssertNil(r.target)
        XCTAssertNil(s.target(at: Point(80, 80)))
    }

    func testTargetAtIgnoresPassThroughLayers() {
        let s = scene()
        XCTAssertTrue(s.hasPassThrough)
        XCTAssertEqual(s.target(at: Point(20, 20)).map { s.ids[$0] }, "button")
        XCTAssertFalse(CompiledScene(ringOverButton()).hasPassThrough)
    }

    func testNestedPassThroughChildThenItsParent() {
        let s = CompiledScene(
            Scene(layers: [
                Layer(
                    id: "card", shape: rect(0, 0, 100, 100),
                    children: [
                        Layer(id: "shine", shape: rect(0, 0, 50, 50), passThrough: true)
                    ])
            ]))
        let r = s.hit(Point(10, 10))
        XCTAssertEqual(r.target.map { s.ids[$0] }, "card")
        XCTAssertEqual(ids(s, r.receivers), ["shine"])
        // A pass-through parent whose child takes the point is never reached.
        let t = CompiledScene(
            Scene(layers: [
                Layer(id: "back", shape: rect(0, 0, 100, 100)),
                Layer(
                    id: "panel", shape: rect(0, 0, 100, 100), passThrough: true,
                    children: [
                        Layer(id: "knob", shape: rect(0, 0, 10, 10))
                    ]),
            ]))
        XCTAssertEqual(t.hit(Point(5, 5)).target.map { t.ids[$0] }, "knob")
        XCTAssertEqual(t.hit(Point(5, 5)).receivers, [])
        XCTAssertEqual(ids(t, t.hit(Point(50, 50)).receivers), ["panel"])
        XCTAssertEqual(t.hit(Point(50, 50)).target.map { t.ids[$0] }, "back")
    }

    func testChildrenOnlyLayerIsNeverAReceiver() {
        let s = CompiledScene(
            Scene(layers: [
                Layer(id: "back", shape: rect(0, 0, 100, 100)),
                Layer(id: "overlay", shape: rect(0, 0, 100, 100), pointerEvents: .childrenOnly, passThrough: true),
            ]))
        let r = s.hit(Point(50, 50), trace: true)
        XCTAssertEqual(r.receivers, [])
        XCTAssertEqual(s.traceSummary(50, 50), ["overlay miss children-only", "back hit inside"])
    }

    func testStackListsReceiversThenTheTarget() {
        let s = scene()
        let r = s.hit(Point(20, 20), all: true)
        XCTAssertEqual(ids(s, r.stack ?? []), ["analytics", "halo", "button", "under"])
    }

    func testOnlyTheTargetCapturesAndACapturedMoveHasNoReceivers() throws {
        var sessions = PointerSessions()
        var live = LiveScene(
            Scene(layers: [
                Layer(id: "button", shape: rect(0, 0, 50, 50), draggable: true),
                Layer(id: "halo", shape: rect(0, 0, 100, 100), draggable: true, passThrough: true),
            ]))
        let down = try sessions.apply(pointer: "p", phase: .down, at: Point(10, 10), to: &live, trace: false, all: false, now: 0)
        XCTAssertEqual(down.result.receivers, [1])
        XCTAssertEqual(sessions.capture(of: "p")?.layer, "button")
        let move = try sessions.apply(pointer: "p", phase: .move, at: Point(20, 10), to: &live, trace: false, all: false, now: 1)
        XCTAssertEqual(move.result.target, 0)
        XCTAssertEqual(move.result.receivers, [])
        // The receiver was not dragged; the target was.
        XCTAssertNil(live.model.layers[1].transform)
        XCTAssertNotNil(live.model.layers[0].transform)
    }

    func testPatchingPassThroughUpdatesCountsAndCovers() {
        var live = LiveScene(
            Scene(
                layers: (0..<100).map { k in
                    // 32-gons: plain polygons, whose covers settle their centres as hits without a visit.
                    let (cx, cy) = (Double(k % 10) * 10 + 5, Double(k / 10) * 10 + 5)
                    let outline = (0..<32).map { i in Point(cx + 5 * cos(Double(i) * .pi / 16), cy + 5 * sin(Double(i) * .pi / 16)) }
                    return Layer(id: "r\(k)", shape: Shape(.polygon(outline)))
                } + [Layer(id: "back", shape: rect(-1000, -1000, 3000, 3000), zIndex: -1)]))
        XCTAssertFalse(live.compiled.hasPassThrough)
        XCTAssertEqual(live.compiled.target(at: Point(55, 55)), 55)
        XCTAssertEqual(live.compiled.withTables { $0.coverVerdict(55, Point(55, 55)) }, .hit)
        var layer = live.model.layers[55]
        layer.passThrough = true
        live.replaceLayer(55, with: layer)
        XCTAssertTrue(live.compiled.hasPassThrough)
        XCTAssertEqual(live.compiled.target(at: Point(55, 55)).map { live.compiled.ids[$0] }, "back")
        XCTAssertEqual(live.compiled.hit(Point(55, 55)).receivers, [55])
        layer.passThrough = nil
        live.replaceLayer(55, with: layer)
        XCTAssertFalse(live.compiled.hasPassThrough)
        XCTAssertEqual(live.compiled.target(at: Point(55, 55)), 55)
        XCTAssertEqual(live.compiled.withTables { $0.coverVerdict(55, Point(55, 55)) }, .hit)
    }

    /// Random trees with random pass-through flags: the stack starts with the
    /// receivers, then the target; the batch agrees with the single hit.
    func testStackPrefixIsReceiversThenTargetSeeded() {
        for seed in UInt64(0)..<200 {
            var rng = SplitMix64(seed: seed)
            var counter = 0
            func randomLayer(depth: Int) -> Layer {
                counter += 1
                let x = Double.random(in: 0...80, using: &rng)
                let y = Double.random(in: 0...80, using: &rng)
                var layer = Layer(id: "l\(counter)", shape: Bool.random(using: &rng) ? rect(x, y, 40, 40) : nil)
                if Int.random(in: 0..<3, using: &rng) == 0 { layer.passThrough = true }
                if Int.random(in: 0..<5, using: &rng) == 0 { layer.pointerEvents = .childrenOnly }
                if Int.random(in: 0..<6, using: &rng) == 0, layer.shape != nil { layer.clipChildren = true }
                if depth < 3 { layer.children = (0..<Int.random(in: 0...3, using: &rng)).map { _ in randomLayer(depth: depth + 1) } }
                return layer
            }
            let layers = (0..<Int.random(in: 1...30, using: &rng)).map { _ in randomLayer(depth: 0) }
            let s = CompiledScene(Scene(layers: layers))
            var points: [Point] = []
            for _ in 0..<50 { points.append(Point(Double.random(in: 0...120, using: &rng), Double.random(in: 0...120, using: &rng))) }
            var batch = [Int32](repeating: -2, count: points.count)
            points.withUnsafeBufferPointer { p in batch.withUnsafeMutableBufferPointer { s.targets(at: p, into: $0) } }
            for (i, p) in points.enumerated() {
                let r = s.hit(p, trace: true, all: true)
                let expected = r.receivers + (r.target.map { [$0] } ?? [])
                XCTAssertEqual(Array((r.stack ?? []).prefix(expected.count)), expected, "seed \(seed) at \(p)")
                XCTAssertEqual(r.trace.filter { $0.decision == .pass }.map(\.layer), r.receivers, "seed \(seed)")
                XCTAssertEqual(s.target(at: p), r.target, "seed \(seed)")
                XCTAssertEqual(batch[i] >= 0 ? Int(batch[i]) : nil, r.target, "seed \(seed)")
                if r.target == nil { XCTAssertEqual(r.stack ?? [], r.receivers, "seed \(seed)") }
            }
        }
    }
}
