#ifndef HITROUTE_CCOUNTERS_H
#define HITROUTE_CCOUNTERS_H
// Counter cells for metrics: relaxed atomic loads and stores on plain
// 64-bit words, which Swift's Synchronization cannot do on memory it did
// not declare as `Atomic`. On x86-64 and arm64 a relaxed load or store is a
// plain `mov`/`ldr`/`str`: no lock prefix, no fence.
#include <stdint.h>

/// Adds `n` to a cell that only the calling thread ever writes (a load and
/// a store, not a read-modify-write): what an event loop does on its own
/// shard. Other threads may read the cell at any time with
/// `ccounter_load`; they see the old or the new value, never a torn one.
static inline void ccounter_bump(uint64_t *cell, uint64_t n) {
    __atomic_store_n(cell, __atomic_load_n(cell, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}

/// Adds `n` to a cell that several threads write (an atomic fetch-add):
/// for the rare paths, never an event loop's hit path.
static inline void ccounter_add_shared(uint64_t *cell, uint64_t n) {
    __atomic_fetch_add(cell, n, __ATOMIC_RELAXED);
}

/// Reads a cell that another thread may be writing.
static inline uint64_t ccounter_load(const uint64_t *cell) {
    return __atomic_load_n(cell, __ATOMIC_RELAXED);
}
#endif
