/* merge/path: k sorted lists merged by one of two methods, chosen by size (use_multiway):
 * pairwise rounds, below, or for k >= 3 and many keys multiway passes (multiway.cuh), both
 * merging their tiles in shared memory with merge_tile.cuh.
 *
 * The rounds: ceil(log2 k) rounds of two-way merges, every round one pass over all the
 * keys, its pairs merged side by side in one launch.
 *
 * Round r merges the runs of 2^(r-1) lists pairwise: pair q is lists [q 2^r, (q+1) 2^r),
 * its left run the first half. A merged pair lands where its two runs were, so every
 * round's run bounds come straight from the list offsets, with no table. Per round:
 *
 *  1. tiles_kernel (one block): how many tiles of kSize outputs each pair has, scanned,
 *     so that tile t knows its pair.
 *  2. split_kernel: G lanes per tile find where the tile starts in its pair's two runs:
 *     a search along the tile's first diagonal (merge path), ties to the left run, which
 *     is what keeps the merge stable (the left run holds the lower lists); binary (one
 *     lane) where there are many tiles, 8- or 32-ary where few (split_lanes).
 *     Exact, so every tile is full but a pair's last. It leaves the tile a 16-byte
 *     descriptor; a merge block reads its own and the next one's, independent loads.
 *  3. merge_kernel: one block per tile (256 threads, 3840 keys of 4 bytes or 2304 of 8)
 *     loads the tile's two stretches striped (each thread's loads independent, so they
 *     overlap), merges them in shared memory (each thread finds its first output by merge
 *     path, then merges kItems serially), and writes the tile out striped. Blocks are
 *     independent and several fit on an SM, so one block's loads hide behind another's
 *     merging.
 *
 * Rounds ping-pong between scratch buffers, arranged so the last lands in the output. k = 1
 * is a copy. 4-byte integer keys alone from 128 to 2048 lists and 2^24 keys (2048 up to
 * 2^27), and 8-byte keys alone (u64, f64) from 256 to 1024 lists and 2^27 keys, take a third
 * method instead, the one-pass value split (value_split.cuh, split_beats_merge): tiles cut at
 * sampled keys, every list's bounds found by one read of the keys, each tile sorted in shared
 * memory; past 1024 lists and from a size that falls with k it first merges groups of
 * neighbouring lists by one multiway pass and splits the groups (the grouped split,
 * grouped_split_beats_merge). Beyond kMaxRoundLists lists (more than 12 rounds), and for 4-byte
 * keys from 256 lists on below a size that grows with k (sort_beats_merge), the merge is CUB's
 * radix sort: stable, so the same order, and fewer passes than the rounds. 4-byte keys are sorted
 * as they are (with their values); 8-byte keys as (ordered key, input index) pairs, then gathered.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <type_traits>

#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>

#include "async_copy.cuh"
#include "int_math.cuh"
#include "merge_gpu.h"
#include "merge_keys.cuh"
#include "merge_search.cuh"
#include "merge_tile.cuh"
#include "multiway.cuh"
#include "value_split.cuh"

namespace pb_merge_path {
namespace {

using pb::merge::last_at_or_below;
using pb::merge::merge_path_split;
using pb::merge::merge_tile;
using pb::merge::ordered_bits;
using pb::merge::Tile;

/* The rounds' merge blocks: 256 threads. H200, u32, against 512 in the same call
 * (configs/tests/merge-rounds-ab.json, results/h200/session20-merge-rounds-ab*.csv): 0.5 to
 * 7.8% less time wherever the rounds run (k = 2 at 2^20 to 2^27 keys, k = 16 below 2^25),
 * keys alone and with values. The multiway passes keep kTileThreads: 256 for every tile
 * took 8.5% more at k = 16, 2^27 keys (session 15, merge-tile-s15-merge-path-ab-t256.csv). */
#ifndef PB_MERGE_ROUND_THREADS
#define PB_MERGE_ROUND_THREADS 256
#endif
constexpr int kThreads = PB_MERGE_ROUND_THREADS;
template <class K> using RoundTile = Tile<K, kThreads>;
/* The rounds' tiles over `keys` keys (in 64 bits: a pair may hold nearly 2^32). */
template <class K> __host__ __device__ inline uint32_t round_tiles(uint64_t keys) {
    return pb::merge::multiway::ceil_div(keys, RoundTile<K>::kSize);
}
constexpr int kPlanThreads = 1024;        /* the one tiles_kernel block */
constexpr uint32_t kMaxRoundLists = 4096; /* 12 rounds */
constexpr uint64_t kMaxN = 0xffffffffull; /* positions are u32 */

/* ---- one round ---------------------------------------------------------------------------- */

/* Pair q of round r: its left run [a0, a1) and right run [a1, b1), input positions. */
struct Pair {
    uint32_t a0, a1, b1;
};
__device__ inline Pair pair_of(const uint64_t *__restrict__ offsets, uint32_t k, int r,
                               uint32_t q) {
    const uint64_t lo = (uint64_t)q << r, mid = lo + (1ull << (r - 1)), hi = lo + (1ull << r);
    return Pair{(uint32_t)offsets[lo < k ? lo : k], (uint32_t)offsets[mid < k ? mid : k],
                (uint32_t)offsets[hi < k ? hi : k]};
}

/* tile_start[q] = the first tile of pair q (pairs + 1 entries). One block; each thread
 * counts a stretch of consecutive pairs. */
template <class K>
__global__ void __launch_bounds__(kPlanThreads)
    tiles_kernel(const uint64_t *__restrict__ offsets, uint32_t k, int r, uint32_t pairs,
                 uint32_t *__restrict__ tile_start) {
    using Scan = cub::BlockScan<uint32_t, kPlanThreads>;
    __shared__ typename Scan::TempStorage scan;
    const uint32_t per = (pairs + kPlanThreads - 1) / kPlanThreads;
    const uint32_t q0 = min(pairs, threadIdx.x * per), q1 = min(pairs, q0 + per);
    uint32_t local = 0;
    for (uint32_t q = q0; q < q1; q++) {
        const Pair p = pair_of(offsets, k, r, q);
        local += round_tiles<K>(p.b1 - p.a0);
    }
    uint32_t at, total;
    Scan(scan).ExclusiveSum(local, at, total);
    for (uint32_t q = q0; q < q1; q++) {
        tile_start[q] = at;
        const Pair p = pair_of(offsets, k, r, q);
        at += round_tiles<K>(p.b1 - p.a0);
    }
    if (threadIdx.x == 0) tile_start[pairs] = total;
}

