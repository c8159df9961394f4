/// Why a PNG (or the zlib stream inside it) was refused.
///
/// `message` is a short lower-case English sentence that names the problem
/// and, where there is one, the byte offset into the PNG file, e.g.
/// `bad CRC in chunk IDAT at byte 33`. Offsets are 0-based.
public struct PNGError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String

    public init(message: String) {
        self.message = message
    }

    public var description: String { "PNG error: \(message)" }
}
