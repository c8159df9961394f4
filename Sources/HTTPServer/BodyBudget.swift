import Synchronization

/// The bytes of request bodies all connections together may hold in memory
/// at once (``ServerConfiguration/maxBufferedBodyBytes``), so that many
/// slow uploads — each a few bytes short of complete, each trickling one
/// byte per body timeout — cannot together exhaust the process, though
/// each stays under the per-request limit.
///
/// A body of up to ``freeBytes`` takes nothing from the budget (the hit
/// path's small bodies touch no shared state). A larger one reserves its
/// `Content-Length` when its head arrives; a chunked one reserves as it
/// grows, a step at a time. When the budget cannot cover it the request is
/// refused with 503 and `Retry-After` before more of it is read. The
/// reservation is returned when the handler is done with the body, or when
/// the connection closes first.
///
/// Uploads are rare next to hits: one atomic add per reservation.
final class BodyBudget: Sendable {
    /// Bodies this small need no reservation: at most this much per
    /// connection goes uncounted (as much as a header block).
    static let freeBytes = 16 * 1024
    /// A chunked body reserves in steps of at least this much.
    static let chunkedStep = 1 << 20

    let capacity: Int
    private let reserved = Atomic<Int>(0)
    private let refused = Atomic<UInt64>(0)

    init(capacity: Int) { self.capacity = max(0, capacity) }

    /// Takes `bytes` from the budget; false (and nothing taken, a refusal
    /// counted) when that would pass the capacity.
    func reserve(_ bytes: Int) -> Bool {
        guard bytes > 0 else { return true }
        var current = reserved.load(ordering: .relaxed)
        while true {
            guard bytes <= capacity - current else {
                refused.add(1, ordering: .relaxed)
                return false
            }
            let (exchanged, original) = reserved.compareExchange(
                expected: current, desired: current + bytes, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
    }

    /// Gives back `bytes` taken by ``reserve(_:)``.
    func release(_ bytes: Int) {
        if bytes > 0 { reserved.subtract(bytes, ordering: .relaxed) }
    }

    /// Bytes reserved now.
    var inUse: Int { reserved.load(ordering: .relaxed) }
    /// Requests refused for want of budget, since the start.
    var refusals: UInt64 { refused.load(ordering: .relaxed) }
}
