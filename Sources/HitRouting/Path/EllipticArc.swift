import Glibc

/// An elliptical arc in centre form, in local coordinates:
///
///     P(θ) = centre + R(φ) · (rx·cos θ, ry·sin θ),   θ = θ0 + t·Δθ, t ∈ [0, 1]
///
/// where `R(φ)` rotates by `φ` (clockwise on screen for φ > 0, y-down).
/// Positive `Δθ` runs clockwise on screen.
public struct EllipticArc: Sendable, Equatable {
    public var center: Point
    public var rx: Double
    public var ry: Double
    public var cosPhi: Double
    public var sinPhi: Double
    public var theta0: Double
    public var deltaTheta: Double

    /// The point at parameter `t ∈ [0, 1]`.
    @inlinable
    public func point(at t: Double) -> Point {
        let th = theta0 + t * deltaTheta
        let x = rx * cos(th)
        let y = ry * sin(th)
        return Point(center.x + cosPhi * x - sinPhi * y, center.y + sinPhi * x + cosPhi * y)
    }

    /// Parameters in (0, 1) where the arc's x or y is extremal.
    func extremaParameters() -> [Double] {
        // dx/dθ = -rx sinθ cosφ - ry cosθ sinφ = 0;  dy/dθ = -rx sinθ sinφ + ry cosθ cosφ = 0
        let bases = [atan2(-ry * sinPhi, rx * cosPhi), atan2(ry * cosPhi, rx * sinPhi)]
        var ts: [Double] = []
        guard deltaTheta != 0 else { return ts }
        for base in bases {
            // Every θ = base + kπ inside the sweep.
            let lo = min(theta0, theta0 + deltaTheta)
            let hi = max(theta0, theta0 + deltaTheta)
            var th = base + (((lo - base) / .pi).rounded(.up)) * .pi
            while th < hi {
                let t = (th - theta0) / deltaTheta
                if t > 0 && t < 1 { ts.append(t) }
                th += .pi
            }
        }
        return ts
    }

    /// Converts SVG's endpoint form to centre form (SVG 1.1 implementation
    /// notes F.6.5–F.6.6), scaling radii up when they cannot reach.
    ///
    /// Computed on the half-chord divided by the radii (`X = x1'/rx`,
    /// `Y = y1'/ry`), so that no square of a coordinate or radius is formed:
    /// radii of 1e300 give a finite arc (the centre is as far away as the
    /// radii say, the arc itself close to its chord).
    ///
    /// - Returns: `nil` when the arc is a straight line: a zero radius (the
    ///   caller draws a line), identical endpoints (the caller draws
    ///   nothing), or radii so much larger than the chord (10^7 times and
    ///   more) that the short arc is its chord to within rounding.
    public static func fromEndpoints(
        from p1: Point, to p2: Point, radii: Point, rotationDegrees: Double, largeArc: Bool, sweep: Bool
    ) -> EllipticArc? {
        var rx = abs(radii.x)
        var ry = abs(radii.y)
        guard p1 != p2, rx > 0, ry > 0 else { return nil }
        let phi = rotationDegrees.truncatingRemainder(dividingBy: 360) * .pi / 180
        let cp = cos(phi)
        let sp = sin(phi)
        let dx = p1.x / 2 - p2.x / 2
        let dy = p1.y / 2 - p2.y / 2
        let x1 = cp * dx + sp * dy
        let y1 = -sp * dx + cp * dy
        var X = x1 / rx
        var Y = y1 / ry
        guard X.isFinite, Y.isFinite else { return nil }
        // λ = X² + Y², taken as its root `hypot(X, Y)` without squaring X or Y.
        let big = max(abs(X), abs(Y))
        let small = min(abs(X), abs(Y))
        guard big > 0 else { return nil }
        let root = big * (1 + (small / big) * (small / big)).squareRoot()
        var coef = 0.0
        if root > 1 {
            rx *= root
            ry *= root
            X /= root
            Y /= root
        } else {
            // Radii beyond 10^7 times the half-chord bulge less than the
            // centre form's rounding (≈ 1e-16 · r): the short way is the chord.
            if root < 1e-7 && largeArc == false { return nil }
            // √((1 − λ) / λ): the centre's distance from the chord's middle, in radii.
            coef = (max(0, (1 - root) * (1 + root))).squareRoot() / root
            guard coef.isFinite else { return nil }
        }
        guard rx.isFinite, ry.isFinite else { return nil }
        if largeArc == sweep { coef = -coef }
        let cxp = coef * Y * rx
        let cyp = -coef * X * ry
        let center = Point(cp * cxp - sp * cyp + (p1.x / 2 + p2.x / 2), sp * cxp + cp * cyp + (p1.y / 2 + p2.y / 2))
        guard center.isFinite else { return nil }
        let ux = X - coef * Y
        let uy = Y + coef * X
        let vx = -X - coef * Y
        let vy = -Y + coef * X
        let theta0 = atan2(uy, ux)
        var delta = atan2(ux * vy - uy * vx, ux * vx + uy * vy)
        if !sweep && delta > 0 { delta -= 2 * .pi }
        if sweep && delta < 0 { delta += 2 * .pi }
        return EllipticArc(center: center, rx: rx, ry: ry, cosPhi: cp, sinPhi: sp, theta0: theta0, deltaTheta: delta)
    }
}
