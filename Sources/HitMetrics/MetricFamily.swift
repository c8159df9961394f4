/// One metric family as a scrape sees it: a name, its help, its type and
/// its samples (SPEC §8). Built by collectors at scrape time, written out by
/// ``Exposition``.
///
/// `name` is the family's base name: for a counter without `_total` (the
/// text format adds it to the family and its samples, OpenMetrics to the
/// samples only), for an info family without `_info`. Names and label
/// names must match `[a-zA-Z_:][a-zA-Z0-9_:]*` (label names without `:`);
/// label values are any UTF-8 and are escaped when written.
public struct MetricFamily: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A count that only grows (`_total`).
        case counter
        /// A value that goes up and down.
        case gauge
        /// Observations in cumulative buckets with `_bucket`, `_count`, `_sum`.
        case histogram
        /// Constant labels with the value 1 (`_info`): a gauge in the text format.
        case info
    }

    public var name: String
    public var help: String
    public var kind: Kind
    /// The base unit the name ends with (`seconds`, `bytes`), for
    /// OpenMetrics' `# UNIT` line; nil for none.
    public var unit: String?
    /// The samples of a counter, gauge or info family.
    public var samples: [Sample]
    /// The series of a histogram family.
    public var histograms: [HistogramSample]

    public init(
        name: String, help: String, kind: Kind, unit: String? = nil,
        samples: [Sample] = [], histograms: [HistogramSample] = []
    ) {
        self.name = name
        self.help = help
        self.kind = kind
        self.unit = unit
        self.samples = samples
        self.histograms = histograms
    }

    /// A family of one unlabelled sample.
    public static func single(_ name: String, _ kind: Kind, _ help: String, unit: String? = nil, _ value: Double) -> MetricFamily {
        MetricFamily(name: name, help: help, kind: kind, unit: unit, samples: [Sample(value)])
    }
}

/// A label pair.
public struct Label: Sendable, Equatable {
    public var name: String
    public var value: String
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// One value of a counter, gauge or info family.
public struct Sample: Sendable, Equatable {
    public var labels: [Label]
    public var value: Double
    public init(_ value: Double, labels: [Label] = []) {
        self.labels = labels
        self.value = value
    }
}

/// One histogram series: cumulative bucket counts by upper bound, the
/// count (the `+Inf` bucket) and the sum of what was observed.
public struct HistogramSample: Sendable, Equatable {
    public var labels: [Label]
    /// Finite upper bounds, ascending; `+Inf` is implied.
    public var upperBounds: [Double]
    /// Observations ≤ each bound (cumulative, so never decreasing).
    public var cumulativeCounts: [UInt64]
    public var count: UInt64
    public var sum: Double

    public init(labels: [Label], upperBounds: [Double], cumulativeCounts: [UInt64], count: UInt64, sum: Double) {
        self.labels = labels
        self.upperBounds = upperBounds
        self.cumulativeCounts = cumulativeCounts
        self.count = count
        self.sum = sum
    }

    /// A series from per-bucket (not cumulative) counts, the last of which
    /// is the `+Inf` bucket: `counts.count == upperBounds.count + 1`.
    public init(labels: [Label], upperBounds: [Double], bucketCounts counts: [UInt64], sum: Double) {
        var running: UInt64 = 0
        var cumulative: [UInt64] = []
        cumulative.reserveCapacity(upperBounds.count)
        for i in upperBounds.indices {
            running &+= i < counts.count ? counts[i] : 0
            cumulative.append(running)
        }
        if counts.count > upperBounds.count { running &+= counts[upperBounds.count] }
        self.init(labels: labels, upperBounds: upperBounds, cumulativeCounts: cumulative, count: running, sum: sum)
    }
}
