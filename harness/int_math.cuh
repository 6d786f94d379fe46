/* Integer helpers that host and device code share. */
#pragma once

#include <stdint.h>

namespace pb {

/* The least l with 2^l >= v (0 for v <= 1): rounds of a pairwise tree over v items. */
__host__ __device__ constexpr int ceil_log2(uint64_t v) {
    int l = 0;
    while (l < 64 && ((uint64_t)1 << l) < v) l++;
    return l;
}

} // namespace pb
