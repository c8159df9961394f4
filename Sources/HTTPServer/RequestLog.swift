import Glibc
import HitBase

/// How the request log writes each line (SPEC §8).
public enum LogFormat: String, Sendable, CaseIterable {
    /// `<method> <path> <status> <µs>us <body bytes>B <request id>`, e.g.
    /// `GET /healthz 200 12us 15B 3f9a0c1200000000002a`.
    case text
    /// One JSON object per line:
    /// `{"time":"2026-12-01T09:30:00.123456Z","method":"GET","path":"/healthz",`
    /// `"route":"/healthz","status":200,"duration":0.000012,"bytesIn":38,`
    /// `"bytesOut":160,"remote":"127.0.0.1:50312","requestId":"…"}`. `duration`
    /// is in seconds; `bytesIn` and `bytesOut` count whole messages (head and
    /// body); `time` is when the response was queued, UTC (RFC 3339).
    case json
}

/// One request's line in the log.
struct LogEntry {
    var method: String
    var path: String
    var route: String
    var status: Int
    var nanoseconds: UInt64
    var bodyBytes: Int
    var bytesIn: Int
    var bytesOut: Int
    var remote: String
    var requestID: RequestID?
}

/// One access-log line per request, buffered per event loop and written
/// with one `write` per loop iteration (or when 16 KiB pile up) to a file
/// descriptor (stderr unless configured). Headers are never written, so
/// no credential can reach the log.
struct RequestLog {
    fileprivate var buffer: [UInt8] = []
    var format: LogFormat = .text
    var fd: Int32 = 2
    /// `YYYY-MM-DDTHH:MM:SS` of the second `second` (JSON lines).
    private var secondText: [UInt8] = []
    private var second = -1

    init(format: LogFormat = .text, fd: Int32 = 2) {
        self.format = format
        self.fd = fd
    }

    /// The text line without a request id (kept for callers and tests of the text form).
    mutating func append(method: String, path: String, status: Int, microseconds: UInt64, bodyBytes: Int) {
        append(
            LogEntry(
                method: method, path: path, route: "", status: status, nanoseconds: microseconds &* 1000,
                bodyBytes: bodyBytes, bytesIn: 0, bytesOut: 0, remote: "", requestID: nil))
    }

    mutating func append(_ entry: LogEntry) {
        if buffer.capacity == 0 { buffer.reserveCapacity(16 * 1024 + 1024) }
        switch format {
        case .text: appendText(entry)
        case .json: appendJSON(entry)
        }
        if buffer.count >= 16 * 1024 { flush() }
    }

    private mutating func appendText(_ e: LogEntry) {
        buffer.append(contentsOf: e.method.utf8)
        buffer.append(UInt8(ascii: " "))
        buffer.append(contentsOf: e.path.utf8.prefix(1024))
        buffer.append(UInt8(ascii: " "))
        ResponseEncoder.appendDecimal(e.status, to: &buffer)
        buffer.append(UInt8(ascii: " "))
        ResponseEncoder.appendDecimal(Int(clamping: e.nanoseconds / 1000), to: &buffer)
        buffer.append(contentsOf: "us ".utf8)
        ResponseEncoder.appendDecimal(e.bodyBytes, to: &buffer)
        buffer.append(UInt8(ascii: "B"))
        if let id = e.requestID {
            buffer.append(UInt8(ascii: " "))
            id.withBytes { buffer.append(contentsOf: $0) }
        }
        buffer.append(UInt8(ascii: "\n"))
    }

    private mutating func appendJSON(_ e: LogEntry) {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        if ts.tv_sec != second {
            second = ts.tv_sec
            secondText = Self.rfc3339Seconds(ts.tv_sec)
        }
        buffer.append(contentsOf: #"{"time":""#.utf8)
        buffer.append(contentsOf: secondText)
        buffer.append(UInt8(ascii: "."))
        appendDigits(UInt64(max(0, ts.tv_nsec / 1000)), count: 6)
        buffer.append(contentsOf: #"Z","method":"#.utf8)
        ProblemJSON.appendString(e.method, to: &buffer)
        buffer.append(contentsOf: #","path":"#.utf8)
        appendPath(e.path)
        buffer.append(contentsOf: #","route":"#.utf8)
        ProblemJSON.appendString(e.route, to: &buffer)
        buffer.append(contentsOf: #","status":"#.utf8)
        ResponseEncoder.appendDecimal(e.status, to: &buffer)
        buffer.append(contentsOf: #","duration":"#.utf8)
        ResponseEncoder.appendDecimal(Int(clamping: e.nanoseconds / 1_000_000_000), to: &buffer)
        buffer.append(UInt8(ascii: "."))
        appendDigits(e.nanoseconds % 1_000_000_000, count: 9)
        buffer.append(contentsOf: #","bytesIn":"#.utf8)
        ResponseEncoder.appendDecimal(e.bytesIn, to: &buffer)
        buffer.append(contentsOf: #","bytesOut":"#.utf8)
        ResponseEncoder.appendDecimal(e.bytesOut, to: &buffer)
        buffer.append(contentsOf: #","remote":"#.utf8)
        ProblemJSON.appendString(e.remote, to: &buffer)
        if let id = e.requestID {
            buffer.append(contentsOf: #","requestId":"#.utf8)
            id.withBytes { JSONString.append($0, to: &buffer) }
        }
        buffer.append(contentsOf: "}\n".utf8)
    }

    /// The path's first 1,024 bytes as a JSON string.
    private mutating func appendPath(_ path: String) {
        var path = path
        path.withUTF8 { JSONString.append(UnsafeBufferPointer(rebasing: $0.prefix(1024)), to: &buffer) }
    }

    /// `value` as exactly `count` decimal digits (leading zeros).
    private mutating func appendDigits(_ value: UInt64, count: Int) {
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: count))
        var v = value
        var i = start + count
        while i > start {
            i -= 1
            buffer[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v % 10)
            v /= 10
        }
    }

    /// `YYYY-MM-DDTHH:MM:SS` (UTC) of a Unix time.
    static func rfc3339Seconds(_ seconds: Int) -> [UInt8] {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        var out: [UInt8] = []
        func digits(_ n: Int32, _ count: Int) {
            var text = Array(String(max(0, n)).utf8)
            while text.count < count { text.insert(UInt8(ascii: "0"), at: 0) }
            out.append(contentsOf: text)
        }
        digits(parts.tm_year + 1900, 4)
        out.append(UInt8(ascii: "-"))
        digits(parts.tm_mon + 1, 2)
        out.append(UInt8(ascii: "-"))
        digits(parts.tm_mday, 2)
        out.append(UInt8(ascii: "T"))
        digits(parts.tm_hour, 2)
        out.append(UInt8(ascii: ":"))
        digits(parts.tm_min, 2)
        out.append(UInt8(ascii: ":"))
        digits(parts.tm_sec, 2)
        return out
    }

    /// The lines buffered so far (for tests).
    var pendingText: String { String(decoding: buffer, as: UTF8.self) }

    /// Writes the buffered lines (errors are ignored: logging must never
    /// take the server down).
    mutating func flush() {
        guard !buffer.isEmpty else { return }
        let fd = self.fd
        buffer.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n > 0 {
                    offset += n
                } else if n < 0, errno == EINTR {
                    continue
                } else {
                    break
                }
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
