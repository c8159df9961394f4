/// A bounding-volume hierarchy over one list of siblings, in their parent's
/// coordinates: which siblings' subtrees might accept a point.
///
/// Built once (median splits on the longer axis), frozen into flat arrays;
/// node `k`'s children are `first` and `first + 1` for an inner node, items
/// `first ..< first + count` for a leaf. Boxes are conservative: a sibling
/// not returned by `candidates` cannot accept the point, so routing through
/// the index gives exactly the linear scan's answer.
///
/// `@unchecked Sendable`: `gridView` holds addresses of this index's own
/// arrays, which are only written through `update`, on a unique copy.
struct SiblingIndex: @unchecked Sendable {
    struct Node: Sendable {
        var box: Box
        var first: Int32
        /// Items in a leaf; 0 for an inner node.
        var count: Int32
    }

    private(set) var nodes: [Node] = []
    /// Visiting ranks of the siblings (0 is front-most), leaves' items in order.
    private(set) var items: [Int32] = []
    /// Each rank's box, by rank.
    private(set) var itemBoxes: [Box]
    /// When the siblings suit a uniform grid (`usesGrid`), the grid; the
    /// tree is then empty.
    private(set) var grid = SiblingGrid.none
    var usesGrid: Bool { grid.columns > 0 }
    /// With a grid, where its arrays and `itemBoxes` are, so that routing
    /// reads them without copying the index (a copy retains every array).
    /// Refreshed after every change.
    private(set) var gridView: SiblingGrid.View?

    static let leafSize = 4
    /// Sibling lists shorter than this are scanned linearly.
    static let minimumSiblings = 8

    /// Indexes `boxes[rank]`, the reaches of the siblings `layers[rank]`.
    /// Siblings with empty boxes (that cannot accept now) share one leaf, so
    /// that an update can bring them in later.
    init(boxes: [Box], layers: [Int32]) {
        itemBoxes = boxes
        if let grid = SiblingGrid.make(boxes, layers: layers) {
            self.grid = grid
            gridView = grid.view(boxes: itemBoxes.withUnsafeBufferPointer { $0 })
            return
        }
        var ranks = (0..<boxes.count).filter { !boxes[$0].isEmpty }.map(Int32.init)
        let idle = (0..<boxes.count).filter { boxes[$0].isEmpty }.map(Int32.init)
        nodes.reserveCapacity(2 * ranks.count / SiblingIndex.leafSize + 3)
        items.reserveCapacity(boxes.count)
        nodes.append(Node(box: .empty, first: 0, count: 0))
        if idle.isEmpty || ranks.isEmpty {
            if ranks.isEmpty {
                nodes[0] = Node(box: .empty, first: 0, count: Int32(idle.count))
                items = idle
            } else {
                build(0, &ranks[...])
            }
            return
        }
        // Root: the tree of the others, and one leaf holding the idle ones.
        nodes.append(Node(box: .empty, first: 0, count: 0))
        nodes.append(Node(box: .empty, first: 0, count: 0))
        build(1, &ranks[...])
        nodes[2] = Node(box: .empty, first: Int32(items.count), count: Int32(idle.count))
        items += idle
        nodes[0] = Node(box: nodes[1].box, first: 1, count: 0)
    }

    private mutating func build(_ k: Int, _ ranks: inout ArraySlice<Int32>) {
        var box = Box.empty
        var centres = Box.empty
        for r in ranks {
            let b = itemBoxes[Int(r)]
            box.formUnion(b)
            centres.formUnion(Point((b.minX + b.maxX) / 2, (b.minY + b.maxY) / 2))
        }
        if ranks.count <= SiblingIndex.leafSize || (centres.width == 0 && centres.height == 0) {
            nodes[k] = Node(box: box, first: Int32(items.count), count: Int32(ranks.count))
            items += ranks
            return
        }
        let byX = centres.width >= centres.height
        let boxes = itemBoxes
        ranks.sort { a, b in
            let ba = boxes[Int(a)]
            let bb = boxes[Int(b)]
            return byX ? ba.minX + ba.maxX < bb.minX + bb.maxX : ba.minY + ba.maxY < bb.minY + bb.maxY
        }
        let mid = ranks.startIndex + ranks.count / 2
        let first = nodes.count
        nodes.append(Node(box: .empty, first: 0, count: 0))
        nodes.append(Node(box: .empty, first: 0, count: 0))
        nodes[k] = Node(box: box, first: Int32(first), count: 0)
        build(first, &ranks[ranks.startIndex..<mid])
        build(first + 1, &ranks[mid...])
    }

