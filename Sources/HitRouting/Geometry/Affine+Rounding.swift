/// How far rounding can carry a point between a layer's two maps.
///
/// The exact visit of a layer maps a point `p` of its parent to local
/// coordinates with the stored inverse, `q = toLocal.apply(p)`, and tests
/// `q`. The shortcuts of an untraced hit test `p` itself: against the
/// layer's box mapped forward with `toParent` (the sibling indexes), or
/// against parts of it (covers). Three roundings lie between the two: the
/// forward map of the box's corners, the stored inverse's own error (it
/// inverts `toParent` only up to the rounding of the determinant), and the
/// rounding of `apply`. A shortcut widened by their sum decides only what
/// the visit decides, so an untraced hit names the target a traced one
/// names.
extension Affine {
    /// A bound, per parent axis (this map is `toParent`), on how far beyond
    /// `apply(localBox)` a parent point can lie whose image under `toLocal`
    /// is computed inside `localBox`, including the rounding of that box's
    /// own corners. Nil when there is no useful bound: the bound is not
    /// finite, or the map is so ill-conditioned that far points could fall
    /// in the box (then the shortcuts keep the box as it is).
    ///
    /// The terms, with `u` the unit roundoff (2⁻⁵³) and `|M|` a map's
    /// entries taken by magnitude: the corners' rounding, `3u·|T|·|q|`; the
    /// visit's rounding and the inverse's error in local units,
    /// `(3u + η)·(|L|·|p| + |ẽ|) + τ`, where `η = 4u·(1 + (|ad| + |bc|) / |det|)`
    /// is the inverse's relative error and `τ` its translation's; and that
    /// local error carried back through `|T|`. The sum is doubled. `|p|` is
    /// taken as twice the box's image plus half its largest coordinate,
    /// which holds while `(3u + η)·‖|T|·|L|‖ ≤ 1/4`.
    /// - Complexity: O(1).
    public func roundingReach(inverse toLocal: Affine, over localBox: Box) -> (x: Double, y: Double)? {
        // The identity (most layers) maps exactly both ways; so does an empty box.
        guard !localBox.isEmpty, a != 1 || b != 0 || c != 0 || d != 1 || e != 0 || f != 0 else { return (0, 0) }
        let u = Double.ulpOfOne / 2
        let qx = Swift.max(abs(localBox.minX), abs(localBox.maxX)), qy = Swift.max(abs(localBox.minY), abs(localBox.maxY))
        // The box's image, by magnitude: where the points that matter are.
        let fx = abs(a) * qx + abs(c) * qy + abs(e), fy = abs(b) * qx + abs(d) * qy + abs(f)
        let px = 2 * fx + Swift.max(fx, fy) / 2, py = 2 * fy + Swift.max(fx, fy) / 2
        // The stored inverse's error, from the normalised linear part (scale-free, as `scaledInverse`).
        // (Rounded as it is, each factor is within a few ulps: the bound's doubling covers it.)
        let m = Swift.max(abs(a), abs(b), abs(c), abs(d)), im = 1 / m
        let na = a * im, nb = b * im, nc = c * im, nd = d * im
        let nDet = abs(na * nd - nb * nc), iDet = 1 / nDet
        let eta = 4 * u * (1 + (abs(na * nd) + abs(nb * nc)) * iDet)
        let tx = 4 * u * (abs(nc * f) + abs(nd * e)) * iDet * im, ty = 4 * u * (abs(nb * e) + abs(na * f)) * iDet * im
        // Far points stay out of the box only while the local error is a small part of |p|.
        let gain = Swift.max(abs(a) * (abs(toLocal.a) + abs(toLocal.c)) + abs(c) * (abs(toLocal.b) + abs(toLocal.d)),
                             abs(b) * (abs(toLocal.a) + abs(toLocal.c)) + abs(d) * (abs(toLocal.b) + abs(toLocal.d)))
        guard (3 * u + eta) * gain <= 0.25 else { return nil }
        // The local error of `toLocal.apply(p)`, then carried back to the parent.
        let rx = (3 * u + eta) * (abs(toLocal.a) * px + abs(toLocal.c) * py + abs(toLocal.e)) + tx
        let ry = (3 * u + eta) * (abs(toLocal.b) * px + abs(toLocal.d) * py + abs(toLocal.f)) + ty
        let x = 2 * (3 * u * fx + abs(a) * rx + abs(c) * ry), y = 2 * (3 * u * fy + abs(b) * rx + abs(d) * ry)
        return x.isFinite && y.isFinite ? (x, y) : nil
    }
}
