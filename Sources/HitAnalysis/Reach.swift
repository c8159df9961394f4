import HitRouting

/// The answer of `GET /scenes/{id}/layers/{layer}/reach` (SPEC §12.2).
public struct ReachReport: Sendable {
    /// One group of lost samples: the layer that took them (nil: none),
    /// why this layer did not, their area and the first of them.
    public struct Lost: Sendable, Equatable {
        public var taker: Int?
        public var reason: String
        public var cells: Int
        public var area: Double
        public var point: Point
    }

    public var grid: SampleGrid
    public var layer: Int
    public var cells: Int
    public var area: Double
    public var reachPoint: Point?
    public var clearance: Double?
    public var lost: [Lost]
    /// Why the layer can take no sample at all (`singular-transform`,
    /// `no-shape`), else nil.
    public var reason: String?
    public var work: Int
}

/// SPEC §12.2: where a layer is reached, and who takes the rest of its region and why.
public enum Reach {
    /// The reach of layer `n` over `grid`.
    ///
    /// Area, reach point and clearance come from the samples routed to `n`
    /// (`GridRouting`, `Clearance`). A lost sample lies in `n`'s own region
    /// (`CompiledScene.follow`, tested only inside its search box) but is
    /// routed elsewhere. Its reason is what a traced visit would record,
    /// found without tracing: going down from the top-level layer, `covered`
    /// where the visit stops (at the routed target) before that layer's
    /// visit begins (`VisitingOrder.begins`), else the first stop on the
    /// chain (`LayerChain.Stop`: the layer's own, or `ancestor-` and an
    /// ancestor's), else `covered` (a descendant took the point first, before
    /// the layer's own decision).
    /// - Complexity: O(samples · routing + layers + samples in the search
    ///   box · (depth + region test)); memory 12 bytes a sample, as `Audit`.
    public static func run(_ scene: CompiledScene, layer n: Int, grid: SampleGrid, workLimit: Int) throws(AnalysisError) -> ReachReport {
        var report = ReachReport(grid: grid, layer: n, cells: 0, area: 0, reachPoint: nil, clearance: nil, lost: [], reason: nil, work: 0)
        let chain = scene.chain(to: n)
        if scene.isSingular(chain) {
            report.reason = "singular-transform"
            return report
        }
        guard scene.hasRegion(n), let box = scene.searchBox(of: n) else {
            report.reason = "no-shape"
            return report
        }
        var work = 0
        let routed = try GridRouting.route(scene, grid, work: &work, workLimit: workLimit)
        let me = Int32(n)
        let labels = routed.map { $0 == me ? Int32(0) : -1 }
        let stats = LabelStats.count(labels, columns: grid.columns, labelCount: 1)
        report.cells = stats.count[0]
        report.area = grid.area(stats.count[0])
        if stats.count[0] > 0 {
            let far = Clearance.farthest(labels, columns: grid.columns, labelCount: 1)
            report.reachPoint = grid.sample(far.sample[0])
            report.clearance = Double(far.d2[0]).squareRoot() * grid.resolution
        }
        let order = VisitingOrder(scene)
        struct Key: Hashable {
            var taker: Int32
            var reason: String
        }
        var groups: [Key: (cells: Int, first: Int)] = [:]
        for j in grid.rows(from: box.minY, to: box.maxY) {
            for i in grid.columns(from: box.minX, to: box.maxX) {
                let s = j * grid.columns + i
                let taker = routed[s]
                guard taker != me else { continue }
                let outcome = scene.follow(chain, grid.sample(i, j), work: &work)
                guard outcome.inside else { continue }
                let key = Key(taker: taker, reason: reason(outcome, chain: chain, taker: taker, order: order))
                if let g = groups[key] {
                    groups[key] = (g.cells + 1, g.first)
                } else {
                    groups[key] = (1, s)
                }
            }
            if work > workLimit { throw .tooMuchWork(limit: workLimit) }
        }
        report.lost = groups.sorted { $0.value.cells != $1.value.cells ? $0.value.cells > $1.value.cells : $0.value.first < $1.value.first }
            .map {
                ReachReport.Lost(
                    taker: $0.key.taker >= 0 ? Int($0.key.taker) : nil, reason: $0.key.reason, cells: $0.value.cells,
                    area: grid.area($0.value.cells), point: grid.sample($0.value.first))
            }
        report.work = work
        return report
    }

    /// Why the chain's layer did not take a point inside its region that
    /// routed to `taker` (-1: nothing).
    static func reason(_ outcome: LayerChain.Outcome, chain: LayerChain, taker: Int32, order: VisitingOrder) -> String {
        let last = chain.layers.count - 1
        for (level, k) in chain.layers.enumerated() {
            guard order.begins(k, stoppingAt: taker) else { return "covered" }
            if let stop = outcome.stop, stop.level == level {
                let code = name(stop.why)
                if level < last { return "ancestor-" + code }
                switch stop.why {
                case .skip, .clipped:
                    return code  // decided as the visit begins
                case .childrenOnly, .passThrough, .selfOnly:
                    // Decided after the children: a descendant that took the point came first.
                    return taker >= 0 && order.isBelow(taker, k) ? "covered" : code
                }
            }
        }
        return "covered"
    }

    /// A stop's code: SPEC §3's reason, or `self-only` for an ancestor
    /// whose children are never visited.
    static func name(_ stop: LayerChain.Stop) -> String {
        switch stop {
        case .skip(let r): return r.rawValue
        case .clipped: return Reason.clipped.rawValue
        case .selfOnly: return "self-only"
        case .childrenOnly: return Reason.childrenOnly.rawValue
        case .passThrough: return Reason.passThrough.rawValue
        }
    }
}
