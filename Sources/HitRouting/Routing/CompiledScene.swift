/// A scene frozen for routing: the layer tree flattened into arrays in
/// pre-order, each layer's region built, transforms inverted and siblings
/// sorted into visiting order (front to back). Immutable and `Sendable`, so
/// any number of threads can route against one snapshot.
public struct CompiledScene: Sendable {
    /// Per layer, in pre-order (a parent before its descendants).
    var nodes: [Node]
    /// Layer ids, parallel to `nodes`.
    public internal(set) var ids: [String]
    /// Actions, parallel to `nodes`.
    public internal(set) var actions: [String?]
    /// `ids` as the JSON strings answers write, parallel to `nodes`.
    public private(set) var quotedIDs = QuotedTexts()
    /// `actions` as the JSON strings answers write (none where nil),
    /// parallel to `nodes`.
    public internal(set) var quotedActions = QuotedTexts()
    /// Compiled hit regions; `Node.region` indexes here.
    var regions: [Region]
    /// Children lists in visiting order; `Node.children` is a range here.
    var order: [Int32]
    /// Top-level layers in visiting order.
    var roots: [Int32]
    /// Layer index by id.
    public private(set) var indexByID: [String: Int32]
    /// Spatial indexes of long sibling lists; `Node.childIndex` and
    /// `rootIndex` point here.
    var indexes: [SiblingIndex] = []
    /// The index over the top-level layers, or -1.
    var rootIndex: Int32 = -1
    /// See `bounds`.
    var unionBounds = Box.empty
    /// The first place, in document order, where a number computed from
    /// the scene is not finite (SPEC §1), or nil. A scene with a problem
    /// must not be served: the API refuses it with a 422 naming the field.
    /// Without one, every transform, inverse and box of the scene is finite
    /// with a finite size, and so is every number routing answers with.
    public private(set) var numericProblem: NumericProblem?
    /// Flattened points the scene's compilation may still take (see
    /// `RegionBuilder.maxFlattenedPointsPerScene`).
    private var flatteningLeft = RegionBuilder.maxFlattenedPointsPerScene
    /// What each region slot's region took of `flatteningLeft`, by slot.
    private var flattenedPoints: [Int32] = []
    /// Region slots a patch emptied, for the next region a patch adds.
    private var freeRegionSlots: [Int32] = []
    /// Layers with `passThrough` set (whatever their other flags).
    var passThroughCount = 0

    /// Whether some layer is pass-through: then answers may list
    /// receivers, which `target(at:)` and `targets(at:into:)` do not report.
    public var hasPassThrough: Bool { passThroughCount > 0 }

    /// The number of layers in the tree.
    public var layerCount: Int { nodes.count }

    /// Why a layer is skipped before its region is looked at (SPEC §3, in order).
    enum Skip: UInt8, Sendable {
        case hidden, transparent, pointerEventsNone, singularTransform
    }

