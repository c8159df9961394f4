import TestSupport
import XCTest

@testable import HitJSON

/// Seeded randomized properties. Every failure message names its seed.
final class JSONPropertyTests: XCTestCase {
    /// Random values written, then read back, are equal, and re-encoding is byte-identical.
    func testRandomValuesRoundTrip() {
        for seed: UInt64 in 0..<1_000 {
            var rng = SplitMix64(seed: seed)
            let value = randomValue(using: &rng, depth: 5)
            let encoded = value.encoded
            guard case .success(let back) = parseResult(encoded) else {
                XCTFail("seed \(seed): rejected own output \(String(decoding: encoded, as: UTF8.self))")
                continue
            }
            XCTAssertEqual(back, value, "seed \(seed)")
            XCTAssertEqual(back.encoded, encoded, "seed \(seed)")
            XCTAssertEqual(skipResult(encoded), .success(encoded.count), "seed \(seed)")
            // The same document with random whitespace between tokens.
            let spaced = spacedOut(encoded, using: &rng)
            XCTAssertEqual(try? JSONValue.parse(spaced), value, "seed \(seed): \(String(decoding: spaced, as: UTF8.self))")
        }
    }

    /// Byte-by-byte over random documents: proper prefixes fail exactly at their end.
    func testPrefixesOfRandomDocumentsFailAtTheirEnd() {
        for seed: UInt64 in 0..<60 {
            var rng = SplitMix64(seed: seed)
            let encoded = JSONValue.array([randomValue(using: &rng, depth: 3)]).encoded
            for length in 0..<encoded.count {
                let prefix = Array(encoded[..<length])
                let result = prefix.withUnsafeBufferPointer { buffer in
                    Result { () throws(JSONSyntaxError) -> JSONValue in try JSONValue.parse(buffer) }
                }
                guard case .failure(let error) = result else {
                    XCTFail("seed \(seed): accepted the proper prefix \(String(decoding: prefix, as: UTF8.self))")
                    continue
                }
                XCTAssertEqual(error.offset, length, "seed \(seed): \(error.message) in \(String(decoding: prefix, as: UTF8.self))")
            }
        }
    }

    /// Random byte mutations of valid JSON never crash; parse and skipValue
    /// agree on the verdict and the error offset; accepted output is stable.
    func testRandomMutationsNeverCrashAndParseAgreesWithSkip() {
        for seed: UInt64 in 0..<3_000 {
            var rng = SplitMix64(seed: seed)
            var bytes = randomValue(using: &rng, depth: 4).encoded
            for _ in 0..<Int.random(in: 1...4, using: &rng) { mutate(&bytes, using: &rng) }
            let parsed = parseResult(bytes, maxDepth: 16)
            let skipped = skipResult(bytes, maxDepth: 16)
            switch (parsed, skipped) {
            case (.success(let value), .success(let end)):
                XCTAssertEqual(end, bytes.count, "seed \(seed)")
                if value.firstNonFiniteNumber == nil {
                    XCTAssertEqual(try? JSONValue.parse(value.encoded), value, "seed \(seed)")
                }
            case (.failure(let e1), .failure(let e2)):
                XCTAssertEqual(e1.offset, e2.offset, "seed \(seed): \(e1.message) / \(e2.message) in \(bytes)")
                XCTAssertTrue((0...bytes.count).contains(e1.offset), "seed \(seed)")
            default:
                XCTFail("seed \(seed): parse \(parsed) but skip \(skipped) for \(bytes)")
            }
        }
    }

    /// RFC 7396 patches are idempotent: applying one twice equals applying it once.
    func testMergePatchIsIdempotent() {
        for seed: UInt64 in 0..<1_000 {
            var rng = SplitMix64(seed: seed)
            let target = randomValue(using: &rng, depth: 3, objectBias: true)
            let patch = randomValue(using: &rng, depth: 3, objectBias: true)
            let once = target.merging(patch: patch)
            XCTAssertEqual(once.merging(patch: patch), once, "seed \(seed)")
        }
    }
}

// MARK: Generators

