/* merge/path's multiway passes (multiway_plan.cuh says how tiles are cut). One level of a
 * pass, on a stream, nothing waited on by the host:
 *
 *  1. plan_kernel (one block, once for every level of every pass): the level's run bounds
 *     (at the top level, from the list offsets), each run's sample offsets and each
 *     group's tiles, as prefix sums.
 *  2. gather_kernel: every S-th key of every run, tagged with its position, is the input
 *     of the level below, which merges each group's samples the same way (recursively,
 *     until a group fits one tile). The next pass's top-level samples are instead written
 *     by this pass's top-level tile_kernel as it writes their keys (a SampleSink), which
 *     saves that pass a read of a sector of every sample.
 *  3. split_kernel: a warp per cut; a lane a run (two for groups over 32) finds where the
 *     cut's splitter falls in its run, through the run's samples then at most S - 1 keys,
 *     and the warp sums where the tile's output starts.
 *  4. tile_kernel: a block per tile copies the tile's G stretches into shared memory with
 *     cp.async, merges them there (merge_tile: log2 G rounds, each a merge path per thread)
 *     and writes the tile out coalesced.
 *
 * A group's output lands where its runs were, so the next pass's runs are this one's
 * groups, with bounds from the list offsets again. */
#pragma once

#include <cuda_runtime.h>
#include <stdint.h>

#include <cub/block/block_scan.cuh>

#include "async_copy.cuh"
#include "bucket_tile.cuh"
#include "merge_search.cuh"
#include "merge_tile.cuh"
#include "multiway_plan.cuh"

