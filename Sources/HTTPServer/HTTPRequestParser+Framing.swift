import Glibc

/// What a complete head means: the request's strings, and how its body is
/// framed (RFC 9112 §6). Ambiguous framing is rejected, never guessed.
extension HTTPRequestParser {
    /// Builds the request from `head` and decides the framing.
    ///
    /// Order of checks: method (501), request-target form (400), Host
    /// missing, repeated or not `uri-host [":" port]` (400), not one of
    /// ``HTTPLimits/allowedHosts`` (403), Content-Length with Transfer-Encoding (400), Transfer-Encoding
    /// in HTTP/1.0 (400), unknown coding (501), chunked not final or
    /// repeated (400), Content-Length syntax and agreement (400), size
    /// (413), Expect (417).
    mutating func finishHead() -> Step {
        let end = consumed - 1
        guard let known = Self.knownMethod(head[methodStart..<methodEnd]) else { return fail(.unknownMethod, at: methodStart) }
        let method = known.0
        methodSlot = known.1
        guard targetIsValid(method: method) else { return fail(.invalidTarget, at: targetStart) }
        let version: HTTPVersion = versionMinor == 0 ? .http1_0 : .http1_1

        var f = HeadFields()
        head.withUnsafeBufferPointer { head in
            if walksFieldLines || notes.needsWalk {
                f.walk(head, from: sectionStart, watchedField: watchedField)
            } else {
                f.take(notes, head)
            }
        }

        if version == .http1_1, f.hostCount == 0 { return fail(.missingHost, at: end) }
        if f.hostCount > 1 { return fail(.duplicateHost, at: end) }
        if f.invalidHostOffset >= 0 { return fail(.invalidHost, at: f.invalidHostOffset) }
        if f.hostCount == 1, !limits.allowedHosts.allowsAny,
            !head.withUnsafeBufferPointer({ limits.allowedHosts.allows(UnsafeBufferPointer(rebasing: $0[f.hostRange])) })
        {
            return fail(.hostNotAllowed, at: f.hostRange.lowerBound)
        }
        let chunked = f.transferEncodingOffset >= 0
        if chunked {
            if f.sawContentLength { return fail(.contentLengthWithTransferEncoding, at: f.transferEncodingOffset) }
            if version == .http1_0 { return fail(.invalidTransferEncoding, at: f.transferEncodingOffset) }
            if f.codings.unknown { return fail(.unsupportedTransferCoding, at: f.transferEncodingOffset) }
            if f.codings.chunkedCount != 1 || !f.codings.lastIsChunked {
                return fail(.invalidTransferEncoding, at: f.transferEncodingOffset)
            }
        }
        if f.sawContentLength {
            guard f.contentLengthValid, let length = f.contentLength else {
                return fail(.invalidContentLength, at: f.contentLengthOffset)
            }
            if length > limits.maxBodyBytes { return fail(.bodyTooLarge, at: f.contentLengthOffset) }
        }
        let http11 = version == .http1_1
        if http11, f.unsupportedExpectationOffset >= 0 {
            return fail(.unsupportedExpectation, at: f.unsupportedExpectationOffset)
        }

        // The strings (the last request's when the target is the same) and
        // the field lines, read in the head itself (shared, not copied).
        let (target, path, query) = head.withUnsafeBufferPointer { [lastTarget, lastPath, targetStart, targetEnd] head in
            Self.targetStrings(UnsafeBufferPointer(rebasing: head[targetStart..<targetEnd]), last: (lastTarget, lastPath))
        }
        if targetEnd - targetStart <= Self.keptTargetBytes {
            lastTarget = target
            lastPath = path
        }
        // Made whole here and moved into `pending` (no copy of the request).
        var request = HTTPRequest(
            method: method, target: target, path: path, query: query, version: version,
            headers: HTTPHeaders(
                receivedHead: head, linesFrom: sectionStart, authorization: f.authorizationRange, contentType: f.contentTypeNote),
            body: [])
        if let requestIDRange = f.requestIDRange,
            head.withUnsafeBufferPointer({ RequestID.isValid(UnsafeBufferPointer(rebasing: $0[requestIDRange])) })
        {
            // The client's id when valid (SPEC §8); else the loop makes one up.
            request.useClientRequestID()
        }
        if !watchedField.isEmpty { request.noteFieldsScanned(watchedFieldPresent: f.sawWatchedField) }
        request.noteOriginScanned(present: f.sawOrigin)
        pending = consume request
        keepAlive = http11 ? !f.close : (f.keepAliveToken && !f.close)
        // The last body's buffer, emptied in place once its request is gone.
        if !body.isEmpty { body.removeAll(keepingCapacity: true) }

        if chunked {
            chunkLineStart = consumed
            chunkSizeValue = 0
            chunkDigits = 0
            state = .chunkSize
            return .head(expectsContinue: http11 && f.expectsContinue)
        }
        if let length = f.contentLength, length > 0 {
            body.reserveCapacity(min(length, 1 << 20))
            state = .body(remaining: length)
            return .head(expectsContinue: http11 && f.expectsContinue)
        }
        return completeMessage()
    }

