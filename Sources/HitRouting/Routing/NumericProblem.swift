/// Where a scene's computed numbers stop being finite (SPEC §1): the first
/// layer, in document order, where a composed transform, its inverse, a
/// region's bounds (stroke and slop included) or the scene's bounds would
/// overflow, and the field of that layer that makes it so.
///
/// `CompiledScene` records the first one it meets (`numericProblem`); a
/// compiled scene without one keeps the guarantee that every transform,
/// inverse and box it holds is finite, with a finite width and height, so
/// that nothing it answers (bounds, `local` points) is ever non-finite.
public struct NumericProblem: Sendable, Equatable, Error {
    /// One step of a JSON Pointer inside a layer.
    public enum Token: Sendable, Equatable {
        case key(String)
        case index(Int)
    }

    /// Positions leading to the layer: the index in `Scene.layers`, then in
    /// each `children` (as `CompiledScene.modelPath(of:)`); empty when the
    /// problem is about a lone layer (a patch).
    public var layerPath: [Int]
    /// The field inside the layer, e.g. `["shape", "width"]`, `["transform", "scale"]`.
    public var field: [Token]
    /// What overflows, for a human.
    public var message: String

    public init(layerPath: [Int], field: [Token], message: String) {
        self.layerPath = layerPath
        self.field = field
        self.message = message
    }
}

extension NumericProblem {
    /// The field of `transform` that an overflow of the linear part
    /// (`linear`) or of the translation is due to: `scale` (or `matrix`)
    /// for the former, `translate` / `origin` (or `matrix`) for the latter.
    static func transformField(_ transform: Transform?, linear: Bool) -> [Token] {
        switch transform {
        case .matrix?:
            return [.key("transform"), .key("matrix")]
        case .parts(let p)?:
            if linear, p.scale != nil { return [.key("transform"), .key("scale")] }
            if !linear, p.translate != nil { return [.key("transform"), .key("translate")] }
            if !linear, p.origin != nil { return [.key("transform"), .key("origin")] }
            return [.key("transform")]
        case nil:
            return [.key("transform")]
        }
    }

    /// The field most likely to blame when a transform moves or stretches
    /// something beyond the finite range: its `scale`, else its
    /// `translate`, else its `origin` (or its `matrix`).
    static func transformField(_ transform: Transform?) -> [Token] {
        if case .parts(let p)? = transform {
            if p.scale != nil { return [.key("transform"), .key("scale")] }
            if p.translate != nil { return [.key("transform"), .key("translate")] }
            if p.origin != nil { return [.key("transform"), .key("origin")] }
        }
        return transformField(transform, linear: true)
    }

    /// The first problem of one layer's own numbers: its transform, the
    /// transform's inverse, the composed transform `toScene` (local →
    /// scene), its region's local bounds and their image in the scene.
    /// `field` and `layerPath` are left for the caller to complete.
    static func check(
        _ layer: Layer, toParent: Affine, toScene: Affine, region: Region?
    ) -> NumericProblem? {
        func problem(_ field: [Token], _ message: String) -> NumericProblem {
            NumericProblem(layerPath: [], field: field, message: message)
        }
        if !toParent.isFinite {
            if case .parts(let p)? = layer.transform, let o = p.origin, !((p.translate ?? .zero) + o).isFinite {
                return problem([.key("transform"), .key("origin")], "translate + origin is not finite")
            }
            let linear = !toParent.isLinearFinite
            return problem(
                transformField(layer.transform, linear: linear),
                "the transform's \(linear ? "scale" : "translation") is not finite once its parts are composed")
        }
        if let inverse = toParent.inverse, !inverse.isFinite {
            return problem(
                transformField(layer.transform, linear: !inverse.isLinearFinite),
                "the transform's inverse is not finite")
        }
        if !toScene.isFinite {
            let linear = !toScene.isLinearFinite
            return problem(
                transformField(layer.transform, linear: linear),
                "composed with the ancestors' transforms, the \(linear ? "scale" : "translation") is not finite")
        }
        guard let region, let shape = layer.effectiveHitShape else { return nil }
        let shapeKey = layer.hitShape != nil ? "hitShape" : "shape"
        if !region.bounds.hasFiniteSize {
            return RegionBuilder.nonFiniteField(of: shape, slop: layer.hitSlop, shapeKey: shapeKey)
                .map { problem($0.field, $0.message) }
                ?? problem([.key(shapeKey)], "its bounds are not finite")
        }
        if toScene.applyChecked(region.bounds) == nil {
            return problem([.key(shapeKey)], "its bounds in scene coordinates are not finite")
        }
        return nil
    }
}