namespace pb_merge_multiway {
namespace {

using namespace pb::merge;
using namespace pb::merge::multiway;

constexpr int kPlanThreads = 1024;
constexpr int kSplitThreads = 256;
constexpr unsigned kFull = 0xffffffffu;
constexpr int kMaxLevels = 8;
constexpr int kPiece = 256; /* keys a warp copies into a tile at a time */

/* ---- shapes -------------------------------------------------------------------------- */

/* One level's shape, from bounds the host knows (n, k), and its scratch. */
struct Level {
    uint64_t n;          /* keys at this level, at most */
    uint64_t group_most; /* keys in one group, at most */
    uint32_t runs, G, S, m, groups, max_tiles, max_rows;
    bool base; /* every group fits one tile: no samples */
    uint32_t *tile_start, *rows, *row_out;
    uint32_t *smp_off, *smp_tags, *merged_tags; /* the level below's run bounds, its input */
    void *smp_keys, *merged_keys;
};

struct Pass {
    uint32_t L; /* lists a run */
    int levels;
    uint32_t *run_off;
    Level lv[kMaxLevels];
};

/* Every pass, for plan_kernel: their levels hang on the list offsets alone (a level's runs
 * are the level above's samples), so one block plans them all, one launch a merge instead
 * of one a level. */
struct MergePlan {
    const uint64_t *list_off;
    uint32_t k;
    int passes;
    Pass pass[kMaxPasses];
};

/* ---- kernels -------------------------------------------------------------------------- */

using PlanScan = cub::BlockScan<uint32_t, kPlanThreads>;

/* Level v's plan, its runs bounded by run_off. list_off (top level only): run j is lists
 * [j L, (j + 1) L), its bounds written to run_off first. Then v.smp_off (unless base): run
 * i's samples start at smp_off[i]; and v.tile_start: group g's tiles start at
 * tile_start[g] (base: one tile a non-empty group). */
__device__ void plan_one_level(const uint64_t *__restrict__ list_off, uint32_t k, uint32_t L,
                               const Level &v, uint32_t *run_off,
                               typename PlanScan::TempStorage &scan) {
    const uint32_t th = threadIdx.x, runs = v.runs, G = v.G, S = v.S, m = v.m;
    uint32_t *smp_off = v.smp_off, *tile_start = v.tile_start;
    if (list_off) {
        for (uint32_t j = th; j <= runs; j += kPlanThreads) {
            const uint64_t l = (uint64_t)j * L;
            run_off[j] = (uint32_t)list_off[l < k ? l : k];
        }
        __syncthreads();
    }
    if (!v.base) {
        const uint32_t per = ceil_div(runs, kPlanThreads);
        const uint32_t i0 = min(runs, th * per), i1 = min(runs, i0 + per);
        uint32_t local = 0;
        for (uint32_t i = i0; i < i1; i++) local += ceil_div(run_off[i + 1] - run_off[i], S);
        uint32_t at, total;
        PlanScan(scan).ExclusiveSum(local, at, total);
        for (uint32_t i = i0; i < i1; i++) {
            smp_off[i] = at;
            at += ceil_div(run_off[i + 1] - run_off[i], S);
        }
        if (th == 0) smp_off[runs] = total;
        __syncthreads(); /* smp_off read below, and the scan's storage used again */
    }
    const uint32_t groups = ceil_div(runs, G);
    const uint32_t per = ceil_div(groups, kPlanThreads);
    const uint32_t g0 = min(groups, th * per), g1 = min(groups, g0 + per);
    auto tiles = [&](uint32_t g) {
        const uint32_t first = g * G, end = min(first + G, runs);
        if (v.base) return run_off[end] > run_off[first] ? 1u : 0u;
        return ceil_div(smp_off[end] - smp_off[first], m);
    };
    uint32_t local = 0;
    for (uint32_t g = g0; g < g1; g++) local += tiles(g);
    uint32_t at, total;
    PlanScan(scan).ExclusiveSum(local, at, total);
    for (uint32_t g = g0; g < g1; g++) {
        tile_start[g] = at;
        at += tiles(g);
    }
    if (th == 0) tile_start[groups] = total;
    __syncthreads(); /* the next level reads smp_off as its run bounds; the scan again */
}

__global__ void __launch_bounds__(kPlanThreads) plan_kernel(const MergePlan plan) {
    __shared__ typename PlanScan::TempStorage scan;
    for (int p = 0; p < plan.passes; p++) {
        const Pass &ps = plan.pass[p];
        for (int l = 0; l < ps.levels; l++) /* a level's runs: the level above's samples */
            plan_one_level(l == 0 ? plan.list_off : nullptr, plan.k, ps.L, ps.lv[l],
                           l == 0 ? ps.run_off : ps.lv[l - 1].smp_off, scan);
    }
}

/* Sample s of the level below: key S j of its run i, tagged with that key's position. */
template <class K>
__global__ void gather_kernel(const K *__restrict__ keys, const uint32_t *__restrict__ run_off,
                              const uint32_t *__restrict__ smp_off, uint32_t runs, uint32_t S,
                              K *__restrict__ smp_keys, uint32_t *__restrict__ smp_tags) {
    const uint32_t total = smp_off[runs];
    for (uint32_t s = blockIdx.x * blockDim.x + threadIdx.x; s < total;
         s += gridDim.x * blockDim.x) {
        const uint32_t i = last_at_or_below(smp_off, runs, s);
        const uint32_t at = run_off[i] + (s - smp_off[i]) * S;
        smp_keys[s] = keys[at];
        smp_tags[s] = at;
    }
}

/* Row r of cuts (group g's rows are tile_start[g] + g .. tile_start[g + 1] + g: its tiles'
 * starts and its end): rows[r G + i] where run i of the group is cut, row_out[r] where the
 * output from that cut on starts. A warp a row: warps taking 4 or 8 rows in turn, each
 * run's sample search galloping from its cut by the row before, made whole merges 0.6 to
 * 3.8% (4 rows) and 2.5 to 8.7% (8) slower (u32 2^27 keys, k = 16 to 4096, the seed's
 * experiment; H200, session 34 call 2, configs/tests/merge-split-rows-ab.json,
 * results/h200/session34-call2-*): the searches are latency-bound, and shorter ones did
 * not make up for a quarter of the warps, each four rows long. */
template <class K>
__global__ void __launch_bounds__(kSplitThreads)
    split_kernel(const K *__restrict__ keys, const uint32_t *__restrict__ run_off, uint32_t runs,
                 uint32_t G, const uint32_t *__restrict__ tile_start, uint32_t groups,
                 const uint32_t *__restrict__ smp_off, const K *__restrict__ smp_keys,
                 const K *__restrict__ merged_keys, const uint32_t *__restrict__ merged_tags,
                 uint32_t S, uint32_t m, uint32_t max_rows, uint32_t *__restrict__ rows,
                 uint32_t *__restrict__ row_out) {
    const uint32_t row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    if (row >= max_rows || row >= tile_start[groups] + groups) return; /* the whole warp */
    uint32_t lo = 0, hi = groups - 1;
    while (lo < hi) { /* the group: the last whose first row is at or before this one */
        const uint32_t mid = (lo + hi + 1) >> 1;
        if (tile_start[mid] + mid <= row)
            lo = mid;
        else
            hi = mid - 1;
    }
    const uint32_t g = lo, b = row - (tile_start[g] + g), tiles = tile_start[g + 1] - tile_start[g];
    const uint32_t r0 = g * G, nr = min(G, runs - r0);
    const bool inner = b > 0 && b < tiles;
    K v{};
    uint32_t tag = 0, own = 0;
    if (inner) { /* the splitter: merged sample b m of the group, and the run it came from */
        const uint32_t at = smp_off[r0] + b * m;
        v = merged_keys[at];
        tag = merged_tags[at];
        const bool in0 = lane < nr && run_off[r0 + lane] <= tag;
        const bool in1 = lane + 32 < nr && run_off[r0 + lane + 32] <= tag;
        own = __popc(__ballot_sync(kFull, in0)) + __popc(__ballot_sync(kFull, in1)) - 1;
    }
    uint32_t sum = 0;
    for (uint32_t i = lane; i < nr; i += 32) {
        const uint32_t rs = run_off[r0 + i], re = run_off[r0 + i + 1];
        uint32_t pos;
        if (!inner)
            pos = b == 0 ? rs : re;
        else if (i == own)
            pos = tag;
        else
            pos = cut_run(keys, rs, re, smp_keys + smp_off[r0 + i], S, v, i < own);
        rows[(size_t)row * G + i] = pos;
        sum += pos - rs;
    }
    for (int d = 16; d > 0; d >>= 1) sum += __shfl_xor_sync(kFull, sum, d);
    if (lane == 0) row_out[row] = run_off[r0] + sum;
}

/* The next pass's top-level samples, taken from this pass's output as it is written: that
 * pass's run g is this pass's group g, and its samples are every 2^shift-th key of a run,
 * tagged with the key's position (as gather_kernel would write them). keys null: none. */
template <class K> struct SampleSink {
    const uint32_t *run_off, *smp_off; /* the next pass's run bounds and sample offsets */
    K *keys;
    uint32_t *tags;
    uint32_t shift;
};

/* Block t merges tile t: the stretches between its two rows of cuts. kBucket: a pass whose
 * groups are bucketed (bucketed_tile of G); a kernel of its own, so that the others carry
 * none of its code (in one kernel they took 1 to 4% more time, H200, session 24). */
template <class K, bool kPairs, bool kBucket>
__global__ void __launch_bounds__(kTileThreads, tile_blocks<K>(kPairs))
    tile_kernel(const K *__restrict__ keys, const uint32_t *__restrict__ values, uint32_t runs,
                uint32_t G, const uint32_t *__restrict__ tile_start, uint32_t groups,
                const uint32_t *__restrict__ rows, const uint32_t *__restrict__ row_out,
                K *__restrict__ out_keys, uint32_t *__restrict__ out_values,
                const SampleSink<K> sink) {
    using T = Tile<K>;
    constexpr int I = T::kItems;
    extern __shared__ __align__(16) unsigned char dyn[];
    __shared__ uint16_t seg_off[kMaxGroup + 1];
    __shared__ uint16_t piece_off[kMaxGroup + 1];
    __shared__ uint32_t seg_src[kMaxGroup];
    const uint32_t t = blockIdx.x, th = threadIdx.x;
    if (t >= tile_start[groups]) return;
    const uint32_t g = last_at_or_below(tile_start, groups, t); /* its group */
    const uint32_t row = t + g, nr = min(G, runs - g * G);
    if (th < 32) { /* stretch lengths, two a lane, scanned by the warp */
        const uint32_t i0 = 2 * th, i1 = i0 + 1;
        uint32_t x0 = 0, x1 = 0;
        if (i0 < nr) {
            const uint32_t a = rows[(size_t)row * G + i0];
            x0 = rows[(size_t)(row + 1) * G + i0] - a;
            seg_src[i0] = a;
        }
        if (i1 < nr) {
            const uint32_t a = rows[(size_t)row * G + i1];
            x1 = rows[(size_t)(row + 1) * G + i1] - a;
            seg_src[i1] = a;
        }
        /* the stretches' offsets in the tile, and in pieces of kPiece keys */
        const uint32_t p0 = ceil_div(x0, kPiece), p1 = ceil_div(x1, kPiece);
        uint32_t incl = x0 + x1, pincl = p0 + p1;
        for (int d = 1; d < 32; d <<= 1) {
            const uint32_t up = __shfl_up_sync(kFull, incl, d);
            const uint32_t pup = __shfl_up_sync(kFull, pincl, d);
            if ((int)th >= d) incl += up, pincl += pup;
        }
        seg_off[i0] = (uint16_t)(incl - x0 - x1);
        seg_off[i1] = (uint16_t)(incl - x1);
        piece_off[i0] = (uint16_t)(pincl - p0 - p1);
        piece_off[i1] = (uint16_t)(pincl - p1);
        if (th == 31) seg_off[kMaxGroup] = (uint16_t)incl, piece_off[kMaxGroup] = (uint16_t)pincl;
    }
    __syncthreads();
    const int S = (int)nr, D = seg_off[nr];
    const TileBuffers<K, kPairs> buf{dyn};
    K *sk = buf.keys(0);
    uint32_t *sv = buf.values(0);
    /* A warp a piece (kPiece keys of one stretch, a lane every 32nd): coalesced, and no
     * stretch search a key. The piece's stretch: the stretches whose pieces end at or
     * before it, counted by a ballot (a walk along the stretches took 7.5% of the seed's
     * bucketed tile kernel's instructions, ncu). */
    const int warp = (int)th >> 5, lane = (int)th & 31, pieces = piece_off[nr];
    for (int p = warp; p < pieces; p += kTileThreads / 32) {
        int s = __popc(__ballot_sync(kFull, lane < S && (int)piece_off[lane + 1] <= p));
        if (S > 32)
            s += __popc(__ballot_sync(kFull, lane + 32 < S && (int)piece_off[lane + 33] <= p));
        const int first = (p - (int)piece_off[s]) * kPiece;
        const int o0 = (int)seg_off[s] + first, o1 = min((int)seg_off[s + 1], o0 + kPiece);
        /* my keys of the piece, every 32nd from o0 + lane; 4-byte keys by a loop as long as
         * the piece (most are a stretch's short tail), from addresses worked out once (8
         * predicated copies a piece took 20% of a bucketed tile kernel's instructions, ncu,
         * session 33; the loop: u32 keys alone 1.2 to 2.0% less time with the stretch sort
         * of the same change), 8-byte keys by the 8 predicated copies (against the loop,
         * H200: with values -1.1 and -1.2%, keys alone -0.6 to -1.1% at k = 8 and 1024 and
         * +1.1 to +1.3% at 64, configs/tests/merge-load-8byte-ab.json,
         * results/h200/session33-call4-*) */
        const uint32_t src = seg_src[s] + (uint32_t)first - (uint32_t)o0; /* key o is src + o */
        if constexpr (sizeof(K) == 4) {
            const K *from = keys + src + (uint32_t)(o0 + lane);
            K *to = sk + o0 + lane;
            for (int o = o0 + lane; o < o1; o += 32, from += 32, to += 32) {
                pb::copy_async<4, pb::merge::kTilePrefetch>(to, from);
                if constexpr (kPairs)
                    pb::copy_async<4, pb::merge::kTilePrefetch>(sv + (to - sk),
                                                                values + (from - keys));
            }
        } else {
#pragma unroll
            for (int i = 0; i < kPiece / 32; i++) {
                const int o = o0 + lane + 32 * i;
                if (o < o1) {
                    pb::copy_async<8, pb::merge::kTilePrefetch>(sk + o, keys + src + o);
                    if constexpr (kPairs)
                        pb::copy_async<4, pb::merge::kTilePrefetch>(sv + o, values + src + o);
                }
            }
        }
    }
    pb::commit_async();
    pb::wait_async_all();
    __syncthreads();
    /* bucketed (with values: output o at position order[o] of buffer 0; keys alone: sorted
     * into buffer 1), else merged in rounds */
    const uint16_t *order = nullptr;
    bool sorted = false;
    if constexpr (kBucket) {
        if (bucketed_tile<K, kPairs>(S)) {
            if constexpr (kPairs)
                order = bucket_tile<K, kPairs>(buf, seg_off, S, D);
            else
                sorted = bucket_tile_keys<K>(buf, seg_off, S, D);
        }
    }
    const int in = sorted ? 1 : order ? 0 : merge_tile<K, kPairs>(buf, seg_off, S, D);
    const K *mk = buf.keys(in);
    const uint32_t *mv = buf.values(in);
    const uint32_t out = row_out[row];
    /* the tile out, and the next pass's samples from it; written twice so that a merged
     * tile's writes test nothing a key (place: where output o lies in the buffers) */
    auto write_out = [&](auto place) {
#pragma unroll
        for (int j = 0; j < I; j++) {
            const int o = (int)th + j * kTileThreads;
            if (o < D) {
                out_keys[out + o] = mk[place(o)];
                if (kPairs) out_values[out + o] = mv[place(o)];
            }
        }
        if (sink.keys) { /* the tile's group is the next pass's run g: its samples in the tile */
            const uint32_t rs = sink.run_off[g], first = sink.smp_off[g];
            const uint32_t mask = (1u << sink.shift) - 1;
            /* the tile's first sample, then every 2^shift-th key: a thread a sample */
            const uint32_t o0 = ((out - rs + mask) & ~mask) - (out - rs);
            for (uint32_t o = o0 + (th << sink.shift); o < (uint32_t)D;
                 o += kTileThreads << sink.shift) {
                const uint32_t at = out + o, s = first + ((at - rs) >> sink.shift);
                sink.keys[s] = mk[place((int)o)];
                sink.tags[s] = at;
            }
        }
    };
    if (kBucket && order)
        write_out([order](int o) { return (int)order[o]; });
    else
        write_out([](int o) { return o; });
}

/* ---- host side ---------------------------------------------------------------------- */

/* The levels of a pass over n keys in `runs` runs, groups of G, tiles of `tile`, at most
 * group_most keys a group (n where not known): the levels below go down until every group
 * fits one tile, so a tighter bound can save a level. */
inline bool shape_pass(uint64_t n, uint32_t runs, uint32_t G, uint32_t tile, uint64_t group_most,
                       Pass &p) {
    uint64_t most = group_most;
    for (int l = 0; l < kMaxLevels; l++) {
        Level &v = p.lv[l];
        v = Level{};
        v.n = n;
        v.group_most = most;
        v.runs = runs;
        v.G = G;
        v.groups = ceil_div(runs, G);
        v.base = most <= tile;
        v.S = sample_stride(tile, G);
        v.m = samples_per_tile(tile, G, v.S);
        if (v.base) {
            v.max_tiles = v.groups;
        } else {
            const uint64_t below = (n + v.S - 1) / v.S + runs;
            v.max_tiles = (uint32_t)((below + v.m - 1) / v.m + v.groups);
        }
        v.max_rows = v.max_tiles + v.groups;
        if (v.base) {
            p.levels = l + 1;
            return true;
        }
        n = (n + v.S - 1) / v.S + runs;
        most = next_group_bound(most, v.S, G);
    }
    return false;
}

template <class C> void carve_pass(C &c, Pass &p, size_t key_bytes) {
    p.run_off = c.template take<uint32_t>(p.lv[0].runs + 1);
    for (int l = 0; l < p.levels; l++) {
        Level &v = p.lv[l];
        v.tile_start = c.template take<uint32_t>(v.groups + 1);
        v.rows = c.template take<uint32_t>((size_t)v.max_rows * v.G);
        v.row_out = c.template take<uint32_t>(v.max_rows);
        if (v.base) continue;
        const uint64_t below = p.lv[l + 1].n;
        v.smp_off = c.template take<uint32_t>(v.runs + 1);
        v.smp_tags = c.template take<uint32_t>(below);
        v.merged_tags = c.template take<uint32_t>(below);
        v.smp_keys = c.template take<unsigned char>(below * key_bytes);
        v.merged_keys = c.template take<unsigned char>(below * key_bytes);
    }
}

/* Shared memory past 48 KB for the tile kernels (untimed, once). */
template <class K> cudaError_t configure() {
    const int pairs = (int)tile_smem_bytes<K>(true), alone = (int)tile_smem_bytes<K>(false);
    const cudaFuncAttribute max = cudaFuncAttributeMaxDynamicSharedMemorySize;
    cudaError_t e = cudaFuncSetAttribute(tile_kernel<K, true, false>, max, pairs);
    if (e == cudaSuccess) e = cudaFuncSetAttribute(tile_kernel<K, true, true>, max, pairs);
    if (e == cudaSuccess) e = cudaFuncSetAttribute(tile_kernel<K, false, false>, max, alone);
    if (e == cudaSuccess) e = cudaFuncSetAttribute(tile_kernel<K, false, true>, max, alone);
    return e;
}

/* Every level of the passes' plans, in one launch (plan_kernel). */
inline cudaError_t plan_merge(const Pass *passes, int count, const uint64_t *list_off, uint32_t k,
                              cudaStream_t stream) {
    MergePlan plan{list_off, k, count, {}};
    for (int p = 0; p < count; p++) plan.pass[p] = passes[p];
    plan_kernel<<<1, kPlanThreads, 0, stream>>>(plan);
    return cudaGetLastError();
}

/* Where pass p's top-level tile kernel writes pass `next`'s top-level samples (none without
 * a next pass, or when its groups need none). */
template <class K> SampleSink<K> sink_for(const Pass *next) {
    if (!next || next->lv[0].base) return SampleSink<K>{};
    const Level &v = next->lv[0];
    const uint32_t shift = (uint32_t)__builtin_ctz(v.S); /* S is a power of two */
    return SampleSink<K>{next->run_off, v.smp_off, static_cast<K *>(v.smp_keys), v.smp_tags, shift};
}

/* Level l of pass p (planned by plan_merge): keys (and values) in, runs bounded by
 * run_off, groups merged into out. ahead: the level's samples were written by the previous
 * pass (its sink). */
template <class K>
cudaError_t run_level(const Pass &p, int l, const K *keys, const uint32_t *values,
                      const uint32_t *run_off, K *out, uint32_t *out_values, bool ahead,
                      const SampleSink<K> &sink, cudaStream_t stream) {
    const Level &v = p.lv[l];
    cudaError_t e = cudaSuccess;
    if (!v.base) {
        K *smp = static_cast<K *>(v.smp_keys);
        if (!ahead) { /* else the previous pass's tiles wrote them */
            const uint64_t below = p.lv[l + 1].n;
            const unsigned grid =
                (unsigned)((below + 255) / 256 < 65536 ? (below + 255) / 256 : 65536);
            gather_kernel<K>
                <<<grid, 256, 0, stream>>>(keys, run_off, v.smp_off, v.runs, v.S, smp, v.smp_tags);
            e = cudaGetLastError();
        }
        if (e == cudaSuccess)
            e = run_level<K>(p, l + 1, smp, v.smp_tags, v.smp_off, static_cast<K *>(v.merged_keys),
                             v.merged_tags, false, SampleSink<K>{}, stream);
        if (e != cudaSuccess) return e;
    }
    const unsigned split_grid =
        (unsigned)(((uint64_t)v.max_rows * 32 + kSplitThreads - 1) / kSplitThreads);
    split_kernel<K><<<split_grid, kSplitThreads, 0, stream>>>(
        keys, run_off, v.runs, v.G, v.tile_start, v.groups, v.smp_off,
        static_cast<const K *>(v.smp_keys), static_cast<const K *>(v.merged_keys), v.merged_tags,
        v.S, v.m, v.max_rows, v.rows, v.row_out);
    auto launch = [&](auto kernel, const uint32_t *vals, uint32_t *out_vals, bool pairs) {
        kernel<<<v.max_tiles, kTileThreads, tile_smem_bytes<K>(pairs), stream>>>(
            keys, vals, v.runs, v.G, v.tile_start, v.groups, v.rows, v.row_out, out, out_vals,
            sink);
    };
    const int G = (int)v.G;
    if (values && bucketed_tile<K, true>(G))
        launch(tile_kernel<K, true, true>, values, out_values, true);
    else if (values)
        launch(tile_kernel<K, true, false>, values, out_values, true);
    else if (bucketed_tile<K, false>(G))
        launch(tile_kernel<K, false, true>, nullptr, nullptr, false);
    else
        launch(tile_kernel<K, false, false>, nullptr, nullptr, false);
    return cudaGetLastError();
}

} // namespace
} // namespace pb_merge_multiway