    /// Hands out the finished request and resets for the next one.
    mutating func completeMessage() -> Step {
        if body.capacity <= Self.keptBufferBytes {
            pending!.body = body  // shared: kept for the next body (traps when no head is pending)
        } else {
            var bytes: [UInt8] = []
            swap(&bytes, &body)
            pending!.body = bytes
        }
        prefaulted = 0
        swap(&completed, &pending)  // moved, `completed` was empty: nothing copied or destroyed
        let keepAlive = self.keepAlive
        reset()
        return .request(keepAlive: keepAlive)
    }

    /// The request's target, path and query strings for the target
    /// `bytes`: the `last` target and path when its bytes are the same (no
    /// allocation), else new ones.
    /// - Complexity: O(`bytes.count`).
    static func targetStrings(
        _ bytes: UnsafeBufferPointer<UInt8>, last: (target: String, path: String)
    ) -> (target: String, path: String, query: String?) {
        let (pathRange, queryRange) =
            bytes.first == UInt8(ascii: "/") && memchr(bytes.baseAddress!, 0x3F, bytes.count) == nil
            ? (0..<bytes.count, nil)  // origin-form without a query: all path (one memchr for the `?`)
            : HTTPRequest.targetRanges(bytes)
        let query = queryRange.map { String(decoding: UnsafeBufferPointer(rebasing: bytes[$0]), as: UTF8.self) }
        let same = last.target.utf8.withContiguousStorageIfAvailable { lastBytes in
            lastBytes.count == bytes.count && memcmp(lastBytes.baseAddress!, bytes.baseAddress!, bytes.count) == 0
        }
        if same == true { return (last.target, last.path, query) }
        let target = String(decoding: bytes, as: UTF8.self)
        if queryRange == nil, pathRange.count == bytes.count { return (target, target, query) }
        let path = pathRange.isEmpty ? "/" : String(decoding: UnsafeBufferPointer(rebasing: bytes[pathRange]), as: UTF8.self)
        return (target, path, query)
    }

    /// The method spelt by `bytes` (one of RFC 9110's, case-sensitive), as
    /// a literal string; nil for any other.
    /// The method and its slot in `ServerMetrics.methods`, or nil.
    static func knownMethod(_ bytes: ArraySlice<UInt8>) -> (String, UInt8)? {
        bytes.withUnsafeBufferPointer { bytes in
            func spelt(_ method: StaticString) -> Bool { bytesEqual(bytes, method) }
            switch bytes.count {
            case 3: return spelt("GET") ? ("GET", 0) : spelt("PUT") ? ("PUT", 3) : nil
            case 4: return spelt("POST") ? ("POST", 2) : spelt("HEAD") ? ("HEAD", 1) : nil
            case 5: return spelt("PATCH") ? ("PATCH", 5) : spelt("TRACE") ? ("TRACE", 7) : nil
            case 6: return spelt("DELETE") ? ("DELETE", 4) : nil
            case 7: return spelt("OPTIONS") ? ("OPTIONS", 6) : spelt("CONNECT") ? ("CONNECT", 8) : nil
            default: return nil
            }
        }
    }

    /// origin-form (`/…`), absolute-form (`scheme://…`), asterisk-form (`*`,
    /// OPTIONS only) or authority-form (CONNECT only).
    func targetIsValid(method: String) -> Bool {
        let target = head[targetStart..<targetEnd]
        switch target.first {
        case UInt8(ascii: "/"):
            return true
        case UInt8(ascii: "*"):
            return target.count == 1 && method == "OPTIONS"
        default:
            if method == "CONNECT" { return true }
            guard let colon = target.firstIndex(of: UInt8(ascii: ":")), colon > targetStart,
                target.distance(from: colon, to: target.endIndex) >= 3,
                target[colon + 1] == UInt8(ascii: "/"), target[colon + 2] == UInt8(ascii: "/")
            else { return false }
            return target[targetStart..<colon].allSatisfy {
                ByteClass.lower($0) &- UInt8(ascii: "a") < 26 || $0 == UInt8(ascii: "+")
                    || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
                    || $0 &- UInt8(ascii: "0") < 10
            }
        }
    }