    /// Fields in three groups: the cover, which an indexed query reads
    /// first; the fields every visit reads (up to `fillRule`, see
    /// `hotBytes`); the rest. A query that the cover settles reads one or
    /// two cache lines of a 280-byte node, and a visit the next two or
    /// three, from the same page (one address translation, not two).
    ///
    /// `@unchecked Sendable`: `plainPolygon` points into a region of the
    /// same scene's `regions`, which is never written while it is shared.
    struct Node: @unchecked Sendable {
        /// Which parts of its box (in the parent) its region covers: for
        /// plain leaves; `none` for others.
        var cover: SiblingCover
        // Read by every visit.
        /// Parent → local; identity where `skip == .singularTransform`.
        var toLocal: Affine
        /// Where the layer's subtree might accept points, in its own local
        /// coordinates (conservative; empty when it never can).
        var reach: Box
        /// The region's `plainPolygon` (a copy of the address, so that a
        /// visit need not read the region).
        var plainPolygon: UnsafeBufferPointer<Point>?
        /// Index into `regions`, or -1 for a pure container.
        var region: Int32
        var childStart: Int32
        var childCount: Int32
        /// The index over its children, or -1 (scanned linearly).
        var childIndex: Int32
        var skip: Skip?
        var pointerEvents: PointerEvents
        var clipChildren: Bool
        /// SPEC §3: a hit on this layer makes it a receiver, not the target.
        var passThrough: Bool
        /// The region's fill rule, for `plainPolygon`.
        var fillRule: FillRule
        // Read by traces, updates and answers.
        /// Whether the layer has a `shape` or `hitShape` at all (its region may still be empty).
        var hasShape: Bool
        var draggable: Bool
        /// Whether no rounding bound holds for the subtree's reach in the
        /// parent (a near-singular transform here or below, where
        /// `Affine.roundingReach` is nil): the visit may accept points
        /// beyond `reachInParent`, so an index never skips it (`indexBox`).
        var reachUnbounded: Bool
        var parent: Int32
        /// Position among the parent's `children` (or the scene's `layers`) as submitted.
        var position: Int32
        /// Position in its parent's visiting order (0 is front-most).
        var rank: Int32
        var opacity: Double
        var zIndex: Double
        /// Local → parent (the layer's `transform`).
        var toParent: Affine
        /// Bounds of the region in scene coordinates (empty without a region).
        var sceneBounds: Box

        /// The bytes at the start of a node that hold its cover, which an
        /// indexed query reads before anything else.
        static let coverBytes = MemoryLayout<Node>.offset(of: \Node.toLocal).unsafelyUnwrapped
        /// The bytes at the start of a node that an indexed query and a visit read.
        static let hotBytes = MemoryLayout<Node>.offset(of: \Node.fillRule).unsafelyUnwrapped + 1

        /// Takes `region`'s plain polygon (or none) for `plainPolygon`.
        mutating func copyPlainPolygon(of region: Region?) {
            plainPolygon = region?.plainPolygon
            fillRule = region?.fillRule ?? .nonzero
        }
    }

    /// Flattens and compiles `scene`.
    ///
    /// Curves are flattened (where a stroke or slop needs it) to within
    /// 1e-3 scene units, from each layer's largest scale factor.
    /// - Complexity: O(layers · log(siblings) + vertices).
    public init(_ scene: Scene) {
        nodes = []
        ids = []
        actions = []
        regions = []
        order = []
        roots = []
        indexByID = [:]
        let count = scene.layerCount
        nodes.reserveCapacity(count)
        regions.reserveCapacity(count)
        ids.reserveCapacity(count)
        actions.reserveCapacity(count)
        indexByID.reserveCapacity(count)
        var rootIndices: [Int32] = []
        for layer in scene.layers {
            rootIndices.append(add(layer, parent: -1, position: rootIndices.count, parentToScene: .identity))
        }
        roots = visitingOrder(rootIndices)
        rootIndex = indexSiblings(roots)
        recomputeBounds()
        if numericProblem == nil, !unionBounds.hasFiniteSize { numericProblem = unionProblem(scene) }
    }

    /// Records `problem` for layer `n` unless an earlier one is recorded.
    private mutating func note(_ problem: NumericProblem?, at n: Int32) {
        guard numericProblem == nil, var problem else { return }
        problem.layerPath = modelPath(of: Int(n))
        numericProblem = problem
    }

    /// The layer (in document order) whose region makes the union of the
    /// scene's bounds overflow, as a problem.
    private func unionProblem(_ scene: Scene) -> NumericProblem? {
        var b = Box.empty
        for (n, node) in nodes.enumerated() {
            b.formUnion(node.sceneBounds)
            if !b.hasFiniteSize {
                let path = modelPath(of: n)
                return NumericProblem(
                    layerPath: path, field: [.key(scene.layer(at: path).hitShape != nil ? "hitShape" : "shape")],
                    message: "is so far from the layers before it that the scene's bounds overflow the finite range")
            }
        }
        return nil
    }

