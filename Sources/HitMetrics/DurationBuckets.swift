/// Upper bounds of a duration histogram, in nanoseconds for counting and in
/// seconds for the exposition.
///
/// ``standard`` is 10 µs to 10 s in 1-2.5-5 steps (19 bounds, plus `+Inf`):
/// fine enough to tell a 50 µs hit from a 100 µs one, where Prometheus'
/// default buckets start at 5 ms.
public struct DurationBuckets: Sendable {
    /// Upper bounds in nanoseconds, ascending.
    public let nanoseconds: [UInt64]
    /// The same bounds in seconds.
    public let seconds: [Double]

    /// Buckets for the given bounds in nanoseconds (ascending).
    public init(nanoseconds: [UInt64]) {
        self.nanoseconds = nanoseconds
        self.seconds = nanoseconds.map { Double($0) / 1e9 }
    }

    /// 10 µs, 25 µs, 50 µs, 100 µs, … 5 s, 10 s.
    public static let standard: DurationBuckets = {
        var bounds: [UInt64] = []
        var decade: UInt64 = 10_000  // 10 µs
        while decade < 10_000_000_000 {
            bounds += [decade, decade * 5 / 2, decade * 5]
            decade *= 10
        }
        bounds.append(10_000_000_000)
        return DurationBuckets(nanoseconds: bounds)
    }()

    /// Buckets including `+Inf`.
    public var count: Int { nanoseconds.count + 1 }

    /// The bucket of an observation of `ns` nanoseconds: the first bound it
    /// does not exceed, or `nanoseconds.count` for `+Inf`.
    /// - Complexity: O(index): a fast request looks at the first few bounds.
    @inline(__always)
    public func index(of ns: UInt64) -> Int {
        nanoseconds.withUnsafeBufferPointer { bounds in
            var i = 0
            while i < bounds.count && ns > bounds[i] { i &+= 1 }
            return i
        }
    }
}
