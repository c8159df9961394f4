import HitMetrics

/// The server's counters: requests by route, method and status, a duration
/// histogram by route, method and status class (`2xx`, `4xx`, …), bytes,
/// connections. One shard per event loop,
/// written only by that loop (``CounterCells``: no atomic read-modify-write
/// and no shared cache line on the request path), summed when scraped.
///
/// Routes are labels the handler names by index
/// (``HTTPResponse/routeLabel`` into ``ServerConfiguration/routeLabels``),
/// so the server counts by route template without knowing any route.
final class ServerMetrics: @unchecked Sendable {  // immutable after init; cells are thread-safe
    /// The methods the parser admits, then `other` (a request that failed
    /// to parse has no method).
    static let methods = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT", "other"]
    /// Status codes counted each on its own; any other is counted as `other`.
    static let codes = [
        200, 201, 202, 204, 206, 301, 302, 304, 307, 308,
        400, 401, 403, 404, 405, 406, 408, 409, 410, 411, 412, 413, 414, 415, 416, 417, 422, 428, 429, 431,
        500, 501, 502, 503, 504, 505, 507,
    ]
    /// Status → its slot in `codes` (`codes.count` for any other), for 0…999.
    static let codeSlots: [UInt8] = {
        var slots = [UInt8](repeating: UInt8(codes.count), count: 1000)
        for (i, code) in codes.enumerated() { slots[code] = UInt8(i) }
        return slots
    }()

    /// The histogram's status classes: a status's hundreds (1xx … 5xx).
    static let codeClasses = ["1xx", "2xx", "3xx", "4xx", "5xx"]

    /// The class slot of `status` (below 100 counts as 1xx, 600 and above as 5xx).
    @inline(__always)
    static func classSlot(_ status: Int) -> Int { min(max(status / 100 - 1, 0), 4) }

    let routeLabels: [String]
    let buckets = DurationBuckets.standard
    let cells: CounterCells

    // Cell offsets within a shard.
    private let requestsBase = 0
    private let bucketsBase: Int
    private let sumBase: Int
    let started: Int
    let bytesIn: Int
    let bytesOut: Int
    let accepted: Int
    let refusedConnections: Int
    let timeouts: Int
    /// Offloaded requests whose connection closed before their handler
    /// returned: started, never answered.
    let abandoned: Int
    /// WebSocket upgrades completed, and refused at `maxStreams`.
    let streamsOpened: Int
    let streamsRefused: Int
    /// Text messages received on streams, and sent.
    let streamMessagesIn: Int
    let streamMessagesOut: Int

    init(routeLabels: [String], loops: Int) {
        self.routeLabels = routeLabels.isEmpty ? ["unmatched"] : routeLabels
        let routes = self.routeLabels.count
        bucketsBase = routes * Self.methods.count * (Self.codes.count + 1)
        let histograms = routes * Self.methods.count * Self.codeClasses.count
        sumBase = bucketsBase + histograms * buckets.count
        started = sumBase + histograms
        bytesIn = started + 1
        bytesOut = bytesIn + 1
        accepted = bytesOut + 1
        refusedConnections = accepted + 1
        timeouts = refusedConnections + 1
        abandoned = timeouts + 1
        streamsOpened = abandoned + 1
        streamsRefused = streamsOpened + 1
        streamMessagesIn = streamsRefused + 1
        streamMessagesOut = streamMessagesIn + 1
        cells = CounterCells(shards: loops, cells: streamMessagesOut + 1)
        // Padded with UInt64.max to `paddedBounds`, for `LoopCounters.bucket`.
        precondition(buckets.nanoseconds.count < Self.paddedBounds, "too many histogram bounds")  // internal constant
        boundStorage = .allocate(capacity: Self.paddedBounds)
        boundStorage.initialize(repeating: .max, count: Self.paddedBounds)
        for (i, bound) in buckets.nanoseconds.enumerated() { boundStorage[i] = bound }
        codeSlotStorage = .allocate(capacity: Self.codeSlots.count)
        codeSlotStorage.initialize(from: Self.codeSlots, count: Self.codeSlots.count)
    }

    /// Bucket bounds kept for the loops, padded to a power of two.
    static let paddedBounds = 32
    /// The slot of a method outside ``methods`` (a request that failed to parse).
    static let otherMethod = 9

