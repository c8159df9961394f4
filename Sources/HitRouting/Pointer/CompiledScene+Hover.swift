/// The hovered set *H* of SPEC §11.1, in leave order (``Hover``).
extension CompiledScene {
    /// What a pointer over `target` is over, with the pass-through layers
    /// that received the point (`HitResult.receivers`): the layers on the
    /// target's path and on each receiver's path, each once.
    ///
    ///     scene.hover(target: button, receivers: [])  // ["button"], target "button"
    ///
    /// - Complexity: O(d) without receivers; with r of them, O(r·d) to
    ///   collect the h layers and O(h log h · d) to order them, d the depth.
    public func hover(target: Int?, receivers: [Int]) -> Hover {
        guard !receivers.isEmpty else { return Hover(target: target.map { ids[$0] }, layers: target.map(pathUp) ?? []) }
        var seen = Set<Int32>()
        var layers: [(n: Int32, depth: Int32)] = []
        for start in (target.map { [$0] } ?? []) + receivers {
            // Up to the first layer already taken: its ancestors are taken too.
            var k = Int32(start)
            while k >= 0, seen.insert(k).inserted {
                layers.append((k, 0))
                k = nodes[Int(k)].parent
            }
        }
        for i in layers.indices {
            var depth: Int32 = 0
            var k = nodes[Int(layers[i].n)].parent
            while k >= 0 {
                depth += 1
                k = nodes[Int(k)].parent
            }
            layers[i].depth = depth
        }
        layers.sort { a, b in a.depth != b.depth ? a.depth > b.depth : isInFront(a.n, of: b.n) }
        return Hover(target: target.map { ids[$0] }, layers: layers.map { ids[Int($0.n)] })
    }

    /// What a pointer captured by layer `n` is over: `n`'s path alone.
    /// - Complexity: O(depth).
    public func hover(capturedBy n: Int) -> Hover {
        Hover(target: ids[n], layers: pathUp(n))
    }

    /// Ids from layer `n` up to its top-level layer (deepest first).
    private func pathUp(_ n: Int) -> [String] {
        var out: [String] = []
        var k = Int32(n)
        while k >= 0 {
            out.append(ids[Int(k)])
            k = nodes[Int(k)].parent
        }
        return out
    }

    /// Whether layer `a` comes before layer `b` in visiting order, for two
    /// different layers of the same depth: the ancestors (or selves) that
    /// are siblings decide, front-most (least rank) first.
    /// - Complexity: O(depth).
    func isInFront(_ a: Int32, of b: Int32) -> Bool {
        var (x, y) = (a, b)
        while nodes[Int(x)].parent != nodes[Int(y)].parent {
            x = nodes[Int(x)].parent
            y = nodes[Int(y)].parent
        }
        return nodes[Int(x)].rank < nodes[Int(y)].rank
    }
}
