/// The id that ties a request to its response, its log line and its
/// problem body (SPEC §8): the client's `X-Request-Id` when it is 1–128
/// visible ASCII characters (`!`…`~`), else one the server makes up.
///
/// A generated id is 20 lowercase hex digits: 8 chosen at random when the
/// process starts, 2 for the event loop, 10 counting that loop's requests
/// (`3f9a0c12` `00` `000000002a`), so ids are unique within a process and
/// unlikely to repeat across restarts. It is kept as numbers and written
/// as text only where needed, so a request that nobody logs costs no string.
public struct RequestID: Sendable, Equatable, CustomStringConvertible {
    enum Storage: Sendable, Equatable {
        case given(String)
        case generated(loop: UInt8, serial: UInt64)
    }

    let storage: Storage

    /// Random per process: the first 8 hex digits of every generated id.
    static let processPrefix = UInt32.random(in: 0...UInt32.max)
    /// The longest id a client may give.
    public static let maxLength = 128

    init(storage: Storage) { self.storage = storage }

    /// The client's id if valid, else a generated one.
    init(given value: UnsafeBufferPointer<UInt8>?, loop: Int, serial: UInt64) {
        if let value, RequestID.isValid(value) {
            storage = .given(String(decoding: value, as: UTF8.self))
        } else {
            storage = .generated(loop: UInt8(truncatingIfNeeded: loop), serial: serial)
        }
    }

    /// Whether `value` is 1–128 visible ASCII characters.
    public static func isValid(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !value.isEmpty, value.count <= maxLength else { return false }
        for byte in value where byte < 0x21 || byte > 0x7E { return false }
        return true
    }

    /// Whether `value` is 1–128 visible ASCII characters.
    public static func isValid(_ value: String) -> Bool {
        var copy = value
        return copy.withUTF8 { isValid($0) }
    }

    /// The id's bytes (at most 128), written by `body`.
    @inline(__always)
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        switch storage {
        case .given(let text):
            var text = text
            return text.withUTF8(body)
        case .generated(let loop, let serial):
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
                RequestID.hex(UInt64(RequestID.processPrefix), digits: 8, into: buffer.baseAddress!)
                RequestID.hex(UInt64(loop), digits: 2, into: buffer.baseAddress! + 8)
                RequestID.hex(serial, digits: 10, into: buffer.baseAddress! + 10)
                return body(UnsafeBufferPointer(buffer))
            }
        }
    }

    /// The id as text.
    public var description: String {
        withBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// Writes the low `digits` hex digits of `value`, most significant first.
    @inline(__always)
    static func hex(_ value: UInt64, digits: Int, into out: UnsafeMutablePointer<UInt8>) {
        var v = value
        var i = digits
        while i > 0 {
            i -= 1
            let nibble = UInt8(truncatingIfNeeded: v & 0xF)
            out[i] = nibble < 10 ? 0x30 &+ nibble : 0x57 &+ nibble  // 0-9, a-f
            v >>= 4
        }
    }
}