    /// Ranks `siblings` (in visiting order) and indexes them when there are
    /// enough; returns the index's number or -1.
    mutating func indexSiblings(_ siblings: [Int32]) -> Int32 {
        for (rank, n) in siblings.enumerated() { nodes[Int(n)].rank = Int32(rank) }
        guard siblings.count >= SiblingIndex.minimumSiblings else { return -1 }
        indexes.append(SiblingIndex(boxes: siblings.map { indexBox(Int($0)) }, layers: siblings))
        return Int32(indexes.count - 1)
    }

    #if DEBUG
        /// `SiblingIndex.checkInvariants` of every index, with its siblings;
        /// names the first problem.
        func checkIndexes() -> String? {
            if rootIndex >= 0, let problem = indexes[Int(rootIndex)].checkInvariants(layers: roots[...]) { return problem }
            for (n, node) in nodes.enumerated() where node.childIndex >= 0 {
                if let problem = indexes[Int(node.childIndex)].checkInvariants(layers: children(of: Int32(n))) {
                    return "layer \(n)'s children: \(problem)"
                }
            }
            return nil
        }
    #endif

    /// Where layer `n`'s subtree might accept points, in its parent's
    /// coordinates: its reach mapped there, grown by what rounding can add
    /// (`Affine.roundingReach`), so that an index that skips a point outside
    /// it skips only what the exact visit misses.
    func reachInParent(_ n: Int) -> Box {
        CompiledScene.inParent(nodes[n].reach, toParent: nodes[n].toParent, toLocal: nodes[n].toLocal)
    }

    /// Where an index over layer `n`'s siblings looks for it: its
    /// `reachInParent`, or every finite point when that is no bound
    /// (`Node.reachUnbounded`).
    func indexBox(_ n: Int) -> Box {
        nodes[n].reachUnbounded ? .finitePlane : reachInParent(n)
    }

    /// Layer `n`'s `reach` and `reachUnbounded`, from its region and its
    /// children's (which must be set).
    /// - Complexity: O(children).
    mutating func setReach(_ n: Int) {
        nodes[n].reach = reach(of: n)
        nodes[n].reachUnbounded = reachIsUnbounded(n)
    }

    /// Whether layer `n`'s subtree has no rounding bound in its parent
    /// (`Node.reachUnbounded`), from its own map over its reach and its
    /// children's flags. Conservative: a clip does not end it.
    /// - Complexity: O(children).
    func reachIsUnbounded(_ n: Int) -> Bool {
        if mapIsUnbounded(n) { return true }
        guard !nodes[n].reach.isEmpty, nodes[n].pointerEvents != .selfOnly, nodes[n].childCount > 0 else { return false }
        return children(of: Int32(n)).contains { nodes[Int($0)].reachUnbounded }
    }

    /// Whether layer `n`'s own transform has no rounding bound over its reach.
    /// - Complexity: O(1).
    func mapIsUnbounded(_ n: Int) -> Bool {
        let reach = nodes[n].reach  // fields, not the node: a copy retains its cover
        return !reach.isEmpty && nodes[n].toParent.roundingReach(inverse: nodes[n].toLocal, over: reach) == nil
    }

    /// `box` (local) mapped to the parent and grown by its rounding reach
    /// (unpadded where there is none: see `Node.reachUnbounded`).
    static func inParent(_ box: Box, toParent: Affine, toLocal: Affine) -> Box {
        let mapped = toParent.apply(box)
        guard let pad = toParent.roundingReach(inverse: toLocal, over: box) else { return mapped }
        return mapped.outset(dx: pad.x, dy: pad.y)
    }

