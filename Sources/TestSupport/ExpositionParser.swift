// A strict reader of the Prometheus text format 0.0.4 and of OpenMetrics
// 1.0 text, for tests: an oracle written apart from the service's writer.

/// One parsed exposition: families in order, each with its samples.
public struct ParsedExposition {
    public struct Family {
        public var name: String
        public var type: String
        public var help: String
        public var unit: String?
        public var samples: [Sample]
    }

    public struct Sample: Equatable {
        public var name: String
        public var labels: [String: String]
        public var value: Double
    }

    public var families: [Family] = []
    /// Whether the text ended with `# EOF` (OpenMetrics).
    public var sawEOF = false

    public struct Failure: Error, CustomStringConvertible {
        public var line: Int
        public var message: String
        public var description: String { "line \(line): \(message)" }
    }

    /// Parses `text`; `openMetrics` demands `# EOF` last and OpenMetrics naming.
    public init(_ text: String, openMetrics: Bool = false) throws {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.last == "" else { throw Failure(line: lines.count, message: "no newline at the end") }
        lines.removeLast()
        var seen = Set<String>()
        for (i, line) in lines.enumerated() {
            let n = i + 1
            if sawEOF { throw Failure(line: n, message: "text after # EOF") }
            if line.isEmpty { throw Failure(line: n, message: "blank line") }
            if line == "# EOF" {
                guard openMetrics else { throw Failure(line: n, message: "# EOF in the text format") }
                sawEOF = true
                continue
            }
            if line.hasPrefix("# ") {
                let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
                guard parts.count >= 3 else { throw Failure(line: n, message: "short comment line") }
                let keyword = parts[1]
                let name = parts[2]
                let rest = parts.count > 3 ? parts[3] : ""
                guard Self.isMetricName(name) else { throw Failure(line: n, message: "bad metric name \(name)") }
                switch keyword {
                case "HELP":
                    if families.last?.name != name {
                        guard seen.insert(name).inserted else { throw Failure(line: n, message: "family \(name) repeated") }
                        families.append(Family(name: name, type: "", help: "", unit: nil, samples: []))
                    }
                    families[families.count - 1].help = rest
                case "TYPE":
                    guard ["counter", "gauge", "histogram", "summary", "untyped", "info", "unknown"].contains(rest) else {
                        throw Failure(line: n, message: "bad type \(rest)")
                    }
                    if families.last?.name != name {
                        guard seen.insert(name).inserted else { throw Failure(line: n, message: "family \(name) repeated") }
                        families.append(Family(name: name, type: rest, help: "", unit: nil, samples: []))
                    }
                    guard families[families.count - 1].samples.isEmpty else { throw Failure(line: n, message: "TYPE after samples") }
                    families[families.count - 1].type = rest
                case "UNIT":
                    guard openMetrics, families.last?.name == name, name.hasSuffix("_" + rest) else {
                        throw Failure(line: n, message: "bad UNIT line")
                    }
                    families[families.count - 1].unit = rest
                default:
                    throw Failure(line: n, message: "unknown comment \(keyword)")
                }
                continue
            }
            guard !line.hasPrefix("#") else { throw Failure(line: n, message: "bad comment") }
            let sample = try Self.parseSample(line, n)
            guard var family = families.last else { throw Failure(line: n, message: "sample before any TYPE") }
            let suffixes: [String]
            switch family.type {
            case "counter": suffixes = openMetrics ? ["_total", "_created"] : [""]
            case "histogram": suffixes = ["_bucket", "_count", "_sum"]
            case "info": suffixes = ["_info"]
            default: suffixes = [""]
            }
            guard suffixes.contains(where: { family.name + $0 == sample.name }) else {
                throw Failure(line: n, message: "sample \(sample.name) outside family \(family.name)")
            }
            if !openMetrics, family.type == "counter", !family.name.hasSuffix("_total") {
                throw Failure(line: n, message: "counter \(family.name) without _total")
            }
            family.samples.append(sample)
            families[families.count - 1] = family
        }
        if openMetrics && !sawEOF { throw Failure(line: lines.count, message: "no # EOF") }
    }

    /// The family named `name`.
    public func family(_ name: String) -> Family? { families.first { $0.name == name } }

    /// The value of sample `name` whose labels include `labels`, summed over matches (0 when none).
    public func value(_ name: String, _ labels: [String: String] = [:]) -> Double {
        families.flatMap(\.samples)
            .filter { sample in sample.name == name && labels.allSatisfy { k, v in sample.labels[k] == v } }
            .reduce(0) { $0 + $1.value }
    }

