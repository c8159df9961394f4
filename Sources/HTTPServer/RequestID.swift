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

    /// The 20 hex digits of a generated id: the process prefix's 8, known
    /// once, then 12 for the loop and the serial (`value48`), written as
    /// whole words, without a loop over the digits.
    @inline(__always)
    private func writeGenerated(into out: UnsafeMutablePointer<UInt8>) {
        let raw = UnsafeMutableRawPointer(out)
        let value48 = (packed >> 56) << 40 | (packed & 0xFF_FFFF_FFFF)
        raw.storeBytes(of: RequestID.prefixText, as: UInt64.self)
        // Digits 12–19 first ("0000" and the last four), then 8–15 over their zeros.
        raw.storeBytes(of: RequestID.hexWord(UInt32(truncatingIfNeeded: value48 & 0xFFFF)), toByteOffset: 12, as: UInt64.self)
        raw.storeBytes(of: RequestID.hexWord(UInt32(truncatingIfNeeded: value48 >> 16)), toByteOffset: 8, as: UInt64.self)
    }

    /// ``processPrefix`` as 8 hex digits, in memory order.
    static let prefixText = hexWord(processPrefix)

    /// The 8 lowercase hex digits of `value`, most significant first: stored
    /// as is (`storeBytes`), its bytes are the digits in order. Branch-free: the
    /// nibbles are spread one a byte, then each gets `0` or `a` added.
    @inline(__always)
    static func hexWord(_ value: UInt32) -> UInt64 {
        var x = UInt64(value)
        x = (x | x << 16) & 0x0000_FFFF_0000_FFFF
        x = (x | x << 8) & 0x00FF_00FF_00FF_00FF
        x = (x | x << 4) & 0x0F0F_0F0F_0F0F_0F0F  // nibble i (from the top) in byte 7 - i
        let letters = ((x &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101  // 1 where the nibble is ≥ 10
        x = x &+ 0x3030_3030_3030_3030 &+ letters &* 0x27  // "0"+n, or "a"+n-10 ("a" - "0" - 10 = 39)
        return x.bigEndian  // most significant digit first in memory
    }

    /// The id as text.
    public var description: String {
        withBytes { String(decoding: $0, as: UTF8.self) }
    }
}
