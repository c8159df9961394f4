#ifndef HITROUTE_CPREFETCH_H
#define HITROUTE_CPREFETCH_H
/// Asks the CPU to start loading the cache line holding `address` into
/// every cache level (a hint: no fault, no effect on results), for data
/// read soon. Swift has no prefetch of its own; being `static inline`,
/// these compile to the one instruction in place.
static inline void hitroute_prefetch(const void *address) { __builtin_prefetch(address, 0, 3); }

/// The same into the second-level cache only (`prefetcht1` on x86), for
/// many requests in flight at once: on this machine's cores, requests into
/// the first level queue behind its few miss buffers and stall the thread
/// that issues them.
static inline void hitroute_prefetch_l2(const void *address) { __builtin_prefetch(address, 0, 2); }
#endif
