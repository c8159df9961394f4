import HitMetrics

/// Compile times of uploaded scenes (create and replace), as a histogram;
/// uploads are rare next to hits, so any thread adds with an atomic.
public final class CompileTimes: Sendable {
    let buckets = DurationBuckets.standard
    private let cells: CounterCells

    public init() {
        cells = CounterCells(shards: 1, cells: DurationBuckets.standard.count + 1)
    }

    /// Records one compile of `nanoseconds`.
    public func record(nanoseconds: UInt64) {
        cells.addShared(cell: buckets.index(of: nanoseconds))
        cells.addShared(cell: buckets.count, by: nanoseconds)
    }

    /// The histogram so far (cumulative buckets, count, sum in seconds).
    public func histogram(labels: [Label] = []) -> HistogramSample {
        let sums = cells.sums()
        return HistogramSample(
            labels: labels, upperBounds: buckets.seconds, bucketCounts: Array(sums[0..<buckets.count]),
            sum: Double(sums[buckets.count]) / 1e9)
    }
}