    private mutating func add(_ layer: Layer, parent: Int32, position: Int, parentToScene: Affine) -> Int32 {
        let index = Int32(nodes.count)
        var node = CompiledScene.node(for: layer, parent: parent, position: position)
        node.region = compileRegion(for: layer, toScene: parentToScene * node.toParent, into: -1)
        let region = node.region >= 0 ? regions[Int(node.region)] : nil
        if let region {
            node.sceneBounds = (parentToScene * node.toParent).apply(region.bounds)
            node.copyPlainPolygon(of: region)
        }
        node.cover = cover(node, isLeaf: layer.children?.isEmpty ?? true)
        if node.passThrough { passThroughCount += 1 }
        nodes.append(node)
        ids.append(layer.id)
        actions.append(layer.action)
        quotedIDs.append(layer.id)
        quotedActions.append(layer.action)
        indexByID[layer.id] = index
        if numericProblem == nil {
            note(
                NumericProblem.check(layer, toParent: node.toParent, toScene: parentToScene * node.toParent, region: region),
                at: index)
        }
        let children = layer.children ?? []
        if !children.isEmpty {
            let toScene = parentToScene * node.toParent
            var childIndices: [Int32] = []
            childIndices.reserveCapacity(children.count)
            for (k, child) in children.enumerated() {
                childIndices.append(add(child, parent: index, position: k, parentToScene: toScene))
            }
            let sorted = visitingOrder(childIndices)
            nodes[Int(index)].childStart = Int32(order.count)
            nodes[Int(index)].childCount = Int32(sorted.count)
            order += sorted
            nodes[Int(index)].childIndex = indexSiblings(sorted)
        }
        setReach(Int(index))
        // Only a transform can map finite corners to infinite ones (a reach's
        // size may overflow where siblings spread far apart; the indexes
        // take such boxes).
        if numericProblem == nil, layer.transform != nil, !nodes[Int(index)].reach.isEmpty,
            !nodes[Int(index)].reach.corners.allSatisfy({ nodes[Int(index)].toParent.apply($0).isFinite })
        {
            note(
                NumericProblem(
                    layerPath: [], field: NumericProblem.transformField(layer.transform),
                    message: "maps the layer's reach (its region and its children's) beyond the finite range"), at: index)
        }
        return index
    }

    /// A layer's own node (no region, children or reach yet).
    static func node(for layer: Layer, parent: Int32, position: Int) -> Node {
        let toParent = layer.transform?.affine ?? .identity
        let inverse = toParent.inverse
        let opacity = layer.opacity ?? 1
        let pe = layer.pointerEvents ?? .auto
        var skip: Skip?
        if layer.hidden ?? false {
            skip = .hidden
        } else if opacity < 0.01 {
            skip = .transparent
        } else if pe == .none {
            skip = .pointerEventsNone
        } else if inverse == nil {
            skip = .singularTransform
        }
        return Node(
            cover: .none, toLocal: inverse ?? .identity, reach: .empty, plainPolygon: nil, region: -1, childStart: 0, childCount: 0,
            childIndex: -1,
            skip: skip, pointerEvents: pe, clipChildren: layer.clipChildren ?? false,
            passThrough: layer.passThrough ?? false, fillRule: .nonzero,
            hasShape: layer.effectiveHitShape != nil, draggable: layer.draggable ?? false, reachUnbounded: false,
            parent: parent, position: Int32(position), rank: 0, opacity: opacity, zIndex: layer.zIndex ?? 0,
            toParent: toParent, sceneBounds: .empty)
    }

    /// The cover of a layer (`node`, whose region is compiled) in its
    /// parent: of its plain polygon when it is a leaf that accepts points
    /// there and becomes the target when it does (not pass-through), else
    /// `none`.
    func cover(_ node: Node, isLeaf: Bool) -> SiblingCover {
        guard isLeaf, node.skip == nil, node.pointerEvents != .childrenOnly, !node.passThrough,
            let polygon = node.plainPolygon
        else { return .none }
        let bounds = regions[Int(node.region)].bounds
        guard let rounding = node.toParent.roundingReach(inverse: node.toLocal, over: bounds) else { return .none }
        return .plainPolygon(
            polygon, fillRule: node.fillRule, toParent: node.toParent, toLocal: node.toLocal,
            box: node.toParent.apply(bounds).outset(dx: rounding.x, dy: rounding.y), rounding: rounding)
    }

