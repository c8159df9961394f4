/// An incremental HTTP/1.1 request parser: a pure state machine over bytes,
/// with no knowledge of sockets.
///
/// Feed it whatever arrives, in any split; it returns how many bytes it
/// consumed and at most one event per call. Call it again with the rest
/// while the event is not `.needMoreData`:
///
/// ```swift
/// var parser = HTTPRequestParser(limits: HTTPLimits())
/// var rest = bytes[...]
/// repeat {
///     let (used, event) = parser.parse(rest)
///     rest = rest.dropFirst(used)
///     // handle event
/// } while event != .needMoreData
/// ```
///
/// Grammar (RFC 9112), strictly: every line ends with CRLF (a bare CR or LF
/// is a 400); exactly one SP separates the request-line parts; field names
/// are tokens directly followed by `:`; obs-fold is rejected; empty lines
/// before a request line are skipped (RFC 9112 §2.2). Limits come from
/// ``HTTPLimits``; nothing beyond them is buffered. Once an error has been
/// returned the parser stays failed (the connection is to be closed).
struct HTTPRequestParser {
    /// What one call to ``parse(_:)`` produced.
    enum Event: Equatable {
        /// Every byte was consumed and no event is ready yet.
        case needMoreData
        /// A valid head announcing a body has been read; the body follows.
        /// `expectsContinue`: an HTTP/1.1 `Expect: 100-continue` request,
        /// to be answered with `100 Continue` now.
        case head(expectsContinue: Bool)
        /// A complete request. `keepAlive`: whether the connection may carry
        /// another request afterwards (HTTP/1.1 unless `Connection: close`;
        /// HTTP/1.0 only with `Connection: keep-alive`).
        case request(HTTPRequest, keepAlive: Bool)
        /// The request is rejected; the parser stays failed.
        case error(HTTPParseError)
    }

    /// What one call to ``step(_:)`` produced: an ``Event`` whose complete
    /// request stays in the parser, to be moved out with ``takeRequest()``
    /// (no payload to copy or destroy on the way).
    enum Step: Equatable {
        case needMoreData
        case head(expectsContinue: Bool)
        /// A complete request waits in ``takeRequest()``.
        case request(keepAlive: Bool)
        case error(HTTPParseError)
    }

    /// Coarse progress, for the connection's timeouts.
    enum Phase: Equatable {
        /// Between requests: no byte of the next one seen yet.
        case idle
        /// Inside a request line or header block.
        case head
        /// Inside a body (or a chunked body's trailers).
        case body
    }

    enum State: Equatable {
        case requestStart
        case leadingLF
        case method
        case target
        case version(index: Int)
        case requestLineLF
        case fieldLineStart
        case fieldName
        case fieldValue
        case fieldLF
        case sectionEndLF
        case body(remaining: Int)
        case chunkSize
        case chunkSizeWhitespace
        case chunkExtension
        case chunkSizeLF
        case chunkData(remaining: Int)
        case chunkDataCR
        case chunkDataLF
        case failed(HTTPParseError)
    }

    /// The fields ``finishHead()`` reads, told apart by name as the scan
    /// reaches a field line's colon (ASCII case-insensitive).
    enum FieldKind: UInt8 {
        case other
        case host
        case origin
        case expect
        case connection
        case requestID
        case authorization
        case contentLength
        case transferEncoding
        case contentType
    }

    /// The first field line of one kind (offsets into `head`), and how many
    /// lines of that kind the header block has.
    struct FieldNote {
        var count: Int32 = 0
        var nameStart: Int32 = 0
        var valueStart: Int32 = 0
        var valueEnd: Int32 = 0

        var value: Range<Int> { Int(valueStart)..<Int(valueEnd) }
    }

    /// What the scan noted of the header block's fields, so that
    /// ``finishHead()`` does not read the lines again (it does when a field
    /// whose every occurrence counts is repeated).
    struct FieldNotes {
        var host = FieldNote()
        var expect = FieldNote()
        var connection = FieldNote()
        var requestID = FieldNote()
        var authorization = FieldNote()
        var contentLength = FieldNote()
        var transferEncoding = FieldNote()
        var contentType = FieldNote()
        var sawOrigin = false
        var sawWatchedField = false

