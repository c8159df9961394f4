import HitRender
import HitRouting
import SceneCodec

/// The query of `GET /scenes/{id}/render.svg` (SPEC §7).
struct RenderQuery: Equatable {
    /// The point to route and overlay (scene coordinates); `x` and `y` come together.
    var point: Point?
    /// `regions=1`: every hit region as an overlay.
    var regions = false
    /// The picture's pixel width.
    var width: Double?
    /// `audit=1`: the audit's cells over the picture (SPEC §12.1).
    var audit = false
    /// `diff=<otherId>`: the cells whose routing differs from that scene's (SPEC §12.3).
    var diff: String?
}

enum RenderQueryDecoder {
    /// Reads `x`, `y`, `regions`, `width`, `audit`, `diff`; anything else, a repeated
    /// parameter, a bad number or a lone `x` is a problem at `/<name>`.
    static func decode(_ query: String?) throws(DecodeFailure) -> RenderQuery {
        var issues: [ValidationIssue] = []
        let values = HitRequestDecoder.queryParameters(query, allowed: ["x", "y", "regions", "width", "audit", "diff"], issues: &issues)
        func number(_ name: String) -> Double? {
            guard let text = values[name] else { return nil }
            guard let v = HitRequestDecoder.parseJSONNumber(text), v.isFinite else {
                issues.append(ValidationIssue(pointer: "/\(name)", message: "must be a finite number"))
                return nil
            }
            return v
        }
        var q = RenderQuery()
        let x = number("x")
        let y = number("y")
        if let x, let y {
            q.point = Point(x, y)
        } else if (values["x"] == nil) != (values["y"] == nil) {
            let missing = values["x"] == nil ? "x" : "y"
            if !issues.contains(where: { $0.pointer == "/\(missing)" }) {
                issues.append(ValidationIssue(pointer: "/\(missing)", message: "x and y go together: \(missing) is missing"))
            }
        }
        switch values["regions"] {
        case nil, "0", "false": q.regions = false
        case "1", "true": q.regions = true
        default: issues.append(ValidationIssue(pointer: "/regions", message: "must be 0, 1, true or false"))
        }
        switch values["audit"] {
        case nil, "0", "false": q.audit = false
        case "1", "true": q.audit = true
        default: issues.append(ValidationIssue(pointer: "/audit", message: "must be 0, 1, true or false"))
        }
        if let other = values["diff"] {
            if other.isEmpty {
                issues.append(ValidationIssue(pointer: "/diff", message: "names the scene to compare with"))
            } else {
                q.diff = other
            }
        }
        if let width = number("width") {
            if width >= 1 && width <= RenderOptions.maxPixelWidth {
                q.width = width
            } else {
                issues.append(ValidationIssue(pointer: "/width", message: "must be from 1 to \(Int(RenderOptions.maxPixelWidth)) pixels"))
            }
        }
        guard issues.isEmpty else { throw .invalid(issues) }
        return q
    }
}
