/// One layer of a scene (SPEC §2.1), as submitted. `nil` means "not given";
/// the `effective…` accessors apply the SPEC's defaults.
public struct Layer: Sendable {
    /// `[A-Za-z0-9._:-]{1,128}`, unique within the scene.
    public var id: String
    /// What happens when this layer, or a descendant without its own action, is the target.
    public var action: String?
    /// The drawn geometry, in the layer's local coordinates.
    public var shape: Shape?
    /// The region that receives hits; defaults to `shape`.
    public var hitShape: Shape?
    public var hitSlop: HitSlop?
    /// Maps local coordinates to the parent's.
    public var transform: Transform?
    public var zIndex: Double?
    public var pointerEvents: PointerEvents?
    public var hidden: Bool?
    public var opacity: Double?
    public var clipChildren: Bool?
    public var draggable: Bool?
    /// Rendering only; never affects hits.
    public var color: String?
    /// Back to front, in this layer's local coordinates.
    public var children: [Layer]?

    public init(
        id: String, action: String? = nil, shape: Shape? = nil, hitShape: Shape? = nil,
        hitSlop: HitSlop? = nil, transform: Transform? = nil, zIndex: Double? = nil,
        pointerEvents: PointerEvents? = nil, hidden: Bool? = nil, opacity: Double? = nil,
        clipChildren: Bool? = nil, draggable: Bool? = nil, color: String? = nil,
        children: [Layer]? = nil
    ) {
        self.id = id
        self.action = action
        self.shape = shape
        self.hitShape = hitShape
        self.hitSlop = hitSlop
        self.transform = transform
        self.zIndex = zIndex
        self.pointerEvents = pointerEvents
        self.hidden = hidden
        self.opacity = opacity
        self.clipChildren = clipChildren
        self.draggable = draggable
        self.color = color
        self.children = children
    }

    /// The shape that receives hits: `hitShape`, else `shape`.
    public var effectiveHitShape: Shape? { hitShape ?? shape }
}

/// SPEC §2.1 `pointerEvents`.
public enum PointerEvents: String, Sendable, CaseIterable {
    /// The layer and its children take part normally.
    case auto
    /// The layer and its whole subtree ignore hits.
    case none
    /// The layer itself is never the target; its children can be.
    case childrenOnly = "children-only"
    /// The layer can be the target; its children never are.
    case selfOnly = "self-only"
}

/// SPEC §2.1 `hitSlop`, as submitted: one number or per-side insets
/// (missing sides are 0). All values are ≥ 0, in local units.
public enum HitSlop: Sendable, Equatable {
    case uniform(Double)
    case insets(top: Double?, right: Double?, bottom: Double?, left: Double?)

    /// The four insets with defaults applied.
    public var edges: SlopEdges {
        switch self {
        case .uniform(let d): return SlopEdges(top: d, right: d, bottom: d, left: d)
        case .insets(let t, let r, let b, let l):
            return SlopEdges(top: t ?? 0, right: r ?? 0, bottom: b ?? 0, left: l ?? 0)
        }
    }
}

/// How far a hit region grows on each side, in local units.
public struct SlopEdges: Sendable, Equatable {
    public var top, right, bottom, left: Double
    public static let zero = SlopEdges(top: 0, right: 0, bottom: 0, left: 0)
    public var isZero: Bool { top == 0 && right == 0 && bottom == 0 && left == 0 }
}
