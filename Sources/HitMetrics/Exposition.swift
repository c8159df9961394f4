/// The two text formats a Prometheus server scrapes.
///
/// - ``prometheusText``: the text format 0.0.4
///   (`text/plain; version=0.0.4; charset=utf-8`). Counters are named
///   with `_total` in their `# TYPE` line; info families are gauges.
/// - ``openMetrics``: OpenMetrics 1.0.0
///   (`application/openmetrics-text; version=1.0.0; charset=utf-8`): counter
///   families without `_total` (their samples keep it), `# UNIT` lines,
///   `info` families, and `# EOF` at the end.
public enum ExpositionFormat: Sendable, Equatable {
    case prometheusText
    case openMetrics

    public var contentType: String {
        switch self {
        case .prometheusText: return "text/plain; version=0.0.4; charset=utf-8"
        case .openMetrics: return "application/openmetrics-text; version=1.0.0; charset=utf-8"
        }
    }

    /// The format an `Accept` field asks for: OpenMetrics when it lists
    /// `application/openmetrics-text` with a quality above 0 and at least that
    /// of every `text/plain` (or `*/*`) it lists; else the text format.
    /// Prometheus sends
    /// `application/openmetrics-text;version=1.0.0,…,text/plain;version=0.0.4;q=0.5,*/*;q=0.1`.
    public static func negotiate(accept: String?) -> ExpositionFormat {
        guard let accept, !accept.isEmpty else { return .prometheusText }
        var openMetrics = -1.0
        var text = -1.0
        for element in accept.split(separator: ",") {
            let parts = element.split(separator: ";")
            guard let type = parts.first else { continue }
            var q = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0].trimmingSpaces.lowercased() == "q" {
                    q = Double(pair[1].trimmingSpaces).map { min(1, max(0, $0)) } ?? 0
                }
            }
            switch type.trimmingSpaces.lowercased() {
            case "application/openmetrics-text": openMetrics = max(openMetrics, q)
            case "text/plain", "text/*", "*/*": text = max(text, q)
            default: break
            }
        }
        return openMetrics > 0 && openMetrics >= text ? .openMetrics : .prometheusText
    }
}

/// Writes metric families in a Prometheus text format.
///
/// ```swift
/// let text = Exposition.render([.single("hitroute_up", .gauge, "Always 1.", 1)], format: .prometheusText)
/// // # HELP hitroute_up Always 1.\n# TYPE hitroute_up gauge\nhitroute_up 1\n
/// ```
/// - Complexity: O(samples × labels).
public enum Exposition {
    public static func render(_ families: [MetricFamily], format: ExpositionFormat) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(16 * 1024)
        for family in families { write(family, format: format, to: &out) }
        if format == .openMetrics { out.append(contentsOf: "# EOF\n".utf8) }
        return out
    }

    static func write(_ family: MetricFamily, format: ExpositionFormat, to out: inout [UInt8]) {
        let om = format == .openMetrics
        let (familyName, typeName, sampleName): (String, String, String)
        switch family.kind {
        case .counter:
            familyName = om ? family.name : family.name + "_total"
            typeName = "counter"
            sampleName = family.name + "_total"
        case .gauge:
            (familyName, typeName, sampleName) = (family.name, "gauge", family.name)
        case .histogram:
            (familyName, typeName, sampleName) = (family.name, "histogram", family.name)
        case .info:
            familyName = om ? family.name : family.name + "_info"
            typeName = om ? "info" : "gauge"
            sampleName = family.name + "_info"
        }
        out.append(contentsOf: "# HELP \(familyName) ".utf8)
        appendEscaped(family.help, quotes: om, to: &out)
        out.append(contentsOf: "\n# TYPE \(familyName) \(typeName)\n".utf8)
        if om, let unit = family.unit, family.kind != .info {
            out.append(contentsOf: "# UNIT \(familyName) \(unit)\n".utf8)
        }
        switch family.kind {
        case .counter, .gauge, .info:
            for sample in family.samples {
                line(sampleName, sample.labels, value: number(sample.value), to: &out)
            }
        case .histogram:
            for series in family.histograms {
                for (bound, count) in zip(series.upperBounds, series.cumulativeCounts) {
                    line(sampleName + "_bucket", series.labels + [Label("le", number(bound))], value: String(count), to: &out)
                }
                line(sampleName + "_bucket", series.labels + [Label("le", "+Inf")], value: String(series.count), to: &out)
                line(sampleName + "_count", series.labels, value: String(series.count), to: &out)
                line(sampleName + "_sum", series.labels, value: number(series.sum), to: &out)
            }
        }
    }

    private static func line(_ name: String, _ labels: [Label], value: String, to out: inout [UInt8]) {
        out.append(contentsOf: name.utf8)
        if !labels.isEmpty {
            out.append(UInt8(ascii: "{"))
            for (i, label) in labels.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: label.name.utf8)
                out.append(contentsOf: "=\"".utf8)
                appendEscaped(label.value, quotes: true, to: &out)
                out.append(UInt8(ascii: "\""))
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: " "))
        out.append(contentsOf: value.utf8)
        out.append(UInt8(ascii: "\n"))
    }

    /// `\` → `\\`, newline → `\n`, and (label values; OpenMetrics help) `"` → `\"`.
    static func appendEscaped(_ text: String, quotes: Bool, to out: inout [UInt8]) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case UInt8(ascii: "\"") where quotes: out.append(contentsOf: [0x5C, 0x22])
            default: out.append(byte)
            }
        }
    }

    /// A sample value: integers without a fraction (`12`), others in
    /// Swift's shortest round-trip form (`2.5e-05`, `0.25`), `+Inf`, `-Inf`, `NaN`.
    public static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 9.007_199_254_740_992e15 { return String(Int64(value)) }
        return value.description
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while s.first == " " || s.first == "\t" { s.removeFirst() }
        while s.last == " " || s.last == "\t" { s.removeLast() }
        return s
    }
}
