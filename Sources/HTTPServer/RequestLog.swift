import Glibc

/// One access-log line per request on stderr:
/// `<method> <path> <status> <µs>us <body bytes>B`, e.g.
/// `GET /healthz 200 12us 15B`. Lines are buffered per event loop and
/// written with one `write` per loop iteration (or when 16 KiB pile up).
struct RequestLog {
    fileprivate var buffer: [UInt8] = []

    mutating func append(method: String, path: String, status: Int, microseconds: UInt64, bodyBytes: Int) {
        if buffer.capacity == 0 { buffer.reserveCapacity(16 * 1024 + 512) }
        buffer.append(contentsOf: method.utf8)
        buffer.append(UInt8(ascii: " "))
        buffer.append(contentsOf: path.utf8.prefix(1024))
        buffer.append(UInt8(ascii: " "))
        ResponseEncoder.appendDecimal(status, to: &buffer)
        buffer.append(UInt8(ascii: " "))
        ResponseEncoder.appendDecimal(Int(clamping: microseconds), to: &buffer)
        buffer.append(contentsOf: "us ".utf8)
        ResponseEncoder.appendDecimal(bodyBytes, to: &buffer)
        buffer.append(contentsOf: "B\n".utf8)
        if buffer.count >= 16 * 1024 { flush() }
    }

    /// The lines buffered so far (for tests).
    var pendingText: String { String(decoding: buffer, as: UTF8.self) }

    /// Writes the buffered lines to stderr (errors are ignored: logging
    /// must never take the server down).
    mutating func flush() {
        guard !buffer.isEmpty else { return }
        buffer.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(2, raw.baseAddress! + offset, raw.count - offset)
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

/// Writes `message` to stderr with `write(2)` (no stdio, no locks).
func writeToStderr(_ message: String) {
    var log = RequestLog()
    log.appendRaw(message)
    log.flush()
}

extension RequestLog {
    mutating func appendRaw(_ text: String) {
        buffer.append(contentsOf: text.utf8)
    }
}
