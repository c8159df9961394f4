import HitAnalysis
import SceneCodec

/// The query of the whole-scene questions (SPEC §12): the grid's
/// `x, y, width, height, resolution`, the audit's `minSize`, `spacing` and
/// `standard`, the diff's `against`.
struct AnalysisQuery: Equatable {
    var grid = GridRequest()
    var minSize = Standard.wcag258.minSize
    /// nil: no spacing exception.
    var spacing: Double? = Standard.wcag258.spacing
    var against: String?
}

enum AnalysisQueryDecoder {
    /// The parameters each route takes.
    enum Kind {
        case audit, reach, diff

        var allowed: [String] {
            let grid = ["x", "y", "width", "height", "resolution"]
            switch self {
            case .audit: return grid + ["minSize", "spacing", "standard"]
            case .reach: return grid
            case .diff: return grid + ["against"]
            }
        }
    }

    /// Reads the route's parameters; an unknown or repeated one, a number
    /// that is not finite, a negative size or an unknown standard is a
    /// problem at `/<name>`. `standard` sets `minSize` and `spacing`; an
    /// explicit `minSize` or `spacing` (`none` for no exception) wins.
    static func decode(_ query: String?, _ kind: Kind) throws(DecodeFailure) -> AnalysisQuery {
        var issues: [ValidationIssue] = []
        let values = HitRequestDecoder.queryParameters(query, allowed: kind.allowed, issues: &issues)
        func number(_ name: String) -> Double? {
            guard let text = values[name] else { return nil }
            guard let v = HitRequestDecoder.parseJSONNumber(text), v.isFinite else {
                issues.append(ValidationIssue(pointer: "/\(name)", message: "must be a finite number"))
                return nil
            }
            return v
        }
        var q = AnalysisQuery()
        q.grid = GridRequest(
            x: number("x"), y: number("y"), width: number("width"), height: number("height"),
            resolution: number("resolution"))
        if let name = values["standard"] {
            if let standard = Standard(rawValue: name) {
                q.minSize = standard.minSize
                q.spacing = standard.spacing
            } else {
                let names = Standard.allCases.map(\.rawValue).joined(separator: ", ")
                issues.append(ValidationIssue(pointer: "/standard", message: "must be one of \(names)"))
            }
        }
        if let m = number("minSize") {
            if m >= 0 {
                q.minSize = m
            } else {
                issues.append(ValidationIssue(pointer: "/minSize", message: "must be a finite number >= 0"))
            }
        }
        if values["spacing"] == "none" {
            q.spacing = nil
        } else if let s = number("spacing") {
            if s >= 0 {
                q.spacing = s
            } else {
                issues.append(ValidationIssue(pointer: "/spacing", message: "must be a finite number >= 0, or none"))
            }
        }
        if kind == .diff {
            if let other = values["against"], !other.isEmpty {
                q.against = other
            } else {
                issues.append(ValidationIssue(pointer: "/against", message: "names the scene to compare with"))
            }
        }
        guard issues.isEmpty else { throw .invalid(issues) }
        return q
    }
}
