import HitRouting
import Synchronization

/// An immutable, versioned scene as stored: what one request routes against.
///
/// The scene sits behind one reference, so a snapshot copies (and a
/// request passes it around) for the price of two retains, not one per
/// array of the scene. `withCompiled` lends the compiled scene without a
/// copy; reading `compiled` may copy its arrays' references.
public struct SceneSnapshot: Sendable {
    public let id: String
    public let version: Int
    @usableFromInline let box: Box

    @usableFromInline final class Box: Sendable {
        @usableFromInline let live: LiveScene
        /// `LoopCost` bits seen so far (`isCostly`).
        @usableFromInline let costly = Atomic<UInt8>(0)
        /// The most routing work one point of this version was seen to read.
        @usableFromInline let pointWork = Atomic<Int>(0)
        @usableFromInline init(_ live: LiveScene) { self.live = live }
    }

    /// What was found too costly for an event loop in one version.
    public enum LoopCost: UInt8, Sendable {
        /// A single point read more than `Configuration.loopHitWork`.
        case points = 1
        /// A batch outgrew the loop's share (`Configuration.loopBatchWork`).
        case batches = 2
    }

    /// Whether this version was seen to cost that much: its hits (for
    /// `.points`) or batches then run on a worker thread, not on an event
    /// loop (HitAPI's `RunWhere`). A new version starts clear.
    @inlinable
    public func isCostly(_ cost: LoopCost) -> Bool { box.costly.load(ordering: .relaxed) & cost.rawValue != 0 }

    /// Notes that this version costs that much.
    public func markCostly(_ cost: LoopCost) { box.costly.bitwiseOr(cost.rawValue, ordering: .relaxed) }

    /// The most routing work (`Walk.work`) one point of this version was
    /// seen to read (0: none routed yet): what a batch's estimate is made
    /// of. Kept without a lock, so two routings at once may keep the
    /// smaller figure; an estimate, never a bound.
    public var pointWork: Int { box.pointWork.load(ordering: .relaxed) }

    /// Notes that one point read `work`.
    @inlinable @inline(__always)
    public func notePointWork(_ work: Int) {
        if work > box.pointWork.load(ordering: .relaxed) { box.pointWork.store(work, ordering: .relaxed) }
    }

    /// Runs `body` on the compiled scene, borrowed from the snapshot.
    @inlinable @inline(__always)
    public func withCompiled<R>(_ body: (borrowing CompiledScene) throws -> R) rethrows -> R {
        try body(box.live.compiled)
    }

    public init(id: String, version: Int, live: LiveScene) {
        self.id = id
        self.version = version
        self.box = Box(live)
    }

    @inlinable
    public var live: LiveScene {
        _read { yield box.live }
    }

    @inlinable
    public var compiled: CompiledScene {
        _read { yield box.live.compiled }
    }

    /// An empty scene that holds a snapshot's place while it changes.
    public static let vacant = LiveScene(Scene())
}