/* A tile's descriptor, as a uint4: x where its stretch of the left run starts, y where its
 * stretch of the right run starts, z where its output starts, w its length D (0: no tile)
 * with kLastInPair set for its pair's last tile. A tile ends where the next one starts, so
 * each boundary is searched once: the last tile of a pair ends at the pair's end, its left
 * stretch then y - z keys long (the left run's rest). */
constexpr uint32_t kLastInPair = 1u << 31;

/* desc[t] for t < max_tiles, G lanes a tile: where the tile's first diagonal d crosses the
 * pair's runs. G = 1: a binary search (merge_path_split), about log2 of the run's length
 * dependent loads; at k = 2 and 2^27 keys on the H200 it takes 26 us, where a 16-way
 * search (7 steps, a half-warp a diagonal) took 57, DRAM 59% busy with its 144 segments a
 * search. G > 1: a G-ary search (pb::kary_step), ceil(log(G + 1)) dependent steps, for
 * rounds of few tiles, where the search's latency is the kernel's time (split_lanes).
 * one_pair_tiles: the round's only pair's tile count (no tile_start then), else 0. */
template <class K, int G>
__global__ void __launch_bounds__(256)
    split_kernel(const K *__restrict__ keys, const uint64_t *__restrict__ offsets, uint32_t k,
                 int r, uint32_t pairs, const uint32_t *__restrict__ tile_start,
                 uint32_t one_pair_tiles, uint32_t max_tiles, uint4 *__restrict__ desc) {
    static_assert(G >= 1 && G <= 32 && 32 % G == 0, "G lanes a tile, inside one warp");
    const uint32_t gid = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t t = gid / G, j = gid % G;
    /* G > 1: every lane of the warp takes part in the ballots, so none leaves early */
    if (G == 1 && t >= max_tiles) return;
    const uint32_t total = t >= max_tiles ? 0 : one_pair_tiles ? one_pair_tiles : tile_start[pairs];
    const bool tile = t < total;
    if (!tile && t < max_tiles && j == 0) desc[t] = make_uint4(0, 0, 0, 0);
    if (G == 1 && !tile) return;
    uint32_t q = 0, first = 0, na = 0, nb = 0, d = 0;
    Pair p{};
    if (tile) {
        q = one_pair_tiles ? 0 : last_at_or_below(tile_start, pairs, t); /* its pair */
        first = one_pair_tiles ? 0 : tile_start[q];
        p = pair_of(offsets, k, r, q);
        na = p.a1 - p.a0;
        nb = p.b1 - p.a1;
        d = (t - first) * RoundTile<K>::kSize;
    }
    const K *A = keys + p.a0, *B = keys + p.a1;
    uint32_t lo;
    if constexpr (G == 1) {
        lo = merge_path_split(A, na, B, nb, d);
    } else {
        /* below the answer: A[i] is among the first d outputs (ties to the left run) */
        lo = (uint32_t)pb::kary_search_warp<G>(
            d > nb ? d - nb : 0, d < na ? d : na,
            [&](uint64_t i) { return !(B[d - 1 - (uint32_t)i] < A[(uint32_t)i]); });
    }
    if (tile && j == 0) {
        const uint32_t D = min(na + nb - d, RoundTile<K>::kSize);
        desc[t] = make_uint4(p.a0 + lo, p.a1 + (d - lo), p.a0 + d,
                             D | (d + D == na + nb ? kLastInPair : 0));
    }
}

/* Lanes a tile for the split (split_kernel's G): fewer dependent loads where a round has
 * few tiles and the search's latency is the kernel's time, one lane (the fewest loads)
 * where many tiles keep the memory busy. H200, u32 keys, k = 2, mean time by G = 1 / 8 /
 * 32 (configs/tests/merge-split-ab.json, results/h200/session22-merge-split-ab-*.csv):
 * 2^20 keys (274 tiles) 22.4 / 16.1 / 14.7 us, 2^22 (1093) 31.2 / 25.2 / 24.5, 2^23 (2185)
 * 43.0 / 36.7 / 38.0, 2^24 61.4 / 56.3 / 61.3, 2^25 (8739) 101.8 / 101.2 / 114.0, 2^27
 * 341.7 / 378.3 / 443.5. PB_MERGE_SPLIT_LANES fixes G for A/B builds. */
#ifndef PB_MERGE_SPLIT_LANES
constexpr uint32_t kWarpSplitMaxTiles = 1536, kOctetSplitMaxTiles = 8192;
inline int split_lanes(uint32_t max_tiles) {
    return max_tiles <= kWarpSplitMaxTiles ? 32 : max_tiles <= kOctetSplitMaxTiles ? 8 : 1;
}
#else
static_assert(PB_MERGE_SPLIT_LANES == 1 || PB_MERGE_SPLIT_LANES == 8 || PB_MERGE_SPLIT_LANES == 32,
              "launch_split takes 1, 8 or 32 lanes a tile");
inline int split_lanes(uint32_t) { return PB_MERGE_SPLIT_LANES; }
#endif

template <class K>
void launch_split(int lanes, uint32_t max_tiles, cudaStream_t stream, const K *keys,
                  const uint64_t *offsets, uint32_t k, int r, uint32_t pairs,
                  const uint32_t *tile_start, uint32_t one_pair_tiles, uint4 *desc) {
    auto launch = [&](auto lanes_a_tile) {
        constexpr int G = decltype(lanes_a_tile)::value;
        const uint64_t threads = (uint64_t)max_tiles * G;
        split_kernel<K, G><<<(unsigned)((threads + 255) / 256), 256, 0, stream>>>(
            keys, offsets, k, r, pairs, tile_start, one_pair_tiles, max_tiles, desc);
    };
    if (lanes == 32)
        launch(std::integral_constant<int, 32>{});
    else if (lanes == 8)
        launch(std::integral_constant<int, 8>{});
    else
        launch(std::integral_constant<int, 1>{});
}