/// A random JSON value with unique object keys (so it survives last-wins parsing).
func randomValue(using rng: inout SplitMix64, depth: Int, objectBias: Bool = false) -> JSONValue {
    let choice = depth <= 0 ? Int.random(in: 0..<4, using: &rng) : Int.random(in: 0..<(objectBias ? 8 : 6), using: &rng)
    switch choice {
    case 0: return [JSONValue.null, .bool(true), .bool(false)].randomElement(using: &rng)!
    case 1: return .number(randomNumber(using: &rng))
    case 2: return .string(randomString(using: &rng, maxLength: 12))
    case 3: return .number(Double(Int.random(in: -1000...1000, using: &rng)))
    case 4:
        return .array((0..<Int.random(in: 0...5, using: &rng)).map { _ in randomValue(using: &rng, depth: depth - 1) })
    default:
        var keys = Set<String>()
        var members: [(String, JSONValue)] = []
        for _ in 0..<Int.random(in: 0...5, using: &rng) {
            let key = rng.next() % 3 == 0 ? randomString(using: &rng, maxLength: 6) : ["a", "b", "c", "id"].randomElement(using: &rng)!
            guard keys.insert(key).inserted else { continue }
            members.append((key, randomValue(using: &rng, depth: depth - 1, objectBias: objectBias)))
        }
        return .object(members)
    }
}

func randomNumber(using rng: inout SplitMix64) -> Double {
    while true {
        let d: Double
        switch rng.next() % 4 {
        case 0: d = Double(bitPattern: rng.next())
        case 1: d = Double(Int.random(in: -100_000...100_000, using: &rng)) / 100
        case 2: d = [0.0, -0.0, 1e-5, 1e16, 5e-324, .greatestFiniteMagnitude, 9_007_199_254_740_992].randomElement(using: &rng)!
        default: d = Double.random(in: -1...1, using: &rng) * 1e6
        }
        if d.isFinite { return d }
    }
}

/// Inserts random JSON whitespace between the tokens of compact JSON.
func spacedOut(_ compact: [UInt8], using rng: inout SplitMix64) -> [UInt8] {
    let whitespace: [UInt8] = [0x20, 0x09, 0x0A, 0x0D]
    var out: [UInt8] = []
    var inString = false
    var escaped = false
    for b in compact {
        if inString {
            out.append(b)
            if escaped {
                escaped = false
            } else if b == UInt8(ascii: "\\") {
                escaped = true
            } else if b == UInt8(ascii: "\"") {
                inString = false
            }
            continue
        }
        let structural = "{}[],:".utf8.contains(b)
        if structural || b == UInt8(ascii: "\"") {
            for _ in 0..<Int.random(in: 0...2, using: &rng) { out.append(whitespace.randomElement(using: &rng)!) }
        }
        out.append(b)
        if b == UInt8(ascii: "\"") { inString = true }
        if structural {
            for _ in 0..<Int.random(in: 0...2, using: &rng) { out.append(whitespace.randomElement(using: &rng)!) }
        }
    }
    return out
}

/// One random edit: replace, insert, delete, duplicate a slice, or truncate.
func mutate(_ bytes: inout [UInt8], using rng: inout SplitMix64) {
    let interesting: [UInt8] = Array("{}[],:\"\\/-+.eE0123456789tfnu \t\n".utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xED, 0xF0, 0xF4, 0xFF]
    func randomByte() -> UInt8 {
        rng.next() % 4 == 0 ? UInt8.random(in: 0...255, using: &rng) : interesting.randomElement(using: &rng)!
    }
    if bytes.isEmpty {
        bytes.append(randomByte())
        return
    }
    let i = Int.random(in: 0..<bytes.count, using: &rng)
    switch rng.next() % 5 {
    case 0: bytes[i] = randomByte()
    case 1: bytes.insert(randomByte(), at: i)
    case 2: bytes.remove(at: i)
    case 3:
        let j = Int.random(in: i...bytes.count, using: &rng)
        bytes.insert(contentsOf: bytes[i..<j], at: j)
    default: bytes.removeSubrange(i...)
    }
}
