/// A shape (SPEC §2.2) in its layer's local coordinates, as submitted.
public struct Shape: Sendable {
    public var geometry: ShapeGeometry
    public var fillRule: FillRule?
    /// Whether the interior is part of the region (default true).
    public var fill: Bool?
    /// Width of the band around the outline that is part of the region (default 0).
    public var stroke: Double?

    public init(_ geometry: ShapeGeometry, fillRule: FillRule? = nil, fill: Bool? = nil, stroke: Double? = nil) {
        self.geometry = geometry
        self.fillRule = fillRule
        self.fill = fill
        self.stroke = stroke
    }
}

/// The geometry of each shape type of SPEC §2.2.
public enum ShapeGeometry: Sendable {
    /// `cornerRadius` is clamped to half the smaller side when used.
    case rect(x: Double, y: Double, width: Double, height: Double, cornerRadius: Double?)
    case ellipse(cx: Double, cy: Double, rx: Double, ry: Double)
    case circle(cx: Double, cy: Double, r: Double)
    /// At least 3 points, closed implicitly.
    case polygon([Point])
    /// At least 2 points, open (filled as if closed).
    case polyline([Point])
    /// SVG path data as submitted, with its parsed elements.
    case path(d: String, elements: [PathElement])
    /// One path made of the subpaths of all members, filled with the compound's rule.
    case compound([Shape])
    /// An alpha mask laid over a rectangle (SPEC §2.2 `mask`).
    case mask(Mask)

    /// The SPEC's name of the type (`"rect"`, `"path"`, …).
    public var typeName: String {
        switch self {
        case .rect: return "rect"
        case .ellipse: return "ellipse"
        case .circle: return "circle"
        case .polygon: return "polygon"
        case .polyline: return "polyline"
        case .path: return "path"
        case .compound: return "compound"
        case .mask: return "mask"
        }
    }
}

/// SVG / Canvas / Core Graphics fill rules, applied to a winding number.
public enum FillRule: String, Sendable, CaseIterable {
    case nonzero
    case evenodd

    /// Whether a point with this winding number is filled.
    @inlinable
    public func fills(winding: Int) -> Bool {
        switch self {
        case .nonzero: return winding != 0
        case .evenodd: return winding & 1 != 0
        }
    }
}
