/* merge/path's in-block merge: a tile of up to Tile<K>::kSize keys in shared memory, held
 * as S sorted segments in list order, merged by ceil(log2 S) rounds of pairwise merges
 * (merge path per thread, ties to the left run, so stable). merge_items is host and
 * device code so that tests/test_merge_multiway.cu can run it on the CPU. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "merge_search.cuh"

namespace pb::merge {

/* #pragma unroll in code the host compiler sees too */
#ifdef __CUDA_ARCH__
#define PB_UNROLL _Pragma("unroll")
#else
#define PB_UNROLL
#endif

/* The tile shape: threads a block and keys a thread (odd, so that a round's blocked writes
 * hit distinct banks; fewer for 8-byte keys, for registers). The macros are for A/B builds
 * of other shapes (tools/link-variant). */
#ifndef PB_MERGE_TILE_THREADS
#define PB_MERGE_TILE_THREADS 512
#endif
#ifndef PB_MERGE_TILE_ITEMS4
#define PB_MERGE_TILE_ITEMS4 15
#endif
#ifndef PB_MERGE_TILE_ITEMS8
#define PB_MERGE_TILE_ITEMS8 9
#endif
constexpr int kTileThreads = PB_MERGE_TILE_THREADS;

/* The L2 prefetch size of the tiles' cp.async loads (pb::copy_async's kPrefetch). H200,
 * same call, 256 against none (configs/tests/merge-l2-ab.json, builds with
 * -DPB_L2_PREFETCH, results/h200/session22-call7-merge-l2-ab*.csv): u32 k = 2 at 2^27 keys
 * 0.3407 -> 0.3347 ms (-1.8%), with values -0.5%, k = 16 -0.2 and -0.5%, u64 k = 4 -0.3%,
 * the seed's experiment -0.2%; 128 did a little less (session22-merge-l2-ab-*.csv). */
#ifndef PB_MERGE_TILE_PREFETCH
#define PB_MERGE_TILE_PREFETCH 256
#endif
constexpr int kTilePrefetch = PB_MERGE_TILE_PREFETCH; /* A/B builds: -DPB_MERGE_TILE_PREFETCH=0 */

template <class K, int kThreads = kTileThreads> struct Tile {
    static constexpr int kItems = sizeof(K) == 4 ? PB_MERGE_TILE_ITEMS4 : PB_MERGE_TILE_ITEMS8;
    static constexpr uint32_t kSize = (uint32_t)kThreads * kItems;
    static_assert(kItems % 2 == 1 && kSize < 65536, "odd items; positions fit 16 bits");
};

/* Whether a tile's keys ping-pong between two buffers, each round reading one and writing
 * the other (one barrier a round), or are merged in place through registers (two barriers
 * a round, a write-back between). In place only for 4-byte keys with values, where a second
 * key buffer would cost a block an SM (two fit then, one with ping-pong). */
template <class K> __host__ __device__ constexpr bool keys_ping_pong(bool pairs) {
    return !(pairs && sizeof(K) == 4);
}

/* A tile's shared memory: its keys with one slot past the last (read by the merge, never
 * used, so that its reads need no bounds), twice when they ping-pong, then, with values,
 * two value buffers. */
template <class K, int kThreads = kTileThreads>
__host__ __device__ constexpr size_t tile_key_bytes() {
    return ((size_t)(Tile<K, kThreads>::kSize + 1) * sizeof(K) + 15) / 16 * 16;
}
template <class K, int kThreads = kTileThreads>
__host__ __device__ constexpr size_t tile_smem_bytes(bool pairs) {
    return tile_key_bytes<K, kThreads>() * (keys_ping_pong<K>(pairs) ? 2 : 1) +
           (pairs ? 2 * (size_t)Tile<K, kThreads>::kSize * sizeof(uint32_t) : 0);
}

/* Blocks an SM, for the tile kernels' register budget: as many as their shared memory
 * lets in (228 KB an SM on the H200, 1 KB of it reserved a block), at most 2048 threads. */
template <class K, int kThreads = kTileThreads>
__host__ __device__ constexpr int tile_blocks(bool pairs) {
    const int by_smem = (int)((228u << 10) / (tile_smem_bytes<K, kThreads>(pairs) + 1024 + 512));
    const int by_threads = 2048 / kThreads;
    return by_smem < by_threads ? (by_smem > 0 ? by_smem : 1) : by_threads;
}

/* Whether cond holds in every active lane of the warp (on the host, a thread is a warp). */
__host__ __device__ __forceinline__ bool whole_warp(bool cond) {
#ifdef __CUDA_ARCH__
    return __all_sync(__activemask(), cond);
#else
    return cond;
#endif
}

/* One output of a serial merge: the smaller head (ties to the left run, a), the taken run
 * moved on by one and its next key read (at most one past its end, which is in the tile
 * or its spare slot). kChecked: either run may run out within the thread's outputs, so
 * both ends are tested; else neither can, and one compare decides. */
template <class K, bool kPairs, bool kChecked>
__host__ __device__ __forceinline__ K merge_step(const K *sk, const uint32_t *sv_in,
                                                 uint32_t *sv_out, int out, int &ap, int &bp,
                                                 int a1, int b1, K &ka, K &kb) {
    const bool take_b = kChecked ? bp < b1 && (ap >= a1 || kb < ka) : kb < ka;
    const K k = take_b ? kb : ka;
    const int at = take_b ? bp : ap;
    if (kPairs) sv_out[out] = sv_in[at];
    const K next = sk[at + 1];
    if (take_b) {
        bp = at + 1;
        kb = next;
    } else {
        ap = at + 1;
        ka = next;
    }
    return k;
}