        /// Whether a field read occurrence by occurrence is repeated: the
        /// lines are then read again in order.
        var needsWalk: Bool {
            expect.count | connection.count | contentLength.count | transferEncoding.count > 1
        }

        /// Notes the line `nameStart`… with the value `valueStart..<valueEnd`.
        @inline(__always)
        mutating func note(_ kind: FieldKind, nameStart: Int, valueStart: Int, valueEnd: Int) {
            func add(_ note: inout FieldNote) {
                if note.count == 0 {
                    note.nameStart = Int32(nameStart)
                    note.valueStart = Int32(valueStart)
                    note.valueEnd = Int32(valueEnd)
                }
                note.count &+= 1
            }
            switch kind {
            case .other, .origin: break
            case .host: add(&host)
            case .expect: add(&expect)
            case .connection: add(&connection)
            case .requestID: add(&requestID)
            case .authorization: add(&authorization)
            case .contentLength: add(&contentLength)
            case .transferEncoding: add(&transferEncoding)
            case .contentType: add(&contentType)
            }
        }
    }

    let limits: HTTPLimits
    var state: State = .requestStart

    // Head: every byte of the current head, and offsets into it. The
    // request made of it shares it (its fields are read there); a small
    // head's buffer is emptied for the next message only when that message
    // starts, by when the request is usually gone and the buffer is reused.
    var head: [UInt8] = []
    /// Bytes of the current message consumed so far; the offset of the next byte.
    var consumed = 0
    var methodStart = 0
    var methodEnd = 0
    /// Whether the current request's method, once read, is `HEAD`: the
    /// server's own error answers to it then carry no content either
    /// (RFC 9110 §9.3.2).
    var methodIsHead = false
    var targetStart = 0
    var targetEnd = 0
    var versionMajor: UInt8 = 0
    var versionMinor: UInt8 = 0
    var sectionStart = 0
    var lineStart = 0
    var nameEnd = 0
    var valueStart = -1
    var valueEnd = 0
    /// The kind of the field line being scanned (known from its colon on).
    var lineKind = FieldKind.other
    var notes = FieldNotes()
    /// Whether ``finishHead()`` reads every field line again instead of
    /// taking the notes (the HTTP parser fuzzer compares both).
    var walksFieldLines = false
    var fieldCount = 0
    var inTrailers = false

    /// The method of the last head completed, as its slot in
    /// `ServerMetrics.methods` (GET 0 … CONNECT 8, `other` 9): read by the
    /// loop with the request it belongs to (``reset()`` keeps it), so the
    /// metrics count by method without comparing strings.
    var methodSlot: UInt8 = 9

    // Body.
    var pending: HTTPRequest?
    /// The request the last ``Step/request(keepAlive:)`` completed, until taken.
    var completed: HTTPRequest?
    /// Whether the head just completed may carry `Origin` (read without
    /// copying the request).
    var pendingMayHaveOrigin: Bool { pending?.mayHaveOrigin ?? false }
    var keepAlive = true
    /// The current message's body; between messages, a small one stays
    /// shared with the request it went to, and its buffer is reused for the
    /// next body (`finishHead` empties it, in place once that request is gone).
    var body: [UInt8] = []
    /// The last request's target and path (`path` is `target` or a part
    /// of it), kept for reuse when the next request on the connection has
    /// the same target bytes: its strings then cost no allocation.
    var lastTarget = ""
    var lastPath = ""
    /// Head and body buffers of up to this many bytes are kept for the next message.
    static let keptBufferBytes = 4096
    /// Longer targets are not kept in `lastTarget` (bytes).
    static let keptTargetBytes = 256
    /// How much of `body`'s buffer is known to be backed by memory (see `prefaultAhead`).
    var prefaulted = 0
    var chunkLineStart = 0
    var chunkSizeValue = 0
    var chunkDigits = 0
    var chunkExtensionStep = ChunkExtensionStep.beforeName

    /// `limits.watchedField`'s bytes (lowercase), empty for none.
    let watchedField: [UInt8]

