/// Pointer capture and hover for one scene (SPEC §5, §11.1), as a state
/// machine over a `LiveScene`: like the web's `setPointerCapture`, per
/// pointer, so two fingers can hold two layers at once; and, per pointer,
/// what it is over (``Hover``), so that each answer can say what it entered
/// and left since the pointer's previous one (``Boundary``). Time comes from
/// the caller.
///
/// Not thread-safe by itself: the store applies one scene's events one at a
/// time, in arrival order.
public struct PointerSessions: Sendable {
    /// A live capture: the pointer routes to `layer` until up, cancel,
    /// hover, leave or expiry.
    public struct Capture: Sendable, Equatable {
        public var layer: String
        /// Scene coordinates of the `down` that made the capture.
        public var down: Point
    }

    /// A remembered pointer.
    public struct Pointer: Sendable, Equatable {
        /// Its capture, if it holds one.
        public var capture: Capture?
        /// Its latest event's `pointerType`.
        public var type: PointerType
        /// Whether it is pressed: a `down` without an `up`, `cancel`,
        /// `hover` or `leave` since (what makes a touch be over anything).
        public var pressed: Bool
        /// Scene coordinates of its latest event (where a new version of the
        /// scene is routed for it, and where a drag measures from).
        public var last: Point
        /// Time of its latest event, in seconds.
        public var lastActive: Double
        /// What its latest answer (or push) reported it was over.
        public var reported: Hover
    }

    /// The phase of a pointer event.
    public enum Phase: String, Sendable, CaseIterable {
        case down, move, up, cancel
        /// Moving with no button pressed (SPEC §11.1): routes like a plain
        /// hit and holds no capture.
        case hover
        /// Left the surface: over nothing, any capture released, forgotten.
        case leave

        /// Whether an event of this phase can drag a layer (a captured
        /// `move` or `up`); the others only read the scene.
        public var mayDrag: Bool { self == .move || self == .up }
    }

    /// What an event did.
    public struct Outcome: Sendable {
        public var result: HitResult
        /// Whether the answer was routed by a capture, or is a `down` that made one.
        public var captured: Bool
        /// Whether a drag moved a layer (the scene's version must grow).
        public var moved: Bool
        /// What routing the event read (`CompiledScene.hit(_:trace:all:work:)`).
        public var work = 0
        /// What the pointer entered and left since its previous answer; nil
        /// when neither its hovered set nor its target changed.
        public var boundary: Boundary?
    }

    /// Why an event was refused.
    public enum Refusal: Error, Equatable, Sendable {
        /// The event would remember one pointer more than `maxPointers`.
        case tooManyPointers(limit: Int)
        /// Dragging `layer` this far would take a number of the scene
        /// beyond the finite range (SPEC §1); nothing changed, the capture
        /// stays as it was.
        case moveOverflows(layer: String, NumericProblem)
    }

    /// The remembered pointers: every one seen since it last left, expired
    /// or (a touch) lifted.
    public internal(set) var pointers: [PointerKey: Pointer] = [:]
    /// Captures dropped before their pointer's next event, by pointer: the
    /// layer that held it and why, until that event reports it.
    public internal(set) var dropped: [PointerKey: (layer: String, why: TraceDetail.DropReason)] = [:]
    /// A lower bound of every remembered pointer's `lastActive`, in seconds
    /// (infinity when none is remembered): while `now - earliestActive` is at
    /// most `idleTimeout`, no pointer has expired and expiry visits nothing.
    public internal(set) var earliestActive = Double.infinity
    /// Remembered pointers visited by expiry scans so far: a deterministic
    /// measure of expiry's work (each scan visits every pointer), for tests.
    var expiryVisits = 0
    /// Pointers remembered at once (captures among them).
    public var maxPointers: Int
    /// Seconds without an event after which a pointer (and its capture) is forgotten.
    public var idleTimeout: Double

    public init(maxPointers: Int = 64, idleTimeout: Double = 30) {
        self.maxPointers = maxPointers
        self.idleTimeout = idleTimeout
    }

    /// `pointer`'s capture, if it holds one.
    public func capture(of pointer: PointerKey) -> Capture? { pointers[pointer]?.capture }

    /// Captures not idle for longer than `idleTimeout` at time `now`.
    /// - Complexity: O(pointers).
    public func liveCaptureCount(now: Double) -> Int {
        pointers.values.reduce(0) { $0 + ($1.capture != nil && now - $1.lastActive <= idleTimeout ? 1 : 0) }
    }

    /// Pointers not idle for longer than `idleTimeout` at time `now`.
    /// - Complexity: O(pointers).
    public func livePointerCount(now: Double) -> Int {
        pointers.values.reduce(0) { $0 + (now - $1.lastActive <= idleTimeout ? 1 : 0) }
    }