    /// Compiles `layer`'s region into region slot `slot` (a new or freed
    /// one when -1), drawing its flattened points from the scene's budget
    /// after giving back what the slot's old region took: however often
    /// layers are patched or rescaled, the scene's regions hold at most
    /// `RegionBuilder.maxFlattenedPointsPerScene` flattened points beyond
    /// each contour's minimum, as at upload. Returns the slot, or -1 when
    /// the layer has no region (`slot` is then emptied and freed).
    /// - Complexity: O(the region's size).
    mutating func compileRegion(for layer: Layer, toScene: Affine, into slot: Int32) -> Int32 {
        if slot >= 0 { flatteningLeft += Int(flattenedPoints[Int(slot)]) }
        let granted = min(RegionBuilder.maxFlattenedPointsPerRegion, flatteningLeft)
        var budget = FlatteningBudget(remaining: granted)
        let region = CompiledScene.region(for: layer, toScene: toScene, budget: &budget)
        guard let region else {
            if slot >= 0 {
                regions[Int(slot)] = .empty
                flattenedPoints[Int(slot)] = 0
                freeRegionSlots.append(slot)
            }
            return -1
        }
        let taken = granted - budget.remaining  // ≤ 2^18 (the budget never grows)
        flatteningLeft -= taken
        if slot >= 0 || !freeRegionSlots.isEmpty {
            let s = slot >= 0 ? slot : freeRegionSlots.removeLast()
            regions[Int(s)] = region
            flattenedPoints[Int(s)] = Int32(taken)
            return s
        }
        regions.append(region)
        flattenedPoints.append(Int32(taken))
        return Int32(regions.count - 1)
    }

    /// A layer's hit region, flattened (where needed) to within 1e-3 scene
    /// units given its local-to-scene map; nil when it has none.
    static func region(for layer: Layer, toScene: Affine) -> Region? {
        var budget = FlatteningBudget()
        return region(for: layer, toScene: toScene, budget: &budget)
    }

    /// `region(for:toScene:)`, drawing its flattened points from `budget`.
    static func region(for layer: Layer, toScene: Affine, budget: inout FlatteningBudget) -> Region? {
        guard let shape = layer.effectiveHitShape else { return nil }
        let scale = toScene.maxScale
        let tolerance = 1e-3 / (scale.isFinite && scale > 1e-9 ? scale : 1e-9)
        let region = RegionBuilder.region(of: shape, slop: layer.hitSlop?.edges ?? .zero, tolerance: tolerance, budget: &budget)
        return region.isEmpty ? nil : region
    }

    /// Siblings front to back: descending zIndex, later array entries first on ties.
    func visitingOrder(_ siblings: [Int32]) -> [Int32] {
        siblings.sorted { i, j in
            let zi = nodes[Int(i)].zIndex
            let zj = nodes[Int(j)].zIndex
            return zi != zj ? zi > zj : nodes[Int(i)].position > nodes[Int(j)].position
        }
    }

    /// The local box where `n`'s subtree might accept a point: its region
    /// (unless children-only) and its children's reach (unless self-only),
    /// cut to its region's bounds when it clips.
    func reach(of n: Int) -> Box {
        let node = nodes[n]
        guard node.skip == nil else { return .empty }
        var box = Box.empty
        if node.pointerEvents != .childrenOnly && node.region >= 0 { box = regions[Int(node.region)].bounds }
        if node.pointerEvents != .selfOnly {
            for child in children(of: Int32(n)) { box.formUnion(reachInParent(Int(child))) }
        }
        if node.clipChildren {
            guard node.region >= 0 else { return .empty }
            let clip = regions[Int(node.region)].bounds
            box = Box(
                minX: max(box.minX, clip.minX), minY: max(box.minY, clip.minY),
                maxX: min(box.maxX, clip.maxX), maxY: min(box.maxY, clip.maxY))
        }
        return box.isEmpty ? .empty : box
    }

