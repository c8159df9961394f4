/// Why the parser rejected a request, and where.
///
/// Every kind maps to exactly one status (``status``); the server answers
/// with a problem-details body and closes the connection.
public struct HTTPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        // 400: malformed request line
        case invalidMethod
        case invalidTarget
        case invalidVersion
        // 400: malformed field lines
        case invalidFieldName
        case whitespaceBeforeColon
        case obsoleteLineFolding
        case invalidFieldValue
        case invalidLineEnding
        // 400: semantic
        case missingHost
        case duplicateHost
        case invalidHost
        case contentLengthWithTransferEncoding
        case invalidContentLength
        case invalidTransferEncoding
        case invalidChunkSize
        case invalidChunkExtension
        case invalidChunkTerminator
        // other statuses
        case unknownMethod  // 501
        case unsupportedTransferCoding  // 501
        case unsupportedVersion  // 505
        case requestLineTooLong  // 414
        case headerTooLarge  // 431
        case bodyTooLarge  // 413
        case unsupportedExpectation  // 417
        case hostNotAllowed  // 403
    }

    public var kind: Kind
    /// Byte offset, from the first byte of this request (leading empty
    /// lines included), of the byte that revealed the error.
    public var offset: Int

    public init(_ kind: Kind, at offset: Int) {
        self.kind = kind
        self.offset = offset
    }

    /// The response status for this error.
    public var status: Int {
        switch kind {
        case .unknownMethod, .unsupportedTransferCoding: return 501
        case .unsupportedVersion: return 505
        case .requestLineTooLong: return 414
        case .headerTooLarge: return 431
        case .bodyTooLarge: return 413
        case .unsupportedExpectation: return 417
        case .hostNotAllowed: return 403
        default: return 400
        }
    }

    /// The problem type's last path segment (`/problems/<slug>`).
    public var slug: String {
        switch status {
        case 501: return "not-implemented"
        case 505: return "http-version-not-supported"
        case 414: return "request-line-too-long"
        case 431: return "header-too-large"
        case 413: return "payload-too-large"
        case 417: return "expectation-failed"
        case 403: return "host-not-allowed"
        default: return "malformed-request"
        }
    }

    /// The problem's short title.
    public var title: String {
        switch status {
        case 501: return "Not implemented"
        case 505: return "HTTP version not supported"
        case 414: return "Request line too long"
        case 431: return "Request header fields too large"
        case 413: return "Request body too large"
        case 417: return "Expectation failed"
        case 403: return "Host not allowed"
        default: return "Malformed request"
        }
    }

    /// A human explanation naming the byte offset.
    public var detail: String {
        let what: String
        switch kind {
        case .invalidMethod: what = "invalid method token"
        case .invalidTarget: what = "invalid request-target"
        case .invalidVersion: what = "invalid HTTP version"
        case .invalidFieldName: what = "invalid character in a field name"
        case .whitespaceBeforeColon: what = "whitespace between a field name and the colon"
        case .obsoleteLineFolding: what = "obsolete line folding (a field line starting with whitespace)"
        case .invalidFieldValue: what = "invalid character in a field value"
        case .invalidLineEnding: what = "a line not ended by CRLF (bare CR or LF)"
        case .missingHost: what = "HTTP/1.1 request without a Host field"
        case .duplicateHost: what = "more than one Host field"
        case .invalidHost: what = "a Host field that is not uri-host [\":\" port] (RFC 9112 §3.2, RFC 3986 §3.2.2)"
        case .contentLengthWithTransferEncoding: what = "both Content-Length and Transfer-Encoding"
        case .invalidContentLength: what = "invalid or conflicting Content-Length"
        case .invalidTransferEncoding: what = "chunked must be the final transfer coding, once, and only in HTTP/1.1"
        case .invalidChunkSize: what = "invalid chunk size"
        case .invalidChunkExtension: what = "invalid or overlong chunk extension"
        case .invalidChunkTerminator: what = "chunk data not followed by CRLF"
        case .unknownMethod: what = "unknown method"
        case .unsupportedTransferCoding: what = "transfer coding other than chunked"
        case .unsupportedVersion: what = "only HTTP/1.0 and HTTP/1.1 are supported"
        case .requestLineTooLong: what = "request line over the limit"
        case .headerTooLarge: what = "header block over the limit"
        case .bodyTooLarge: what = "body over the limit"
        case .unsupportedExpectation: what = "the only supported expectation is 100-continue"
        case .hostNotAllowed: what = "this service does not answer to that Host name (see --allowed-hosts)"
        }
        return what + " (byte \(offset))"
    }

    public var description: String { "\(status) \(kind) at byte \(offset)" }

    /// The problem-details response for this error.
    public var response: HTTPResponse { response(requestID: nil) }

    /// The problem-details response, naming the request's id.
    public func response(requestID: RequestID?) -> HTTPResponse {
        .problem(status: status, slug: slug, title: title, detail: detail, requestID: requestID)
    }
}
