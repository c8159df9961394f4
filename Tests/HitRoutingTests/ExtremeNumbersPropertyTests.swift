import Foundation
import TestSupport
import XCTest

@testable import HitRouting

/// Seeded scenes biased to the extremes of the doubles (±1e308, 5e-324,
/// 1e200 scales, huge strokes and slops, arcs with huge radii): compiling
/// and routing never trap, and a scene without a `numericProblem` answers
/// only finite numbers, the same with and without its indexes.
final class ExtremeNumbersPropertyTests: XCTestCase {
    static let extremes: [Double] = [0, 1, -1, 10, 1e308, -1e308, 1.7e308, -1.7e308, 5e-324, 1e200, -1e200, 1e-200, 1e154, 2.5]

    func value(_ rng: inout SplitMix64) -> Double {
        Bool.random(using: &rng) ? Self.extremes.randomElement(using: &rng)! : Double.random(in: -100...100, using: &rng)
    }

    func size(_ rng: inout SplitMix64) -> Double { abs(value(&rng)) }

    func shape(_ rng: inout SplitMix64) -> Shape {
        let stroke: Double? = Int.random(in: 0..<3, using: &rng) == 0 ? size(&rng) : nil
        let geometry: ShapeGeometry
        switch Int.random(in: 0..<5, using: &rng) {
        case 0:
            geometry = .rect(
                x: value(&rng), y: value(&rng), width: size(&rng), height: size(&rng),
                cornerRadius: Bool.random(using: &rng) ? size(&rng) : nil)
        case 1: geometry = .ellipse(cx: value(&rng), cy: value(&rng), rx: size(&rng), ry: size(&rng))
        case 2: geometry = .polygon((0..<Int.random(in: 3...6, using: &rng)).map { _ in Point(value(&rng), value(&rng)) })
        case 3: geometry = .polyline((0..<Int.random(in: 2...4, using: &rng)).map { _ in Point(value(&rng), value(&rng)) })
        default:
            let elements: [PathElement] = [
                .move(Point(value(&rng), value(&rng))),
                .arc(
                    radii: Point(size(&rng), size(&rng)), rotation: value(&rng), largeArc: Bool.random(using: &rng),
                    sweep: Bool.random(using: &rng), to: Point(value(&rng), value(&rng))),
                .cubic(c1: Point(value(&rng), value(&rng)), c2: Point(value(&rng), value(&rng)), to: Point(value(&rng), value(&rng))),
                .quad(c: Point(value(&rng), value(&rng)), to: Point(value(&rng), value(&rng))),
                .close,
            ]
            geometry = .path(d: "", elements: elements)
        }
        return Shape(geometry, fill: Int.random(in: 0..<4, using: &rng) != 0, stroke: stroke)
    }

    func transform(_ rng: inout SplitMix64) -> Transform? {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return nil
        case 1: return .matrix(Affine(a: value(&rng), b: value(&rng), c: value(&rng), d: value(&rng), e: value(&rng), f: value(&rng)))
        default:
            return .parts(
                TransformParts(
                    translate: Bool.random(using: &rng) ? Point(value(&rng), value(&rng)) : nil,
                    rotate: Bool.random(using: &rng) ? value(&rng) : nil,
                    scale: Bool.random(using: &rng) ? .uniform(value(&rng)) : nil,
                    origin: Bool.random(using: &rng) ? Point(value(&rng), value(&rng)) : nil))
        }
    }

    func layers(_ rng: inout SplitMix64, depth: Int, next: inout Int) -> [Layer] {
        let count = Int.random(in: 0..<4, using: &rng) == 0 ? Int.random(in: 8...70, using: &rng) : Int.random(in: 1...3, using: &rng)
        return (0..<count).map { _ in
            next += 1
            let slop: HitSlop? = Int.random(in: 0..<3, using: &rng) == 0 ? .uniform(size(&rng)) : nil
            let kids = depth < 3 && Int.random(in: 0..<3, using: &rng) == 0 ? layers(&rng, depth: depth + 1, next: &next) : nil
            return Layer(
                id: "l\(next)", shape: Int.random(in: 0..<5, using: &rng) == 0 ? nil : shape(&rng), hitSlop: slop,
                transform: transform(&rng), clipChildren: Int.random(in: 0..<6, using: &rng) == 0, draggable: true,
                children: kids)
        }
    }

    func testExtremeScenesNeverTrapAndAnswerOnlyFiniteNumbers() {
        var valid = 0
        for seed in UInt64(0)..<40 {
            if ProcessInfo.processInfo.environment["EXTREME_TRACE"] != nil {
                FileHandle.standardError.write("seed \(seed)\n".data(using: .utf8)!)
            }
            var rng = SplitMix64(seed: seed)
            var next = 0
            let scene = Scene(layers: layers(&rng, depth: 0, next: &next))
            var live = LiveScene(scene)
            let compiled = live.compiled
            guard compiled.numericProblem == nil else { continue }
            valid += 1
            if let b = compiled.bounds {
                XCTAssertTrue(b.hasFiniteSize, "seed \(seed): bounds \(b)")
            }
            for n in 0..<compiled.layerCount {
                XCTAssertTrue(compiled.nodes[n].toLocal.isFinite && compiled.nodes[n].toParent.isFinite, "seed \(seed) layer \(n)")
                XCTAssertTrue(compiled.nodes[n].sceneBounds.hasFiniteSize, "seed \(seed) layer \(n)")
            }
            for _ in 0..<12 {
                let p = Point(value(&rng), value(&rng))
                let r = compiled.hit(p, trace: true, all: true)
                XCTAssertTrue(r.local?.isFinite ?? true, "seed \(seed) p \(p)")
                for entry in r.trace { XCTAssertTrue(entry.local?.isFinite ?? true, "seed \(seed) p \(p)") }
                XCTAssertEqual(compiled.target(at: p), compiled.hit(p).target, "seed \(seed) p \(p)")
                XCTAssertEqual(compiled.hit(p).target, r.target, "seed \(seed) p \(p)")
            }
            // Drags by extreme moves: refused or finite.
            var sessions = PointerSessions()
            for _ in 0..<6 {
                let p = Point(value(&rng), value(&rng))
                let phase: PointerSessions.Phase = [.down, .move, .move, .up].randomElement(using: &rng)!
                if let outcome = try? sessions.apply(pointer: "f", phase: phase, at: p, to: &live, trace: true, all: true, now: 0) {
                    XCTAssertTrue(outcome.result.local?.isFinite ?? true, "seed \(seed)")
                    XCTAssertTrue(outcome.result.trace.allSatisfy { $0.local?.isFinite ?? true }, "seed \(seed)")
                }
                XCTAssertNil(live.compiled.numericProblem)
                XCTAssertTrue(live.compiled.bounds?.hasFiniteSize ?? true, "seed \(seed): \(String(describing: live.compiled.bounds))")
                for n in 0..<live.compiled.layerCount {
                    XCTAssertTrue(live.compiled.nodes[n].sceneBounds.hasFiniteSize, "seed \(seed) layer \(n) after a drag")
                    XCTAssertTrue(live.compiled.nodes[n].toParent.isFinite, "seed \(seed) layer \(n) after a drag")
                }
            }
        }
        XCTAssertGreaterThan(valid, 4)  // the generator reaches valid scenes, not only refused ones
    }
}
