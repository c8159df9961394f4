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
    /// The client's id; nil for a generated one.
    let given: String?
    /// A generated id: the event loop in the top 8 bits, its request count below.
    let packed: UInt64

    /// Random per process: the first 8 hex digits of every generated id.
    static let processPrefix = UInt32.random(in: 0...UInt32.max)
    /// The longest id a client may give.
    public static let maxLength = 128

    /// The client's id, or nil when it is not a valid one.
    init?(given value: UnsafeBufferPointer<UInt8>) {
        guard RequestID.isValid(value) else { return nil }
        given = String(decoding: value, as: UTF8.self)
        packed = 0
    }

    /// A generated id: request `serial` of event loop `loop`.
    init(loop: Int, serial: UInt64) {
        given = nil
        packed = UInt64(UInt8(truncatingIfNeeded: loop)) << 56 | (serial & 0xFF_FFFF_FFFF)
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

    /// The length of the id's text: 20 for a generated one.
    @inline(__always)
    var byteCount: Int { given?.utf8.count ?? 20 }

    /// The id's bytes (at most 128), written by `body`.
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if var text = given { return text.withUTF8(body) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            writeGenerated(into: buffer.baseAddress!)
            return body(UnsafeBufferPointer(buffer))
        }
    }

    /// Writes the id where `w` points (room for ``maxLength`` bytes reserved).
    @inline(__always)
    func put(into w: inout ResponseEncoder.ByteCursor) {
        if var text = given {
            text.withUTF8 { w.put($0) }
        } else {
            w.putRaw(20) { writeGenerated(into: $0) }
        }
    }

    /// The 20 hex digits of a generated id.
    @inline(__always)
    private func writeGenerated(into out: UnsafeMutablePointer<UInt8>) {
        RequestID.hex(UInt64(RequestID.processPrefix), digits: 8, into: out)
        RequestID.hex(packed >> 56, digits: 2, into: out + 8)
        RequestID.hex(packed & 0xFF_FFFF_FFFF, digits: 10, into: out + 10)
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