/* Block t merges tile t, as desc[t] says. */
template <class K, bool kPairs>
__global__ void __launch_bounds__(kThreads, (pb::merge::tile_blocks<K, kThreads>(kPairs)))
    merge_kernel(const K *__restrict__ keys, const uint32_t *__restrict__ values,
                 const uint4 *__restrict__ desc, K *__restrict__ out_keys,
                 uint32_t *__restrict__ out_values) {
    using T = RoundTile<K>;
    constexpr int I = T::kItems;
    extern __shared__ __align__(16) unsigned char dyn[];
    __shared__ uint16_t seg_off[3];
    const uint4 w = desc[blockIdx.x];
    const uint32_t D = w.w & ~kLastInPair;
    if (D == 0) return;
    const uint32_t la = w.w & kLastInPair ? w.y - w.z : desc[blockIdx.x + 1].x - w.x;
    const pb::merge::TileBuffers<K, kPairs, kThreads> buf{dyn};
    K *sk = buf.keys(0);
    uint32_t *sv = buf.values(0);
    const int th = threadIdx.x;
    /* Straight into shared memory by cp.async: every copy in flight at once, no registers
     * held. */
#pragma unroll
    for (int j = 0; j < I; j++) {
        const uint32_t o = (uint32_t)(th + j * kThreads);
        if (o < D) {
            const uint32_t src = o < la ? w.x + o : w.y + (o - la);
            pb::copy_async<sizeof(K), pb::merge::kTilePrefetch>(sk + o, keys + src);
            if (kPairs) pb::copy_async<4, pb::merge::kTilePrefetch>(sv + o, values + src);
        }
    }
    pb::commit_async();
    pb::wait_async_all();
    const int S = la > 0 && la < D ? 2 : 1; /* one non-empty stretch: nothing to merge */
    if (th == 0) {
        seg_off[0] = 0;
        seg_off[1] = (uint16_t)(S == 2 ? la : D);
        seg_off[2] = (uint16_t)D;
    }
    __syncthreads();
    const int in = merge_tile<K, kPairs>(buf, seg_off, S, (int)D);
    const K *mk = buf.keys(in);
    const uint32_t *mv = buf.values(in);
#pragma unroll
    for (int j = 0; j < I; j++) {
        const uint32_t o = (uint32_t)(th + j * kThreads);
        if (o < D) {
            out_keys[w.z + o] = mk[o];
            if (kPairs) out_values[w.z + o] = mv[o];
        }
    }
}

/* ---- many lists: a stable radix sort of the concatenation ------------------------------- */

template <class K, class O>
__global__ void to_ordered_kernel(const K *__restrict__ keys, uint64_t n, O *__restrict__ ordered,
                                  uint32_t *__restrict__ index) {
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        ordered[i] = (O)ordered_bits(keys[i]);
        index[i] = (uint32_t)i;
    }
}

/* Keys and values gathered by the sorted index: the keys' own bits (a -0.0 stays -0.0). */
template <class K>
__global__ void gather_kernel(const K *__restrict__ keys, const uint32_t *__restrict__ values,
                              const uint32_t *__restrict__ index, uint64_t n,
                              K *__restrict__ out_keys, uint32_t *__restrict__ out_values) {
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        const uint32_t j = index[i];
        out_keys[i] = keys[j];
        if (values) out_values[i] = values[j];
    }
}

/* ---- host side ---------------------------------------------------------------------------- */

/* kSort: CUB's radix sort of (ordered key bits, input index) and a gather, for any key type;
 * kSortKeys: of the keys themselves (and their values), for 4-byte keys, whose stable sort
 * is the stable merge (CUB's radix sort takes -0.0 and +0.0 as equal, as the merge does). */
enum Mode { kNothing, kCopy, kRounds, kMultiway, kSort, kSortKeys, kSplit, kGroupedSplit };
namespace split = pb::merge::split;

struct Plan {
    Mode mode;
    int rounds;
    pb::merge::multiway::Passes passes;                              /* kMultiway */
    pb_merge_multiway::Pass shapes[pb::merge::multiway::kMaxPasses]; /* kMultiway: levels */
    uint32_t max_tiles; /* an upper bound on any round's tiles */
    size_t merge_smem;
    size_t sort_temp;   /* kSplit: for the samples' sort and for the fallback's */
    split::Shape split; /* kSplit; kGroupedSplit: over the groups */
    uint32_t group;     /* kGroupedSplit: lists a group of the first pass (shapes[0]) */
    uint32_t groups;    /* kGroupedSplit: the split's lists, ceil(k / group) */
};

/* Scratch carved from one allocation, 256-byte aligned pieces. */
struct Carver {
    char *base;
    size_t used = 0;
    template <class P> P *take(size_t count) {
        const size_t bytes = (count * sizeof(P) + 255) / 256 * 256;
        P *p = base ? reinterpret_cast<P *>(base + used) : nullptr;
        used += bytes;
        return p;
    }
};

struct Scratch {
    uint32_t *tile_start; /* kRounds */
    uint4 *desc;
    void *keys[2]; /* kRounds: between rounds */
    uint32_t *values[2];
    void *ordered_in, *ordered_out; /* kSort */
    uint32_t *index_in, *index_out;
    void *sort_temp;
    pb_merge_multiway::Pass pass[pb::merge::multiway::kMaxPasses]; /* kMultiway */
    split::Scratch split;                                          /* kSplit */
    uint64_t *group_off; /* kGroupedSplit: the groups' offsets, the split's lists */
};

/* The most keys in one group of `lists` neighbouring lists: from the host's list offsets
 * (the plan and the launch see the same), else n. */
inline uint64_t largest_group(const pb_merge_args *a, uint64_t lists) {
    if (!a->host_offsets) return a->n;
    uint64_t most = 0;
    for (uint64_t first = 0; first < a->k; first += lists) {
        const uint64_t end = first + lists < a->k ? first + lists : a->k;
        const uint64_t keys = a->host_offsets[end] - a->host_offsets[first];
        most = keys > most ? keys : most;
    }
    return most;
}

/* The levels of every multiway pass; false if one needs more than kMaxLevels (never below
 * 2^32 keys, but checked rather than assumed). */
