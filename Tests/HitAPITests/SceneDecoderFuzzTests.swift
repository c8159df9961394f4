import Foundation
import TestSupport
import XCTest

@testable import HitAPI
@testable import SceneCodec

/// Seeded robustness tests: whatever the bytes, decoding ends in a scene or
/// a described failure, never a trap, and every failure points somewhere real.
final class SceneDecoderFuzzTests: XCTestCase {
    func decode(_ bytes: [UInt8]) -> DecodeFailure? {
        do {
            _ = try bytes.withUnsafeBufferPointer { (b) throws(DecodeFailure) in try SceneDecoder.decode(b, limits: SceneLimits()) }
            return nil
        } catch {
            return error
        }
    }

    func testMutatedScenesNeverTrap() {
        let seeds = [Array(ringScene.utf8), Array(squaresScene.utf8)]
        let tokens = Array(#"{}[],:"0123456789.-+eE truefalsnul\u00"#.utf8) + [0, 0xFF, 0xC3]
        var rng = SplitMix64(seed: 2024)
        for round in 0..<4000 {
            var bytes = seeds[round % seeds.count]
            for _ in 0..<Int.random(in: 1...8, using: &rng) {
                let i = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: bytes[i] = tokens.randomElement(using: &rng)!
                case 1: bytes.remove(at: i)
                default: bytes.insert(tokens.randomElement(using: &rng)!, at: i)
                }
                if bytes.isEmpty { bytes = [0x7B] }
            }
            assertDescribed(decode(bytes), bytes, "round \(round)")
        }
    }

    /// A failure must say where: a syntax offset inside the input, or issues with pointers.
    func assertDescribed(_ failure: DecodeFailure?, _ bytes: [UInt8], _ context: String) {
        switch failure {
        case .syntax(let e)?:
            XCTAssertTrue((0...bytes.count).contains(e.offset), "\(context): offset \(e.offset)")
        case .invalid(let issues)?:
            XCTAssertFalse(issues.isEmpty, context)
            for issue in issues {
                XCTAssertTrue(issue.pointer.isEmpty || issue.pointer.hasPrefix("/"), "\(context): \(issue)")
            }
        case nil:
            break
        }
    }

    func testRandomBytesNeverTrap() {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<3000 {
            let bytes = (0..<Int.random(in: 0..<64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let failure = decode(bytes)
            XCTAssertNotNil(failure, "random bytes decoded as a scene: \(bytes)")
            assertDescribed(failure, bytes, "\(bytes)")
        }
    }

    func testValidScenesRoundTripThroughTheEncoder() throws {
        for text in [ringScene, squaresScene] {
            let scene = try Array(text.utf8).withUnsafeBufferPointer { (b) throws(DecodeFailure) in
                try SceneDecoder.decode(b, limits: SceneLimits())
            }
            let app = Application.testing()
            _ = app.call("POST", "/scenes", text)
            let id = scene.id ?? ""
            let again = app.call("GET", "/scenes/\(id)").body
            var copy = try JSONSerialization.jsonObject(with: Data(again)) as! [String: Any]
            copy["version"] = nil
            XCTAssertEqual(copy as NSDictionary, try JSONSerialization.jsonObject(with: Data(text.utf8)) as! NSDictionary)
        }
    }
}
