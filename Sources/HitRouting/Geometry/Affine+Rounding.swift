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
    /// in the box (a shear within a few orders of magnitude of singular).
    /// Then an index looks for the layer everywhere
    /// (`CompiledScene.Node.reachUnbounded`), and the layer gets no cover.
    ///
    /// The terms, with `u` the unit roundoff (2⁻⁵³) and `|M|` a map's
    /// entries taken by magnitude: the corners' rounding, `3u·|T|·|q|`; the
    /// visit's rounding and the inverse's error in local units,
    /// `(3u + η)·(|L|·|p| + |ẽ|) + τ`, where `η = 4u·(1 + (|ad| + |bc|) / |det|)`
    /// is the inverse's relative error and `τ` its translation's; and that
    /// local error carried back through `|T|`; each with an absolute floor
    /// for rounding among subnormals. The sum is doubled. A point whose
    /// image lands in the box has, per axis, `|p| ≤ F + M·|p|` (plus the
    /// small translation terms), with `F` the box's image by magnitude and
    /// `M = (3u + η)·|T|·|L|` the relative error carried round both maps;
    /// so `|p| ≤ F + 2·M·F / (1 − k)` while `k = ‖M‖∞ < 1/2`, and past that
    /// there is no bound (nil).
    /// - Complexity: O(1).
    public func roundingReach(inverse toLocal: Affine, over localBox: Box) -> (x: Double, y: Double)? {
        // The identity (most layers) maps exactly both ways; so does an empty box.
        guard !localBox.isEmpty, a != 1 || b != 0 || c != 0 || d != 1 || e != 0 || f != 0 else { return (0, 0) }
        let u = Double.ulpOfOne / 2
        let tiny = 8 * Double.leastNonzeroMagnitude
        let qx = Swift.max(abs(localBox.minX), abs(localBox.maxX))
        let qy = Swift.max(abs(localBox.minY), abs(localBox.maxY))
        // The box's image, by magnitude.
        let fx = abs(a) * qx + abs(c) * qy + abs(e)
        let fy = abs(b) * qx + abs(d) * qy + abs(f)
        // The stored inverse's error: from the determinant as `inverse` takes it when it is a
        // normal number, else from the linear part divided by its largest entry, as `scaledInverse`.
        // (Rounded as they are, these factors are within a few ulps: the doubling covers it.)
        let eta: Double
        let tx: Double
        let ty: Double
        let det = determinant
        if det.isNormal && (abs(a * d) + abs(b * c)).isFinite {
            let iDet = 1 / abs(det)
            eta = 4 * u * (1 + (abs(a * d) + abs(b * c)) * iDet)
            (tx, ty) = (4 * u * (abs(c * f) + abs(d * e)) * iDet, 4 * u * (abs(b * e) + abs(a * f)) * iDet)
        } else {
            let m = Swift.max(abs(a), abs(b), abs(c), abs(d))
            let im = 1 / m
            let na = a * im
            let nb = b * im
            let nc = c * im
            let nd = d * im
            let iDet = 1 / abs(na * nd - nb * nc)
            eta = 4 * u * (1 + (abs(na * nd) + abs(nb * nc)) * iDet)
            (tx, ty) = (4 * u * (abs(nc * f) + abs(nd * e)) * iDet * im, 4 * u * (abs(nb * e) + abs(na * f)) * iDet * im)
        }
        // M = (3u + η)·|T|·|L|: how much of |p| comes back as error, per axis.
        let g = 3 * u + eta
        let la = abs(toLocal.a)
        let lb = abs(toLocal.b)
        let lc = abs(toLocal.c)
        let ld = abs(toLocal.d)
        let mxx = g * (abs(a) * la + abs(c) * lb)
        let mxy = g * (abs(a) * lc + abs(c) * ld)
        let myx = g * (abs(b) * la + abs(d) * lb)
        let myy = g * (abs(b) * lc + abs(d) * ld)
        let k = Swift.max(mxx + mxy, myx + myy)
        guard k < 0.5 else { return nil }  // also NaN
        let px = fx + 2 * (mxx * fx + mxy * fy) / (1 - k)
        let py = fy + 2 * (myx * fx + myy * fy) / (1 - k)
        // The local error of `toLocal.apply(p)`, then carried back to the parent.
        let rx = g * (la * px + lc * py + abs(toLocal.e)) + tx + tiny
        let ry = g * (lb * px + ld * py + abs(toLocal.f)) + ty + tiny
        let x = 2 * (3 * u * fx + abs(a) * rx + abs(c) * ry + tiny)
        let y = 2 * (3 * u * fy + abs(b) * rx + abs(d) * ry + tiny)
        return x.isFinite && y.isFinite ? (x, y) : nil
    }
}