template <class K>
bool shape_passes(const pb_merge_args *a, const pb::merge::multiway::Passes &ps,
                  pb_merge_multiway::Pass *out) {
    for (int i = 0; i < ps.count; i++) {
        const uint32_t runs = pb::merge::multiway::ceil_div(a->k, ps.stride[i]);
        const uint64_t most = largest_group(a, (uint64_t)ps.group[i] * ps.stride[i]);
        if (!pb_merge_multiway::shape_pass(a->n, runs, ps.group[i], Tile<K>::kSize, most, out[i]))
            return false;
        out[i].L = ps.stride[i];
    }
    return true;
}

template <class K>
Scratch carve(const pb_merge_args *a, const Plan &p, bool pairs, void *base, size_t *bytes) {
    using O = pb::merge::ordered_t<K>;
    Carver c{static_cast<char *>(base)};
    Scratch s{};
    if (p.mode == kRounds) {
        s.tile_start = c.take<uint32_t>((size_t)(a->k + 1) / 2 + 1);
        s.desc = c.take<uint4>(p.max_tiles);
        const int buffers = p.rounds >= 3 ? 2 : p.rounds - 1;
        for (int i = 0; i < buffers; i++) {
            s.keys[i] = c.take<K>(a->n);
            if (pairs) s.values[i] = c.take<uint32_t>(a->n);
        }
    } else if (p.mode == kMultiway) {
        for (int i = 0; i + 1 < p.passes.count; i++) {
            s.keys[i] = c.take<K>(a->n);
            if (pairs) s.values[i] = c.take<uint32_t>(a->n);
        }
        for (int i = 0; i < p.passes.count; i++) {
            s.pass[i] = p.shapes[i];
            pb_merge_multiway::carve_pass(c, s.pass[i], sizeof(K));
        }
    } else if (p.mode == kSortKeys) {
        s.sort_temp = c.take<unsigned char>(p.sort_temp);
    } else if (p.mode == kSplit) {
        s.split = split::carve(c, p.split, a->k, p.sort_temp);
    } else if (p.mode == kGroupedSplit) {
        s.keys[0] = c.take<K>(a->n);
        s.pass[0] = p.shapes[0];
        pb_merge_multiway::carve_pass(c, s.pass[0], sizeof(K));
        s.split = split::carve(c, p.split, p.groups, p.sort_temp);
        s.group_off = c.take<uint64_t>(p.groups + 1);
    } else if (p.mode == kSort) {
        s.ordered_in = c.take<O>(a->n);
        s.ordered_out = c.take<O>(a->n);
        s.index_in = c.take<uint32_t>(a->n);
        s.index_out = c.take<uint32_t>(a->n);
        s.sort_temp = c.take<unsigned char>(p.sort_temp);
    }
    *bytes = c.used;
    return s;
}

/* From how many keys the multiway passes beat the pairwise rounds (k >= 3), by the key's
 * size, whether values ride along, and how many rounds each pass replaces (pb::ceil_log2(k)
 * rounds, against one pass up to kOnePassMost lists, else two): 2 at k = 3 and 4, 3 to 3.5
 * at k = 5 to 8 and 33 to 128, 4 or more at k = 9 to 32 and from 129. H200, sizes uniform,
 * each method forced (configs/tests/merge-crossover-elements.json, results/h200/session22-
 * merge-crossover-elements-*.csv), the passes' time over the rounds' at the chosen size
 * and one size below:
 *   4-byte keys alone (u32, i32, f32): 2^26 at 2 rounds a pass (0.96x; 1.02x at 2^25),
 *   else 2^24 (0.90 to 0.98x; 1.00 to 1.14x at 2^23).
 *   8-byte keys alone (u64, f64): 2^24 at 2 (0.94x; 1.10x at 2^23), else 2^22 (0.85 to
 *   1.01x; 1.12 to 1.36x at 2^21).
 *   4-byte keys with values: 2^24 at 2 (1.01x; 1.14x at 2^23; 0.89x at 2^25), 2^23 at 3
 *   (0.90 and 0.92x; 1.03 and 1.10x at 2^22), 2^22 from 4 (0.91 and 0.95x; 1.18 and 1.24x).
 *   8-byte keys with values: 2^23 at 2 (0.93x; 1.11x), 2^22 at 3 (0.83 and 0.85x; 1.12
 *   and 1.17x), 2^21 from 4 (0.96 and 1.00x; 2^20 not measured).
 * (Session 21 measured lower switches for 4-byte keys, against rounds whose split then
 * took one lane a tile; the faster split moved them.) */
inline uint64_t multiway_min_keys(uint32_t k, size_t key_bytes, bool pairs,
                                  uint32_t one_pass_most) {
    pb::merge::multiway::Passes shape;
    const int passes = pb::merge::multiway::plan_passes(k, shape, one_pass_most) ? shape.count : 2;
    const int rounds = pb::ceil_log2(k);
    const int saved = rounds <= 2 * passes ? 0 : rounds < 4 * passes ? 1 : 2;
    static const int kLog2Keys[2][2][3] = {{{26, 24, 24}, {24, 22, 22}},  /* keys alone */
                                           {{24, 23, 22}, {23, 22, 21}}}; /* with values */
    return 1ull << kLog2Keys[pairs][key_bytes == 8][saved];
}

/* Where a CUB radix sort of 4-byte keys beats the merge. H200, u32, sizes uniform, each
 * method forced, 30 runs (configs/tests/merge-method-ab.json,
 * results/h200/session25-call3-merge-method-ab-*.csv), the merge's time over the sort's at
 * 2^20, 2^22, 2^24, 2^26 and 2^28 keys:
 *   k = 256:  keys alone 1.72, 1.14, 0.95, 0.86, 0.79x; with values 1.62, 1.04, 0.86, 0.79, 0.73x
 *   k = 1024: keys alone 1.98, 1.37, 1.19, 0.94, 0.85x; with values 1.83, 1.22, 1.03, 0.86, 0.79x
 *   k = 4096: keys alone 2.29, 1.84, 1.40, 1.14, 1.01x; with values 2.09, 1.60, 1.20, 0.99, 0.90x
 * (at 2^27 keys alone 0.89x at k = 1024, 1.06x at 4096:
 * session25-call3-merge-split-walk-ab*.csv and merge-bucket-ab's sort).
 * So from 256 lists the sort below 2^24 keys (2^23 with values), from 512 below 2^26
 * (2^25), from 2048 below 2^27 keys with values. Keys alone from 2048 lists went to the sort
 * at any size until session 33 made their bucketed tiles cheaper; the merge's time over the
 * sort's since (configs/tests/merge-rule-s33-ab.json, results/h200/session33-call5-*, 30
 * runs) at 2^26, 2^27 and 2^28 keys: u32 k = 2048 0.919, 0.853, 0.824x; k = 4096 1.049,
 * 0.964, 0.913x; f32 k = 512 0.751 and 0.712x, 1024 0.798 and 0.755x, 4096 0.993 and
 * 0.926x (2^26, 2^27). So keys alone from 2048 lists sort below 2^26 keys, from 4096 below
 * 2^27; f32 keys alone take the integers' rule, their tiles of repeated keys now bucketed
 * by value. f32 with values keeps the rule of before (from 512 lists, from 256 below 2^26
 * keys): its uniform keys repeat at 2^27 (2^24 values), and tiles of many equal keys with
 * values fall back to the rounds (the merge lost there, merge-types-path-f32-merged.csv). */
