import HitRouting
import SceneCodec

extension StoreError {
    /// What went wrong, in a sentence for a person (a problem's `detail`,
    /// a recovery report).
    public var detail: String {
        switch self {
        case .notFound(let d), .conflict(let d), .preconditionFailed(let d), .full(_, let d), .tooLarge(let d, _),
            .unavailable(let d), .inconsistent(let d), .invalidPatch(let d, _):
            return d
        case .invalidScene(.syntax(let e)):
            return "the body is not valid JSON: \(e.message) at byte \(e.offset)"
        case .invalidScene(.invalid(let issues)):
            return "\(issues.count) problem\(issues.count == 1 ? "" : "s") in the scene"
        case .notFinite:
            return "a number computed from the scene is not finite"
        case .pointerRefused(.tooManyPointers, let id, let maxPointers, let captureTimeout):
            return
                "scene \"\(id)\" already remembers \(maxPointers) pointers (captures and hovering pointers); let one go (leave, or a touch's up or cancel) or wait \(Int(captureTimeout)) s for an idle one to expire"
        case .pointerRefused(.moveOverflows(let layer, let problem), _, _, _):
            return
                "dragging layer \"\(layer)\" to this point would take its scene beyond the finite range (\(problem.message)); nothing moved and the capture stays"
        }
    }

    /// The JSON Pointers at fault, each with its message.
    public var issues: [ValidationIssue] {
        switch self {
        case .invalidScene(.invalid(let issues)), .invalidPatch(_, let issues), .tooLarge(_, let issues): return issues
        case .notFinite(let problem, _): return [ValidationIssue(problem)]
        case .pointerRefused(.moveOverflows(let layer, _), _, _, _):
            return [ValidationIssue(pointer: "", message: "moves layer \"\(layer)\" too far")]
        default: return []
        }
    }
}