    /// Calls `body` with each non-empty element of a comma-separated list,
    /// OWS trimmed.
    static func forEachListElement<Bytes: RandomAccessCollection>(_ value: Bytes, _ body: (Bytes.SubSequence) -> Void)
    where Bytes.Element == UInt8, Bytes.Index == Int {
        var start = value.startIndex
        while start <= value.endIndex {
            let comma = value[start...].firstIndex(of: UInt8(ascii: ",")) ?? value.endIndex
            var lo = start
            var hi = comma
            while lo < hi, ByteClass.isWhitespace(value[lo]) { lo += 1 }
            while hi > lo, ByteClass.isWhitespace(value[hi - 1]) { hi -= 1 }
            if lo < hi { body(value[lo..<hi]) }
            start = comma + 1
        }
    }

    /// A Content-Length value: one or more comma-separated decimal numbers
    /// that must all be equal (RFC 9110 §8.6). `nil` when malformed; values
    /// too large for `Int` saturate at `Int.max` (to be rejected as 413).
    static func parseContentLength(_ value: UnsafeBufferPointer<UInt8>) -> Int? {
        if !value.isEmpty, value.count <= 18 {
            // The usual value, a number of up to 18 digits (too few to overflow) and nothing else.
            var number = 0
            var digits = true
            for byte in value {
                let digit = byte &- UInt8(ascii: "0")
                if digit >= 10 {
                    digits = false
                    break
                }
                number = number &* 10 &+ Int(digit)
            }
            if digits { return number }
        }
        var result: Int?
        var valid = !value.isEmpty
        var start = value.startIndex
        while valid, start <= value.endIndex {
            let comma = value[start...].firstIndex(of: UInt8(ascii: ",")) ?? value.endIndex
            var lo = start
            var hi = comma
            while lo < hi, ByteClass.isWhitespace(value[lo]) { lo += 1 }
            while hi > lo, ByteClass.isWhitespace(value[hi - 1]) { hi -= 1 }
            var number = 0
            if lo == hi { valid = false }
            for byte in value[lo..<hi] {
                let digit = byte &- UInt8(ascii: "0")
                guard digit < 10 else {
                    valid = false
                    break
                }
                let (times, o1) = number.multipliedReportingOverflow(by: 10)
                let (plus, o2) = times.addingReportingOverflow(Int(digit))
                number = (o1 || o2) ? Int.max : plus
            }
            if valid {
                if let r = result, r != number { valid = false }
                result = number
            }
            start = comma + 1
        }
        return valid ? result : nil
    }

    /// What the field lines say (offsets into the head): ``finishHead()``
    /// decides from these.
    struct HeadFields {
        var hostCount = 0
        var invalidHostOffset = -1
        var hostRange = 0..<0
        var contentLength: Int?
        var sawContentLength = false
        var contentLengthValid = true
        var contentLengthOffset = 0
        var transferEncodingOffset = -1
        var codings = Codings()
        var close = false
        var keepAliveToken = false
        var expectsContinue = false
        var unsupportedExpectationOffset = -1
        var requestIDRange: Range<Int>?
        var authorizationRange: Range<Int>?
        var contentTypeCount = 0
        var contentTypeRange = 0..<0
        var sawWatchedField = false
        var sawOrigin = false

        /// The first `Content-Type` value when it is the only one, for
        /// ``HTTPHeaders``: nil when there is none, `.some(nil)` for several.
        var contentTypeNote: Range<Int>?? {
            switch contentTypeCount {
            case 0: return .none
            case 1: return .some(contentTypeRange)
            default: return .some(nil)
            }
        }

        /// From what the scan noted, when no field read occurrence by
        /// occurrence is repeated (``FieldNotes/needsWalk``): the same as
        /// ``walk(_:from:watchedField:)``.
        @inline(__always)
        mutating func take(_ notes: borrowing FieldNotes, _ head: UnsafeBufferPointer<UInt8>) {
            hostCount = Int(notes.host.count)
            if hostCount == 1 { host(notes.host.value, head) }  // more than one is refused whatever they are
            if notes.expect.count == 1 { expect(Int(notes.expect.nameStart), notes.expect.value, head) }
            if notes.connection.count == 1 { connection(notes.connection.value, head) }
            if notes.contentLength.count == 1 {
                contentLength(Int(notes.contentLength.nameStart), notes.contentLength.value, head)
            }
            if notes.transferEncoding.count == 1 {
                transferEncoding(Int(notes.transferEncoding.nameStart), notes.transferEncoding.value, head)
            }
            if notes.requestID.count > 0 { requestIDRange = notes.requestID.value }
            if notes.authorization.count > 0 { authorizationRange = notes.authorization.value }
            contentTypeCount = Int(notes.contentType.count)
            contentTypeRange = notes.contentType.value
            sawOrigin = notes.sawOrigin
            sawWatchedField = notes.sawWatchedField
        }

