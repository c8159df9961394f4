import HitRouting
import SceneCodec

/// Why a store refused or failed an operation, in the store's own terms.
/// The API turns each case into one problem+json answer (HitAPI's
/// `Problem(_: StoreError)`, the one place); the store itself speaks no HTTP.
public enum StoreError: Error, Sendable {
    /// No such scene, or no such layer in it (the detail says which).
    case notFound(String)
    /// The change conflicts with the store's state: the id exists, or
    /// concurrent writers won every attempt.
    case conflict(String)
    /// `If-Match`, or `X-Min-Version`, names a version the scene is not at.
    case preconditionFailed(String)
    /// The store cannot take more of `Full`.
    case full(Full, String)
    /// The change would make a scene's JSON longer than an upload may be
    /// (or a journal record may hold): the detail, and the pointer at fault.
    case tooLarge(String, [ValidationIssue])
    /// The change was not made durable and is not acknowledged, or a read
    /// needed a backend that cannot answer now (starting, failed, unreachable).
    case unavailable(String)
    /// Stored records contradict each other (recovery: a version after a
    /// later one, a record where none can be).
    case inconsistent(String)
    /// A scene document (an upload, a patched layer, a document read back)
    /// that does not decode: syntax, or issues with JSON Pointers.
    case invalidScene(DecodeFailure)
    /// A layer patch that is not one: the detail and the pointers at fault.
    case invalidPatch(String, [ValidationIssue])
    /// A number computed from the scene (or, `inPatch`, from the patched
    /// layer) is not finite: the pointer says where.
    case notFinite(NumericProblem, inPatch: Bool)
    /// A pointer event the scene's sessions refused (one pointer too many,
    /// a drag past the finite range).
    case pointerRefused(PointerSessions.Refusal, scene: String, maxPointers: Int, captureTimeout: Double)

    /// What a store is full of.
    public enum Full: String, Sendable {
        /// `maxScenes` scenes are held.
        case scenes
        /// The scenes weigh `maxStoreBytes`.
        case bytes
        /// One scene would pass a replica's cache (`--cache-bytes`).
        case cache
        /// The journal's disk.
        case disk
        /// The scene's version is the largest a journal record holds.
        case versions
    }
}
