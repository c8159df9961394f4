/// What an API key may do (SPEC §8), each scope including the ones below it.
public enum Scope: Int, Sendable, Comparable, CaseIterable {
    /// Read scenes and renders; `hit` and `hits` without pointer phases; `/metrics`.
    case read
    /// `read`, plus pointer phases (which may drag, so change a scene).
    case interact
    /// Everything: create, replace, patch and delete scenes.
    case write

    public var name: String {
        switch self {
        case .read: return "read"
        case .interact: return "interact"
        case .write: return "write"
        }
    }

    public init?(name: String) {
        guard let scope = Scope.allCases.first(where: { $0.name == name }) else { return nil }
        self = scope
    }

    public static func < (a: Scope, b: Scope) -> Bool { a.rawValue < b.rawValue }
}

extension Route {
    /// The scope a request needs on this route before its body is read;
    /// nil when it needs no key at all (probes, the API document; preflights
    /// are answered before this is asked). A hit or batch with pointer
    /// phases needs ``Scope/interact`` more, checked once decoded.
    func requiredScope(method: String) -> Scope? {
        switch self {
        // The playground's page and files hold no scene data: a browser must
        // load them to be given a key at all.
        case .healthz, .readyz, .openAPI, .index, .asset: return nil
        case .render, .audit, .reach, .diff: return .read
        // Opening a stream needs `read`; each message is checked as its own request.
        case .stream: return .read
        case .metrics: return .read
        case .scenes, .scene: return method == "GET" ? .read : .write
        case .hit, .hits: return .read
        case .layer: return .write
        }
    }
}