    /// What a loop needs to count on its own, held by the loop: its shard
    /// and the cell offsets, as plain values (no reference counting a hit).
    struct LoopCounters {
        let shard: ShardPointer
        let routes: Int
        let requestsBase: Int
        let bucketsBase: Int
        let sumBase: Int
        let bucketCount: Int
        let started: Int
        let bytesIn: Int
        let bytesOut: Int
        let accepted: Int
        let refusedConnections: Int
        let timeouts: Int
        let abandoned: Int
        let streamsOpened: Int
        let streamsRefused: Int
        let streamMessagesIn: Int
        let streamMessagesOut: Int
        /// Bucket bounds (nanoseconds), then UInt64.max up to
        /// ``ServerMetrics/paddedBounds``; kept alive by the loop's `ServerMetrics`.
        let bounds: UnsafePointer<UInt64>
        /// ``ServerMetrics/codeSlots``, the same way.
        let codeSlots: UnsafePointer<UInt8>
        static let methodCount = ServerMetrics.methods.count
        static let codeCount = ServerMetrics.codes.count
        static let classCount = ServerMetrics.codeClasses.count

        /// The route index a response names, or 0 when out of range.
        @inline(__always)
        func route(_ index: Int) -> Int { index >= 0 && index < routes ? index : 0 }

        /// Counts one answered request: its route, method (its slot in
        /// ``ServerMetrics/methods``), status, duration (nanoseconds) and bytes.
        /// - Complexity: O(1): five cell updates and five comparisons.
        @inline(__always)
        func record(route: Int, methodSlot: Int, status: Int, nanoseconds: UInt64, bytesIn: Int, bytesOut: Int) {
            let code = status >= 0 && status < 1000 ? Int(codeSlots[status]) : LoopCounters.codeCount
            let method = methodSlot >= 0 && methodSlot < LoopCounters.methodCount ? methodSlot : ServerMetrics.otherMethod
            let bucket = self.bucket(nanoseconds)
            let routeMethod = route &* LoopCounters.methodCount &+ method
            let histogram = routeMethod &* LoopCounters.classCount &+ ServerMetrics.classSlot(status)
            shard.bump(requestsBase &+ routeMethod &* (LoopCounters.codeCount &+ 1) &+ code)
            shard.bump(bucketsBase &+ histogram &* bucketCount &+ bucket)
            shard.bump(sumBase &+ histogram, by: nanoseconds)
            shard.bump(self.bytesIn, by: UInt64(max(0, bytesIn)))
            shard.bump(self.bytesOut, by: UInt64(max(0, bytesOut)))
        }

        /// The histogram bucket of `ns`: the first bound it does not exceed
        /// (the `+Inf` bucket after the last), as
        /// ``DurationBuckets/index(of:)`` finds it, by a binary search over
        /// the 32 padded bounds in five steps without a loop.
        @inline(__always)
        func bucket(_ ns: UInt64) -> Int {
            var i = 0
            if ns > bounds[i &+ 15] { i &+= 16 }
            if ns > bounds[i &+ 7] { i &+= 8 }
            if ns > bounds[i &+ 3] { i &+= 4 }
            if ns > bounds[i &+ 1] { i &+= 2 }
            if ns > bounds[i] { i &+= 1 }
            return i
        }
    }

    /// Bucket bounds in nanoseconds (padded) and status slots, for
    /// `LoopCounters` (never freed while the metrics live).
    private let boundStorage: UnsafeMutablePointer<UInt64>
    private let codeSlotStorage: UnsafeMutablePointer<UInt8>

    /// Loop `loop`'s counters.
    func loopCounters(_ loop: Int) -> LoopCounters {
        LoopCounters(
            shard: cells.shardPointer(loop), routes: routeLabels.count, requestsBase: requestsBase,
            bucketsBase: bucketsBase, sumBase: sumBase, bucketCount: buckets.count, started: started,
            bytesIn: bytesIn, bytesOut: bytesOut, accepted: accepted, refusedConnections: refusedConnections,
            timeouts: timeouts, abandoned: abandoned, streamsOpened: streamsOpened, streamsRefused: streamsRefused,
            streamMessagesIn: streamMessagesIn, streamMessagesOut: streamMessagesOut, bounds: boundStorage, codeSlots: codeSlotStorage)
    }

    deinit {
        boundStorage.deallocate()
        codeSlotStorage.deallocate()
    }

