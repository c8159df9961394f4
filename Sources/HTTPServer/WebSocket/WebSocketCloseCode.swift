/// A close frame's status code (RFC 6455 §7.4).
///
/// ```swift
/// WebSocketCloseCode.messageTooBig.rawValue   // 1009
/// WebSocketCloseCode(rawValue: 4404).mayBeReceived  // true: 4000–4999 are the application's
/// ```
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    /// 1000: the purpose is fulfilled.
    public static let normal = WebSocketCloseCode(1000)
    /// 1001: the server is shutting down, or the stream sat idle.
    public static let goingAway = WebSocketCloseCode(1001)
    /// 1002: a framing error (unmasked client frame, bad length, RSV bit,
    /// unknown opcode, fragmented or long control frame, bad continuation).
    public static let protocolError = WebSocketCloseCode(1002)
    /// 1003: a data type the endpoint does not take (a binary message here).
    public static let unsupportedData = WebSocketCloseCode(1003)
    /// 1005: "no status was given". Never sent; reported when a close
    /// frame carried no code.
    public static let noStatus = WebSocketCloseCode(1005)
    /// 1006: the connection ended without a close frame. Never sent.
    public static let abnormal = WebSocketCloseCode(1006)
    /// 1007: a text message that is not UTF-8.
    public static let invalidPayload = WebSocketCloseCode(1007)
    /// 1008: a policy was broken (a client that reads its answers too slowly).
    public static let policyViolation = WebSocketCloseCode(1008)
    /// 1009: a message over the size limit.
    public static let messageTooBig = WebSocketCloseCode(1009)
    /// 1011: the server failed.
    public static let internalError = WebSocketCloseCode(1011)

    /// Whether a peer may send this code in a close frame: 1000–1003,
    /// 1007–1011 and 3000–4999 (§7.4.1, §7.4.2 and the IANA registry's
    /// 1012–1014); 1004–1006, 1015 and everything else are protocol errors.
    public var mayBeReceived: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }

    public var description: String { String(rawValue) }
}
