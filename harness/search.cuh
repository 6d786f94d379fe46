/* Searches that host and device code share (merge/path's partitions, the sssp one-block
 * kernel's settled list, multisplit's bin offsets), so that tests/test_merge_search.cu
 * checks them on the CPU. */
#pragma once

#include <stdint.h>

namespace pb {

template <class T> struct same_type { using type = T; };

/* The last i in [0, n) with a[i] <= x, a non-decreasing and a[0] <= x: the pair, group or
 * run that holds x when a holds where each starts (empty ones share the next one's start,
 * and the last of equal starts is the non-empty one). T from a alone (x converts). */
template <class T>
__host__ __device__ inline uint32_t last_at_or_below(const T *a, uint32_t n,
                                                     typename same_type<T>::type x) {
    uint32_t lo = 0, hi = n - 1;
    while (lo < hi) {
        const uint32_t mid = (lo + hi + 1) >> 1;
        if (a[mid] <= x)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* The first i in [lo, hi) where below(i) is false (hi if none), below true on a prefix:
 * multiway's cut of a run at a splitter (first_not_below), the value split's place of a
 * splitter among a block's keys (bounds_kernel). */
template <class Below>
__host__ __device__ inline uint32_t first_not(uint32_t lo, uint32_t hi, Below below) {
    while (lo < hi) {
        const uint32_t mid = lo + ((hi - lo) >> 1);
        if (below(mid))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* first_not for an answer expected near lo: probes lo, lo + 2, lo + 6, lo + 14, ... (steps
 * doubling) until one is not below or the next would pass hi, then first_not over the last
 * step: about 2 log2 of the distance probes, not log2 of the range (the value split's bounds
 * walk, where a key of a short list lies above a run of splitters from the last one it
 * passed). */
template <class Below>
__host__ __device__ inline uint32_t first_not_galloping(uint32_t lo, uint32_t hi, Below below) {
    for (uint64_t step = 1;; step *= 2) {
        if (hi - lo < step) return first_not(lo, hi, below);
        const uint32_t probe = lo + (uint32_t)step - 1;
        if (!below(probe)) return first_not(lo, probe, below);
        lo = probe + 1;
    }
}

/* A search by g lanes for the first position in [lo, hi] where a monotone predicate holds
 * (hi itself counting as holding): lane j tests kary_probe(lo, step, j), positions from hi
 * on count as holding, and f, the number of lanes that found it false (a prefix), narrows
 * the range to less than one step: ceil(log(g + 1) of the range) rounds. */
__host__ __device__ inline uint64_t kary_step(uint64_t lo, uint64_t hi, uint32_t g) {
    return (hi - lo + g) / (g + 1);
}
__host__ __device__ inline uint64_t kary_probe(uint64_t lo, uint64_t step, uint32_t j) {
    return lo + (uint64_t)(j + 1) * step - 1;
}
__host__ __device__ inline void kary_narrow(uint64_t &lo, uint64_t &hi, uint64_t step, uint32_t f,
                                            uint32_t g) {
    const uint64_t top = lo + (uint64_t)(f + 1) * step - 1;
    if (f < g && top < hi) hi = top;
    lo += f * step;
}

#ifdef __CUDACC__
/* The search above by G lanes of a warp (G divides 32; lane j of a group is lane % G), every
 * lane of the warp taking part (groups whose range is empty, lo == hi, just follow):
 * below(i), monotone, is true for the positions before the answer; the answer is in
 * [lo, hi], found in ceil(log(G + 1) of the range) rounds of G independent probes. */
template <uint32_t G, class Below>
__device__ inline uint64_t kary_search_warp(uint64_t lo, uint64_t hi, Below below) {
    static_assert(G >= 1 && G <= 32 && 32 % G == 0, "G lanes a group, inside one warp");
    const uint32_t lane = threadIdx.x % 32;
    const unsigned group = G == 32 ? 0xffffffffu : ((1u << G) - 1) << (lane / G * G);
    while (__any_sync(0xffffffffu, lo < hi)) {
        const bool open = lo < hi;
        const uint64_t step = open ? kary_step(lo, hi, G) : 0;
        const uint64_t i = kary_probe(lo, step, lane % G);
        const bool is_below = open && i < hi && below(i);
        const uint32_t f = (uint32_t)__popc(__ballot_sync(0xffffffffu, is_below) & group);
        if (open) kary_narrow(lo, hi, step, f, G);
    }
    return lo;
}

/* last_at_or_below by a whole warp (every lane, x the same in each): the last i in [0, n)
 * with a[i] <= x, a non-decreasing and a[0] <= x, in about log33(n) rounds of 32 probes
 * where the binary search waits on log2(n) loads one after another. */
template <class T, class X>
__device__ inline uint64_t last_at_or_below_warp(const T *a, uint64_t n, X x) {
    return kary_search_warp<32>(0, n, [&](uint64_t i) { return a[i] <= x; }) - 1;
}
#endif

} // namespace pb
