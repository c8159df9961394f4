import Glibc

/// The process's own lines (start, warnings, recovery, reloads, shutdown),
/// in the request log's format, so that with `--log-format json` every line
/// the process writes is one JSON object.
///
/// - text: `hitroute: <msg>`, `hitroute: WARNING: <msg>`, `hitroute: ERROR: <msg>`
/// - json: `{"time":"2026-12-01T09:30:00.123456Z","level":"info","msg":"…"}`,
///   `time` UTC (RFC 3339, microseconds), `level` `info`, `warning` or
///   `error`, then any extra fields given (strings or integers).
///
/// Each line goes out in one `write(2)` (no stdio, no lock), so lines from
/// several threads never interleave within a line. Safe from any thread.
public struct ServiceLog: Sendable {
    public enum Level: String, Sendable {
        case info, warning, error
    }

    /// An extra field of a JSON line.
    public enum Value: Sendable, Equatable {
        case string(String)
        case int(Int)
    }

    public var format: LogFormat
    public var fd: Int32

    public init(format: LogFormat = .text, fd: Int32 = 2) {
        self.format = format
        self.fd = fd
    }

    /// Writes one line. A trailing newline in `message` is dropped; inner
    /// newlines are kept in text and escaped in JSON.
    public func callAsFunction(_ level: Level, _ message: String, _ fields: KeyValuePairs<String, Value> = [:]) {
        var text = Substring(message)
        while text.last == "\n" { text.removeLast() }
        var bytes = line(level, String(text), fields)
        bytes.append(10)
        bytes.withUnsafeBytes { raw in
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
    }

    /// The line without its newline.
    func line(_ level: Level, _ message: String, _ fields: KeyValuePairs<String, Value>) -> [UInt8] {
        switch format {
        case .text:
            let tag = level == .info ? "" : "\(level.rawValue.uppercased()): "
            return Array("hitroute: \(tag)\(message)".utf8)
        case .json:
            var ts = timespec()
            clock_gettime(CLOCK_REALTIME, &ts)
            var out = Array(#"{"time":""#.utf8)
            out += RequestLog.rfc3339Seconds(ts.tv_sec)
            var micros = Array(String(max(0, ts.tv_nsec / 1000)).utf8)
            while micros.count < 6 { micros.insert(UInt8(ascii: "0"), at: 0) }
            out.append(UInt8(ascii: "."))
            out += micros
            out += #"Z","level":""#.utf8
            out += level.rawValue.utf8
            out += #"","msg":"#.utf8
            ProblemJSON.appendString(message, to: &out)
            for (key, value) in fields {
                out.append(UInt8(ascii: ","))
                ProblemJSON.appendString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                switch value {
                case .string(let s): ProblemJSON.appendString(s, to: &out)
                case .int(let n): out += String(n).utf8
                }
            }
            out.append(UInt8(ascii: "}"))
            return out
        }
    }
}
