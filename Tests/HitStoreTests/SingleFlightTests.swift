import Dispatch
import Synchronization
import TestSupport
import XCTest

@testable import HitStore

final class SingleFlightTests: XCTestCase {
    /// Callers of one key while its load runs share that load, success or problem.
    func testConcurrentCallersShareOneRun() throws {
        for outcome in [true, false] {
            let flight = SingleFlight<Int>()
            let runs = Atomic<Int>(0)
            let release = DispatchSemaphore(value: 0)
            let results = Mutex<[Int]>([])
            let group = DispatchGroup()
            let callers = 6
            for _ in 0..<callers {
                DispatchQueue.global().async(group: group) {
                    let r: Int
                    do throws(StoreError) {
                        r = try flight.run("k") { () throws(StoreError) -> Int in
                            runs.add(1, ordering: .relaxed)
                            release.wait()
                            if outcome { return 42 }
                            throw StoreError.notFound("gone")
                        }
                    } catch {
                        if case .notFound = error { r = -404 } else { r = -1 }
                    }
                    results.withLock { $0.append(r) }
                }
            }
            // Every other caller has joined the first one's run (no timing assumed: it polls, bounded by the hang guard).
            XCTAssertTrue(eventually { flight.waiters("k") == callers - 1 })
            release.signal()
            group.wait()
            XCTAssertEqual(runs.load(ordering: .relaxed), 1)
            XCTAssertEqual(results.withLock { $0 }, Array(repeating: outcome ? 42 : -404, count: callers))
            XCTAssertEqual(flight.waiters("k"), 0)
            // The next call runs again.
            XCTAssertEqual(try flight.run("k") { () throws(StoreError) -> Int in 7 }, 7)
        }
    }

    func testKeysDoNotWaitForEachOther() throws {
        let flight = SingleFlight<String>()
        let inner = try flight.run("a") { () throws(StoreError) -> String in
            try flight.run("b") { () throws(StoreError) -> String in "b" } + "a"
        }
        XCTAssertEqual(inner, "ba")
    }
}
