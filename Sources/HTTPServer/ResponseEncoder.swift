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
    /// - Complexity: one pass over the handler's fields; the head is
    ///   written on the stack, then copied into `out` with a small body.
    /// With a `requestID`, the response carries it as `X-Request-Id`
    /// (in place of any the handler set). With a `fieldCache`, a list of
    /// fields the cache holds is written as its one block, and the cache
    /// keeps the list written otherwise.
    static func encode(
        _ response: HTTPResponse, framing: inout Framing, date: [UInt8], requestID: RequestID? = nil,
        fieldCache: FieldBlockCache? = nil, into out: inout OutboundBuffer
    ) -> Int {
        // A WebSocket upgrade's 101: no body, no Content-Length, `Connection: Upgrade`.
        let switching = response.status == 101 && response.upgrade != nil
        let status = (200...999).contains(response.status) || switching ? response.status : 500
        let bodyAllowed = status != 204 && status != 304 && !switching
        let sendBody = bodyAllowed && !framing.isHead
        let body = response.body
        let keepLength = body.isEmpty && !sendBody && status != 204
        var handlerLength: String?
        var close = framing.close
        let inlineBody = sendBody && body.count < OutboundBuffer.copyThreshold
        // A small body goes on the stack after the head: one append to the output.
        let bodyOnStack = inlineBody && body.count <= stackBodyBytes

        // The head at most: every field with ": " and CRLF, plus the status
        // line, Date, Content-Length and Connection lines and the blank line
        // (`fixedBound` covers all but the date).
        let bound =
            fixedBound + date.count + response.headers.writtenBound
            + (requestID.map { 16 + $0.byteCount } ?? 0) + (bodyOnStack ? body.count : 0)
        let dropRequestID = requestID != nil

        // Written on the stack (a usual head is well under the 1 KiB that
        // `withUnsafeTemporaryAllocation` keeps there), with a body of up to
        // `stackBodyBytes`, then copied once into the output (with any
        // other inline body): the output's array is never zero-filled to
        // the bound and trimmed back.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bound) { room in
            let head = room.baseAddress!
            var w = ByteCursor(head)
            w.put("HTTP/1.1 ")
            w.putDecimal(status)
            w.put(UInt8(ascii: " "))
            w.put(reasonPhrase(status))
            w.put("\r\n")
            if !keepLength, let fieldCache, fieldCache.holds(response.headers, dropRequestID: dropRequestID) {
                fieldCache.bytes.withUnsafeBufferPointer { w.put($0) }
                if fieldCache.closes { close = true }
            } else {
                let fieldsStart = w.position
                var fieldsClose = false
                let checked = response.headers.allValid
                response.headers.forEachField { name, value in
                    putField(
                        name, value, checked: checked, to: &w, close: &fieldsClose, handlerLength: &handlerLength,
                        keepLength: keepLength, dropRequestID: dropRequestID)
                    return true
                }
                if fieldsClose { close = true }
                if !keepLength, let fieldCache {
                    fieldCache.keep(
                        response.headers, dropRequestID: dropRequestID,
                        block: UnsafeBufferPointer(start: fieldsStart, count: w.position - fieldsStart), closes: fieldsClose)
                }
            }
            w.put("Date: ")
            date.withUnsafeBufferPointer { w.put($0) }
            w.put("\r\n")
            if let requestID {
                w.put("X-Request-Id: ")
                requestID.put(into: &w)
                w.put("\r\n")
            }
            if var handlerLength {
                // Room: the handler's field was counted in `bound` and not written.
                w.put("Content-Length: ")
                handlerLength.withUTF8 { w.put($0) }
                w.put("\r\n")
            } else if bodyAllowed {
                w.put("Content-Length: ")
                w.putDecimal(body.count)
                w.put("\r\n")
            }
            if switching {
                w.put("Connection: Upgrade\r\n")
                close = false
            } else if close {
                w.put("Connection: close\r\n")
            } else if framing.version == .http1_0 {
                w.put("Connection: keep-alive\r\n")
            }
            w.put("\r\n")
            if bodyOnStack { body.withUnsafeBufferPointer { w.put($0) } }
            let written = UnsafeBufferPointer(start: head, count: w.position - head)
            out.appendOwned { buf in
                buf.append(contentsOf: written)
                if inlineBody, !bodyOnStack { buf.append(contentsOf: body) }
            }
        }
        if sendBody, !inlineBody { out.append(body) }
        framing.close = close
        return sendBody ? body.count : 0
    }

    /// Room for the status line (`HTTP/1.1 `, three digits, a space, the
    /// longest reason phrase, CRLF: 46), `Date: ` and CRLF (8),
    /// `Content-Length: ` with up to 20 digits and CRLF (38),
    /// `Connection: keep-alive` and CRLF (24), and the blank line (2).
    static let fixedBound = 128
    /// Bodies up to this long (bytes) are copied after the head on the
    /// stack, which then stays well under the 1 KiB that
    /// `withUnsafeTemporaryAllocation` keeps there with a usual head.
    static let stackBodyBytes = 512
    /// Room for `X-Request-Id: `, an id of up to 128 bytes, and CRLF.
    static let requestIDBound = 16 + RequestID.maxLength

    /// Writes one of the handler's fields, unless the server writes that
    /// field itself or it is not valid (a handler bug must not split the
    /// response; `checked`: the list's fields are known valid already).
    /// `Connection: close` sets `close`. With `keepLength` (HEAD), a
    /// `Content-Length` is kept aside in `handlerLength`: the last one
    /// counts, and an invalid one gives way to the real length.
    @inline(__always)
    static func putField(
        _ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>, checked: Bool, to w: inout ByteCursor,
        close: inout Bool, handlerLength: inout String?, keepLength: Bool, dropRequestID: Bool = false
    ) {
        switch name.count {
        case 12 where dropRequestID && asciiEqualsLowercased(name, "x-request-id"):
            return
        case 4 where asciiEqualsLowercased(name, "date"):
            return
        case 10 where asciiEqualsLowercased(name, "connection"):
            HTTPRequestParser.forEachListElement(value) { token in
                if asciiEqualsLowercased(token, "close") { close = true }
            }
            return
        case 14 where asciiEqualsLowercased(name, "content-length"):
            if keepLength { handlerLength = ByteClass.allFieldValue(value) ? String(decoding: value, as: UTF8.self) : nil }
            return
        case 17 where asciiEqualsLowercased(name, "transfer-encoding"):
            return
        default:
            break
        }
        guard checked || ByteClass.isSendable(name: name, value: value) else { return }
        w.put(name)
        w.put(": ")
        w.put(value)
        w.put("\r\n")
    }

    /// A write position in memory reserved beforehand (the encoder's bound
    /// guarantees the room; nothing is checked here).
    struct ByteCursor {
        private(set) var position: UnsafeMutablePointer<UInt8>

        init(_ start: UnsafeMutablePointer<UInt8>) {
            position = start
        }

        @inline(__always)
        mutating func put(_ byte: UInt8) {
            position.pointee = byte
            position += 1
        }

        @inline(__always)
        mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard let source = bytes.baseAddress else { return }
            position.update(from: source, count: bytes.count)
            position += bytes.count
        }

        @inline(__always)
        mutating func put(_ text: StaticString) {
            put(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }

        /// Lets `body` write exactly `count` bytes at the position.
        @inline(__always)
        mutating func putRaw(_ count: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Void) {
            body(position)
            position += count
        }

        /// Appends the decimal digits of a non-negative `value`.
        @inline(__always)
        mutating func putDecimal(_ value: Int) {
            var n = max(0, value)
            var digits = 1
            var scale = 10
            while n >= scale && digits < 19 {
                digits += 1
                scale &*= 10
            }
            var p = position + digits
            repeat {
                p -= 1
                p.pointee = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: n % 10)
                n /= 10
            } while p > position
            position += digits
        }
    }

    /// Appends the decimal digits of a non-negative `value` (for the request log).
    static func appendDecimal(_ value: Int, to buf: inout [UInt8]) {
        let start = buf.count
        buf.append(contentsOf: repeatElement(0, count: 20))
        let digits = buf.withUnsafeMutableBufferPointer { all -> Int in
            var w = ByteCursor(all.baseAddress! + start)
            w.putDecimal(value)
            return w.position - (all.baseAddress! + start)
        }
        buf.removeLast(20 - digits)
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
