extension CompiledScene {
    /// The numeric problem (SPEC §1) that giving layer `n` the fields of
    /// `layer` (same id and children; a patch or a drag) would cause, or nil
    /// when the scene would stay finite everywhere. Checked before the
    /// change, so that a refused change leaves the scene as it was.
    ///
    /// Looks at what `update(_:to:)` recomputes: the layer's transform, its
    /// inverse and composition, its region (`newRegion`, or the current one
    /// when `keepsRegion`), its descendants' composed transforms and scene bounds,
    /// the reach it gives its ancestors, and the scene's bounds. The
    /// problem's `layerPath` is empty and its `field` is relative to the
    /// layer (a patch body is one layer).
    /// - Complexity: O(depth + subtree), and O(layers) when the scene's
    ///   bounds with the subtree's new ones might not have a finite size.
    public func numericProblem(ifLayer n: Int, becomes layer: Layer, region newRegion: Region?, keepsRegion: Bool) -> NumericProblem? {
        var work = 0
        return numericProblem(ifLayer: n, becomes: layer, region: newRegion, keepsRegion: keepsRegion, work: &work)
    }

    /// `numericProblem(ifLayer:becomes:region:keepsRegion:)`, adding the
    /// layers it read to `work` (`Walk.work`).
    public func numericProblem(
        ifLayer n: Int, becomes layer: Layer, region newRegion: Region?, keepsRegion: Bool, work: inout Int
    ) -> NumericProblem? {
        let toParent = layer.transform?.affine ?? .identity
        let toScene = parentToScene(n) * toParent
        let region = keepsRegion ? (nodes[n].region >= 0 ? regions[Int(nodes[n].region)] : nil) : newRegion
        if let own = NumericProblem.check(layer, toParent: toParent, toScene: toScene, region: region) { return own }
        let transformField = NumericProblem.transformField(layer.transform)
        let shapeField: [NumericProblem.Token] = [.key(layer.hitShape != nil ? "hitShape" : "shape")]
        func problem(_ field: [NumericProblem.Token], _ message: String) -> NumericProblem {
            NumericProblem(layerPath: [], field: field, message: message)
        }
        // The subtree's scene bounds, with the new composed transforms.
        var subtreeBounds = Box.empty
        if let region { subtreeBounds = toScene.apply(region.bounds) }
        var descendants = 0  // pre-order: the subtree is n ... n + descendants
        defer { work &+= descendants }
        var pending: [(Int32, Affine)] = [(Int32(n), toScene)]
        while let (k, kToScene) = pending.popLast() {
            for child in children(of: k) {
                descendants += 1
                let node = nodes[Int(child)]
                let childToScene = kToScene * node.toParent
                guard childToScene.isFinite else {
                    return problem(transformField, "composed with it, a descendant's transform is not finite")
                }
                if node.region >= 0 {
                    guard let b = childToScene.applyChecked(regions[Int(node.region)].bounds) else {
                        return problem(transformField, "moves a descendant's bounds beyond the finite range")
                    }
                    subtreeBounds.formUnion(b)
                }
                pending.append((child, childToScene))
            }
        }
        // The reach it gives its parent and each ancestor above.
        var reach = region?.bounds ?? .empty
        for child in children(of: Int32(n)) { reach.formUnion(reachInParent(Int(child))) }
        var box = Box.empty
        for corner in reach.isEmpty ? [] : reach.corners {
            let q = toParent.apply(corner)
            guard q.isFinite else { return problem(transformField, "maps the layer's reach beyond the finite range") }
            box.formUnion(q)
        }
        var k = nodes[n].parent
        while k >= 0, !box.isEmpty {
            var grown = nodes[Int(k)].reach
            grown.formUnion(box)  // not empty: `box` is not
            box = .empty
            for corner in grown.corners {
                let q = nodes[Int(k)].toParent.apply(corner)
                guard q.isFinite else {
                    return problem(
                        layer.transform != nil ? transformField : shapeField,
                        "takes an ancestor's reach beyond the finite range")
                }
                box.formUnion(q)
            }
            k = nodes[Int(k)].parent
        }
        // The scene's bounds. The others' union lies within the scene's, so
        // a finite size of that with the subtree's settles it; else the
        // others are read one by one.
        var union = unionBounds
        union.formUnion(subtreeBounds)
        if union.hasFiniteSize { return nil }
        work &+= nodes.count
        union = subtreeBounds
        for i in nodes.indices where i < n || i > n + descendants { union.formUnion(nodes[i].sceneBounds) }
        if !union.hasFiniteSize {
            return problem(
                layer.transform != nil ? transformField : shapeField,
                "takes the scene's bounds beyond the finite range")
        }
        return nil
    }
}
