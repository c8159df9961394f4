import HitMetrics
import Synchronization

/// The bytes of responses all connections together may hold in memory
/// until they are sent (``ServerConfiguration/maxBufferedResponseBytes``),
/// so that clients that ask for big answers (a scene, a render, a traced
/// batch) and never read them cannot together exhaust the process: each
/// small request could otherwise pin megabytes until the write timeout.
///
/// While the queued bytes are at or past the capacity:
/// - a response body over ``freeBytes`` is replaced by a 503
///   `/problems/busy` with `Retry-After: 1` (its memory freed at once);
/// - every connection stops taking pipelined requests while it has output
///   waiting (the per-connection high-water mark drops to one byte), so
///   small answers cannot pile up either.
/// The bound is thus the capacity plus at most one response per connection
/// and per loop.
///
/// Counting: each loop adds what it queues and what it frees (a chunk
/// sent whole, a connection closed with output left) to cells of its own (``CounterCells``, no atomic read-modify-write);
/// the sum is read when a large response is about to be queued and once
/// per timeout sweep.
final class OutputBudget: Sendable {
    /// Response bodies this small are always queued.
    static let freeBytes = 64 * 1024
    /// Cells of each loop's shard.
    static let queuedCell = 0
    static let drainedCell = 1

    let capacity: Int
    let cells: CounterCells
    private let refused = Atomic<UInt64>(0)

    init(capacity: Int, loops: Int) {
        self.capacity = max(0, capacity)
        cells = CounterCells(shards: max(1, loops), cells: 2)
    }

    /// Bytes held over all loops now (queued minus freed).
    /// - Complexity: O(loops).
    var queued: Int {
        let q = cells.sum(cell: Self.queuedCell)
        let d = cells.sum(cell: Self.drainedCell)
        return q > d ? Int(truncatingIfNeeded: q &- d) : 0
    }

    var isFull: Bool { queued >= capacity }

    /// Counts one response replaced by a 503.
    func noteRefusal() { refused.add(1, ordering: .relaxed) }

    /// Responses replaced by a 503 for want of room, since the start.
    var refusals: UInt64 { refused.load(ordering: .relaxed) }
}
