import Foundation
import TestSupport
import XCTest

@testable import HitRouting

func rect(_ x: Double, _ y: Double, _ w: Double, _ h: Double, radius: Double? = nil) -> Shape {
    Shape(.rect(x: x, y: y, width: w, height: h, cornerRadius: radius))
}

func ellipse(_ cx: Double, _ cy: Double, _ rx: Double, _ ry: Double) -> Shape {
    Shape(.ellipse(cx: cx, cy: cy, rx: rx, ry: ry))
}

func path(_ d: String, fillRule: FillRule? = nil, fill: Bool? = nil, stroke: Double? = nil) throws -> Shape {
    Shape(.path(d: d, elements: try SVGPathParser.parse(d)), fillRule: fillRule, fill: fill, stroke: stroke)
}

/// The SPEC's reference scene: a button, an even-odd ring over it and a
/// decorative frame on top.
func ringOverButton(ringRule: FillRule = .evenodd) -> Scene {
    Scene(
        id: "ring-demo", width: 240, height: 240,
        layers: [
            Layer(id: "button", action: "below.press", shape: rect(0, 0, 240, 240)),
            Layer(
                id: "ring", action: "ring.select",
                shape: Shape(
                    .compound([ellipse(120, 120, 120, 120), ellipse(120, 120, 48, 48)]), fillRule: ringRule)),
            Layer(
                id: "frame",
                shape: Shape(
                    .rect(x: 0, y: 0, width: 240, height: 240, cornerRadius: nil),
                    fill: false, stroke: 4),
                pointerEvents: PointerEvents.none),
        ])
}

extension CompiledScene {
    /// The id of the layer a point routes to.
    func targetID(_ x: Double, _ y: Double) -> String? {
        hit(Point(x, y)).target.map { ids[$0] }
    }

    /// The `(layer, decision, reason)` triples of the trace.
    func traceSummary(_ x: Double, _ y: Double) -> [String] {
        hit(Point(x, y), trace: true).trace.map { "\(ids[$0.layer]) \($0.decision.rawValue) \($0.reason.rawValue)" }
    }
}

func region(_ shape: Shape, slop: SlopEdges = .zero) -> Region {
    RegionBuilder.region(of: shape, slop: slop, tolerance: 1e-4)
}

/// A map of `count` star-shaped polygons, what the sibling grid is for: each
/// around a center in `0...extent` squared, with a vertex count in
/// `corners` at even angles, each vertex at a radius of 5–40 times a
/// random share in `spread`.
func polygonMap(
    count: Int, extent: Double, corners: ClosedRange<Int>, spread: ClosedRange<Double>,
    using rng: inout SplitMix64
) -> [[Point]] {
    (0..<count).map { _ in
        let center = Point(Double.random(in: 0...extent, using: &rng), Double.random(in: 0...extent, using: &rng))
        let n = Int.random(in: corners, using: &rng)
        let radius = Double.random(in: 5...40, using: &rng)
        return (0..<n).map { k in
            let a = Double(k) / Double(n) * 2 * .pi
            let d = radius * Double.random(in: spread, using: &rng)
            return Point(center.x + d * cos(a), center.y + d * sin(a))
        }
    }
}
