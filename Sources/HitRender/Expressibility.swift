import HitRouting

/// The features of a scene that an SVG render cannot reproduce for a
/// browser's own hit testing (SPEC §7): where they occur, a browser's
/// `elementFromPoint` over the render may name another layer than the
/// service routes to. Listed in the comment at the top of a render.
struct Expressibility {
    /// Layers with `hitSlop` (SVG has no Minkowski grow of a region): the
    /// first `named` ids, and how many in all.
    var slop: [String] = []
    var slopCount = 0
    /// Layers whose `clipChildren` region has a stroke band or no fill
    /// (an SVG clip path clips by the filled area only).
    var strokeClips: [String] = []
    var strokeClipCount = 0
    /// Layers whose hit shape is (or holds) an alpha `mask`, which SVG
    /// cannot hit-test by alpha (found by type name, so that this compiles
    /// with and without the mask shape in the core).
    var masks: [String] = []
    var maskCount = 0
    /// Every layer, counted.
    var layers = 0

    /// One walk over the submitted tree. O(layers).
    init(_ scene: Scene) {
        var stack: [[Layer]] = [scene.layers]
        while let level = stack.popLast() {
            for layer in level {
                layers += 1
                if layer.hidden ?? false { continue }
                if let s = layer.hitSlop, !s.edges.isZero, layer.effectiveHitShape != nil {
                    slopCount += 1
                    if slop.count < Expressibility.named { slop.append(layer.id) }
                }
                if let shape = layer.effectiveHitShape, Expressibility.hasMask(shape) {
                    maskCount += 1
                    if masks.count < Expressibility.named { masks.append(layer.id) }
                }
                if layer.clipChildren ?? false, let shape = layer.effectiveHitShape,
                    (shape.stroke ?? 0) > 0 || !(shape.fill ?? true)
                {
                    strokeClipCount += 1
                    if strokeClips.count < Expressibility.named { strokeClips.append(layer.id) }
                }
                if let children = layer.children, !children.isEmpty { stack.append(children) }
            }
        }
    }

    static func hasMask(_ shape: Shape) -> Bool {
        if shape.geometry.typeName == "mask" { return true }
        if case .compound(let members) = shape.geometry { return members.contains(where: hasMask) }
        return false
    }

    /// How many layers each list names at most.
    static let named = 20

    var isComplete: Bool { slopCount == 0 && strokeClipCount == 0 && maskCount == 0 }
}