    // MARK: - Queries

    /// The children of layer `n` in visiting order.
    func children(of n: Int32) -> ArraySlice<Int32> {
        let node = nodes[Int(n)]
        return order[Int(node.childStart)..<Int(node.childStart + node.childCount)]
    }

    /// The parent of layer `n`; nil for a top-level layer.
    public func parent(of n: Int) -> Int? {
        let parent = nodes[n].parent
        return parent >= 0 ? Int(parent) : nil
    }

    /// Calls `body` with each layer from the top-level one down to layer
    /// `n`, in that order, without building a list.
    /// - Complexity: O(depth), recursing up the ancestors (as deep as
    ///   routing recurses down them).
    public func forEachLayer(onPathTo n: Int, _ body: (Int) -> Void) {
        if let parent = parent(of: n) { forEachLayer(onPathTo: parent, body) }
        body(n)
    }

    /// Ids from the top-level layer down to layer `n`.
    public func path(to n: Int) -> [String] {
        var out: [String] = []
        forEachLayer(onPathTo: n) { out.append(ids[$0]) }
        return out
    }

    /// The action of layer `n` or of its nearest ancestor that has one, with
    /// the index of the layer that carries it.
    public func action(for n: Int) -> (action: String, layer: Int)? {
        actionLayer(for: n).map { (actions[$0] ?? "", $0) }
    }

    /// The layer whose action ``action(for:)`` gives for layer `n` (`n` or
    /// its nearest ancestor with an action), or nil; no string is touched.
    /// - Complexity: O(depth).
    public func actionLayer(for n: Int) -> Int? {
        var k = Int32(n)
        while k >= 0 {
            if quotedActions.hasText(Int(k)) { return Int(k) }
            k = nodes[Int(k)].parent
        }
        return nil
    }

    /// The map from scene coordinates to layer `n`'s local coordinates, or
    /// nil when a transform on the way is singular.
    public func sceneToLocal(_ n: Int) -> Affine? {
        var m = Affine.identity
        var k = Int32(n)
        while k >= 0 {
            let node = nodes[Int(k)]
            if node.skip == .singularTransform { return nil }
            m = m * node.toLocal
            k = node.parent
        }
        return m
    }

    /// The map from layer `n`'s parent's coordinates to scene coordinates.
    public func parentToScene(_ n: Int) -> Affine {
        var m = Affine.identity
        var k = nodes[n].parent
        while k >= 0 {
            m = nodes[Int(k)].toParent * m
            k = nodes[Int(k)].parent
        }
        return m
    }

    /// The positions leading to layer `n` in the submitted tree: the index in
    /// `Scene.layers`, then in each `children`.
    public func modelPath(of n: Int) -> [Int] {
        var out: [Int] = []
        var k = Int32(n)
        while k >= 0 {
            out.append(Int(nodes[Int(k)].position))
            k = nodes[Int(k)].parent
        }
        return out.reversed()
    }

    /// Whether layer `n` is `draggable`.
    public func isDraggable(_ n: Int) -> Bool { nodes[n].draggable }

    /// The union of every region's bounds in scene coordinates (SPEC §4.1
    /// summary `bounds`), or nil when no layer has a region. O(1): kept up
    /// to date by compiling and by every update.
    public var bounds: Box? { unionBounds.isEmpty ? nil : unionBounds }

    /// Recomputes `unionBounds` from every layer. O(layers).
    mutating func recomputeBounds() {  // O(layers)
        var b = Box.empty
        for node in nodes { b.formUnion(node.sceneBounds) }
        unionBounds = b
    }
}

extension Region {
    /// A region with nothing in it: no contours (degenerate geometry), or
    /// neither fill nor stroke.
    public var isEmpty: Bool {
        (mask.map { $0.opaquePixels == nil } ?? contours.isEmpty) || (!fill && halfStroke == 0)
    }
}
