import CCounters

/// Counters kept in shards, one per writing thread, summed when read.
///
/// Each shard is a run of 64-bit cells on cache lines of its own, written
/// by one thread only (an event loop): ``bump(shard:cell:by:)`` is a relaxed
/// load and store (two plain `mov`s, no lock prefix), and no other thread
/// writes those lines, so counting on the request path costs no atomic
/// read-modify-write and no cache-line transfer. The one extra shard,
/// ``sharedShard``, takes writes from any thread with an atomic add (for
/// work that runs off the loops: offloaded requests, rare events).
/// ``sum(cell:)`` and ``value(shard:cell:)`` may run on any thread at any
/// time: a scrape sees every count that was complete when it read that cell.
///
/// ```swift
/// let cells = CounterCells(shards: 2, cells: 3)
/// cells.bump(shard: 0, cell: 1, by: 5)   // on loop 0's thread only
/// cells.addShared(cell: 1, by: 2)        // from any thread
/// cells.sum(cell: 1)                     // 7
/// ```
public final class CounterCells: @unchecked Sendable {
    /// Shards for single writers (``bump(shard:cell:by:)``).
    public let shards: Int
    /// Cells per shard.
    public let cells: Int
    /// The index of the shard any thread may add to.
    public var sharedShard: Int { shards }
    /// Cells between the starts of two shards: `cells` rounded up to a
    /// whole number of 64-byte lines, so two writers never share a line.
    @usableFromInline let stride: Int
    @usableFromInline let base: UnsafeMutablePointer<UInt64>

    /// `shards` single-writer shards plus the shared one, every cell 0.
    public init(shards: Int, cells: Int) {
        self.shards = max(1, shards)
        self.cells = max(1, cells)
        stride = (self.cells + 7) / 8 * 8 + 8  // a spare line: no sharing with a neighbour's prefetch pair
        let count = stride * (self.shards + 1)
        let raw = UnsafeMutableRawPointer.allocate(byteCount: count * 8, alignment: 128)
        base = raw.bindMemory(to: UInt64.self, capacity: count)
        base.initialize(repeating: 0, count: count)
    }

    deinit {
        base.deallocate()
    }

    /// Adds `n` to `cell` of `shard`: only ever from the one thread that
    /// owns `shard`. Indices are not checked beyond a debug assertion.
    @inlinable @inline(__always)
    public func bump(shard: Int, cell: Int, by n: UInt64 = 1) {
        assert(shard >= 0 && shard < shards && cell >= 0 && cell < cells)
        ccounter_bump(base + (shard &* stride &+ cell), n)
    }

    /// Adds `n` to `cell` of the shared shard, from any thread.
    @inlinable @inline(__always)
    public func addShared(cell: Int, by n: UInt64 = 1) {
        assert(cell >= 0 && cell < cells)
        ccounter_add_shared(base + (shards &* stride &+ cell), n)
    }

    /// The first cell of `shard`, for its one writer to keep and bump
    /// through ``ShardPointer`` without touching this object (no reference
    /// counting on the hot path). Valid while the cells live.
    public func shardPointer(_ shard: Int) -> ShardPointer {
        ShardPointer(base + min(max(0, shard), shards) * stride)
    }

    /// `cell` of one shard (``sharedShard`` included).
    public func value(shard: Int, cell: Int) -> UInt64 {
        guard shard >= 0, shard <= shards, cell >= 0, cell < cells else { return 0 }
        return ccounter_load(base + (shard * stride + cell))
    }

    /// `cell` summed over every shard, the shared one included.
    /// - Complexity: O(shards).
    public func sum(cell: Int) -> UInt64 {
        guard cell >= 0, cell < cells else { return 0 }
        var total: UInt64 = 0
        for shard in 0...shards { total &+= ccounter_load(base + (shard * stride + cell)) }
        return total
    }

    /// Every cell summed over the shards.
    /// - Complexity: O(shards × cells).
    public func sums() -> [UInt64] {
        var totals = [UInt64](repeating: 0, count: cells)
        for shard in 0...shards {
            let row = base + shard * stride
            for cell in 0..<cells { totals[cell] &+= ccounter_load(row + cell) }
        }
        return totals
    }
}
