/* A binary search that host and device code share (merge/path's partitions, the sssp
 * one-block kernel's settled list), so that tests/test_merge_search.cu checks it on the CPU. */
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

} // namespace pb
