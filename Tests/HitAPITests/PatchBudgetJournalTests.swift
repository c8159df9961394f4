import Foundation
import HitJournal
import XCTest

@testable import HitAPI
@testable import HitStore

/// Issue 14 through the journal backend: a patch refused by the budget
/// writes no record; accepted patches weigh after a restart what they
/// weighed before it (replay moves each scene's weight by the same figure
/// the live store did), and after a compaction what the snapshot's
/// rendering and masks weigh.
final class PatchBudgetJournalTests: XCTestCase {
    var dir = ""

    override func setUp() { dir = NSTemporaryDirectory() + "hitroute-patch-budget-\(UUID().uuidString)" }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    func open(budget: Int) throws -> (JournalStore, Application) {
        var o = JournalOptions(directory: dir)
        o.fsync = .always
        var limits = SceneStore.Limits()
        limits.maxStoreBytes = budget
        let store = try JournalStore(options: o, limits: limits)
        try store.recover()
        var config = Configuration()
        config.store = limits
        return (store, Application(configuration: config, store: store))
    }

    /// Bytes of every file in the store's directory.
    func journalBytes() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: dir).reduce(0) { total, name in
            let size = try FileManager.default.attributesOfItem(atPath: dir + "/" + name)[.size] as? Int ?? 0
            return total + size
        }
    }

    func testARefusedPatchWritesNoRecordAndAcceptedOnesWeighTheSameAfterARestart() throws {
        var (store, app) = try open(budget: 100_000)
        XCTAssertEqual(app.call("PUT", "/scenes/s", budgetScene).status, 201)
        XCTAssertEqual(app.call("PUT", "/scenes/t", budgetScene).status, 201)
        let onDisk = try journalBytes()
        let before = app.call("GET", "/scenes/s").text
        XCTAssertEqual(app.call("PATCH", "/scenes/s/layers/m", growToMask).status, 507)
        XCTAssertEqual(try journalBytes(), onDisk, "no record for the refused patch")
        XCTAssertEqual(store.memory.storedBytes, 2 * budgetScene.utf8.count)
        store.close()

        (store, app) = try open(budget: 1_000_000)
        XCTAssertEqual(app.call("GET", "/scenes/s").text, before, "the refused patch is not replayed")
        XCTAssertEqual(app.call("GET", "/scenes/s").headers["ETag"], "\"1\"")
        // Accepted patches: grow, shrink, grow again, and another layer.
        for patch in [growToMask, shrinkToRect, growToMask] {
            XCTAssertEqual(app.call("PATCH", "/scenes/s/layers/m", patch).status, 200)
        }
        XCTAssertEqual(
            app.call("PATCH", "/scenes/t/layers/back", #"{"shape":{"type":"mask","alpha":"/wD/AA==","columns":2,"rows":2},"hitSlop":1}"#)
                .status, 200)
        let weights = ["s", "t"].map { store.memory.weight(of: $0) }
        let total = store.memory.storedBytes
        XCTAssertGreaterThan(total, tinyBigPNGStrokedBytes)
        XCTAssertEqual(total, weights.reduce(0) { $0 + ($1 ?? 0) })
        let scenes = ["s", "t"].map { app.call("GET", "/scenes/\($0)").text }
        store.close()

        (store, app) = try open(budget: 1_000_000)
        XCTAssertEqual(["s", "t"].map { store.memory.weight(of: $0) }, weights, "replay weighs each patch as it was weighed")
        XCTAssertEqual(store.memory.storedBytes, total)
        XCTAssertEqual(["s", "t"].map { app.call("GET", "/scenes/\($0)").text }, scenes)
        // The budget holds after a restart: no room for a second big mask until the first shrinks.
        XCTAssertEqual(app.call("PUT", "/scenes/u", budgetScene).status, 201)
        store.close()
        (store, app) = try open(budget: total + budgetScene.utf8.count + 10)
        XCTAssertEqual(app.call("PATCH", "/scenes/u/layers/m", growToMask).status, 507)
        XCTAssertEqual(app.call("PATCH", "/scenes/s/layers/m", shrinkToRect).status, 200, "shrinking is taken")
        XCTAssertEqual(app.call("PATCH", "/scenes/u/layers/m", growToMask).status, 200, "into the room it freed")
        store.close()
    }
}
