/* Searches that host and device code share (merge/path's partitions, the sssp one-block
 * kernel's settled list, multisplit's bin offsets), so that tests/test_merge_search.cu
 * checks them on the CPU. */
#pragma once

#include <stdint.h>

namespace pb {

/* The last i in [0, n) with a[i] <= x, a non-decreasing and a[0] <= x: the pair, group or
 * run that holds x when a holds where each starts (empty ones share the next one's start,
 * and the last of equal starts is the non-empty one). */
__host__ __device__ inline uint32_t last_at_or_below(const uint32_t *a, uint32_t n, uint32_t x) {
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

} // namespace pb
