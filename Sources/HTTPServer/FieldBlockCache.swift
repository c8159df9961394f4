/// The wire bytes of the handler field list a loop encoded last, kept
/// with that list: a handler that answers with a list built once (a copy
/// that ``HTTPHeaders/sharesStorage(with:)`` the one kept) gets its fields
/// as one block copy, not filtered and written field by field.
///
/// Holding the list keeps its storage alive, so no other list can come to
/// share that storage: equal storage means equal fields. One per event
/// loop, touched only by its thread.
final class FieldBlockCache {
    /// Blocks longer than this are not kept (bytes).
    static let maxBlockBytes = 2048

    @exclusivity(unchecked) private var headers = HTTPHeaders()
    @exclusivity(unchecked) private var dropsRequestID = false
    @exclusivity(unchecked) private var filled = false
    /// The fields as ``ResponseEncoder`` writes them, `name: value` CRLF each.
    @exclusivity(unchecked) private(set) var bytes: [UInt8] = []
    /// Whether the list holds `Connection: close`.
    @exclusivity(unchecked) private(set) var closes = false

    init() {}

    /// Whether the block is that of `headers` written with `dropRequestID`.
    /// - Complexity: O(1).
    @inline(__always)
    func holds(_ headers: HTTPHeaders, dropRequestID: Bool) -> Bool {
        filled && dropsRequestID == dropRequestID && headers.sharesStorage(with: self.headers)
    }

    /// Keeps `block`, the bytes `headers`' fields were written as (only
    /// lists of stored fields: received ones share no storage).
    /// - Complexity: O(`block.count`); allocates only to grow the block's storage.
    func keep(_ headers: HTTPHeaders, dropRequestID: Bool, block: UnsafeBufferPointer<UInt8>, closes: Bool) {
        guard block.count <= Self.maxBlockBytes, !headers.isReceived else { return }
        self.headers = headers
        dropsRequestID = dropRequestID
        self.closes = closes
        bytes.removeAll(keepingCapacity: true)
        bytes.append(contentsOf: block)
        filled = true
    }
}