    /// Forgets pointers idle for longer than `idleTimeout` at time `now`.
    /// - Complexity: O(1) while no pointer can have expired (`now` is within
    ///   `idleTimeout` of ``earliestActive``); else O(pointers) once, after
    ///   which ``earliestActive`` is exact again.
    public mutating func expire(now: Double) {
        var edits = Edits()
        expire(now: now, recording: &edits)
    }

    /// `expire(now:)`, recording every pointer it forgets in `edits`.
    mutating func expire(now: Double, recording edits: inout Edits) {
        let timeout = idleTimeout
        guard now - earliestActive > timeout else { return }
        var earliest = Double.infinity
        var expired: [PointerKey] = []
        for (key, pointer) in pointers {
            expiryVisits &+= 1
            if now - pointer.lastActive > timeout {
                expired.append(key)
            } else {
                earliest = min(earliest, pointer.lastActive)
            }
        }
        earliestActive = earliest
        for key in expired { edits.pointers.append((key, pointers.removeValue(forKey: key))) }
    }

    /// Drops every capture whose layer is not in `scene` (after a replace or
    /// an update), remembering it so that the pointer's next event says so.
    public mutating func dropCaptures(missingFrom scene: borrowing CompiledScene) {
        for (key, pointer) in pointers {
            guard let capture = pointer.capture, scene.indexByID[capture.layer] == nil else { continue }
            pointers[key]?.capture = nil
            if dropped.count < maxPointers { dropped[key] = (capture.layer, .layerRemoved) }
        }
    }

    /// Drops every capture (the scene was replaced), remembering each so
    /// that its pointer's next event says so. What each pointer is over is
    /// kept, for its next answer to compare with.
    public mutating func dropAllCaptures() {
        for (key, pointer) in pointers {
            guard let capture = pointer.capture else { continue }
            pointers[key]?.capture = nil
            if dropped.count < maxPointers { dropped[key] = (capture.layer, .sceneReplaced) }
        }
    }

    /// Remembers that `pointer`'s capture by `layer` was dropped elsewhere
    /// (another replica held it), so that its next event says so; replaces
    /// any live capture of that pointer here.
    public mutating func noteDropped(pointer: PointerKey, layer: String, why: TraceDetail.DropReason) {
        var edits = Edits()
        noteDropped(pointer: pointer, layer: layer, why: why, recording: &edits)
    }

    /// `noteDropped(pointer:layer:why:)`, recording what it changes in `edits`.
    public mutating func noteDropped(pointer: PointerKey, layer: String, why: TraceDetail.DropReason, recording edits: inout Edits) {
        if let previous = pointers[pointer], previous.capture != nil {
            edits.pointers.append((pointer, previous))
            pointers[pointer]?.capture = nil
        }
        if dropped[pointer] != nil || dropped.count < maxPointers {
            edits.dropped.append((pointer, dropped[pointer]))
            dropped[pointer] = (layer, why)
        }
    }

    /// Forgets every pointer of `namespace` (a stream closed: its pointers
    /// are cancelled, their captures released).
    /// - Complexity: O(pointers).
    public mutating func forget(namespace: UInt64) {
        pointers = pointers.filter { $0.key.namespace != namespace }
        dropped = dropped.filter { $0.key.namespace != namespace }
    }
}

extension PointerSessions {
    /// What an event changed in the sessions, entry by entry, in order: each
    /// touched pointer's and dropped capture's value before it changed
    /// (nil: absent). ``PointerSessions/revert(_:)`` puts them back, so that
    /// an event whose record then fails leaves the sessions as they were
    /// without the sessions ever being copied.
    public struct Edits: Sendable {
        var pointers: [(key: PointerKey, previous: Pointer?)] = []
        var dropped: [(key: PointerKey, previous: (layer: String, why: TraceDetail.DropReason)?)] = []

        public init() {}

        /// Whether nothing was recorded.
        public var isEmpty: Bool { pointers.isEmpty && dropped.isEmpty }

        mutating func append(_ other: Edits) {
            if pointers.isEmpty { pointers = other.pointers } else { pointers += other.pointers }
            if dropped.isEmpty { dropped = other.dropped } else { dropped += other.dropped }
        }
    }

    /// Puts back every entry `edits` recorded, latest first.
    /// - Returns: the edits that redo what was undone (reverting them
    ///   restores the entries as they were before this call).
    /// - Complexity: O(entries recorded).
    @discardableResult
    public mutating func revert(_ edits: Edits) -> Edits {
        var redo = Edits()
        for (key, previous) in edits.dropped.reversed() {
            redo.dropped.append((key, dropped[key]))
            dropped[key] = previous
        }
        for (key, previous) in edits.pointers.reversed() {
            redo.pointers.append((key, pointers[key]))
            pointers[key] = previous
            if let previous { earliestActive = min(earliestActive, previous.lastActive) }
        }
        return redo
    }
}
