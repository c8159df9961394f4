/// What a renderer reads of a compiled scene, so that a picture draws the
/// same tree, in the same order, that routing walks (none of it is on the
/// hit path).
extension CompiledScene {
    /// The top-level layers back to front (the reverse of visiting order):
    /// the order in which a painter draws them, later ones on top.
    public var rootsBackToFront: ReversedCollection<[Int32]> { roots.reversed() }

    /// Layer `n`'s children back to front (see `rootsBackToFront`).
    public func childrenBackToFront(of n: Int) -> ReversedCollection<ArraySlice<Int32>> {
        children(of: Int32(n)).reversed()
    }

    /// Layer `n`'s position among its parent's `children` (or the scene's
    /// `layers`) as submitted: where its model `Layer` is.
    public func submittedPosition(of n: Int) -> Int { Int(nodes[n].position) }

    /// Layer `n`'s compiled hit region (local coordinates), or nil when it
    /// has none or it is empty.
    public func region(of n: Int) -> Region? {
        let r = nodes[n].region
        return r >= 0 ? regions[Int(r)] : nil
    }

    /// The map from layer `n`'s local coordinates to scene coordinates.
    public func localToScene(_ n: Int) -> Affine { parentToScene(n) * nodes[n].toParent }
}
