/// A scene as submitted together with its compiled form, kept in step.
/// Changes to one layer (a patch, a drag) update both in place, without
/// recompiling the rest of the scene.
public struct LiveScene: Sendable {
    public private(set) var model: Scene
    public private(set) var compiled: CompiledScene

    /// Compiles `model`.
    public init(_ model: Scene) {
        self.model = model
        self.compiled = CompiledScene(model)
    }

    /// Moves layer `n` by `delta`, in its parent's coordinates: its
    /// transform's translation grows by `delta` (SPEC §5 dragging).
    /// - Complexity: O(depth + the layer's subtree + its parent's index).
    /// Returns the layers whose bounds it read (`CompiledScene.update`).
    @discardableResult
    public mutating func translateLayer(_ n: Int, by delta: Point) -> Int {
        let path = compiled.modelPath(of: n)
        model.updateLayer(at: path) { layer in
            layer.transform = (layer.transform ?? .parts(TransformParts())).translated(by: delta)
        }
        return compiled.update(n, to: model.layer(at: path), sameRegion: true)  // a translation keeps the shape and its scale
    }

    /// Sets layer `n`'s translation to `t` (parent units): a journaled
    /// drag replayed. A layer without a transform gets `{"translate": t}`,
    /// as its first drag gave it.
    /// - Complexity: as `translateLayer`.
    public mutating func setTranslation(_ n: Int, to t: Point) {
        let path = compiled.modelPath(of: n)
        model.updateLayer(at: path) { layer in
            layer.transform = (layer.transform ?? .parts(TransformParts())).withTranslation(t)
        }
        compiled.update(n, to: model.layer(at: path), sameRegion: true)
    }

    /// Replaces layer `n`'s own fields with `layer`'s, keeping its id and
    /// children (a merge-patched layer, SPEC §4.1).
    /// - Returns: the layers it read (`CompiledScene.update`'s figure:
    ///   twice the subtree, plus every layer when the subtree's old bounds
    ///   touched an edge of the scene's).
    /// - Complexity: O(depth + the layer's subtree + its parent's index);
    ///   a changed `zIndex` also re-sorts the siblings.
    @discardableResult
    public mutating func replaceLayer(_ n: Int, with layer: Layer) -> Int {
        let path = compiled.modelPath(of: n)
        model.updateLayer(at: path) { current in
            let children = current.children
            current = layer
            current.id = compiled.ids[n]
            current.children = children
        }
        return compiled.update(n, to: model.layer(at: path))
    }

    /// The numeric problem (SPEC §1) that `translateLayer(n, by: delta)`
    /// would cause, or nil: a drag that would take a translation, a
    /// composed transform or a bound beyond the finite range is refused.
    /// - Complexity: as `CompiledScene.numericProblem(ifLayer:becomes:region:keepsRegion:)`.
    public func numericProblem(translatingLayer n: Int, by delta: Point) -> NumericProblem? {
        var work = 0
        return numericProblem(translatingLayer: n, by: delta, work: &work)
    }

    /// `numericProblem(translatingLayer:by:)`, adding the layers it read to `work`.
    public func numericProblem(translatingLayer n: Int, by delta: Point, work: inout Int) -> NumericProblem? {
        guard delta.isFinite else {
            return NumericProblem(layerPath: [], field: [.key("transform")], message: "the move is not finite")
        }
        var layer = model.layer(at: compiled.modelPath(of: n))
        layer.transform = (layer.transform ?? .parts(TransformParts())).translated(by: delta)
        return compiled.numericProblem(ifLayer: n, becomes: layer, region: nil, keepsRegion: true, work: &work)
    }

    /// The numeric problem (SPEC §1) that `replaceLayer(n, with: layer)`
    /// would cause, or nil. Its `field` is relative to the layer.
    public func numericProblem(replacingLayer n: Int, with layer: Layer) -> NumericProblem? {
        let toScene = compiled.parentToScene(n) * (layer.transform?.affine ?? .identity)
        let region = CompiledScene.region(for: layer, toScene: toScene)
        return compiled.numericProblem(ifLayer: n, becomes: layer, region: region, keepsRegion: false)
    }
}
