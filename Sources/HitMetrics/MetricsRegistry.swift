import Synchronization

/// Something that reports metric families when scraped: the server's
/// per-loop counters, the API's, a store backend's, the process.
///
/// A collector reads its counters only when ``collect()`` is called, so
/// counting stays where the work is and costs the request path nothing
/// but the count itself.
public protocol MetricsCollector: Sendable {
    func collect() -> [MetricFamily]
}

/// A collector made of a closure.
public struct CollectorClosure: MetricsCollector {
    private let body: @Sendable () -> [MetricFamily]
    public init(_ body: @escaping @Sendable () -> [MetricFamily]) { self.body = body }
    public func collect() -> [MetricFamily] { body() }
}

/// The collectors of one process, gathered into one exposition. Only a
/// scrape touches it.
///
/// ```swift
/// let registry = MetricsRegistry()
/// registry.register { [.single("hitroute_up", .gauge, "1 while serving.", 1)] }
/// let body = registry.exposition(format: .prometheusText)
/// ```
public final class MetricsRegistry: Sendable {
    private let collectors = Mutex<[any MetricsCollector]>([])

    public init() {}

    /// Adds a collector; families are written in registration order.
    public func register(_ collector: any MetricsCollector) {
        collectors.withLock { $0.append(collector) }
    }

    /// Adds a collector made of `body`.
    public func register(_ body: @escaping @Sendable () -> [MetricFamily]) {
        register(CollectorClosure(body))
    }

    /// Every collector's families, in registration order. A family name
    /// reported twice keeps its first report (a scrape must not repeat a
    /// family).
    public func collect() -> [MetricFamily] {
        let all = collectors.withLock { $0 }
        var seen = Set<String>()
        var families: [MetricFamily] = []
        for collector in all {
            for family in collector.collect() where seen.insert(family.name).inserted {
                families.append(family)
            }
        }
        return families
    }

    /// The whole exposition in `format`.
    public func exposition(format: ExpositionFormat) -> [UInt8] {
        Exposition.render(collect(), format: format)
    }
}
