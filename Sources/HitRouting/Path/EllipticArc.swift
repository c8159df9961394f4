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
        let x = rx * cos(th), y = ry * sin(th)
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
            let lo = min(theta0, theta0 + deltaTheta), hi = max(theta0, theta0 + deltaTheta)
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
    /// - Returns: `nil` when the arc is a straight line: a zero radius (the
    ///   caller draws a line) or identical endpoints (the caller draws nothing).
    public static func fromEndpoints(
        from p1: Point, to p2: Point, radii: Point, rotationDegrees: Double, largeArc: Bool, sweep: Bool
    ) -> EllipticArc? {
        var rx = abs(radii.x), ry = abs(radii.y)
        guard p1 != p2, rx > 0, ry > 0 else { return nil }
        let phi = rotationDegrees.truncatingRemainder(dividingBy: 360) * .pi / 180
        let cp = cos(phi), sp = sin(phi)
        let dx = (p1.x - p2.x) / 2, dy = (p1.y - p2.y) / 2
        let x1 = cp * dx + sp * dy
        let y1 = -sp * dx + cp * dy
        let lambda = (x1 * x1) / (rx * rx) + (y1 * y1) / (ry * ry)
        if lambda > 1 {
            let s = lambda.squareRoot()
            rx *= s
            ry *= s
        }
        let rx2 = rx * rx, ry2 = ry * ry
        let num = rx2 * ry2 - rx2 * y1 * y1 - ry2 * x1 * x1
        let den = rx2 * y1 * y1 + ry2 * x1 * x1
        var coef = den > 0 ? max(0, num / den).squareRoot() : 0
        if largeArc == sweep { coef = -coef }
        let cxp = coef * rx * y1 / ry
        let cyp = -coef * ry * x1 / rx
        let center = Point(cp * cxp - sp * cyp + (p1.x + p2.x) / 2, sp * cxp + cp * cyp + (p1.y + p2.y) / 2)
        let ux = (x1 - cxp) / rx, uy = (y1 - cyp) / ry
        let vx = (-x1 - cxp) / rx, vy = (-y1 - cyp) / ry
        let theta0 = atan2(uy, ux)
        var delta = atan2(ux * vy - uy * vx, ux * vx + uy * vy)
        if !sweep && delta > 0 { delta -= 2 * .pi }
        if sweep && delta < 0 { delta += 2 * .pi }
        return EllipticArc(center: center, rx: rx, ry: ry, cosPhi: cp, sinPhi: sp, theta0: theta0, deltaTheta: delta)
    }
}
