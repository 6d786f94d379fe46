/* merge/path's multiway passes, the arithmetic and the searches (host and device code, so
 * that tests/test_merge_multiway.cu checks them on the CPU).
 *
 * A pass merges groups of G neighbouring runs at once. Its tiles are cut by splitters: every
 * S-th key of a run is a sample, the samples of a group are merged (by the same pass, one
 * level down), and every m-th merged sample cuts the group. A cut is exact in the order
 * (key, run, position), so tiles are stable and disjoint; a tile holds at most
 * (m + G) * S - G keys whatever the input (each run adds at most one stretch of S keys to
 * the m stretches its samples open), which is what a block's shared memory holds. */
#pragma once

#include <stdint.h>

#include "search.cuh"

namespace pb::merge::multiway {

constexpr uint32_t kMaxGroup = 64; /* runs merged by one tile: two a lane in the split */
constexpr int kMaxPasses = 2;      /* so k <= 64^2 */
/* The most lists merged in one pass; more take two (a macro for A/B builds). H200, multiway
 * passes forced, against one pass up to 64 (configs/tests/merge-passes-ab.json,
 * results/h200/session21-merge-passes-ab*.csv): two passes from 33 lists take 7 to 20% less
 * time at k = 48 and 64 (u32 and u64, 2^24 and 2^27 keys), two from 17 are 6 to 24% slower
 * at k = 24 and 32. */
#ifndef PB_MERGE_ONE_PASS_MOST
#define PB_MERGE_ONE_PASS_MOST 32
#endif
constexpr uint32_t kOnePassMost = PB_MERGE_ONE_PASS_MOST;
static_assert(kOnePassMost >= 2 && kOnePassMost <= kMaxGroup, "one pass merges 2 to 64 lists");

/* The passes for k lists: pass p merges groups of group[p] runs of stride[p] lists. */
struct Passes {
    int count;
    uint32_t group[kMaxPasses];
    uint32_t stride[kMaxPasses];
};

__host__ __device__ inline uint32_t ceil_div(uint64_t a, uint64_t b) {
    return (uint32_t)((a + b - 1) / b);
}

/* false when k needs more passes than kMaxPasses. one_pass_most: the most lists one pass
 * merges (more than kOnePassMost where bucketed tiles make a pass cost about the same
 * whatever its group, bucket_tile.cuh's one_pass_most). Two passes split k evenly (32 x 32
 * for 1024), since a tile's work grows with log2 of its group, and groups of 64 cost the
 * partition more samples. */
__host__ __device__ inline bool plan_passes(uint32_t k, Passes &p,
                                            uint32_t one_pass_most = kOnePassMost) {
    if (k <= one_pass_most && k <= kMaxGroup) {
        p.count = 1;
        p.group[0] = k;
        p.stride[0] = 1;
        return true;
    }
    if (k > kMaxGroup * kMaxGroup) return false;
    uint32_t g = 1;
    while (g * g < k) g++;
    p.count = 2;
    p.group[0] = g;
    p.stride[0] = 1;
    p.group[1] = ceil_div(k, g);
    p.stride[1] = g;
    return true;
}

/* The sample stride for a group of G runs and tiles of `tile` keys: a power of two with
 * (m + G) S <= tile and m at least 3 G, so tiles come out at least 3/4 full. */
__host__ __device__ inline uint32_t sample_stride(uint32_t tile, uint32_t G) {
    uint32_t s = 8;
    while (s < 128 && 2 * s * 4 * G <= tile) s *= 2;
    return s;
}
/* Samples between two cuts. */
__host__ __device__ inline uint32_t samples_per_tile(uint32_t tile, uint32_t G, uint32_t S) {
    return tile / S - G;
}
/* The most keys in one group one level down, from the most at this one. */
__host__ __device__ inline uint64_t next_group_bound(uint64_t bound, uint32_t S, uint32_t G) {
    return (bound + S - 1) / S + G;
}

/* The first index in [lo, hi) whose key is not below splitter v. A run before the
 * splitter's (le) has its keys equal to v below it (ties go to the lower run), a run after
 * it has only smaller keys below. */
template <class K>
__host__ __device__ inline uint32_t first_not_below(const K *a, uint32_t lo, uint32_t hi, K v,
                                                    bool le) {
    return pb::first_not(lo, hi, [&](uint32_t i) { return le ? !(v < a[i]) : a[i] < v; });
}

/* Where splitter v cuts the run keys[rs, re) of another run than its own: first among the
 * run's samples (smp: keys[rs], keys[rs + S], ...), then among the at most S - 1 keys
 * between the last sample below and the next. */
template <class K>
__host__ __device__ inline uint32_t cut_run(const K *keys, uint32_t rs, uint32_t re, const K *smp,
                                            uint32_t S, K v, bool le) {
    if (rs == re) return rs;
    const uint32_t c = first_not_below(smp, 0, ceil_div(re - rs, S), v, le);
    if (c == 0) return rs;
    const uint32_t lo = rs + (c - 1) * S + 1;
    const uint32_t hi = re - rs < c * S ? re : rs + c * S;
    return first_not_below(keys, lo, hi, v, le);
}

} // namespace pb::merge::multiway
