/* The searches merge/path's partitions run (merge_path.cu, merge_tile.cuh), host and device,
 * so that tests/test_merge_search.cu can check them on the CPU. */
#pragma once

#include <stdint.h>

#include "search.cuh"

namespace pb::merge {

/* Merge path: how many of the first d outputs of the stable merge of A (na keys) with B
 * (nb keys) come from A, ties to A. A binary search along diagonal d, one probe a step:
 * split_kernel's tile starts (in a tile, merge_tile.cuh's tile_path_split). (A 16-lane
 * search, 7 steps at 2^27 keys instead of 27, read 3 times the memory and was slower on
 * the H200.) I: the index type. */
template <class K, class I = uint32_t>
__host__ __device__ inline I merge_path_split(const K *A, I na, const K *B, I nb, I d) {
    I lo = d > nb ? d - nb : 0, hi = d < na ? d : na;
    while (lo < hi) {
        const I mid = lo + ((hi - lo) >> 1);
        if (B[d - 1 - mid] < A[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

using pb::last_at_or_below;

} // namespace pb::merge
