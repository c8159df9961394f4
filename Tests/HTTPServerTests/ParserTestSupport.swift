import TestSupport
import XCTest

@testable import HTTPServer

typealias Event = HTTPRequestParser.Event

/// Feeds `bytes` to a fresh parser in pieces of the given sizes (the last
/// piece takes the rest) and returns every event other than
/// `.needMoreData`, stopping after the first error.
func events(_ bytes: [UInt8], pieces: [Int], limits: HTTPLimits = HTTPLimits()) -> [Event] {
    var parser = HTTPRequestParser(limits: limits)
    var out: [Event] = []
    var start = 0
    var pieceIndex = 0
    while start < bytes.count {
        let size = pieceIndex < pieces.count ? max(1, pieces[pieceIndex]) : bytes.count - start
        pieceIndex += 1
        var chunk = bytes[start..<min(bytes.count, start + size)]
        start += chunk.count
        while true {
            let (used, event) = parser.parse(chunk)
            chunk = chunk.dropFirst(used)
            if event == .needMoreData {
                XCTAssertTrue(chunk.isEmpty, "needMoreData must consume everything")
                break
            }
            out.append(event)
            if case .error = event { return out }
        }
    }
    return out
}

/// Parses `bytes` whole, byte by byte and in `randomSplits` seeded random
/// splits; asserts all agree and returns the events.
func parseEverySplit(
    _ bytes: [UInt8], limits: HTTPLimits = HTTPLimits(), randomSplits: Int = 40,
    file: StaticString = #filePath, line: UInt = #line
) -> [Event] {
    let whole = events(bytes, pieces: [bytes.count], limits: limits)
    let single = events(bytes, pieces: Array(repeating: 1, count: bytes.count), limits: limits)
    XCTAssertEqual(whole, single, "byte-by-byte differs from whole", file: file, line: line)
    for seed in 0..<UInt64(randomSplits) {
        var rng = SplitMix64(seed: seed)
        var pieces: [Int] = []
        var total = 0
        while total < bytes.count {
            let size = Int.random(in: 1...max(1, min(64, bytes.count / 3 + 1)), using: &rng)
            pieces.append(size)
            total += size
        }
        let split = events(bytes, pieces: pieces, limits: limits)
        XCTAssertEqual(whole, split, "random split with seed \(seed) differs from whole", file: file, line: line)
        if whole != split { break }
    }
    return whole
}

extension Array where Element == UInt8 {
    init(_ string: String) { self = Array(string.utf8) }
}

/// The requests among `events`.
func requests(_ events: [Event]) -> [(HTTPRequest, Bool)] {
    events.compactMap { if case .request(let r, let keepAlive) = $0 { return (r, keepAlive) } else { return nil } }
}
