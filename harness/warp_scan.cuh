/* The warp-wide exclusive sum the kernels' compaction steps share (sssp's frontier and
 * one-block kernel, select's filter). */
#pragma once

#include <cuda_runtime.h>
#include <stdint.h>

namespace pb {

/* x summed over the lanes below this one, by shuffles; *total gets the whole warp's sum.
 * Every lane of the warp calls it (threadIdx.x % 32 is the lane). */
__device__ __forceinline__ uint32_t warp_exclusive_sum(uint32_t x, uint32_t *total) {
    const uint32_t lane = threadIdx.x % 32;
    uint32_t inclusive = x;
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
        const uint32_t up = __shfl_up_sync(0xffffffffu, inclusive, d);
        if (lane >= (uint32_t)d) inclusive += up;
    }
    *total = __shfl_sync(0xffffffffu, inclusive, 31);
    return inclusive - x;
}

} // namespace pb
