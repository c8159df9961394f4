import XCTest

@testable import HTTPServer

/// The process's own lines in both formats (SPEC §8).
final class ServiceLogTests: XCTestCase {
    func testTextLines() {
        let log = ServiceLog(format: .text)
        XCTAssertEqual(
            String(decoding: log.line(.info, "listening on 127.0.0.1:8080", [:]), as: UTF8.self), "hitroute: listening on 127.0.0.1:8080")
        XCTAssertEqual(String(decoding: log.line(.warning, "open", [:]), as: UTF8.self), "hitroute: WARNING: open")
        XCTAssertEqual(String(decoding: log.line(.error, "bad", [:]), as: UTF8.self), "hitroute: ERROR: bad")
    }

    func testJSONLineIsOneObjectWithItsFields() throws {
        let log = ServiceLog(format: .json)
        let bytes = log.line(.warning, "a \"quoted\"\nline\u{1}", ["port": .int(8080), "host": .string("::1")])
        XCTAssertFalse(bytes.contains(10), "one line")
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        XCTAssertEqual(object["level"] as? String, "warning")
        XCTAssertEqual(object["msg"] as? String, "a \"quoted\"\nline\u{1}")
        XCTAssertEqual(object["port"] as? Int, 8080)
        XCTAssertEqual(object["host"] as? String, "::1")
        let time = try XCTUnwrap(object["time"] as? String)
        XCTAssertNotNil(time.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$"#, options: .regularExpression), time)
    }

    /// Each line is one write to the descriptor, newline included.
    func testWritesWholeLines() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]) }
        let log = ServiceLog(format: .json, fd: fds[1])
        log(.info, "stopped\n")
        log(.error, "second")
        close(fds[1])
        var buffer = [UInt8](repeating: 0, count: 4096)
        var text: [UInt8] = []
        while true {
            let n = read(fds[0], &buffer, buffer.count)
            if n <= 0 { break }
            text += buffer[0..<n]
        }
        let lines = String(decoding: text, as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(lines.count, 2)
        XCTAssertTrue(lines[0].hasSuffix(#""level":"info","msg":"stopped"}"#), String(lines[0]))
        XCTAssertTrue(lines[1].contains(#""level":"error","msg":"second""#))
    }
}
