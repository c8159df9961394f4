// libFuzzer harness for the HTTP/1.1 request parser (HTTPRequestParser),
// with inputs long enough to pass every limit: the API fuzzer's requests
// are built whole and never reach the parser, and the parser's unit tests
// mutate short requests. Compiled together with Sources/HTTPServer into one
// module by Fuzz/build-http.sh (so there is no `import HTTPServer`, and the
// parser's internals are in reach).
//
// Byte 0 picks the limits (`limits(_:)`): tiny ones that a few bytes pass,
// the defaults, or one limit small and the rest default. Byte 1 seeds the
// random split. The rest is the stream a client sends on one connection.
// The stream is parsed whole, byte by byte and in random pieces, as
// `Connection` drives the parser, and it traps, so that libFuzzer keeps
// the input, when:
//  1. a call makes no progress: it answers `needMoreData` with bytes left,
//     or answers events without consuming input more often than a request
//     has events (a hang, before libFuzzer's timeout would see it);
//  2. the three splits do not give the same events, or reading the field
//     lines again at the end of the head (`walksFieldLines`) does not give
//     the events the scan's notes give;
//  3. the parser holds more than its limits allow: a head past the request
//     line's limit (twice: the empty lines before it count separately) and
//     its CRLF plus the header block's, a body buffer past twice the body
//     limit (growBody doubles) or a request body past the limit;
//  4. an error's offset lies outside the bytes of its request, or a request
//     has an empty method or target;
//  5. with an allowed-Host list (bit 6 of byte 0), a request whose Host is
//     not on it is accepted (judged by `hostIsListed`, written apart from
//     `AllowedHosts`), or a head announcing a body comes before the
//     refusal (the 403 must come before any `100 Continue`).
// Then the whole stream is parsed once more for every value 1...32 of one
// limit (bits 2–4 of byte 0 pick which), with checks 1, 3 and 4: a state
// that misbehaves only when a limit falls at or just before it (a chunk
// line's whitespace once looped forever past the limit) meets every
// boundary, where one limit value would need the input to line up.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size >= 2 else { return 0 }
    let limits = limits(data[0])
    let stream = UnsafeRawBufferPointer(start: data + 2, count: size - 2)
    let whole = transcript(stream, limits: limits) { rest in rest }
    let single = transcript(stream, limits: limits) { _ in 1 }
    var state = UInt64(data[1]) &* 0x9E37_79B9_7F4A_7C15 | 1
    let maxPiece = 1 + Int(data[1] % 4) * 100  // 1, 101, 201 or 301 bytes
    let random = transcript(stream, limits: limits) { rest in
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return min(rest, 1 + Int(state % UInt64(maxPiece)))
    }
    let walked = transcript(stream, limits: limits, walksFieldLines: true) { rest in rest }
    precondition(whole == single, "byte by byte: \(single.suffix(2)) but whole: \(whole.suffix(2))")
    precondition(whole == random, "random pieces (seed \(data[1])): \(random.suffix(2)) but whole: \(whole.suffix(2))")
    precondition(whole == walked, "field lines read again: \(walked.suffix(2)) but noted: \(whole.suffix(2))")
    var swept = limits
    for value in 1...32 {
        swept.set(Int(data[0] >> 2) & 7, to: value)
        _ = transcript(stream, limits: swept) { rest in rest }
    }
    return 0
}

extension HTTPLimits {
    /// Sets the limit `which` picks (0 request line, 1 header bytes,
    /// 2 header count, 3 body, 4 and 5 chunk line, 6 header bytes, 7 request line).
    mutating func set(_ which: Int, to value: Int) {
        switch which {
        case 0, 7: maxRequestLineBytes = value
        case 1, 6: maxHeaderBytes = value
        case 2: maxHeaderCount = value
        case 3: maxBodyBytes = value
        default: maxChunkLineBytes = value
        }
    }
}

/// The limits byte 0 picks: its low two bits choose tiny limits, the
/// defaults, or the defaults with one limit (chosen by the next bits) set
/// small; bit 6 sets an allowed-Host list (``fuzzHosts``); bit 7 sets
/// `watchedField` (`authorization`, or with bit 5 `content-type`).
func limits(_ b: UInt8) -> HTTPLimits {
    var l: HTTPLimits
    switch b & 3 {
    case 0:
        l = HTTPLimits(maxRequestLineBytes: 64, maxHeaderBytes: 128, maxHeaderCount: 6, maxBodyBytes: 16, maxChunkLineBytes: 16)
    case 1:
        l = HTTPLimits()
    default:
        l = HTTPLimits()
        switch (b >> 2) & 7 {
        case 0: l.maxRequestLineBytes = 1 + Int(b >> 5)
        case 1: l.maxHeaderBytes = 1 + Int(b >> 5)
        case 2: l.maxHeaderCount = Int(b >> 5)
        case 3: l.maxBodyBytes = Int(b >> 5)
        case 4: l.maxChunkLineBytes = 1 + Int(b >> 5)
        case 5: l.maxBodyBytes = 1 << 20  // a body the buffer grows for
        default: break
        }
    }
    if b & 0x80 != 0 { l.watchedField = b & 0x20 == 0 ? "authorization" : "content-type" }
    if b & 0x40 != 0 { l.allowedHosts = AllowedHosts(fuzzHosts) }
    return l
}

/// The allowed-Host list bit 6 of byte 0 sets: loopback names and a
/// domain with its subdomains.
let fuzzHosts = ["localhost", "127.0.0.1", "[::1]", ".example.com"]

