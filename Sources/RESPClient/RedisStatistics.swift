import HitMetrics

/// What a ``RedisClient`` (and its ``RedisSubscriber``) counted: exchange
/// round trips as a duration histogram, failed exchanges by kind,
/// connections opened, recoveries (the first good exchange after a failure),
/// subscriptions made and pub/sub messages received.
///
/// Exchanges are round trips to another machine, rare next to hits: each
/// count is one relaxed atomic add on a shared cell.
public final class RedisStatistics: Sendable {
    public let buckets = DurationBuckets.standard
    /// The kinds ``RedisError`` names, as metric labels.
    public static let errorKinds = ["unreachable", "timeout", "connection_lost", "protocol_error", "refused"]

    private let cells: CounterCells
    private var sumCell: Int { buckets.count }
    private var errorBase: Int { buckets.count + 1 }
    private var opened: Int { errorBase + Self.errorKinds.count }
    private var recoveries: Int { opened + 1 }
    private var subscriptions: Int { opened + 2 }
    private var messages: Int { opened + 3 }

    public init() {
        cells = CounterCells(shards: 1, cells: DurationBuckets.standard.count + 1 + Self.errorKinds.count + 4)
    }

    /// One exchange (borrowing or opening a connection, writing, reading
    /// every reply) that took `nanoseconds`, whether it succeeded or not.
    func exchange(nanoseconds: UInt64) {
        cells.addShared(cell: buckets.index(of: nanoseconds))
        cells.addShared(cell: sumCell, by: nanoseconds)
    }

    func failure(_ kind: RedisError.Kind) {
        let slot: Int
        switch kind {
        case .unreachable: slot = 0
        case .timeout: slot = 1
        case .connectionLost: slot = 2
        case .protocolError: slot = 3
        case .refused: slot = 4
        }
        cells.addShared(cell: errorBase + slot)
    }

    func connectionOpened() { cells.addShared(cell: opened) }
    func recovered() { cells.addShared(cell: recoveries) }
    func subscribed() { cells.addShared(cell: subscriptions) }
    func message() { cells.addShared(cell: messages) }

    /// A consistent-enough reading (each cell read once).
    public struct Snapshot: Sendable {
        /// Per bucket (not cumulative); the last is `+Inf`.
        public var bucketCounts: [UInt64]
        public var upperBounds: [Double]
        public var sumSeconds: Double
        /// By ``RedisStatistics/errorKinds``.
        public var errors: [UInt64]
        public var connectionsOpened: UInt64
        public var recoveries: UInt64
        public var subscriptions: UInt64
        public var messages: UInt64
    }

    public func snapshot() -> Snapshot {
        let s = cells.sums()
        return Snapshot(
            bucketCounts: Array(s[0..<buckets.count]), upperBounds: buckets.seconds, sumSeconds: Double(s[sumCell]) / 1e9,
            errors: Array(s[errorBase..<(errorBase + Self.errorKinds.count)]), connectionsOpened: s[opened],
            recoveries: s[recoveries], subscriptions: s[subscriptions], messages: s[messages])
    }
}