inline bool sort_beats_merge(const pb_merge_args *a, bool pairs, bool floats) {
    if (floats && pairs) return a->k >= 512 || (a->k >= 256 && a->n < (1ull << 26));
    if (a->k < 256) return false;
    if (a->k < 512) return a->n < (pairs ? 1ull << 23 : 1ull << 24);
    if (a->k < 2048) return a->n < (pairs ? 1ull << 25 : 1ull << 26);
    if (pairs) return a->n < (1ull << 27);
    return a->n < (a->k < 4096 ? 1ull << 26 : 1ull << 27);
}

/* PB_MERGE_MODE=rounds, multiway, sort, split or grouped forces merge/path's method (tests run
 * each; A/B runs); unset or anything else: chosen by k and n. Past kMaxRoundLists lists it sorts.
 */
enum Method { kByRounds, kByMultiway, kBySort, kBySplit, kByGroupedSplit, kBySize };
inline Method forced_method() {
    const char *e = getenv("PB_MERGE_MODE");
    if (e && strcmp(e, "split") == 0) return kBySplit;
    if (e && strcmp(e, "grouped") == 0) return kByGroupedSplit;
    if (e && strcmp(e, "rounds") == 0) return kByRounds;
    if (e && strcmp(e, "multiway") == 0) return kByMultiway;
    if (e && strcmp(e, "sort") == 0) return kBySort;
    return kBySize;
}
inline bool use_multiway(const pb_merge_args *a, size_t key_bytes, bool pairs,
                         uint32_t one_pass_most, Method m) {
    return m == kByMultiway || (m == kBySize && a->k >= 3 &&
                                a->n >= multiway_min_keys(a->k, key_bytes, pairs, one_pass_most));
}
/* The item count's type for the kSortKeys sorts, which CUB's tuning follows: H200, 2^27
 * keys, k = 1024 and 4096 (configs/tests/merge-sort-items.json): keys alone 3.13 ms for u32
 * with a 32-bit count, 2.69 with a 64-bit one (i32 2.64 and 2.69); with values 3.69 and 4.23
 * (i32 3.73 and 4.28). */
using SortKeysItems = int64_t;
/* kSortKeys's sort of keys alone, and the value split's fallback: temp null asks its size. */
template <class K>
cudaError_t sort_keys_alone(void *temp, size_t &temp_bytes, const K *keys, K *out, uint64_t n,
                            cudaStream_t stream) {
    return cub::DeviceRadixSort::SortKeys(temp, temp_bytes, keys, out, (SortKeysItems)n, 0,
                                          (int)sizeof(K) * 8, stream);
}
using SortPairsItems = uint32_t;
template <class K> constexpr bool sorts_as_keys() {
    return sizeof(K) == 4; /* u32, i32 and f32: CUB sorts -0.0 and +0.0 as equal keys */
}

/* Where the one-pass value split (value_split.cuh) merges: 4-byte integer keys alone, up to
 * split::kMaxLists lists, where it beats the other methods (f32, u64 and f64 keys:
 * split_beats_merge_measured). H200, u32 keys alone, sizes
 * uniform, 20 runs, time against the method by size:
 *   session 37 call 3 (split forced, same call) at 2^24, 2^26, 2^27 keys: k = 16 1.69,
 *   1.68, 1.75x; k = 64 1.07, 1.13, 1.20x; k = 4096 1.23, 1.19, 1.27x (its bounds, a word
 *   for every three keys, outgrow the L2);
 *   session 38 call 4 (configs/tests/merge-split-rule-ab.json, same call; its bounds found
 *   by searching a block's keys): k = 128 0.80, 0.78, 0.77x; k = 2048 0.97, 0.94, 0.99x;
 *   session 38 call 3 against session 37's split (configs/tests/merge-split-tile-ab.json),
 *   2^27 keys: k = 256 0.94x, 512 0.93x, 1024 0.94x; at k = 1024 normal keys 0.77x, zipf
 *   0.93x, few-unique 0.75x (session 37's split was 0.80 to 0.91x the multiway passes at
 *   256 to 1024 lists, 1.20x on normal keys and 1.11x on zipf).
 * So from 128 to 1024 lists from 2^24 keys, and 2048 lists from 2^24 to 2^27 keys (at 2^28
 * its bounds would be 180 MB; not measured). PB_MERGE_SPLIT=0 leaves it out of the choice
 * (A/B runs). */
inline bool split_allowed() {
    const char *e = getenv("PB_MERGE_SPLIT");
    return !(e && strcmp(e, "0") == 0);
}
inline bool split_beats_merge(const pb_merge_args *a) {
    if (!split_allowed()) return false;
    if (a->k < 128 || a->n < (1ull << 24)) return false;
    return a->k <= 1024 || (a->k <= 2048 && a->n <= (1ull << 27));
}
/* f32, u64 and f64 keys alone: where the split was measured against the other methods and
 * won, 256 to 1024 lists from 2^24 keys (the wider range of 4-byte integer keys was not
 * measured for them). H100, 10 to 20 cold runs: session 43
 * (configs/tests/merge-split-wide.json), u64 and f64 at 2^27 keys, k = 256 and 1024, against
 * the multiway passes: 1.09 to 1.19x on uniform keys, 1.83 to 2.11x on normal ones; session 44
 * (configs/tests/merge-split-wide-sizes.json) at 2^24 to 2^26 keys: 1.006 to 1.17x uniform,
 * 1.26 to 2.01x normal, and the seed's experiment (k = 1024, about 10^8 keys, lists from 1
 * key) 1.06x once the bounds walk searched past two rows (0.97x before); session 44
 * (configs/tests/merge-split-f32.json), f32 at 2^24 to 2^27 keys against the method by size:
 * 1.08 to 1.44x uniform, 1.27 to 1.82x normal. */
