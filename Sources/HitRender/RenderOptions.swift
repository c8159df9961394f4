import HitRouting

/// What a render draws beside the scene (SPEC §7 query parameters).
public struct RenderOptions: Sendable {
    /// The routed point (scene coordinates) and its answer, with a trace:
    /// the point is marked, the target outlined and labelled, its ancestors
    /// outlined more thinly, every visited layer tinted by its decision.
    public var routed: (point: Point, result: HitResult)?
    /// Draw every hit region (fill, stroke band, slop) as a translucent overlay.
    public var regions: Bool
    /// The picture's width in pixels (its height follows the view box);
    /// nil: one pixel per scene unit, at most `defaultMaxPixels` on the longer side.
    public var pixelWidth: Double?
    /// A sample grid's cells drawn over the scene (an audit's or a diff's).
    public var cells: CellPicture?

    public init(routed: (point: Point, result: HitResult)? = nil, regions: Bool = false, pixelWidth: Double? = nil) {
        self.routed = routed
        self.regions = regions
        self.pixelWidth = pixelWidth
    }

    /// The longest side of a picture without `pixelWidth`.
    public static let defaultMaxPixels = 2048.0
    /// The largest `pixelWidth` accepted.
    public static let maxPixelWidth = 16384.0
}
