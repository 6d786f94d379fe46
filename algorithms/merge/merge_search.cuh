/* The searches merge/path's partitions run (merge_path.cu, multiway.cuh), host and device,
 * so that tests/test_merge_search.cu can check them on the CPU. */
#pragma once

#include <stdint.h>

#include "search.cuh"

namespace pb::merge {

/* A search by g lanes for the first position in [lo, hi] where a monotone predicate holds
 * (hi itself counting as holding): lane j tests lo + (j + 1) * step - 1, positions from hi
 * on count as holding, and f, the number of lanes that found it false (a prefix), narrows
 * the range to one step. */
__host__ __device__ inline uint32_t kary_step(uint32_t lo, uint32_t hi, uint32_t g) {
    return (uint32_t)(((uint64_t)hi - lo + g) / (g + 1));
}
__host__ __device__ inline uint64_t kary_probe(uint32_t lo, uint32_t step, uint32_t j) {
    return (uint64_t)lo + (uint64_t)(j + 1) * step - 1;
}
__host__ __device__ inline void kary_narrow(uint32_t &lo, uint32_t &hi, uint32_t step, uint32_t f,
                                            uint32_t g) {
    const uint64_t top = (uint64_t)lo + (uint64_t)(f + 1) * step - 1;
    if (f < g && top < hi) hi = (uint32_t)top;
    lo += f * step;
}

using pb::last_at_or_below;

} // namespace pb::merge
