/// Why a command got no reply: the server could not be reached, did not
/// answer in time, or answered bytes that are not RESP. (A reply that is
/// an error, `-ERR …`, is a value: ``RESPValue/error(_:)``.)
public struct RedisError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// No connection could be made (refused, unresolvable, backing off).
        case unreachable
        /// The server took longer than the timeout.
        case timeout
        /// The connection broke mid-exchange.
        case connectionLost
        /// The reply was not RESP.
        case protocolError
        /// AUTH or SELECT was refused.
        case refused
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "redis \(kind): \(message)" }
}
