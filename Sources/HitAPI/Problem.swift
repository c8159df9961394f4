import HTTPServer
import HitJSON
import HitRouting
import HitStore
import SceneCodec

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
        var p = Problem(
            405, "method-not-allowed", "Method not allowed", "\(method) is not allowed here; use \(allowed.joined(separator: ", "))")
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
            return Problem(
                422, slug, title, "\(n) problem\(n == 1 ? "" : "s") in the \(slug == "invalid-scene" ? "scene" : "request")", issues: issues
            )
        }
    }

    static func invalidScene(_ failure: DecodeFailure) -> Problem {
        decoding(failure, invalid: "invalid-scene", title: "Invalid scene")
    }

    /// The one place a store's failure becomes HTTP: status, problem type
    /// and title per case; the detail and pointers are the store's.
    init(_ error: StoreError) {
        let (status, slug, title): (Int, String, String)
        switch error {
        case .notFound: (status, slug, title) = (404, "not-found", "Not found")
        case .conflict: (status, slug, title) = (409, "conflict", "Conflict")
        case .preconditionFailed: (status, slug, title) = (412, "precondition-failed", "Precondition failed")
        case .full: (status, slug, title) = (507, "store-full", "Store full")
        case .tooLarge: (status, slug, title) = (413, "payload-too-large", "Payload too large")
        case .unavailable: (status, slug, title) = (503, "store-unavailable", "Store unavailable")
        case .inconsistent: (status, slug, title) = (500, "inconsistent", "Store inconsistent")
        case .invalidScene(.syntax): (status, slug, title) = (400, "malformed-request", "Malformed JSON")
        case .invalidScene(.invalid): (status, slug, title) = (422, "invalid-scene", "Invalid scene")
        case .invalidPatch: (status, slug, title) = (422, "invalid-scene", "Invalid patch")
        case .notFinite(_, let inPatch): (status, slug, title) = (422, "invalid-scene", inPatch ? "Invalid patch" : "Invalid scene")
        case .pointerRefused(.tooManyPointers, _, _, _): (status, slug, title) = (429, "too-many-pointers", "Too many pointers")
        case .pointerRefused(.moveOverflows, _, _, _): (status, slug, title) = (422, "invalid-request", "Invalid request")
        }
        self.init(status, slug, title, error.detail, issues: error.issues)
        if case .unavailable = error { headers.set("Retry-After", "1") }
    }

    static func invalidRequest(_ failure: DecodeFailure) -> Problem {
        decoding(failure, invalid: "invalid-request", title: "Invalid request")
    }

    /// The problem as a response: `application/problem+json`, with the
    /// request's id as `requestId` when known (SPEC §8).
    func response(requestID: RequestID? = nil) -> HTTPResponse {
        var w = JSONWriter()
        w.beginObject()
        w.field("type")
        w.string("/problems/\(slug)")
        w.field("title")
        w.string(title)
        w.field("status")
        w.int(status)
        w.field("detail")
        w.string(detail)
        if !issues.isEmpty {
            w.field("errors")
            w.beginArray()
            for issue in issues {
                w.beginObject()
                w.field("pointer")
                w.string(issue.pointer)
                w.field("message")
                w.string(issue.message)
                w.endObject()
            }
            w.endArray()
        }
        if let requestID {
            w.field("requestId")
            w.string(requestID.description)
        }
        w.endObject()
        var h = headers
        h.set("Content-Type", "application/problem+json")
        return HTTPResponse(status: status, headers: h, body: w.finish())
    }
}