    init(limits: HTTPLimits = HTTPLimits()) {
        self.limits = limits
        self.watchedField = Array(limits.watchedField.lowercased().utf8)  // matched against lowercased names
    }

    /// How far ahead of the bytes received a big body's buffer is backed
    /// by memory at once (`prefaultAhead`), and the smallest buffer so treated.
    static let prefaultStride = 256 << 10

    /// Whether no byte of a next request has been seen.
    var isIdle: Bool { consumed == 0 && state == .requestStart }

    /// Inside a `Content-Length` body: its whole length; nil otherwise
    /// (a chunked body's length is known only at its end).
    var declaredBodyLength: Int? {
        if case .body(let remaining) = state { return remaining + body.count }
        return nil
    }

    /// Bytes the current request's body buffer holds room for: up to
    /// sixteen times what was received (`growBody`), all of it possibly
    /// backed by memory (`prefaultAhead`). What a body's reservation covers.
    var bodyBytesHeld: Int { body.capacity }

    var phase: Phase {
        switch state {
        case .requestStart, .leadingLF, .method, .target, .version, .requestLineLF:
            return consumed == 0 ? .idle : .head
        case .fieldLineStart, .fieldName, .fieldValue, .fieldLF, .sectionEndLF:
            return inTrailers ? .body : .head
        default:
            return .body
        }
    }

    /// Consumes a prefix of `input` and reports at most one event.
    /// - Returns: the number of bytes consumed and the event. `.needMoreData`
    ///   means all of `input` was consumed.
    /// - Complexity: O(`consumed`), plus the head's size when a head completes.
    mutating func parse(_ input: UnsafeRawBufferPointer) -> (consumed: Int, event: Event) {
        let (used, step) = step(input)
        switch step {
        case .needMoreData: return (used, .needMoreData)
        case .head(let expectsContinue): return (used, .head(expectsContinue: expectsContinue))
        case .request(let keepAlive): return (used, .request(takeRequest(), keepAlive: keepAlive))
        case .error(let error): return (used, .error(error))
        }
    }

    /// ``parse(_:)``, the complete request left in the parser: after
    /// `.request`, call ``takeRequest()`` before the next step.
    mutating func step(_ input: UnsafeRawBufferPointer) -> (consumed: Int, step: Step) {
        switch state {
        case .failed(let error):
            return (0, .error(error))
        case .body, .chunkSize, .chunkSizeWhitespace, .chunkExtension, .chunkSizeLF,
            .chunkData, .chunkDataCR, .chunkDataLF:
            return parseBody(input)
        default:
            return inTrailers ? parseBody(input) : parseHead(input)
        }
    }

    /// `parse(_:)` over an array slice, for tests and stashed bytes.
    mutating func parse(_ input: ArraySlice<UInt8>) -> (consumed: Int, event: Event) {
        input.withUnsafeBytes { parse($0) }
    }

    /// Moves out the request the last `.request` step completed.
    mutating func takeRequest() -> HTTPRequest {
        guard let request = Self.take(&completed) else { preconditionFailure("no completed request") }
        return request
    }

    /// Moves the request out of `slot`, leaving nil: no copy, and no call
    /// to destroy the nil put in its place.
    @inline(__always)
    static func take(_ slot: inout HTTPRequest?) -> HTTPRequest? {
        withUnsafeMutablePointer(to: &slot) { slot in
            let request = slot.move()
            slot.initialize(to: nil)
            return request
        }
    }

    mutating func fail(_ kind: HTTPParseError.Kind, at offset: Int) -> Step {
        let error = HTTPParseError(kind, at: offset)
        state = .failed(error)
        pending = nil
        body = []
        return .error(error)
    }

    /// Forgets the finished message, keeping small buffers for the next
    /// (`pending` is already taken; `head` is emptied by `parseHead` when
    /// the next message starts).
    mutating func reset() {
        state = .requestStart
        methodIsHead = false
        if head.capacity > Self.keptBufferBytes { head = [] }
        consumed = 0
        fieldCount = 0
        inTrailers = false
        valueStart = -1
        keepAlive = true
    }
}
