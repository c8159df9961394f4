import CCounters

/// One shard of ``CounterCells`` as a plain pointer, for the thread that
/// owns the shard: ``bump(_:by:)`` is a relaxed load and store. The owner
/// keeps the ``CounterCells`` alive for as long as it uses this.
public struct ShardPointer: @unchecked Sendable {
    @usableFromInline let base: UnsafeMutablePointer<UInt64>

    init(_ base: UnsafeMutablePointer<UInt64>) { self.base = base }

    @inlinable @inline(__always)
    public func bump(_ cell: Int, by n: UInt64 = 1) {
        ccounter_bump(base + cell, n)
    }
}