inline bool split_beats_merge_measured(const pb_merge_args *a) {
    return split_beats_merge(a) && a->k >= 256 && a->k <= 1024;
}
template <class K> bool use_split(const pb_merge_args *a, bool pairs, Method m) {
    if (!split::takes<K>() || pairs || a->k > split::kMaxLists) return false;
    if (m == kBySplit) return true;
    if (m != kBySize) return false;
    return sizeof(K) == 4 && std::is_integral<K>::value ? split_beats_merge(a)
                                                        : split_beats_merge_measured(a);
}

/* The grouped split (kGroupedSplit): one multiway pass merges groups of G neighbouring
 * lists, and the value split merges the groups: its tiles hold about 24 keys a run at 512
 * runs, 3 at 4096, where the split's per-run work (bounds, stretches) outweighs its keys'
 * (session 40: k = 4096 split forced 0.79x the two multiway passes' throughput). G: 2 up to
 * 2048 lists, else the fewest that leave at most 512 groups (410 to 512 groups; 8 lists a
 * group at k = 4096).
 * H100, u32 keys alone, sizes uniform, time against the method by size (session 50,
 * configs/tests/merge-grouped-split*.json, results/h100/session50-call1-* and call2-*):
 *   k = 4096, 2^26 / 2^27 / 2^28 keys, groups of 8: -11.8 / -12.9 / -10.2% (against the
 *   radix sort at 2^26, two multiway passes above); of 4: -9.5 / -11.4 / -9.9%; of 16
 *   (2^27) -10.7%; of 2 +3.2 / +0.1% (2^26, 2^28);
 *   k = 3000, 2^26 / 2^28, groups of 8: -7.8 / -5.4%; of 3: -5.4 / -5.0%;
 *   k = 2048, 2^26 / 2^28, groups of 2: +5.7 / -4.5% (against the value split at 2^26,
 *   two multiway passes at 2^28); of 8: +4.2% / +121% (256 groups of 2^20 keys at 2^28 took
 *   9.75 ms, not understood; the rule makes no fewer than 410 groups);
 *   k = 1024, 2^27, groups of 2: +16.7% against the value split.
 * So past 2048 lists from 2^26 keys, and from 1025 to 2048 lists above 2^27. */
constexpr uint32_t kGroupedSplitMostGroups = 512;
inline bool grouped_split_beats_merge(const pb_merge_args *a) {
    if (!split_allowed() || a->k <= 1024 || a->k > 4096) return false;
    return a->k > 2048 ? a->n >= (1ull << 26) : a->n > (1ull << 27);
}
/* The lists a group where the grouped split merges (PB_MERGE_GROUP sets it for A/B runs),
 * else 0. */
template <class K> uint32_t grouped_split_group(const pb_merge_args *a, bool pairs, Method m) {
    const char *forced = getenv("PB_MERGE_GROUP");
    const int g = forced ? atoi(forced) : 0;
    const uint32_t group = g > 0 ? (g < 2 ? 2u : (uint32_t)g)
                           : a->k <= 2048
                               ? 2u
                               : pb::merge::multiway::ceil_div(a->k, kGroupedSplitMostGroups);
    const uint32_t groups = pb::merge::multiway::ceil_div(a->k, group);
    if (!split::takes<K>() || pairs || group > pb::merge::multiway::kMaxGroup || groups < 2 ||
        groups > split::kMaxLists)
        return 0;
    const bool wanted =
        m == kByGroupedSplit || (m == kBySize && sizeof(K) == 4 && std::is_integral<K>::value &&
                                 grouped_split_beats_merge(a));
    return wanted ? group : 0;
}

/* The split's shape over `groups` groups of `group` lists: a group is empty where all its
 * lists are, known where the host has the offsets (split::shape assumes empty lists
 * without them). */
inline split::Shape grouped_split_shape(const pb_merge_args *a, uint32_t group, uint32_t groups,
                                        size_t key_bytes) {
    split::Shape sh = split::shape(a->n, groups, nullptr, key_bytes);
    if (!a->host_offsets) return sh;
    sh.empty_lists = false;
    for (uint64_t first = 0; first < a->k && !sh.empty_lists; first += group) {
        const uint64_t end = first + group < a->k ? first + group : a->k;
        sh.empty_lists = a->host_offsets[first] == a->host_offsets[end];
    }
    return sh;
}

/* The value split's scratch for its samples' sort and its fallback's (p.split set), and its
 * tile kernel's shared memory for `lists` lists when configuring. */
template <class K>
cudaError_t plan_split(const pb_merge_args *a, uint32_t lists, Plan &p, bool configure) {
    cudaError_t e = cudaSuccess;
    if constexpr (split::takes<K>()) e = split::sort_samples_bytes<K>(p.split, &p.sort_temp);
    size_t fallback = 0;
    if (e == cudaSuccess)
        e = sort_keys_alone<K>(nullptr, fallback, nullptr, nullptr, a->n, nullptr);
    if (fallback > p.sort_temp) p.sort_temp = fallback;
    if constexpr (split::takes<K>())
        if (e == cudaSuccess && configure) e = split::configure<K>(lists);
    return e;
}

/* pairs: whether the launch carries values (values and out_values both set). configure:
 * also allow the merge kernel its shared memory (in the untimed plan step; the timed launch
 * recomputes the plan without it). */