    /// A snapshot summed over the loops.
    func snapshot(openConnections: Int, openStreams: Int = 0) -> ServerStatistics {
        let sums = cells.sums()
        let routes = routeLabels.count
        var requests: [ServerStatistics.RequestCount] = []
        for route in 0..<routes {
            for method in 0..<Self.methods.count {
                for code in 0...Self.codes.count {
                    let n = sums[requestsBase + (route * Self.methods.count + method) * (Self.codes.count + 1) + code]
                    guard n > 0 else { continue }
                    requests.append(
                        .init(
                            route: routeLabels[route], method: Self.methods[method],
                            code: code < Self.codes.count ? String(Self.codes[code]) : "other", count: n))
                }
            }
        }
        var durations: [ServerStatistics.Durations] = []
        var answered: UInt64 = 0
        let classes = Self.codeClasses.count
        for route in 0..<routes {
            for method in 0..<Self.methods.count {
                for codeClass in 0..<classes {
                    let h = (route * Self.methods.count + method) * classes + codeClass
                    let counts = Array(sums[(bucketsBase + h * buckets.count)..<(bucketsBase + (h + 1) * buckets.count)])
                    let total = counts.reduce(0, &+)
                    answered &+= total
                    guard total > 0 else { continue }
                    durations.append(
                        .init(
                            route: routeLabels[route], method: Self.methods[method], code: Self.codeClasses[codeClass],
                            bucketCounts: counts, sumSeconds: Double(sums[sumBase + h]) / 1e9))
                }
            }
        }
        let started = sums[self.started]
        answered &+= sums[abandoned]
        return ServerStatistics(
            requests: requests, durations: durations, upperBounds: buckets.seconds,
            inFlight: started > answered ? Int(started - answered) : 0,
            openConnections: max(0, openConnections),
            acceptedConnections: sums[accepted], refusedConnections: sums[refusedConnections],
            timeouts: sums[timeouts], bytesIn: sums[bytesIn], bytesOut: sums[bytesOut],
            streams: .init(
                open: max(0, openStreams), opened: sums[streamsOpened], refused: sums[streamsRefused],
                messagesIn: sums[streamMessagesIn], messagesOut: sums[streamMessagesOut]))
    }
}

/// What the server counted, summed over its loops at one moment
/// (``HTTPServer/statistics()``).
public struct ServerStatistics: Sendable {
    public struct RequestCount: Sendable, Equatable {
        public var route: String
        public var method: String
        /// The status code, or `other` for one outside ``ServerMetrics/codes``.
        public var code: String
        public var count: UInt64
    }

    public struct Durations: Sendable {
        public var route: String
        public var method: String
        /// The status class, `1xx` … `5xx`.
        public var code: String
        /// Per bucket (not cumulative); the last is `+Inf`.
        public var bucketCounts: [UInt64]
        public var sumSeconds: Double
    }

    /// Answered requests, by route, method and code (only those counted).
    public var requests: [RequestCount]
    /// Request durations by route, method and status class, from the first
    /// byte of a request to its response queued for sending.
    public var durations: [Durations]
    /// The histogram's finite upper bounds, seconds.
    public var upperBounds: [Double]
    /// Requests received whose response is not queued yet.
    public var inFlight: Int
    public var openConnections: Int
    public var acceptedConnections: UInt64
    /// Connections refused at `maxConnections` (503 and close).
    public var refusedConnections: UInt64
    /// Requests that stalled and got a 408.
    public var timeouts: UInt64
    /// Bytes of requests parsed and of responses queued (heads and bodies).
    public var bytesIn: UInt64
    public var bytesOut: UInt64
    /// WebSocket streams: open now, opened and refused (at `maxStreams`)
    /// since start, text messages received and sent.
    public struct Streams: Sendable, Equatable {
        public var open = 0
        public var opened: UInt64 = 0
        public var refused: UInt64 = 0
        public var messagesIn: UInt64 = 0
        public var messagesOut: UInt64 = 0
    }
    public var streams = Streams()
    /// Bytes of request bodies being received or handled, counted against
    /// ``ServerConfiguration/maxBufferedBodyBytes`` (``capacity``); bodies
    /// refused for want of room (503).
    public var bodyBuffer = (reserved: 0, capacity: 0, refusals: UInt64(0))
    /// Bytes of responses held in memory until they are sent, counted
    /// against ``ServerConfiguration/maxBufferedResponseBytes``; large
    /// responses replaced by a 503 for want of room.
    public var responseBuffer = (queued: 0, capacity: 0, refusals: UInt64(0))
}