    static func isMetricName(_ s: String) -> Bool {
        guard let first = s.utf8.first, first == UInt8(ascii: "_") || first == UInt8(ascii: ":") || isLetter(first) else { return false }
        return s.utf8.allSatisfy { isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ":") }
    }

    static func isLetter(_ c: UInt8) -> Bool { (c | 0x20) >= UInt8(ascii: "a") && (c | 0x20) <= UInt8(ascii: "z") }
    static func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

    static func parseSample(_ line: String, _ n: Int) throws -> Sample {
        let bytes = Array(line.utf8)
        var i = 0
        while i < bytes.count, bytes[i] != UInt8(ascii: "{"), bytes[i] != UInt8(ascii: " ") { i += 1 }
        let name = String(decoding: bytes[0..<i], as: UTF8.self)
        guard isMetricName(name) else { throw Failure(line: n, message: "bad sample name \(name)") }
        var labels: [String: String] = [:]
        if i < bytes.count, bytes[i] == UInt8(ascii: "{") {
            i += 1
            while true {
                guard i < bytes.count else { throw Failure(line: n, message: "unclosed labels") }
                if bytes[i] == UInt8(ascii: "}") {
                    i += 1
                    break
                }
                let start = i
                while i < bytes.count, bytes[i] != UInt8(ascii: "=") { i += 1 }
                let label = String(decoding: bytes[start..<i], as: UTF8.self)
                guard isMetricName(label), !label.contains(":"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "\"") else {
                    throw Failure(line: n, message: "bad label \(label)")
                }
                i += 2
                var value: [UInt8] = []
                while true {
                    guard i < bytes.count else { throw Failure(line: n, message: "unclosed label value") }
                    let c = bytes[i]
                    if c == UInt8(ascii: "\"") {
                        i += 1
                        break
                    }
                    if c == UInt8(ascii: "\\") {
                        guard i + 1 < bytes.count else { throw Failure(line: n, message: "dangling escape") }
                        switch bytes[i + 1] {
                        case UInt8(ascii: "\\"): value.append(UInt8(ascii: "\\"))
                        case UInt8(ascii: "\""): value.append(UInt8(ascii: "\""))
                        case UInt8(ascii: "n"): value.append(0x0A)
                        default: throw Failure(line: n, message: "bad escape")
                        }
                        i += 2
                        continue
                    }
                    guard c != 0x0A else { throw Failure(line: n, message: "raw newline in a label value") }
                    value.append(c)
                    i += 1
                }
                guard labels.updateValue(String(decoding: value, as: UTF8.self), forKey: label) == nil else {
                    throw Failure(line: n, message: "label \(label) twice")
                }
                guard i < bytes.count else { throw Failure(line: n, message: "unclosed labels") }
                if bytes[i] == UInt8(ascii: ",") { i += 1 }
            }
        }
        guard i < bytes.count, bytes[i] == UInt8(ascii: " ") else { throw Failure(line: n, message: "no value") }
        let valueText = String(decoding: bytes[(i + 1)...], as: UTF8.self)
        let value: Double
        switch valueText {
        case "+Inf": value = .infinity
        case "-Inf": value = -.infinity
        case "NaN": value = .nan
        default:
            guard let v = Double(valueText), !valueText.contains(" ") else {
                throw Failure(line: n, message: "bad value \(valueText)")
            }
            value = v
        }
        return Sample(name: name, labels: labels, value: value)
    }

    /// Checks every histogram: buckets by ascending `le`, counts never
    /// decreasing, a `+Inf` bucket equal to `_count`, and a `_sum`.
    public func checkHistograms() throws {
        for family in families where family.type == "histogram" {
            var series: [String: [(Double, Double)]] = [:]
            var counts: [String: Double] = [:]
            var sums: [String: Double] = [:]
            for s in family.samples {
                var rest = s.labels
                rest["le"] = nil
                let key = rest.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
                switch s.name {
                case family.name + "_bucket":
                    guard let le = s.labels["le"], let bound = le == "+Inf" ? .infinity : Double(le) else {
                        throw Failure(line: 0, message: "\(family.name): bucket without le")
                    }
                    series[key, default: []].append((bound, s.value))
                case family.name + "_count": counts[key] = s.value
                default: sums[key] = s.value
                }
            }
            for (key, buckets) in series {
                for (a, b) in zip(buckets, buckets.dropFirst()) where !(a.0 < b.0 && a.1 <= b.1) {
                    throw Failure(line: 0, message: "\(family.name){\(key)}: buckets out of order")
                }
                guard buckets.last?.0 == .infinity, buckets.last?.1 == counts[key], sums[key] != nil else {
                    throw Failure(line: 0, message: "\(family.name){\(key)}: +Inf bucket, count and sum disagree")
                }
            }
        }
    }
}