/// Whether a Host value names one of ``fuzzHosts`` (any port, any case):
/// the oracle for check 5, by string operations rather than bytes.
func hostIsListed(_ value: String) -> Bool {
    var host = value.lowercased()
    if host.hasPrefix("[") {
        if let close = host.firstIndex(of: "]") { host = String(host[...close]) }
    } else if let colon = host.lastIndex(of: ":") {
        host = String(host[..<colon])
    }
    return ["localhost", "127.0.0.1", "[::1]", "example.com"].contains(host) || host.hasSuffix(".example.com")
}

/// One event as the harness compares it (a request's every part).
enum Seen: Equatable {
    case head(expectsContinue: Bool)
    case request(
        method: String, target: String, version: String, fields: [String], body: [UInt8], keepAlive: Bool, watched: Bool,
        origin: Bool, clientID: Bool)
    case error(HTTPParseError)
}

/// Every event the parser gives for `stream`, fed in the pieces `piece`
/// chooses (given the bytes left, it returns how many to send next).
/// Checks progress and the parser's holdings after every call.
func transcript(_ stream: UnsafeRawBufferPointer, limits: HTTPLimits, walksFieldLines: Bool = false, piece: (Int) -> Int) -> [Seen] {
    var parser = HTTPRequestParser(limits: limits)
    parser.walksFieldLines = walksFieldLines
    var seen: [Seen] = []
    var start = 0
    // Bytes of the stream consumed before the current request's first byte.
    var requestStart = 0
    while start < stream.count {
        let end = start + max(1, piece(stream.count - start))
        var at = start
        var idleEvents = 0
        while true {
            let (used, event) = parser.parse(UnsafeRawBufferPointer(rebasing: stream[at..<end]))
            precondition(used >= 0 && used <= end - at, "consumed \(used) of \(end - at)")
            at += used
            checkHoldings(parser, limits: limits)
            if event == .needMoreData {
                precondition(at == end, "needMoreData with \(end - at) bytes left")
                break
            }
            // A head and then its request may come without input between them; never more.
            idleEvents = used == 0 ? idleEvents + 1 : 0
            precondition(idleEvents <= 2, "\(idleEvents) events in a row without progress: \(event)")
            switch event {
            case .needMoreData:
                break
            case .head(let expectsContinue):
                if !limits.allowedHosts.allowsAny, let host = parser.pending?.headers["Host"] {
                    precondition(hostIsListed(host), "a head with Host \(host.debugDescription) outside the list")
                }
                seen.append(.head(expectsContinue: expectsContinue))
            case .request(let r, let keepAlive):
                precondition(!r.method.isEmpty && !r.target.isEmpty, "empty method or target")
                precondition(r.body.count <= limits.maxBodyBytes, "a body of \(r.body.count) bytes past the limit \(limits.maxBodyBytes)")
                checkAuthorizationNote(r.headers)
                checkContentTypeNote(r.headers)
                if !limits.allowedHosts.allowsAny, let host = r.headers["Host"] {
                    precondition(hostIsListed(host), "a request with Host \(host.debugDescription) outside the list")
                }
                seen.append(
                    .request(
                        method: r.method, target: r.target, version: "\(r.version)",
                        fields: r.headers.map { "\($0.name): \($0.value)" }, body: r.body,
                        keepAlive: keepAlive, watched: r.mayHaveWatchedField, origin: r.mayHaveOrigin,
                        clientID: r.hasClientRequestID))
                requestStart = at
            case .error(let e):
                precondition(
                    e.offset >= 0 && requestStart + e.offset <= at, "error \(e) past the \(at - requestStart) bytes of its request")
                seen.append(.error(e))
                return seen
            }
        }
        start = end
    }
    return seen
}
/// The `Authorization` value the parser noted is the one a lookup by name
/// finds, byte for byte (a value need not be UTF-8).
func checkAuthorizationNote(_ headers: HTTPHeaders) {
    var noted: [UInt8]?
    headers.withAuthorization { value in noted = value.map { Array($0) } }
    let found = headers.withFirstValue("Authorization") { value in value.map { Array($0) } }
    precondition(noted == found, "noted Authorization \(noted.debugDescription) but the field is \(found.debugDescription)")
}

/// The `Content-Type` values a lookup by name gives (from the parser's
/// note when it took one) are those a walk of every field finds.
func checkContentTypeNote(_ headers: HTTPHeaders) {
    var walked: [[UInt8]] = []
    headers.forEachField { name, value in
        if name.count == 12, asciiEqualsLowercased(name, "content-type") { walked.append(Array(value)) }
        return true
    }
    let first = headers.withFirstValue("Content-Type") { value in value.map { Array($0) } }
    precondition(first == walked.first, "Content-Type \(first.debugDescription) but the fields have \(walked)")
    let all = headers.values("content-TYPE").map { Array($0.utf8) }
    let decoded = walked.map { Array(String(decoding: $0, as: UTF8.self).utf8) }
    precondition(all == decoded, "Content-Type values \(all) but the fields have \(decoded)")
    precondition(headers.contains("CONTENT-TYPE") == !walked.isEmpty, "Content-Type presence")
}

/// What the parser buffers stays within its limits.
func checkHoldings(_ p: HTTPRequestParser, limits: HTTPLimits) {
    // Empty lines before the request line (fewer bytes than its limit), the line and its CRLF, the header block.
    let line = limits.maxRequestLineBytes
    precondition(
        p.head.count <= line + (line + 2) + limits.maxHeaderBytes,
        "head holds \(p.head.count) bytes, limits \(line) + \(limits.maxHeaderBytes)")
    precondition(p.body.count <= limits.maxBodyBytes, "body holds \(p.body.count) bytes past the limit \(limits.maxBodyBytes)")
    precondition(
        p.bodyBytesHeld <= 2 * limits.maxBodyBytes + 4096, "body buffer of \(p.bodyBytesHeld) bytes for a limit of \(limits.maxBodyBytes)")
}
