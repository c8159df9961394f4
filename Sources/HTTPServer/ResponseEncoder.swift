/// Serialises responses: status line, the handler's fields, then `Date`,
/// `Content-Length` and `Connection`, written straight into a connection's
/// ``OutboundBuffer``.
enum ResponseEncoder {
    static let continueBytes: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// How to frame one response.
    struct Framing {
        /// The request was HEAD: send the fields, not the body.
        var isHead: Bool
        /// HTTP/1.0 peers get `Connection: keep-alive` when kept open.
        var version: HTTPVersion
        /// Close after this response (`Connection: close` is sent). Set to
        /// true by the encoder when the handler asked for it.
        var close: Bool
    }

    /// Appends `response` to `out`.
    /// - Returns: the number of body bytes queued.
    static func encode(_ response: HTTPResponse, framing: inout Framing, date: [UInt8], into out: inout OutboundBuffer) -> Int {
        let status = (200...999).contains(response.status) ? response.status : 500
        let bodyAllowed = status != 204 && status != 304
        let sendBody = bodyAllowed && !framing.isHead
        var handlerLength: String?
        var close = framing.close
        let body = response.body
        let inlineBody = sendBody && body.count < OutboundBuffer.copyThreshold

        out.appendOwned { buf in
            append("HTTP/1.1 ", to: &buf)
            appendDecimal(status, to: &buf)
            buf.append(UInt8(ascii: " "))
            append(reasonPhrase(status), to: &buf)
            append("\r\n", to: &buf)
            for var (name, value) in response.headers.storage {
                name.withUTF8 { name in
                    value.withUTF8 { value in
                        appendField(name, value, to: &buf, close: &close, handlerLength: &handlerLength,
                                    keepLength: body.isEmpty && !sendBody && status != 204)
                    }
                }
            }
            append("Date: ", to: &buf)
            buf.append(contentsOf: date)
            append("\r\n", to: &buf)
            if let handlerLength {
                append("Content-Length: ", to: &buf)
                var handlerLength = handlerLength
                handlerLength.withUTF8 { buf.append(contentsOf: $0) }
                append("\r\n", to: &buf)
            } else if status != 204, status != 304 {
                append("Content-Length: ", to: &buf)
                appendDecimal(body.count, to: &buf)
                append("\r\n", to: &buf)
            }
            if close {
                append("Connection: close\r\n", to: &buf)
            } else if framing.version == .http1_0 {
                append("Connection: keep-alive\r\n", to: &buf)
            }
            append("\r\n", to: &buf)
            if inlineBody { buf.append(contentsOf: body) }
        }
        if sendBody, !inlineBody { out.append(body) }
        framing.close = close
        return sendBody ? body.count : 0
    }

    /// Appends one of the handler's fields, unless the server writes that
    /// field itself or it is not valid (a handler bug must not split the
    /// response). `Connection: close` sets `close`; with `keepLength`, a
    /// `Content-Length` is kept aside in `handlerLength` (HEAD).
    @inline(__always)
    static func appendField(
        _ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>, to buf: inout [UInt8],
        close: inout Bool, handlerLength: inout String?, keepLength: Bool
    ) {
        switch name.count {
        case 4 where asciiEqualsLowercased(name, "date"):
            return
        case 10 where asciiEqualsLowercased(name, "connection"):
            HTTPRequestParser.forEachListElement(value) { token in
                if asciiEqualsLowercased(token, "close") { close = true }
            }
            return
        case 14 where asciiEqualsLowercased(name, "content-length"):
            // The last one counts; an invalid one is replaced by the real length.
            if keepLength {
                handlerLength = value.allSatisfy(ByteClass.isFieldValue) ? String(decoding: value, as: UTF8.self) : nil
            }
            return
        case 17 where asciiEqualsLowercased(name, "transfer-encoding"):
            return
        default:
            break
        }
        guard !name.isEmpty, name.allSatisfy(ByteClass.isToken), value.allSatisfy(ByteClass.isFieldValue) else { return }
        buf.append(contentsOf: name)
        buf.append(UInt8(ascii: ":"))
        buf.append(UInt8(ascii: " "))
        buf.append(contentsOf: value)
        buf.append(UInt8(ascii: "\r"))
        buf.append(UInt8(ascii: "\n"))
    }

    /// Appends a literal's bytes.
    @inline(__always)
    static func append(_ text: StaticString, to buf: inout [UInt8]) {
        buf.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends the decimal digits of a non-negative `value`.
    @inline(__always)
    static func appendDecimal(_ value: Int, to buf: inout [UInt8]) {
        if value < 10 {
            buf.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: max(0, value)))
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = value
        var count = 0
        withUnsafeMutableBytes(of: &digits) { raw in
            while n > 0 {
                raw[19 - count] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: n % 10)
                n /= 10
                count += 1
            }
            buf.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[(20 - count)...]))
        }
    }

    /// The reason phrase for `status` (RFC 9110 §15), or a generic one.
    static func reasonPhrase(_ status: Int) -> StaticString {
        switch status {
        case 100: return "Continue"
        case 101: return "Switching Protocols"
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 204: return "No Content"
        case 206: return "Partial Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 303: return "See Other"
        case 304: return "Not Modified"
        case 307: return "Temporary Redirect"
        case 308: return "Permanent Redirect"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 406: return "Not Acceptable"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 410: return "Gone"
        case 411: return "Length Required"
        case 412: return "Precondition Failed"
        case 413: return "Content Too Large"
        case 414: return "URI Too Long"
        case 415: return "Unsupported Media Type"
        case 416: return "Range Not Satisfiable"
        case 417: return "Expectation Failed"
        case 422: return "Unprocessable Content"
        case 428: return "Precondition Required"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        case 505: return "HTTP Version Not Supported"
        case 507: return "Insufficient Storage"
        default:
            switch status / 100 {
            case 1: return "Informational"
            case 2: return "Success"
            case 3: return "Redirection"
            case 4: return "Client Error"
            default: return "Server Error"
            }
        }
    }
}
