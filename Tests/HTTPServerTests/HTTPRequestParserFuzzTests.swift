import TestSupport
import XCTest

@testable import HTTPServer

/// Seeded mutations of valid requests: the parser must never trap, must
/// give the same events whatever the split, and must never hand out a body
/// over the limit.
final class HTTPRequestParserFuzzTests: XCTestCase {
    static let seeds: [String] = [
        "GET /a?b=c HTTP/1.1\r\nHost: h\r\nAccept: */*\r\n\r\n",
        "POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhelloGET / HTTP/1.1\r\nHost: h\r\n\r\n",
        "PUT /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n0\r\nT: v\r\n\r\n",
        "HEAD / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
        "OPTIONS * HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\nx",
    ]
    static let interesting: [UInt8] = [
        0, 9, 10, 13, 32, 34, 44, 58, 59, 0x7F, 0x80, 0xFF,
        UInt8(ascii: "0"), UInt8(ascii: "f"), UInt8(ascii: "/"),
    ]

    func testMutatedRequestsNeverTrapAndAreSplitInvariant() {
        let limits = HTTPLimits(
            maxRequestLineBytes: 64, maxHeaderBytes: 128, maxHeaderCount: 6,
            maxBodyBytes: 16, maxChunkLineBytes: 16)
        for seed in 0..<UInt64(2000) {
            var rng = SplitMix64(seed: seed)
            var bytes = Array(Self.seeds[Int(seed) % Self.seeds.count].utf8)
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let at = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: bytes[at] = Self.interesting.randomElement(using: &rng)!
                case 1: bytes.insert(Self.interesting.randomElement(using: &rng)!, at: at)
                case 2: bytes.remove(at: at)
                default: bytes.insert(contentsOf: bytes[at..<min(bytes.count, at + 8)], at: at)
                }
                if bytes.isEmpty { bytes = [13] }
            }
            let e = parseEverySplit(bytes, limits: limits, randomSplits: 3)
            for case .request(let request, _) in e {
                XCTAssertLessThanOrEqual(request.body.count, 16, "seed \(seed)")
            }
        }
    }

    func testHugeLimitsDoNotOverflowChunkSizes() {
        let limits = HTTPLimits(maxBodyBytes: .max)
        let e = parseEverySplit(
            Array("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFF\r\n"),
            limits: limits)
        XCTAssertEqual(e.last.flatMap { if case .error(let error) = $0 { return error.status } else { return nil } }, 413)
    }
}
