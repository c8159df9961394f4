import TestSupport
import XCTest

@testable import HTTPServer

/// The word-at-a-time scanning of field lines against byte-by-byte
/// references, and the notes the scan takes against reading the lines
/// again (``HTTPRequestParser/walksFieldLines``).
final class FieldScanTests: XCTestCase {
    /// Bytes that end or break a name or a value, and ordinary ones.
    static let special: [UInt8] = [
        0x3A, 0x20, 0x09, 0x0D, 0x0A, 0x00, 0x01, 0x1F, 0x7F, 0x80, 0xC3, 0xFF,
        UInt8(ascii: "_"), UInt8(ascii: "!"), UInt8(ascii: "~"), UInt8(ascii: "@"), UInt8(ascii: "["),
        UInt8(ascii: "`"), UInt8(ascii: "{"), UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "."),
        UInt8(ascii: "0"), UInt8(ascii: "9"), UInt8(ascii: "a"), UInt8(ascii: "Z"), UInt8(ascii: ","),
        UInt8(ascii: "\""),
    ]

    func testUsualTokenBytesOfEveryByteAtEveryPosition() {
        for byte in 0...255 {
            let b = UInt8(byte)
            let usual = b &- UInt8(ascii: "a") < 26 || b &- UInt8(ascii: "A") < 26 || b &- UInt8(ascii: "0") < 10 || b == UInt8(ascii: "-")
            if usual { XCTAssertTrue(ByteClass.isToken(b)) }
            for position in 0..<8 {
                for filler in [UInt8(ascii: "a"), UInt8(ascii: "Z"), UInt8(ascii: "7"), UInt8(ascii: "-")] {
                    var bytes = [UInt8](repeating: filler, count: 8)
                    bytes[position] = b
                    let word = bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
                    XCTAssertEqual(ByteClass.usualTokenBytes(word: word), usual ? 8 : position, "byte \(b) at \(position)")
                }
            }
        }
    }

    /// `tokenEnd` and `fieldValueEnd` give the byte-by-byte answers for
    /// every start and end over random runs with a special byte at every offset.
    func testTokenAndValueEndsAgreeWithBytes() {
        var rng = SplitMix64(seed: 7)
        let ordinary = Array("abcXYZ019-".utf8)
        let valueBytes = Array("ab Z9-/\"{}~\t ".utf8) + [0x80, 0xFF]
        for round in 0..<400 {
            let count = Int.random(in: 0...40, using: &rng)
            var bytes = (0..<count).map { _ in
                round % 2 == 0 ? ordinary.randomElement(using: &rng)! : valueBytes.randomElement(using: &rng)!
            }
            for _ in 0..<Int.random(in: 0...3, using: &rng) where count > 0 {
                bytes[Int.random(in: 0..<count, using: &rng)] = Self.special.randomElement(using: &rng)!
            }
            bytes.withUnsafeBytes { raw in
                for start in 0...count {
                    for end in start...count {
                        var token = start
                        while token < end, ByteClass.isToken(raw[token]) { token += 1 }
                        XCTAssertEqual(ByteClass.tokenEnd(raw, from: start, to: end), token, "\(bytes) \(start)..<\(end)")
                        var value = start
                        while value < end, ByteClass.isFieldValue(raw[value]) { value += 1 }
                        XCTAssertEqual(ByteClass.fieldValueEnd(raw, from: start, to: end), value, "\(bytes) \(start)..<\(end)")
                        var target = start
                        while target < end, ByteClass.isTarget(raw[target]) { target += 1 }
                        XCTAssertEqual(ByteClass.targetEnd(raw, from: start, to: end), target, "\(bytes) \(start)..<\(end)")
                    }
                }
            }
        }
    }

    func testFieldKindsAreTheNamesCaseInsensitively() {
        let kinds: [(String, HTTPRequestParser.FieldKind)] = [
            ("host", .host), ("origin", .origin), ("expect", .expect), ("connection", .connection),
            ("x-request-id", .requestID), ("authorization", .authorization), ("content-length", .contentLength),
            ("transfer-encoding", .transferEncoding), ("content-type", .contentType),
        ]
        var rng = SplitMix64(seed: 3)
        let tokenBytes = (0...127).map(UInt8.init).filter(ByteClass.isToken)
        for (name, kind) in kinds {
            let lower = Array(name.utf8)
            var variants = [lower, Array(name.uppercased().utf8)]
            for _ in 0..<50 { variants.append(lower.map { $0 &- 0x61 < 26 && Bool.random(using: &rng) ? $0 - 0x20 : $0 }) }
            for v in variants { XCTAssertEqual(Self.kind(v), kind, String(decoding: v, as: UTF8.self)) }
            // Every other token byte at every position: another name.
            for position in lower.indices {
                for b in tokenBytes where ByteClass.lower(b) != lower[position] {
                    var v = lower
                    v[position] = b
                    XCTAssertEqual(Self.kind(v), .other, String(decoding: v, as: UTF8.self))
                }
            }
            XCTAssertEqual(Self.kind(Array(lower.dropLast())), .other)
            XCTAssertEqual(Self.kind(lower + Array("s".utf8)), .other)
        }
        XCTAssertEqual(Self.kind(Array("hosts".utf8)), .other)
        XCTAssertEqual(Self.kind(Array("x".utf8)), .other)
    }

    static func kind(_ name: [UInt8]) -> HTTPRequestParser.FieldKind {
        name.withUnsafeBytes { HTTPRequestParser.fieldKind($0.baseAddress!, count: name.count) }
    }

    /// The outcome of a header block by the grammar, byte by byte: the
    /// fields (name, value OWS trimmed) or the first error.
    static func reference(_ b: [UInt8], from start: Int) -> Result<[(String, String)], HTTPParseError> {
        var fields: [(String, String)] = []
        var i = start
        func fail(_ kind: HTTPParseError.Kind, _ at: Int) -> Result<[(String, String)], HTTPParseError> {
            .failure(HTTPParseError(kind, at: at))
        }
        while true {
            if b[i] == 0x0D { return b[i + 1] == 0x0A ? .success(fields) : fail(.invalidLineEnding, i + 1) }
            if !ByteClass.isToken(b[i]) {
                if b[i] == 0x20 || b[i] == 0x09 { return fail(.obsoleteLineFolding, i) }
                return fail(b[i] == 0x0A ? .invalidLineEnding : .invalidFieldName, i)
            }
            let nameStart = i
            while ByteClass.isToken(b[i]) { i += 1 }
            guard b[i] == 0x3A else { return fail(b[i] == 0x20 || b[i] == 0x09 ? .whitespaceBeforeColon : .invalidFieldName, i) }
            let name = String(decoding: b[nameStart..<i], as: UTF8.self)
            i += 1
            let valueStart = i
            while ByteClass.isFieldValue(b[i]) { i += 1 }
            var lo = valueStart
            var hi = i
            while lo < hi, b[lo] == 0x20 || b[lo] == 0x09 { lo += 1 }
            while hi > lo, b[hi - 1] == 0x20 || b[hi - 1] == 0x09 { hi -= 1 }
            if b[i] == 0x0A { return fail(.invalidLineEnding, i) }
            guard b[i] == 0x0D else { return fail(.invalidFieldValue, i) }
            guard b[i + 1] == 0x0A else { return fail(.invalidLineEnding, i + 1) }
            fields.append((name, String(decoding: b[lo..<hi], as: UTF8.self)))
            i += 2
        }
    }

    /// One field line after `Host`, its name and value each starting at
    /// every offset modulo 8 (the target's length moves them), with a
    /// special byte at every position of the line: the parser's answer is
    /// the grammar's, in every split, with the notes as with the lines.
    func testAFieldLineWithASpecialByteAtEveryOffset() {
        let names = ["a", "X-A", "Content-Type", "content-length", "X-Some-Longer-Name1", "Origin", "HOST"]
        let values = ["", "v", " spaced  ", "\t1\t", "application/json", "ab\u{80}cd\u{FF}ef 0123456789"]
        for pad in 0..<8 {
            let target = "/" + String(repeating: "t", count: pad)
            for name in names {
                for value in values {
                    // obs-text in a value: the bytes 0xC2 and 0xC3 of the literals' UTF-8 become 0x80.
                    let raw = (Array(name.utf8) + [0x3A] + Array(value.utf8) + [0x0D, 0x0A]).map {
                        $0 == 0xC2 || $0 == 0xC3 ? UInt8(0x80) : $0
                    }
                    check(target: target, line: raw)
                    for position in 0..<(raw.count - 1) {
                        for b in [0x3A, 0x20, 0x09, 0x0D, 0x0A, 0x00, 0x7F, 0xFF, UInt8(ascii: "_")] as [UInt8] {
                            var broken = raw
                            broken[position] = b
                            check(target: target, line: broken)
                        }
                    }
                }
            }
        }
    }

    /// Asserts the request `POST target` with `Host: h`, `line`, then
    /// `X-End: e` is parsed as the grammar says, in whole and split reads,
    /// and the same when the parser reads the lines again.
    func check(target: String, line: [UInt8], file: StaticString = #filePath, lineNumber: UInt = #line) {
        let head = Array("POST \(target) HTTP/1.1\r\nHost: h\r\n".utf8)
        let bytes = head + line + Array("X-End: e\r\n\r\n".utf8)
        let want = Self.reference(bytes, from: head.count - 9)
        let got = parseEverySplit(bytes, randomSplits: 2, file: file, line: lineNumber)
        var walking = HTTPRequestParser()
        walking.walksFieldLines = true
        let walked = bytes.withUnsafeBytes { walking.parse($0).1 }
        XCTAssertEqual(got.first, walked, "\(line)", file: file, line: lineNumber)
        switch (want, got.first) {
        case (.success(let fields), .request(let r, _)?):
            XCTAssertEqual(
                r.headers.map { "\($0.name): \($0.value)" }, fields.map { "\($0.0): \($0.1)" }, "\(line)", file: file, line: lineNumber)
            XCTAssertEqual(r.headers["content-type"], fields.first { $0.0.lowercased() == "content-type" }?.1, file: file, line: lineNumber)
            XCTAssertEqual(r.mayHaveOrigin, fields.contains { $0.0.lowercased() == "origin" }, file: file, line: lineNumber)
        case (.failure(let error), .error(let e)?):
            XCTAssertEqual(e, error, "\(line)", file: file, line: lineNumber)
        default:
            // A valid block with a second Host, a Content-Length or an Origin is decided past the scan.
            if case .success(let fields) = want, fields.contains(where: { ["host", "content-length"].contains($0.0.lowercased()) }) {
                return
            }
            XCTFail("\(line): want \(want), got \(got)", file: file, line: lineNumber)
        }
    }

    /// A block of random lines (names that matter, repeated, with random
    /// values): the notes decide as reading the lines again does.
    func testNotesDecideAsTheLinesDo() {
        var rng = SplitMix64(seed: 11)
        let names = [
            "Host", "host", "Content-Length", "CONTENT-LENGTH", "Transfer-Encoding", "Connection", "Expect",
            "X-Request-Id", "Authorization", "Content-Type", "content-TYPE", "Origin", "X-Min-Version", "Accept",
        ]
        let values = [
            "", "h", "127.0.0.1:80", "0", "5", " 5 , 5", "x", "chunked", "gzip, chunked", "close", "keep-alive, Upgrade", "100-continue",
            "abcdefgh", "application/json",
        ]
        for round in 0..<3000 {
            var limits = HTTPLimits()
            if round % 3 == 0 { limits.watchedField = ["x-min-version", "content-type", "origin", "host"][round / 3 % 4] }
            let count = Int.random(in: 0...5, using: &rng)
            var text = "POST /p HTTP/1.\(round % 5 == 0 ? 0 : 1)\r\n"
            for _ in 0..<count {
                text +=
                    "\(names.randomElement(using: &rng)!):\(Bool.random(using: &rng) ? " " : "")\(values.randomElement(using: &rng)!)\r\n"
            }
            text += "\r\n12345"
            let bytes = Array(text.utf8)
            var noting = HTTPRequestParser(limits: limits)
            var walking = HTTPRequestParser(limits: limits)
            walking.walksFieldLines = true
            let a = bytes.withUnsafeBytes { noting.step($0) }
            let b = bytes.withUnsafeBytes { walking.step($0) }
            XCTAssertEqual(a.consumed, b.consumed, text.debugDescription)
            XCTAssertEqual(a.step, b.step, text.debugDescription)
            XCTAssertEqual(noting.keepAlive, walking.keepAlive, text.debugDescription)
            let x = noting.pending ?? noting.completed
            let y = walking.pending ?? walking.completed
            XCTAssertEqual(x, y, text.debugDescription)
            XCTAssertEqual(x?.mayHaveOrigin, y?.mayHaveOrigin, text.debugDescription)
            XCTAssertEqual(x?.mayHaveWatchedField, y?.mayHaveWatchedField, text.debugDescription)
            XCTAssertEqual(x?.hasClientRequestID, y?.hasClientRequestID, text.debugDescription)
            if let x, let y {
                for name in ["Content-Type", "content-type", "CONTENT-TYPE"] {
                    XCTAssertEqual(x.headers[name], y.headers[name], text.debugDescription)
                    XCTAssertEqual(x.headers.values(name), y.headers.values(name), text.debugDescription)
                    XCTAssertEqual(x.headers.first(name, is: "application/json"), y.headers.first(name, is: "application/json"))
                    // What a walk of the lines finds.
                    var found: [String] = []
                    x.headers.forEachField { n, v in
                        if String(decoding: n, as: UTF8.self).lowercased() == "content-type" {
                            found.append(String(decoding: v, as: UTF8.self))
                        }
                        return true
                    }
                    XCTAssertEqual(x.headers.values(name), found, text.debugDescription)
                }
            }
        }
    }

    func testContentTypeNote() throws {
        let cases: [(String, Bool, String?)] = [
            ("Content-Type: application/json\r\n", true, "application/json"),
            ("content-type:text/plain \r\n", true, "text/plain"),
            ("CONTENT-TYPE:\r\n", true, ""),
            ("X-A: 1\r\n", true, nil),
            ("Content-Type: a\r\nContent-Type: b\r\n", false, "a"),
        ]
        for (fields, noted, want) in cases {
            let raw = Array("POST /s HTTP/1.1\r\nHost: h\r\n\(fields)\r\n".utf8)
            let r = try XCTUnwrap(requests(parseEverySplit(raw, randomSplits: 4)).first?.0)
            XCTAssertEqual(r.headers.contentTypeIsNoted, noted, fields.debugDescription)
            XCTAssertEqual(r.headers["Content-Type"], want, fields.debugDescription)
            XCTAssertEqual(r.headers["content-TYPE"], want, fields.debugDescription)
            XCTAssertNil(r.headers["Content\rType"])
            XCTAssertNil(r.headers["Content-Typ"])
            XCTAssertEqual(r.headers.contains("Content-Type"), want != nil)
            XCTAssertEqual(r.headers.first("Content-Type", is: "application/json"), want == "application/json")
            var changed = r.headers
            changed.add("Content-Type", "z")
            XCTAssertFalse(changed.contentTypeIsNoted)
            XCTAssertEqual(changed.values("Content-Type"), r.headers.values("Content-Type") + ["z"])
        }
        XCTAssertTrue(Array("cOnTeNt-TyPe".utf8).withUnsafeBufferPointer { HTTPHeaders.isContentType($0) })
        for position in 0..<12 {
            for b in [0x0D, 0x00, 0x40, 0x5B, 0x60, 0x7B] as [UInt8] {
                var name = Array("content-type".utf8)
                name[position] = b
                XCTAssertFalse(name.withUnsafeBufferPointer { HTTPHeaders.isContentType($0) }, "\(name)")
            }
        }
    }

    func testLoweredWordsAndHostComparison() {
        for byte in 0...255 {
            for position in 0..<8 {
                var bytes = [UInt8](repeating: UInt8(ascii: "q"), count: 8)
                bytes[position] = UInt8(byte)
                let word = bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
                let want = bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }.withUnsafeBytes {
                    UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self))
                }
                XCTAssertEqual(AllowedHosts.lowered(word), want, "byte \(byte) at \(position)")
            }
        }
        var rng = SplitMix64(seed: 5)
        let pool = Array("aZ.-:[]0@`{".utf8) + [0x80, 0xC1, 0xE1]
        for _ in 0..<5000 {
            let n = Int.random(in: 0...20, using: &rng)
            let a = (0..<n).map { _ in pool.randomElement(using: &rng)! }
            var b = a.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
            if n > 0, Bool.random(using: &rng) { b[Int.random(in: 0..<n, using: &rng)] = pool.randomElement(using: &rng)! }
            let want = zip(a, b).allSatisfy { ($0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0) == $1 }
            a.withUnsafeBufferPointer { x in
                b.withUnsafeBufferPointer { y in XCTAssertEqual(AllowedHosts.equalsLowercase(x, y), want, "\(a) \(b)") }
            }
        }
    }
}