/* One thread's part of a merge round r (pairs of runs of 2^(r-1) segments): outputs
 * [o, o + I) of the tile (those below D), each handed to emit(j, key), from the tile sk;
 * with values, each output's value goes from sv_in straight to sv_out[o + j]. Where every
 * lane of a warp has at least I keys left in both of its runs, none can run out: the warp
 * takes a loop of one compare a step (tested warp-wide, so that it never runs both loops).
 * Otherwise both ends are tested, and a thread whose outputs run past its pair's end
 * carries on in the next non-empty pair. */
template <class K, bool kPairs, int I, class Emit>
__host__ __device__ inline void merge_items(const K *sk, const uint32_t *sv_in, uint32_t *sv_out,
                                            const uint16_t *seg_off, int S, int D, int r, int o,
                                            Emit emit) {
    const int full = 1 << r, half = full >> 1;
    int lo = 0, hi = ((S + full - 1) >> r) - 1;
    while (lo < hi) { /* the pair holding output o: the last starting at or before it */
        const int mid = (lo + hi + 1) >> 1;
        if ((int)seg_off[mid << r] <= o)
            lo = mid;
        else
            hi = mid - 1;
    }
    int q = lo;
    const int a0 = seg_off[q << r];
    int a1 = seg_off[(q << r) + half < S ? (q << r) + half : S];
    int b1 = seg_off[(q << r) + full < S ? (q << r) + full : S];
    const int d = o - a0;
    const int ilo = merge_path_split<K, int>(sk + a0, a1 - a0, sk + a1, b1 - a1, d);
    int ap = a0 + ilo, bp = a1 + d - ilo;
    K ka = sk[ap], kb = sk[bp];
    /* neither run runs out (so all in this pair), in every lane of the warp: one loop */
    if (whole_warp(ap + I <= a1 && bp + I <= b1)) {
        PB_UNROLL
        for (int j = 0; j < I; j++)
            emit(j, merge_step<K, kPairs, false>(sk, sv_in, sv_out, o + j, ap, bp, a1, b1, ka, kb));
        return;
    }
    if (o + I <= b1) { /* all in this pair (b1 <= D) */
        PB_UNROLL
        for (int j = 0; j < I; j++)
            emit(j, merge_step<K, kPairs, true>(sk, sv_in, sv_out, o + j, ap, bp, a1, b1, ka, kb));
        return;
    }
    PB_UNROLL
    for (int j = 0; j < I; j++) {
        if (o + j < D) {
            if (ap == a1 && bp == b1) { /* this pair is done: the next non-empty one starts here */
                ap = b1;
                do {
                    q++;
                    a1 = seg_off[(q << r) + half < S ? (q << r) + half : S];
                    b1 = seg_off[(q << r) + full < S ? (q << r) + full : S];
                } while (b1 == ap);
                bp = a1;
                ka = sk[ap];
                kb = sk[bp];
            }
            emit(j, merge_step<K, kPairs, true>(sk, sv_in, sv_out, o + j, ap, bp, a1, b1, ka, kb));
        }
    }
}

/* merge_items' emit for outputs stored at dst[j]. */
template <class K> struct EmitTo {
    K *dst;
    __host__ __device__ void operator()(int j, K k) const { dst[j] = k; }
};

/* A tile block's shared memory as tile_smem_bytes lays it out, every buffer an offset from
 * one base (so that the compiler keeps shared-memory addressing). */
template <class K, bool kPairs, int kThreads = kTileThreads> struct TileBuffers {
    unsigned char *base;
    static constexpr size_t kKeyBytes = tile_key_bytes<K, kThreads>();
    static constexpr size_t kValueBase = kKeyBytes * (keys_ping_pong<K>(kPairs) ? 2 : 1);
    /* Buffer `which` (0 or 1; the keys' one buffer when they do not ping-pong). */
    __host__ __device__ K *keys(int which) const {
        return reinterpret_cast<K *>(base + (keys_ping_pong<K>(kPairs) ? which * kKeyBytes : 0));
    }
    __host__ __device__ uint32_t *values(int which) const {
        return reinterpret_cast<uint32_t *>(
            base + kValueBase + which * (size_t)Tile<K, kThreads>::kSize * sizeof(uint32_t));
    }
};

#ifdef __CUDACC__
/* Merges the tile's S sorted segments (in list order, bounds seg_off, S + 1 entries), keys
 * in b.keys(0) and values in b.values(0). Returns which buffer (0 or 1) holds the merged
 * keys and values. Every thread of the block calls it. */
template <class K, bool kPairs, int kThreads>
__device__ int merge_tile(const TileBuffers<K, kPairs, kThreads> &b, const uint16_t *seg_off, int S,
                          int D) {
    constexpr int I = Tile<K, kThreads>::kItems;
    const int o = threadIdx.x * I;
    int in = 0;
    for (int r = 1; (1 << (r - 1)) < S; r++, in ^= 1) {
        const K *src = b.keys(in);
        uint32_t *vin = b.values(in), *vout = b.values(in ^ 1);
        if (keys_ping_pong<K>(kPairs)) {
            if (o < D)
                merge_items<K, kPairs, I>(src, vin, vout, seg_off, S, D, r, o,
                                          EmitTo<K>{b.keys(in ^ 1) + o});
        } else {
            K rk[I];
            if (o < D)
                merge_items<K, kPairs, I>(src, vin, vout, seg_off, S, D, r, o,
                                          [&](int j, K k) { rk[j] = k; });
            __syncthreads();
            if (o < D) {
#pragma unroll
                for (int j = 0; j < I; j++)
                    if (o + j < D) b.keys(0)[o + j] = rk[j];
            }
        }
        __syncthreads();
    }
    return in;
}
#endif

} // namespace pb::merge
