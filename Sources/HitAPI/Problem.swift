import HTTPServer
import HitJSON
import HitRouting

/// An API failure on its way to becoming an RFC 9457 problem response.
/// Every error of the API layer turns into HTTP here and nowhere else.
public struct Problem: Error, Sendable {
    public var status: Int
    /// The last segment of the problem type URI, `/problems/<slug>`.
    public var slug: String
    public var title: String
    public var detail: String
    public var issues: [ValidationIssue] = []
    public var headers = HTTPHeaders()

    public init(_ status: Int, _ slug: String, _ title: String, _ detail: String, issues: [ValidationIssue] = []) {
        self.status = status
        self.slug = slug
        self.title = title
        self.detail = detail
        self.issues = issues
    }

    static func notFound(_ detail: String) -> Problem { Problem(404, "not-found", "Not found", detail) }

    static func methodNotAllowed(_ method: String, allowed: [String]) -> Problem {
        var p = Problem(405, "method-not-allowed", "Method not allowed", "\(method) is not allowed here; use \(allowed.joined(separator: ", "))")
        p.headers.set("Allow", allowed.joined(separator: ", "))
        return p
    }

    /// A body that failed to decode: 400 for malformed JSON, 422 otherwise.
    static func decoding(_ failure: DecodeFailure, invalid slug: String, title: String) -> Problem {
        switch failure {
        case .syntax(let e):
            return Problem(400, "malformed-request", "Malformed JSON", "the body is not valid JSON: \(e.message) at byte \(e.offset)")
        case .invalid(let issues):
            let n = issues.count
            return Problem(422, slug, title, "\(n) problem\(n == 1 ? "" : "s") in the \(slug == "invalid-scene" ? "scene" : "request")", issues: issues)
        }
    }

    static func invalidScene(_ failure: DecodeFailure) -> Problem {
        decoding(failure, invalid: "invalid-scene", title: "Invalid scene")
    }

    /// A scene whose computed numbers are not all finite (SPEC §1): 422,
    /// pointing at the field that makes them so. `base` is the pointer of
    /// the problem's layer path: `/layers/i/children/j…` for a scene body,
    /// empty for a patch body (one layer).
    static func invalidScene(_ problem: NumericProblem, title: String = "Invalid scene") -> Problem {
        var pointer = JSONPointer()
        for (depth, position) in problem.layerPath.enumerated() {
            pointer = pointer.appending(depth == 0 ? "layers" : "children").appending(position)
        }
        for token in problem.field {
            switch token {
            case .key(let k): pointer = pointer.appending(k)
            case .index(let i): pointer = pointer.appending(i)
            }
        }
        return Problem(422, "invalid-scene", title, "a number computed from the scene is not finite",
                       issues: [ValidationIssue(pointer: pointer.description, message: problem.message)])
    }

    /// A pointer event that `PointerSessions` refused: 429 for one pointer
    /// too many, 422 for a drag that would overflow (nothing moved).
    static func refused(_ refusal: PointerSessions.Refusal, scene id: String, maxPointers: Int, captureTimeout: Double) -> Problem {
        switch refusal {
        case .tooManyPointers:
            return Problem(429, "too-many-pointers", "Too many pointers",
                           "scene \"\(id)\" already remembers \(maxPointers) pointers (captures and hovering pointers); let one go (leave, or a touch's up or cancel) or wait \(Int(captureTimeout)) s for an idle one to expire")
        case .moveOverflows(let layer, let problem):
            return Problem(422, "invalid-request", "Invalid request",
                           "dragging layer \"\(layer)\" to this point would take its scene beyond the finite range (\(problem.message)); nothing moved and the capture stays",
                           issues: [ValidationIssue(pointer: "", message: "moves layer \"\(layer)\" too far")])
        }
    }

    static func invalidRequest(_ failure: DecodeFailure) -> Problem {
        decoding(failure, invalid: "invalid-request", title: "Invalid request")
    }

    /// The problem as a response: `application/problem+json`, with the
    /// request's id as `requestId` when known (SPEC §8).
    func response(requestID: RequestID? = nil) -> HTTPResponse {
        var w = JSONWriter()
        w.beginObject()
        w.field("type"); w.string("/problems/\(slug)")
        w.field("title"); w.string(title)
        w.field("status"); w.int(status)
        w.field("detail"); w.string(detail)
        if !issues.isEmpty {
            w.field("errors")
            w.beginArray()
            for issue in issues {
                w.beginObject()
                w.field("pointer"); w.string(issue.pointer)
                w.field("message"); w.string(issue.message)
                w.endObject()
            }
            w.endArray()
        }
        if let requestID {
            w.field("requestId"); w.string(requestID.description)
        }
        w.endObject()
        var h = headers
        h.set("Content-Type", "application/problem+json")
        return HTTPResponse(status: status, headers: h, body: w.finish())
    }
}
