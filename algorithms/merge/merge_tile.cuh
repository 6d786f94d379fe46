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

constexpr int kTileThreads = 512; /* merge blocks */

/* Tile: threads x items, items odd so that the blocked write-back of a round hits
 * distinct banks. 8-byte keys take fewer items, for registers. */
template <class K> struct Tile {
    static constexpr int kItems = sizeof(K) == 4 ? 15 : 9;
    static constexpr uint32_t kSize = (uint32_t)kTileThreads * kItems;
};

/* A tile's shared memory: its keys with one slot past the last (read by the merge, never
 * used, so that its reads need no bounds), then, with values, two value buffers. */
template <class K> __host__ __device__ constexpr size_t tile_key_bytes() {
    return ((size_t)(Tile<K>::kSize + 1) * sizeof(K) + 15) / 16 * 16;
}
template <class K> __host__ __device__ constexpr size_t tile_smem_bytes(bool pairs) {
    return tile_key_bytes<K>() + (pairs ? 2 * (size_t)Tile<K>::kSize * sizeof(uint32_t) : 0);
}

/* Blocks an SM for the tile kernels' register budget: 4 (32 registers) for 4-byte keys
 * alone; 8-byte keys would spill there, so 3; 2 with values. */
template <class K> __host__ __device__ constexpr int tile_blocks(bool pairs) {
    return pairs ? 2 : sizeof(K) == 4 ? 4 : 3;
}

/* One output of a serial merge: the smaller head (ties to the left run, a), the taken run
 * moved on by one and its next key read (at most one past its end, which is in the tile
 * or its spare slot). */
template <class K, bool kPairs>
__host__ __device__ __forceinline__ K merge_step(const K *sk, const uint32_t *sv_in,
                                                 uint32_t *sv_out, int out, int &ap, int &bp,
                                                 int a1, int b1, K &ka, K &kb) {
    const bool take_b = bp < b1 && (ap >= a1 || kb < ka);
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
 * [o, o + I) of the tile (those below D) into rk, from the tile sk; with values, each
 * output's value goes from sv_in straight to sv_out[o + j] (the values ping-pong between
 * two buffers, so they need no registers). A thread whose outputs run past its pair's
 * end carries on in the next non-empty pair; most threads' outputs do not, and take a
 * loop without those checks. */
template <class K, bool kPairs, int I>
__host__ __device__ inline void merge_items(const K *sk, const uint32_t *sv_in, uint32_t *sv_out,
                                            const uint16_t *seg_off, int S, int D, int r, int o,
                                            K (&rk)[I]) {
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
    const int ilo = merge_path_split(sk + a0, a1 - a0, sk + a1, b1 - a1, d);
    int ap = a0 + ilo, bp = a1 + d - ilo;
    K ka = sk[ap], kb = sk[bp];
    if (o + I <= b1) { /* all in this pair (b1 <= D) */
        PB_UNROLL
        for (int j = 0; j < I; j++)
            rk[j] = merge_step<K, kPairs>(sk, sv_in, sv_out, o + j, ap, bp, a1, b1, ka, kb);
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
            rk[j] = merge_step<K, kPairs>(sk, sv_in, sv_out, o + j, ap, bp, a1, b1, ka, kb);
        }
    }
}

#ifdef __CUDACC__
/* Merges the tile's S sorted segments (in list order, bounds seg_off, S + 1 entries): keys
 * in place, values between sv0 and sv1. Returns which of the two holds the values at the
 * end. Every thread of the block calls it. */
template <class K, bool kPairs>
__device__ int merge_tile(K *sk, uint32_t *sv0, uint32_t *sv1, const uint16_t *seg_off, int S,
                          int D) {
    constexpr int I = Tile<K>::kItems;
    const int o = threadIdx.x * I;
    int in = 0;
    for (int r = 1; (1 << (r - 1)) < S; r++, in ^= 1) {
        K rk[I];
        if (o < D)
            merge_items<K, kPairs, I>(sk, in ? sv1 : sv0, in ? sv0 : sv1, seg_off, S, D, r, o, rk);
        __syncthreads();
        if (o < D) {
#pragma unroll
            for (int j = 0; j < I; j++)
                if (o + j < D) sk[o + j] = rk[j];
        }
        __syncthreads();
    }
    return in;
}
#endif

} // namespace pb::merge