        /// From the field lines themselves, `head[start..<head.count - 2]`
        /// (checked by the scan), each read in order; names told apart by
        /// ``HTTPRequestParser/fieldKind(_:count:)``, as the scan does.
        mutating func walk(_ head: UnsafeBufferPointer<UInt8>, from start: Int, watchedField: [UInt8]) {
            var lineStart = start
            while lineStart < head.count - 2 {
                var colon = lineStart
                while head[colon] != UInt8(ascii: ":") { colon += 1 }
                var cr = colon + 1
                while head[cr] != HTTPRequestParser.cr { cr += 1 }
                var lo = colon + 1
                var hi = cr
                while lo < hi, ByteClass.isWhitespace(head[lo]) { lo += 1 }
                while hi > lo, ByteClass.isWhitespace(head[hi - 1]) { hi -= 1 }
                let nameRange = lineStart..<colon
                let valueRange = lo < hi ? lo..<hi : (colon + 1)..<(colon + 1)
                let name = UnsafeRawPointer(head.baseAddress! + nameRange.lowerBound)
                let kind = HTTPRequestParser.fieldKind(name, count: nameRange.count)
                lineStart = cr + 2
                switch kind {
                case .host:
                    hostCount += 1
                    host(valueRange, head)
                case .origin: sawOrigin = true
                case .expect: expect(nameRange.lowerBound, valueRange, head)
                case .connection: connection(valueRange, head)
                case .requestID: if requestIDRange == nil { requestIDRange = valueRange }
                case .authorization: if authorizationRange == nil { authorizationRange = valueRange }
                case .contentLength: contentLength(nameRange.lowerBound, valueRange, head)
                case .transferEncoding: transferEncoding(nameRange.lowerBound, valueRange, head)
                case .contentType:
                    if contentTypeCount == 0 { contentTypeRange = valueRange }
                    contentTypeCount += 1
                case .other: break
                }
                if HTTPRequestParser.isWatched(kind, name, count: nameRange.count, watchedField) { sawWatchedField = true }
            }
        }

        /// A `Host` field (after `hostCount` counts it).
        @inline(__always)
        mutating func host(_ valueRange: Range<Int>, _ head: UnsafeBufferPointer<UInt8>) {
            hostRange = valueRange
            if invalidHostOffset < 0, !HostField.isValid(UnsafeBufferPointer(rebasing: head[valueRange])) {
                invalidHostOffset = valueRange.lowerBound
            }
        }

        /// An `Expect` field whose name begins at `nameStart`.
        mutating func expect(_ nameStart: Int, _ valueRange: Range<Int>, _ head: UnsafeBufferPointer<UInt8>) {
            if asciiEqualsLowercased(head[valueRange], "100-continue") {
                expectsContinue = true
            } else if unsupportedExpectationOffset < 0 {
                unsupportedExpectationOffset = nameStart
            }
        }

        /// A `Connection` field.
        mutating func connection(_ valueRange: Range<Int>, _ head: UnsafeBufferPointer<UInt8>) {
            HTTPRequestParser.forEachListElement(head[valueRange]) { token in
                if asciiEqualsLowercased(token, "close") { close = true }
                if asciiEqualsLowercased(token, "keep-alive") { keepAliveToken = true }
            }
        }

        /// A `Content-Length` field whose name begins at `nameStart`.
        @inline(__always)
        mutating func contentLength(_ nameStart: Int, _ valueRange: Range<Int>, _ head: UnsafeBufferPointer<UInt8>) {
            if !sawContentLength { contentLengthOffset = nameStart }
            sawContentLength = true
            if contentLengthValid {
                let parsed = HTTPRequestParser.parseContentLength(UnsafeBufferPointer(rebasing: head[valueRange]))
                if let parsed, contentLength == nil || contentLength == parsed {
                    contentLength = parsed
                } else {
                    contentLengthValid = false
                }
            }
        }

        /// A `Transfer-Encoding` field whose name begins at `nameStart`.
        mutating func transferEncoding(_ nameStart: Int, _ valueRange: Range<Int>, _ head: UnsafeBufferPointer<UInt8>) {
            if transferEncodingOffset < 0 { transferEncodingOffset = nameStart }
            codings.add(head[valueRange])
        }
    }

    /// The transfer codings named by every Transfer-Encoding field, in order.
    struct Codings {
        var chunkedCount = 0
        var lastIsChunked = false
        var unknown = false
        var any = false

        mutating func add(_ value: Slice<UnsafeBufferPointer<UInt8>>) {
            var sawElement = false
            HTTPRequestParser.forEachListElement(value) { coding in
                sawElement = true
                any = true
                if asciiEqualsLowercased(coding, "chunked") {
                    chunkedCount += 1
                    lastIsChunked = true
                } else {
                    unknown = true
                    lastIsChunked = false
                }
            }
            if !sawElement { unknown = true }
        }
    }
}
