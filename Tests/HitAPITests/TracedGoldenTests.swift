import Foundation
import XCTest

@testable import HitAPI

/// Answers byte for byte: the requests of Tests/Golden/traced-requests.txt
/// (four scenes: the ring's hole, a PNG mask under a pass-through layer,
/// hit shapes, and one with every skip and miss reason, transforms with
/// fractional `local`s, slop on shapes and masks, strokes, clipping,
/// pointer captures and a dropped capture; traced, untraced, `all`, GET and
/// batches) replayed in order against one application, each answer compared
/// with the stored one (Tests/Golden/traced-answers.txt, written by
/// make_traced_golden.py from a release binary over HTTP). Any byte that
/// changes in any answer fails the test.
final class TracedGoldenTests: XCTestCase {
    static let folder = repositoryRoot.appendingPathComponent("Tests/Golden")

    func testEveryAnswerIsByteForByteTheStoredOne() throws {
        let requests = try String(contentsOf: Self.folder.appendingPathComponent("traced-requests.txt"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: true)
        let answers = try String(contentsOf: Self.folder.appendingPathComponent("traced-answers.txt"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: true)
        XCTAssertEqual(requests.count, answers.count)
        XCTAssertGreaterThan(requests.count, 800)
        let app = Application.testing()
        var traced = 0
        var failures = 0
        for (n, (line, stored)) in zip(requests, answers).enumerated() {
            let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
            let (method, target) = (parts[0], parts[1])
            if method == "PUT" {
                let body = try String(contentsOf: Self.folder.appendingPathComponent(parts[2]), encoding: .utf8)
                XCTAssertEqual("\(app.call("PUT", target, body).status)", String(stored), "request \(n + 1): \(line)")
                continue
            }
            let reply = app.call(method, target, parts.count > 2 ? parts[2] : nil)
            let got = "\(reply.status) \(reply.text)"
            if reply.text.contains(#""trace":["#) { traced += 1 }
            if got != stored {
                failures += 1
                if failures <= 5 { XCTFail("request \(n + 1): \(line)\nstored: \(stored)\n   got: \(got)") }
            }
        }
        XCTAssertEqual(failures, 0, "answers that changed")
        XCTAssertGreaterThan(traced, 500, "traced answers compared")
    }
}
