/* The searches merge/path's partitions run (merge_path.cu, merge_tile.cuh), host and device,
 * so that tests/test_merge_search.cu can check them on the CPU. */
#pragma once

#include <stdint.h>

#include "search.cuh"

namespace pb::merge {

/* Merge path: how many of the first d outputs of the stable merge of A (na keys) with B
 * (nb keys) come from A, ties to A. A search along diagonal d, one probe pair a step,
 * branch-free (the candidates [base, base + len) halve, the probe just below the upper
 * half): split_kernel's tile starts, and in a tile (I = int, indices rather than pointers so
 * that the addresses stay 32-bit shared ones) every thread's start in merge_items. (A
 * 16-lane search, 7 steps at 2^27 keys instead of 27, read 3 times the memory and was
 * slower on the H200.) */
template <class K, class I = uint32_t>
__host__ __device__ __forceinline__ I merge_path_split(const K *A, I na, const K *B, I nb, I d) {
    I base = d > nb ? d - nb : 0;
    I len = (d < na ? d : na) - base + 1;
    while (len > 1) {
        const I half = len >> 1, probe = base + half - 1;
        base = !(B[(d - 1) - probe] < A[probe]) ? base + half : base; /* answer past the probe */
        len -= half;
    }
    return base;
}

using pb::last_at_or_below;

} // namespace pb::merge
