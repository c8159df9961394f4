/// Which pointer an event belongs to: its id as the client names it, in a
/// namespace (SPEC §11.2: each stream's pointers are its own, and neither is
/// the HTTP clients' pointer of the same id).
///
///     PointerKey("mouse")               // the HTTP clients' "mouse"
///     PointerKey("mouse", namespace: 7) // stream 7's "mouse", another pointer
public struct PointerKey: Hashable, Sendable, Comparable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The namespace of the HTTP clients (`POST …/hit`, `…/hits`).
    public static let http: UInt64 = 0

    /// The pointer's id as the client sent it.
    public var id: String
    /// Whose pointer it is: ``http``, or a number a stream owns for its life.
    public var namespace: UInt64

    public init(_ id: String, namespace: UInt64 = PointerKey.http) {
        self.id = id
        self.namespace = namespace
    }

    public init(stringLiteral id: String) { self.init(id) }

    /// Namespace first, then id (an order for answers that list pointers).
    public static func < (a: PointerKey, b: PointerKey) -> Bool {
        a.namespace != b.namespace ? a.namespace < b.namespace : a.id < b.id
    }

    public var description: String { namespace == PointerKey.http ? id : "\(namespace)/\(id)" }
}

/// What kind of device a pointer is (SPEC §11.1 `pointerType`).
public enum PointerType: String, Sendable, CaseIterable {
    /// The default. Hovers: its hovered set follows it with no button pressed.
    case mouse
    /// Hovers like a mouse.
    case pen
    /// Has no hover: it is over something only between its `down` and its
    /// `up` or `cancel`.
    case touch

    /// Whether the pointer is over layers when no button is pressed.
    public var hovers: Bool { self != .touch }
}
