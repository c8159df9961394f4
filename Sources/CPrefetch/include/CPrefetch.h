#ifndef HITROUTE_CPREFETCH_H
#define HITROUTE_CPREFETCH_H
/// Asks the CPU to start loading the cache line holding `address` (a hint:
/// no fault, no effect on results). Swift has no prefetch of its own;
/// being `static inline`, this compiles to the one instruction in place.
static inline void hitroute_prefetch(const void *address) { __builtin_prefetch(address, 0, 3); }
#endif
