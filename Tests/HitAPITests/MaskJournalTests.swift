import Foundation
import HitJournal
import XCTest

@testable import HitAPI
@testable import HitStore
@testable import SceneCodec

/// Mask and pass-through scenes through the journal backend: after a
/// reopen, GET gives them back byte for byte and they route as before.
final class MaskJournalTests: XCTestCase {
    var dir = ""

    override func setUp() { dir = NSTemporaryDirectory() + "hitroute-mask-journal-\(UUID().uuidString)" }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    func open() throws -> (JournalStore, Application) {
        var o = JournalOptions(directory: dir)
        o.fsync = .always
        let store = try JournalStore(options: o)
        try store.recover()
        return (store, Application(configuration: Configuration(), store: store))
    }

    func testMasksAndReceiversSurviveAReopen() throws {
        let sprite = try String(
            contentsOf: repositoryRoot.appendingPathComponent("examples/sprite-with-pass-through.json"), encoding: .utf8)
        let (store, app) = try open()
        XCTAssertEqual(app.call("PUT", "/scenes/sprite-demo", sprite).status, 201)
        XCTAssertEqual(
            app.call(
                "PUT", "/scenes/alpha",
                #"{"layers":[{"id":"s","passThrough":true,"shape":{"type":"mask","x":0,"y":0,"width":4,"height":2,"alpha":"AAD//wAA//8=","columns":4,"rows":2,"stroke":1}}]}"#
            ).status, 201)
        XCTAssertEqual(app.call("PATCH", "/scenes/sprite-demo/layers/sprite", #"{"shape":{"threshold":0.3}}"#).status, 200)
        let points = #"{"points":[{"x":120,"y":120},{"x":125,"y":55},{"x":45,"y":45}]}"#
        let before =
            ["sprite-demo", "alpha"].map { app.call("GET", "/scenes/\($0)").text } + [
                app.call("POST", "/scenes/sprite-demo/hits", points).text
            ]
        let bytes = store.memory.storedBytes
        XCTAssertGreaterThan(bytes, sprite.utf8.count + 16 * 16, "the sprite's JSON and pixels are counted")
        store.close()
        let (again, reopened) = try open()
        XCTAssertEqual(again.memory.storedBytes, bytes, "recovery weighs the masks as the uploads did")
        let after =
            ["sprite-demo", "alpha"].map { reopened.call("GET", "/scenes/\($0)").text } + [
                reopened.call("POST", "/scenes/sprite-demo/hits", points).text
            ]
        XCTAssertEqual(after, before)
        XCTAssertTrue(after[2].contains(#""receivers":[{"layer":"analytics""#), after[2])
    }

    /// Replay lifted every scene limit but the pixels of one mask: with
    /// `--max-mask-pixels 20000000`, a scene of a 4200×4200 mask was accepted
    /// (201), and the next start refused its record and stopped. Each limit a
    /// flag raises must replay at the flag's highest setting (past which the
    /// flag is refused, so a new range is seen here too).
    func testReplayAdmitsWhatEveryLimitFlagAtItsHighestAdmits() throws {
        let replay = JournalStore.replayLimits
        let flags: [(String, Int, (SceneLimits) -> Int)] = [
            ("--max-layers", 10_000_000, \.maxLayers), ("--max-depth", 1024, \.maxDepth),
            ("--max-vertices", 10_000_000, \.maxVertices), ("--max-mask-pixels", 1 << 28, \.maxMaskPixels),
            ("--max-scene-mask-pixels", 1 << 40, \.maxSceneMaskPixels),
        ]
        for (flag, highest, limit) in flags {
            let live = try Configuration.parse(arguments: [flag, String(highest)], environment: [:]).scene
            XCTAssertEqual(limit(live), highest, flag)
            XCTAssertThrowsError(try Configuration.parse(arguments: [flag, String(highest + 1)], environment: [:]), flag)
            XCTAssertGreaterThanOrEqual(limit(replay), highest, flag)
        }
    }
}
