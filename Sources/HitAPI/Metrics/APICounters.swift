import HitMetrics

/// What the API counts on the request path: points routed, single and in
/// batches, and those of them that routed to no layer. One shard per event
/// loop (``HTTPRequest/eventLoop``), plus the shared one for handlers on
/// worker threads, summed when scraped.
public final class APICounters: Sendable {
    static let singlePoints = 0
    static let batchPoints = 1
    static let singleUnrouted = 2
    static let batchUnrouted = 3
    let cells: CounterCells

    public init(loops: Int) {
        cells = CounterCells(shards: max(1, loops), cells: 4)
    }

    /// Counts `n` points of an answered request that routed to no layer.
    @inline(__always)
    func countUnrouted(_ n: Int, batch: Bool, loop: Int?) {
        guard n > 0 else { return }
        let cell = batch ? APICounters.batchUnrouted : APICounters.singleUnrouted
        if let loop, loop >= 0, loop < cells.shards {
            cells.bump(shard: loop, cell: cell, by: UInt64(n))
        } else {
            cells.addShared(cell: cell, by: UInt64(n))
        }
    }

    public var pointsUnrouted: (single: UInt64, batch: UInt64) {
        (cells.sum(cell: APICounters.singleUnrouted), cells.sum(cell: APICounters.batchUnrouted))
    }

    /// Counts `n` points routed by a request run on `loop` (nil: any thread).
    @inline(__always)
    func countPoints(_ n: Int, batch: Bool, loop: Int?) {
        let cell = batch ? APICounters.batchPoints : APICounters.singlePoints
        if let loop, loop >= 0, loop < cells.shards {
            cells.bump(shard: loop, cell: cell, by: UInt64(max(0, n)))
        } else {
            cells.addShared(cell: cell, by: UInt64(max(0, n)))
        }
    }

    public var pointsRouted: (single: UInt64, batch: UInt64) {
        (cells.sum(cell: APICounters.singlePoints), cells.sum(cell: APICounters.batchPoints))
    }
}