template <class K>
cudaError_t make_plan(const pb_merge_args *a, bool pairs, Plan &p, bool configure) {
    using O = pb::merge::ordered_t<K>;
    p = Plan{};
    if (a->k == 0 || a->n > kMaxN || (a->host_offsets && a->host_offsets[0] != 0))
        return cudaErrorInvalidValue;
    if (a->n == 0) {
        p.mode = kNothing;
        return cudaSuccess;
    }
    if (a->k == 1) {
        p.mode = kCopy;
        return cudaSuccess;
    }
    const Method method = forced_method();
    if (use_split<K>(a, pairs, method)) {
        p.mode = kSplit;
        p.split = split::shape(a->n, a->k, a->host_offsets, sizeof(K));
        return plan_split<K>(a, a->k, p, configure);
    }
    if (const uint32_t group = grouped_split_group<K>(a, pairs, method)) {
        p.group = group;
        p.groups = pb::merge::multiway::ceil_div(a->k, group);
        p.passes = pb::merge::multiway::Passes{1, {group}, {1}};
        if (shape_passes<K>(a, p.passes, p.shapes)) {
            p.mode = kGroupedSplit;
            p.split = grouped_split_shape(a, group, p.groups, sizeof(K));
            cudaError_t e = plan_split<K>(a, p.groups, p, configure);
            if (e == cudaSuccess && configure) e = pb_merge_multiway::configure<K>();
            return e;
        }
    }
    const bool sort = a->k > kMaxRoundLists || method == kBySort ||
                      (method == kBySize && sorts_as_keys<K>() &&
                       sort_beats_merge(a, pairs, std::is_floating_point<K>::value));
    if (sort && sorts_as_keys<K>()) {
        p.mode = kSortKeys;
        if (pairs)
            return cub::DeviceRadixSort::SortPairs(nullptr, p.sort_temp, (const K *)nullptr,
                                                   (K *)nullptr, (const uint32_t *)nullptr,
                                                   (uint32_t *)nullptr, (SortPairsItems)a->n);
        return sort_keys_alone<K>(nullptr, p.sort_temp, nullptr, nullptr, a->n, nullptr);
    }
    if (sort) {
        p.mode = kSort;
        return cub::DeviceRadixSort::SortPairs(
            nullptr, p.sort_temp, (const O *)nullptr, (O *)nullptr, (const uint32_t *)nullptr,
            (uint32_t *)nullptr, (uint32_t)a->n, 0, (int)sizeof(O) * 8);
    }
    const uint32_t one_pass_most = pb::merge::one_pass_most<K>(pairs);
    if (use_multiway(a, sizeof(K), pairs, one_pass_most, method) &&
        pb::merge::multiway::plan_passes(a->k, p.passes, one_pass_most) &&
        shape_passes<K>(a, p.passes, p.shapes)) {
        p.mode = kMultiway;
        return configure ? pb_merge_multiway::configure<K>() : cudaSuccess;
    }
    p.mode = kRounds;
    p.rounds = pb::ceil_log2(a->k);
    p.max_tiles = round_tiles<K>(a->n) + (uint32_t)((a->k + 1) / 2);
    p.merge_smem = pb::merge::tile_smem_bytes<K, kThreads>(pairs);
    if (!configure) return cudaSuccess;
    return cudaFuncSetAttribute(pairs ? merge_kernel<K, true> : merge_kernel<K, false>,
                                cudaFuncAttributeMaxDynamicSharedMemorySize, (int)p.merge_smem);
}

template <class K>
cudaError_t run_rounds(const pb_merge_args *a, const Plan &p, const Scratch &s, bool pairs,
                       cudaStream_t stream) {
    const K *src = static_cast<const K *>(a->keys);
    const uint32_t *vsrc = pairs ? a->values : nullptr;
    for (int r = 1; r <= p.rounds; r++) {
        const bool last = r == p.rounds;
        K *dst = last ? static_cast<K *>(a->out_keys) : static_cast<K *>(s.keys[(r - 1) & 1]);
        uint32_t *vdst = !pairs ? nullptr : last ? a->out_values : s.values[(r - 1) & 1];
        const uint32_t pairs_r = (uint32_t)((a->k + (1ull << r) - 1) >> r);
        /* a round of one pair (the last) needs no tile table */
        const uint32_t one = pairs_r == 1 ? round_tiles<K>(a->n) : 0;
        if (!one)
            tiles_kernel<K>
                <<<1, kPlanThreads, 0, stream>>>(a->offsets, a->k, r, pairs_r, s.tile_start);
        launch_split<K>(split_lanes(p.max_tiles), p.max_tiles, stream, src, a->offsets, a->k, r,
                        pairs_r, s.tile_start, one, s.desc);
        if (pairs)
            merge_kernel<K, true>
                <<<p.max_tiles, kThreads, p.merge_smem, stream>>>(src, vsrc, s.desc, dst, vdst);
        else
            merge_kernel<K, false><<<p.max_tiles, kThreads, p.merge_smem, stream>>>(
                src, nullptr, s.desc, dst, nullptr);
        const cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return e;
        src = dst;
        vsrc = vdst;
    }
    return cudaSuccess;
}

template <class K>
cudaError_t run_multiway(const pb_merge_args *a, const Plan &p, const Scratch &s, bool pairs,
                         cudaStream_t stream) {
    const K *src = static_cast<const K *>(a->keys);
    const uint32_t *vsrc = pairs ? a->values : nullptr;
    /* every pass planned first, so that a pass's tiles can write the next one's samples */
    cudaError_t e = pb_merge_multiway::plan_merge(s.pass, p.passes.count, a->offsets, a->k, stream);
    if (e != cudaSuccess) return e;
    for (int i = 0; i < p.passes.count; i++) {
        const bool last = i + 1 == p.passes.count;
        K *dst = last ? static_cast<K *>(a->out_keys) : static_cast<K *>(s.keys[i]);
        uint32_t *vdst = !pairs ? nullptr : last ? a->out_values : s.values[i];
        const pb_merge_multiway::Pass *next = last ? nullptr : &s.pass[i + 1];
        e = pb_merge_multiway::run_level<K>(s.pass[i], 0, src, vsrc, s.pass[i].run_off, dst, vdst,
                                            i > 0, pb_merge_multiway::sink_for<K>(next), stream);
        if (e != cudaSuccess) return e;
        src = dst;
        vsrc = vdst;
    }
    return cudaSuccess;
}

/* The groups' offsets: group i is lists [i G, (i + 1) G). */
__global__ void group_offsets_kernel(const uint64_t *list_off, uint32_t k, uint32_t group,
                                     uint32_t groups, uint64_t *group_off) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= groups) group_off[i] = list_off[(uint64_t)i * group < k ? i * group : k];
}

