import Glibc

/// Distance from a point to the outline of an axis-aligned ellipse with
/// semi-axes `rx`, `ry` centred at the origin (local units).
///
/// Eberly's robust method ("Distance from a Point to an Ellipse, an
/// Ellipsoid, or a Hyperellipsoid"): the closest point's Lagrange parameter
/// is the root of a monotone function, found by bisection to full double
/// precision. Exact for circles.
///
/// - Complexity: O(1); at most ~1,100 bisection steps, usually ~60.
func ellipseOutlineDistance(rx: Double, ry: Double, _ p: Point) -> Double {
    // Beyond about 1e150 squares overflow: the distance scales with the
    // ellipse, so measure a copy scaled down (by a power of two: exact).
    let size = max(rx, ry, abs(p.x), abs(p.y))
    if size > 0x1p500, size.isFinite {
        let k = 0x1p-600
        return ellipseOutlineDistance(rx: rx * k, ry: ry * k, p * k) / k
    }
    if rx == ry { return abs(p.length - rx) }
    // Work in the first quadrant with e0 ≥ e1.
    let swap = rx < ry
    let e0 = swap ? ry : rx
    let e1 = swap ? rx : ry
    let y0 = abs(swap ? p.y : p.x)
    let y1 = abs(swap ? p.x : p.y)
    if y1 > 0 {
        if y0 > 0 {
            let z0 = y0 / e0
            let z1 = y1 / e1
            let g = z0 * z0 + z1 * z1 - 1
            if g == 0 { return 0 }
            let r0 = (e0 / e1) * (e0 / e1)
            let sbar = ellipseRoot(r0, z0, z1, g)
            let x0 = r0 * y0 / (sbar + r0)
            let x1 = y1 / (sbar + 1)
            return ((x0 - y0) * (x0 - y0) + (x1 - y1) * (x1 - y1)).squareRoot()
        }
        return abs(y1 - e1)
    }
    let numer0 = e0 * y0
    let denom0 = e0 * e0 - e1 * e1
    if numer0 < denom0 {
        let xde0 = numer0 / denom0
        let x0 = e0 * xde0
        let x1 = e1 * max(0, 1 - xde0 * xde0).squareRoot()
        return ((x0 - y0) * (x0 - y0) + x1 * x1).squareRoot()
    }
    return abs(y0 - e0)
}

private func ellipseRoot(_ r0: Double, _ z0: Double, _ z1: Double, _ gStart: Double) -> Double {
    let n0 = r0 * z0
    var s0 = z1 - 1
    var s1 = gStart < 0 ? 0 : (n0 * n0 + z1 * z1).squareRoot() - 1
    var s = 0.0
    for _ in 0..<1100 {
        s = (s0 + s1) / 2
        if s == s0 || s == s1 { break }
        let ratio0 = n0 / (s + r0)
        let ratio1 = z1 / (s + 1)
        let g = ratio0 * ratio0 + ratio1 * ratio1 - 1
        if g > 0 { s0 = s } else if g < 0 { s1 = s } else { break }
    }
    return s
}
