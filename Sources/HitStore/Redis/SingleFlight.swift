import Dispatch
import Synchronization

/// One load per key at a time: a caller that asks for a key while its load
/// runs waits for that load's result instead of starting its own, so a
/// burst of misses on one big scene fetches and compiles it once, not once
/// per worker thread (each copy as large as the scene).
///
/// Callers must be allowed to block: never an event loop.
final class SingleFlight<Value: Sendable>: Sendable {
    private final class Flight: Sendable {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<Value, StoreError>?>(nil)
    }

    private let flights = Mutex<[String: (flight: Flight, waiters: Int)]>([:])

    /// `body`'s result for `key`, run by this caller or by the one already
    /// running it (then its result, success or problem, is shared).
    func run(_ key: String, _ body: () throws(StoreError) -> Value) throws(StoreError) -> Value {
        let (flight, leads) = flights.withLock { table -> (Flight, Bool) in
            if let running = table[key] {
                table[key] = (running.flight, running.waiters + 1)
                return (running.flight, false)
            }
            let fresh = Flight()
            table[key] = (fresh, 0)
            return (fresh, true)
        }
        if !leads {
            flight.done.wait()
            // Set by the leader before it signals.
            return try flight.result.withLock { $0! }.get()
        }
        let result: Result<Value, StoreError>
        do throws(StoreError) { result = .success(try body()) } catch { result = .failure(error) }
        flight.result.withLock { $0 = result }
        let waiters = flights.withLock { $0.removeValue(forKey: key)?.waiters ?? 0 }
        for _ in 0..<waiters { flight.done.signal() }
        return try result.get()
    }

    /// Callers waiting for `key`'s running load (tests).
    func waiters(_ key: String) -> Int { flights.withLock { $0[key]?.waiters ?? 0 } }
}
