/// A bounding-volume hierarchy over one list of siblings, in their parent's
/// coordinates: which siblings' subtrees might accept a point.
///
/// Built once (median splits on the longer axis), frozen into flat arrays;
/// node `k`'s children are `first` and `first + 1` for an inner node, items
/// `first ..< first + count` for a leaf. Boxes are conservative: a sibling
/// not returned by `candidates` cannot accept the point, so routing through
/// the index gives exactly the linear scan's answer.
struct SiblingIndex: Sendable {
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

    static let leafSize = 4
    /// Sibling lists shorter than this are scanned linearly.
    static let minimumSiblings = 8

    /// Indexes `boxes[rank]`; empty boxes (siblings that can never accept) are left out.
    init(boxes: [Box]) {
        itemBoxes = boxes
        var ranks = (0..<boxes.count).filter { !boxes[$0].isEmpty }.map(Int32.init)
        guard !ranks.isEmpty else { return }
        nodes.reserveCapacity(2 * ranks.count / SiblingIndex.leafSize + 1)
        items.reserveCapacity(ranks.count)
        nodes.append(Node(box: .empty, first: 0, count: 0))
        build(0, &ranks[...])
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
            let ba = boxes[Int(a)], bb = boxes[Int(b)]
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

    /// Appends the ranks of the siblings whose boxes contain `p`, in no order.
    /// - Complexity: O(log n + candidates) for well-spread siblings.
    func candidates(containing p: Point, into out: inout [Int32]) {
        guard !nodes.isEmpty else { return }
        // Median splits keep the depth under log2(n) + 1, far below 128.
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 128) { stack in
            nodes.withUnsafeBufferPointer { nodes in
                items.withUnsafeBufferPointer { items in
                    stack[0] = 0
                    var top = 1
                    while top > 0 {
                        top -= 1
                        let node = nodes[Int(stack[top])]
                        guard node.box.contains(p) else { continue }
                        if node.count > 0 {
                            for i in Int(node.first)..<Int(node.first + node.count) { out.append(items[i]) }
                        } else {
                            stack[top] = node.first
                            stack[top + 1] = node.first + 1
                            top += 2
                        }
                    }
                }
            }
        }
    }

    /// Replaces the box of sibling `rank` and refits the hierarchy. A rank
    /// that was left out (empty box) is only recorded: a full rebuild adds it.
    /// - Returns: false when the sibling is not in the tree and its new box
    ///   is not empty (the caller must rebuild).
    /// - Complexity: O(nodes).
    mutating func update(rank: Int, box: Box) -> Bool {
        let wasIndexed = !itemBoxes[rank].isEmpty
        itemBoxes[rank] = box
        guard wasIndexed else { return box.isEmpty }
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
        return true
    }

    #if DEBUG
    /// Checks that every node's box holds its items' boxes; names the first node that does not.
    func checkInvariants() -> String? {
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
            let holds = b.isEmpty || (node.box.minX <= b.minX && node.box.minY <= b.minY && node.box.maxX >= b.maxX && node.box.maxY >= b.maxY)
            return (node.box, holds ? nil : "node \(k) box \(node.box) does not hold \(b)")
        }
        return nodes.isEmpty ? nil : check(0).1
    }
    #endif
}
