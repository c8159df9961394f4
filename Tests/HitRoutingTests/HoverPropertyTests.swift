import TestSupport
import XCTest

@testable import HitRouting

/// Seeded random scenes: boundaries against references built from the
/// submitted tree alone (not from the compiled scene's ranks).
final class HoverPropertyTests: XCTestCase {
    /// A random tree of up to four levels with random rects, ties of
    /// `zIndex`, and (when `passThrough`) pass-through layers.
    func randomScene(_ rng: inout SplitMix64, passThrough: Bool) -> Scene {
        var counter = 0
        func layer(depth: Int) -> Layer {
            counter += 1
            let x = Double.random(in: 0...80, using: &rng)
            let y = Double.random(in: 0...80, using: &rng)
            var l = Layer(id: "l\(counter)", shape: Int.random(in: 0..<4, using: &rng) > 0 ? rect(x, y, 40, 40) : nil)
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: l.zIndex = 1
            case 1: l.zIndex = -1
            default: break
            }
            if passThrough, Int.random(in: 0..<3, using: &rng) == 0 { l.passThrough = true }
            if Int.random(in: 0..<8, using: &rng) == 0 { l.pointerEvents = .childrenOnly }
            if depth < 3 { l.children = (0..<Int.random(in: 0...3, using: &rng)).map { _ in layer(depth: depth + 1) } }
            return l
        }
        return Scene(layers: (0..<Int.random(in: 1...8, using: &rng)).map { _ in layer(depth: 0) })
    }

    /// Each layer's path (ids from the top level down) and its position in
    /// visiting order (SPEC §3: siblings by descending zIndex, the later
    /// entry first among equals; children before their parent).
    func reference(_ scene: Scene) -> (paths: [String: [String]], position: [String: Int]) {
        var paths: [String: [String]] = [:]
        var position: [String: Int] = [:]
        func visit(_ layers: [Layer], above: [String]) {
            let order = layers.indices.sorted { a, b in
                let (za, zb) = (layers[a].zIndex ?? 0, layers[b].zIndex ?? 0)
                return za != zb ? za > zb : a > b
            }
            for i in order {
                let path = above + [layers[i].id]
                paths[layers[i].id] = path
                visit(layers[i].children ?? [], above: path)
                position[layers[i].id] = position.count
            }
        }
        visit(scene.layers, above: [])
        return (paths, position)
    }

    func testSingleTargetBoundariesAreTheDOMSequence() throws {
        for seed in UInt64(0)..<300 {
            var rng = SplitMix64(seed: seed)
            let model = randomScene(&rng, passThrough: false)
            var live = LiveScene(model)
            let paths = reference(model).paths
            var sessions = PointerSessions()
            var previous: (target: String?, path: [String]) = (nil, [])
            for step in 0..<40 {
                let p = Point(Double.random(in: -10...130, using: &rng), Double.random(in: -10...130, using: &rng))
                let o = try sessions.apply(pointer: "m", phase: .hover, at: p, to: &live, trace: false, all: false, now: 0)
                let target = o.result.target.map { live.compiled.ids[$0] }
                let path = target.map { paths[$0]! } ?? []
                // pointerout / pointerleave (target first, up) / pointerover / pointerenter (top down).
                let expected: Boundary? =
                    target == previous.target
                    ? nil
                    : Boundary(
                        out: previous.target, leave: previous.path.reversed().filter { !path.contains($0) },
                        over: target, enter: path.filter { !previous.path.contains($0) }, removed: [])
                XCTAssertEqual(o.boundary, expected, "seed \(seed) step \(step) at \(p)")
                previous = (target, path)
            }
        }
    }

    func testHoveredSetsAndBoundariesFollowTheStatedOrdersWithReceivers() throws {
        var receiversSeen = 0
        for seed in UInt64(0)..<300 {
            var rng = SplitMix64(seed: seed)
            let model = randomScene(&rng, passThrough: true)
            var live = LiveScene(model)
            let (paths, position) = reference(model)
            /// Deepest first, then front to back.
            func leaveOrder(_ ids: Set<String>) -> [String] {
                ids.sorted { a, b in
                    paths[a]!.count != paths[b]!.count ? paths[a]!.count > paths[b]!.count : position[a]! < position[b]!
                }
            }
            var sessions = PointerSessions()
            var previous: (target: String?, set: Set<String>) = (nil, [])
            for step in 0..<40 {
                let p = Point(Double.random(in: -10...130, using: &rng), Double.random(in: -10...130, using: &rng))
                let plain = live.compiled.hit(p)
                receiversSeen += plain.receivers.count
                let o = try sessions.apply(pointer: "m", phase: .hover, at: p, to: &live, trace: false, all: false, now: 0)
                let target = o.result.target.map { live.compiled.ids[$0] }
                var set = Set(target.map { paths[$0]! } ?? [])
                for r in plain.receivers { set.formUnion(paths[live.compiled.ids[r]]!) }
                XCTAssertEqual(sessions.pointers["m"]?.reported.layers, leaveOrder(set), "seed \(seed) step \(step)")
                let changed = target != previous.target || set != previous.set
                let expected: Boundary? =
                    !changed
                    ? nil
                    : Boundary(
                        out: target != previous.target ? previous.target : nil, leave: leaveOrder(previous.set.subtracting(set)),
                        over: target != previous.target ? target : nil, enter: leaveOrder(set.subtracting(previous.set)).reversed(),
                        removed: [])
                XCTAssertEqual(o.boundary, expected, "seed \(seed) step \(step) at \(p)")
                previous = (target, set)
            }
        }
        XCTAssertGreaterThan(receiversSeen, 1000)  // the scenes do exercise receivers
    }
}