    /// In a tree: appends the ranks of the siblings whose boxes contain `p`, in no order.
    /// - Complexity: O(log n + candidates) for well-spread siblings.
    func candidates(containing p: Point, into out: inout [Int32]) {
        guard !items.isEmpty else { return }
        // Median splits keep the depth under log2(n) + 1, far below 128.
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 128) { stack in
            nodes.withUnsafeBufferPointer { nodes in
                items.withUnsafeBufferPointer { items in
                    itemBoxes.withUnsafeBufferPointer { boxes in
                        guard nodes[0].box.contains(p) || nodes[0].count > 0 else { return }
                        stack[0] = 0
                        var top = 1
                        while top > 0 {
                            top -= 1
                            let node = nodes[Int(stack[top])]
                            if node.count > 0 {
                                for i in Int(node.first)..<Int(node.first + node.count) {
                                    let item = items[i]
                                    if boxes[Int(item)].contains(p) { out.append(item) }
                                }
                            } else {
                                // Push only the children whose boxes hold p.
                                let left = node.first
                                if nodes[Int(left)].box.contains(p) {
                                    stack[top] = left
                                    top += 1
                                }
                                if nodes[Int(left) + 1].box.contains(p) {
                                    stack[top] = left + 1
                                    top += 1
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Replaces the box of sibling `rank` (layer `layer`) and refits the
    /// hierarchy. A box that grows far from its leaf keeps answers right but
    /// slows queries near it; a rebuild restores the shape. `layers` (all
    /// the siblings' layers by rank) is asked for when a grid is rebuilt.
    /// - Complexity: O(nodes).
    mutating func update(rank: Int, layer: Int32, box: Box, layers: () -> [Int32]) {
        let old = itemBoxes[rank]
        itemBoxes[rank] = box
        if usesGrid {
            if grid.noteMoved(rank, layer: layer, from: old) {
                gridView = grid.view(boxes: itemBoxes.withUnsafeBufferPointer { $0 })
            } else {
                self = SiblingIndex(boxes: itemBoxes, layers: layers())
            }
            return
        }
        // Children follow their parents in `nodes`: refit from the back.
        for k in stride(from: nodes.count - 1, through: 0, by: -1) {
            let node = nodes[k]
            var b = Box.empty
            if node.count > 0 {
                for i in node.first..<node.first + node.count { b.formUnion(itemBoxes[Int(items[Int(i)])]) }
            } else {
                b = nodes[Int(node.first)].box
                b.formUnion(nodes[Int(node.first) + 1].box)
            }
            nodes[k].box = b
        }
    }

    #if DEBUG
        /// Checks that every node's box holds its items' boxes, or that the grid
        /// lists every sibling (`layers` by rank); names the first that does not.
        func checkInvariants(layers: ArraySlice<Int32>) -> String? {
            func check(_ k: Int) -> (Box, String?) {
                let node = nodes[k]
                var b = Box.empty
                if node.count > 0 {
                    for i in node.first..<node.first + node.count { b.formUnion(itemBoxes[Int(items[Int(i)])]) }
                } else {
                    let (l, le) = check(Int(node.first))
                    let (r, re) = check(Int(node.first) + 1)
                    if let e = le ?? re { return (b, e) }
                    b = l
                    b.formUnion(r)
                }
                let holds =
                    b.isEmpty || (node.box.minX <= b.minX && node.box.minY <= b.minY && node.box.maxX >= b.maxX && node.box.maxY >= b.maxY)
                return (node.box, holds ? nil : "node \(k) box \(node.box) does not hold \(b)")
            }
            if usesGrid {
                // Every sibling that can accept is in some cell or loose.
                for rank in itemBoxes.indices
                where !itemBoxes[rank].isEmpty && !grid.lists(Int32(rank), layer: layers[layers.startIndex + rank]) {
                    return "sibling \(rank) is in no cell of the grid"
                }
                return nil
            }
            return nodes.isEmpty ? nil : check(0).1
        }
    #endif
}
