/// The HTTP/1.x protocol version of a request.
///
/// A request line naming `HTTP/1.2` … `HTTP/1.9` is treated as HTTP/1.1
/// (RFC 9110 §2.5: the highest minor version the server implements);
/// any other major version is answered 505.
public enum HTTPVersion: Sendable, Hashable {
    case http1_0
    case http1_1
}
