import Foundation
import HitStore
import TestSupport
import XCTest

/// `StoreContract` against the memory store.
final class MemoryStoreContractTests: XCTestCase {
    let contract = StoreContract { limits in try StoreFactory.make(StoreConfiguration.with(limits)) }

    func testCreateReadReplaceDelete() throws { try contract.createReadReplaceDelete() }
    func testCreateConflictsAndGeneratesIDs() throws { try contract.createConflictsAndGeneratesIDs() }
    func testResidentReadsFollowWrites() throws { try contract.residentReadsFollowWrites() }
    func testPatchesAndTheirRefusals() throws { try contract.patchesAndTheirRefusals() }
    func testPointerEventsCaptureAndDrag() throws { try contract.pointerEventsCaptureAndDrag() }
    func testReplacementKeepsPointersAndReportsTheChange() throws { try contract.replacementKeepsPointersAndReportsTheChange() }
    func testFullOfScenes() throws { try contract.fullOfScenes() }
    func testReportsWhatItHolds() throws { try contract.reportsWhatItHolds() }
}

/// `StoreContract` against the journal, in a fresh directory per store.
final class JournalStoreContractTests: XCTestCase {
    var directories: [String] = []
    lazy var contract = StoreContract { [unowned self] limits in
        let directory = NSTemporaryDirectory() + "hitstore-contract-\(UUID().uuidString)"
        directories.append(directory)
        var c = StoreConfiguration.with(limits)
        c.backend = .journal(JournalOptions(directory: directory))
        let store = try StoreFactory.make(c)
        try store.start()
        return store
    }

    override func tearDown() {
        for d in directories { try? FileManager.default.removeItem(atPath: d) }
    }

    func testCreateReadReplaceDelete() throws { try contract.createReadReplaceDelete() }
    func testCreateConflictsAndGeneratesIDs() throws { try contract.createConflictsAndGeneratesIDs() }
    func testResidentReadsFollowWrites() throws { try contract.residentReadsFollowWrites() }
    func testPatchesAndTheirRefusals() throws { try contract.patchesAndTheirRefusals() }
    func testPointerEventsCaptureAndDrag() throws { try contract.pointerEventsCaptureAndDrag() }
    func testReplacementKeepsPointersAndReportsTheChange() throws { try contract.replacementKeepsPointersAndReportsTheChange() }
    func testFullOfScenes() throws { try contract.fullOfScenes() }
    func testReportsWhatItHolds() throws { try contract.reportsWhatItHolds() }
}

/// `StoreContract` against Redis: a real `redis-server` per test, started
/// by the test; the store is ready once it is subscribed.
final class RedisStoreContractTests: XCTestCase {
    var redis: RedisServerProcess!
    lazy var contract = StoreContract { [unowned self] limits in
        var c = StoreConfiguration.with(limits)
        c.backend = .redis(url: redis.url, password: nil, cacheBytes: 1 << 30)
        let store = try StoreFactory.make(c)
        let deadline = Date().addingTimeInterval(300)  // bounds a hang; it does not measure speed
        while store.health() != .ready {
            guard Date() < deadline else { throw NotSubscribed() }
            usleep(2_000)
        }
        return store
    }

    override func setUpWithError() throws {
        guard let r = try RedisServerProcess.start() else { throw XCTSkip(RedisServerProcess.skipMessage) }
        redis = r
    }

    override func tearDown() { redis?.shutdown() }

    func testCreateReadReplaceDelete() throws { try contract.createReadReplaceDelete() }
    func testCreateConflictsAndGeneratesIDs() throws { try contract.createConflictsAndGeneratesIDs() }
    func testResidentReadsFollowWrites() throws { try contract.residentReadsFollowWrites() }
    func testPatchesAndTheirRefusals() throws { try contract.patchesAndTheirRefusals() }
    func testPointerEventsCaptureAndDrag() throws { try contract.pointerEventsCaptureAndDrag() }
    func testReplacementKeepsPointersAndReportsTheChange() throws { try contract.replacementKeepsPointersAndReportsTheChange() }
    func testFullOfScenes() throws { try contract.fullOfScenes() }
    func testReportsWhatItHolds() throws { try contract.reportsWhatItHolds() }
}

extension StoreConfiguration {
    /// A memory store's configuration with `limits`.
    static func with(_ limits: SceneStore.Limits) -> StoreConfiguration {
        var c = StoreConfiguration()
        c.limits = limits
        return c
    }
}

/// A store that never subscribed to Redis: a failure, not a skip.
private struct NotSubscribed: Error {}