/* The value split over keys (k lists in groups of p.group), and where its sampling cannot
 * bound a tile the sort of `whole` (the input) instead. */
template <class K>
cudaError_t run_split(const K *keys, const uint64_t *offsets, uint32_t k, const K *whole,
                      uint64_t n, K *out, const Plan &p, const Scratch &s, cudaStream_t stream) {
    if constexpr (split::takes<K>()) {
        bool fell_back = false;
        cudaError_t e = split::run<K>(keys, n, offsets, k, out, p.split, s.split, p.sort_temp,
                                      stream, &fell_back);
        if (e != cudaSuccess || !fell_back) return e;
        size_t temp = p.sort_temp;
        return sort_keys_alone<K>(s.split.sort_temp, temp, whole, out, n, stream);
    }
    return cudaErrorInvalidValue;
}

/* kGroupedSplit: the groups merged by one multiway pass into scratch, then split. */
template <class K>
cudaError_t run_grouped_split(const pb_merge_args *a, const Plan &p, const Scratch &s,
                              cudaStream_t stream) {
    const K *keys = static_cast<const K *>(a->keys);
    K *merged = static_cast<K *>(s.keys[0]);
    cudaError_t e = pb_merge_multiway::plan_merge(s.pass, 1, a->offsets, a->k, stream);
    if (e == cudaSuccess)
        e = pb_merge_multiway::run_level<K>(s.pass[0], 0, keys, nullptr, s.pass[0].run_off, merged,
                                            nullptr, false, pb_merge_multiway::SampleSink<K>{},
                                            stream);
    if (e != cudaSuccess) return e;
    group_offsets_kernel<<<(p.groups + 256) / 256, 256, 0, stream>>>(a->offsets, a->k, p.group,
                                                                     p.groups, s.group_off);
    e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    return run_split<K>(merged, s.group_off, p.groups, keys, a->n, static_cast<K *>(a->out_keys), p,
                        s, stream);
}

template <class K> int launch_for(const pb_merge_args *a, cudaStream_t stream) {
    using O = pb::merge::ordered_t<K>;
    const bool pairs = a->values != nullptr && a->out_values != nullptr;
    Plan p;
    cudaError_t e = make_plan<K>(a, pairs, p, false);
    if (e != cudaSuccess) return (int)e;
    const K *keys = static_cast<const K *>(a->keys);
    K *out = static_cast<K *>(a->out_keys);
    size_t bytes = 0;
    Scratch s = carve<K>(a, p, pairs, a->scratch, &bytes);
    if (p.mode != kNothing && p.mode != kCopy && (bytes > a->scratch_bytes || !a->scratch))
        return (int)cudaErrorInvalidValue;
    switch (p.mode) {
    case kNothing:
        return (int)cudaSuccess;
    case kCopy:
        e = cudaMemcpyAsync(out, keys, a->n * sizeof(K), cudaMemcpyDeviceToDevice, stream);
        if (e == cudaSuccess && pairs)
            e = cudaMemcpyAsync(a->out_values, a->values, a->n * 4, cudaMemcpyDeviceToDevice,
                                stream);
        return (int)e;
    case kRounds:
        return (int)run_rounds<K>(a, p, s, pairs, stream);
    case kMultiway:
        return (int)run_multiway<K>(a, p, s, pairs, stream);
    case kSortKeys: {
        size_t temp = p.sort_temp;
        if (pairs)
            return (int)cub::DeviceRadixSort::SortPairs(s.sort_temp, temp, keys, out, a->values,
                                                        a->out_values, (SortPairsItems)a->n, 0,
                                                        (int)sizeof(K) * 8, stream);
        return (int)sort_keys_alone<K>(s.sort_temp, temp, keys, out, a->n, stream);
    }
    case kSplit:
        return (int)run_split<K>(keys, a->offsets, a->k, keys, a->n, out, p, s, stream);
    case kGroupedSplit:
        return (int)run_grouped_split<K>(a, p, s, stream);
    case kSort:
        break;
    }
    const int grid = (int)((a->n + 255) / 256 < 65536 ? (a->n + 255) / 256 : 65536);
    to_ordered_kernel<K, O>
        <<<grid, 256, 0, stream>>>(keys, a->n, static_cast<O *>(s.ordered_in), s.index_in);
    e = cudaGetLastError();
    size_t temp = p.sort_temp;
    if (e == cudaSuccess)
        e = cub::DeviceRadixSort::SortPairs(s.sort_temp, temp, static_cast<const O *>(s.ordered_in),
                                            static_cast<O *>(s.ordered_out), s.index_in,
                                            s.index_out, (uint32_t)a->n, 0, (int)sizeof(O) * 8,
                                            stream);
    if (e == cudaSuccess) {
        gather_kernel<K><<<grid, 256, 0, stream>>>(keys, pairs ? a->values : nullptr, s.index_out,
                                                   a->n, out, pairs ? a->out_values : nullptr);
        e = cudaGetLastError();
    }
    return (int)e;
}

} // namespace
} // namespace pb_merge_path

/* The scratch holds either launch (with values or without: device pointers may not be set
 * yet), so it is the larger of the two. */
extern "C" int pb_merge_path_plan(const struct pb_merge_args *a, size_t *scratch_bytes) {
    *scratch_bytes = 0;
    return pb::with_dtype<PB_MERGE_KEY_TYPES>(a->dtype, [&](auto key) {
        using K = decltype(key);
        for (int pairs = 0; pairs < 2; pairs++) {
            pb_merge_path::Plan p;
            const cudaError_t e = pb_merge_path::make_plan<K>(a, pairs == 1, p, true);
            if (e != cudaSuccess) return (int)e;
            size_t bytes = 0;
            pb_merge_path::carve<K>(a, p, pairs == 1, nullptr, &bytes);
            if (bytes > *scratch_bytes) *scratch_bytes = bytes;
        }
        return (int)cudaSuccess;
    });
}

extern "C" int pb_merge_path_launch(const struct pb_merge_args *a, cudaStream_t stream) {
    return pb::with_dtype<PB_MERGE_KEY_TYPES>(
        a->dtype, [&](auto key) { return pb_merge_path::launch_for<decltype(key)>(a, stream); });
}
