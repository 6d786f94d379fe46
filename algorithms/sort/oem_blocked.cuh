/* Batcher's odd-even merge network over a tile held in registers in a blocked layout:
 * thread t owns items t*R .. t*R+R-1 of the tile, so each step's comparators are
 *  - inside a thread (stride k < R), but for the k items at the thread's top end, whose
 *    partners (x + k, with the carry that makes odd-even merge differ from bitonic) are
 *    the next thread's first k;
 *  - between threads m = k/R apart, the same register on both sides (stride k >= R);
 * both through warp shuffles while a level's runs (2p items) span at most a warp, and
 * through shared memory above that. */
#pragma once

#include "sort_common.cuh"

namespace pb_sort {

__device__ __forceinline__ uint32_t shfl_item(uint32_t v, int src) {
    return __shfl_sync(0xffffffffu, v, src);
}
__device__ __forceinline__ uint64_t shfl_item(uint64_t v, int src) {
    return (uint64_t)__shfl_sync(0xffffffffu, (unsigned long long)v, src);
}
__device__ __forceinline__ WideKeyValue shfl_item(WideKeyValue v, int src) {
    return {shfl_item(v.k, src), shfl_item(v.v, src)};
}

/* mine becomes min(mine, other) on the lower end of a comparator, the max on the upper. */
template <class I, class Item>
__device__ __forceinline__ void keep(Item &mine, Item other, bool lower, bool upper) {
    Item lo = mine, hi = other;
    I::order(lo, hi);
    if (lower) mine = lo;
    if (upper) mine = hi;
}

/* Step (p, k = m*R) of a level whose runs are M threads, for thread u of its run: the
 * first step of a level (k == p) pairs thread u with u + m when bit m of u is clear; the
 * later ones pair u with u + m when bit m is set and u + m is still in the run. */
template <class I, int R, class Item>
__device__ __forceinline__ void step_across_lanes(Item (&r)[R], uint32_t u, uint32_t m,
                                                  uint32_t M, bool first) {
    const bool lower = first ? (u & m) == 0 : (u & m) != 0 && u + m < M;
    const bool upper = first ? (u & m) != 0 : (u & m) == 0 && u >= m;
    const int lane = (int)(threadIdx.x & 31);
    const int src = lower ? lane + (int)m : upper ? lane - (int)m : lane;
#pragma unroll
    for (int j = 0; j < R; j++) keep<I>(r[j], shfl_item(r[j], src), lower, upper);
}

/* Step (p >= R, k = K < R): pairs (j, j + K) for j with bit K, inside the thread, and the
 * thread's top K items with the next thread's first K, unless the run ends between them. */
template <class I, int R, int K, class Item>
__device__ __forceinline__ void step_in_thread(Item (&r)[R], uint32_t u, uint32_t M) {
    const int lane = (int)(threadIdx.x & 31);
    Item from_next[K], from_prev[K];
#pragma unroll
    for (int i = 0; i < K; i++) {
        from_next[i] = shfl_item(r[i], lane + 1 < 32 ? lane + 1 : lane);
        from_prev[i] = shfl_item(r[R - K + i], lane > 0 ? lane - 1 : lane);
    }
#pragma unroll
    for (int j = 0; j + K < R; j++)
        if (j & K) I::order(r[j], r[j + K]);
#pragma unroll
    for (int i = 0; i < K; i++) {
        keep<I>(r[R - K + i], from_next[i], u + 1 < M, false);
        keep<I>(r[i], from_prev[i], false, u > 0);
    }
}

/* The steps k = K, K/2, .., 1 of a level with p >= R. */
template <class I, int R, int K, class Item>
__device__ __forceinline__ void steps_in_thread(Item (&r)[R], uint32_t u, uint32_t M) {
    step_in_thread<I, R, K>(r, u, M);
    if constexpr (K > 1) steps_in_thread<I, R, K / 2>(r, u, M);
}

/* Slot of tile item i in shared memory: one spare slot per R items, so that threads
 * reading R consecutive items each hit different banks. */
template <int R> __device__ __forceinline__ uint32_t blocked_slot(uint32_t i) {
    return i + i / R;
}

/* Step (p = 2^lp, k = 2^lk) through shared memory, for levels whose runs span warps; the
 * tile's segments are P = seg_mask + 1 items. Each thread posts its items, then keeps the
 * min or max with its partners'. */
template <class I, int R, class Item>
__device__ __forceinline__ void step_shared(Item (&r)[R], Item *s, uint32_t seg_mask, int lp,
                                            int lk) {
    const uint32_t k = 1u << lk, p = 1u << lp, base = threadIdx.x * R;
    __syncthreads(); /* the previous step's reads are done */
#pragma unroll
    for (int j = 0; j < R; j++) s[blocked_slot<R>(base + j)] = r[j];
    __syncthreads();
#pragma unroll
    for (int j = 0; j < R; j++) {
        const uint32_t x = (base + j) & seg_mask;
        bool lower, upper;
        if (k == p) {
            lower = (x & p) == 0;
            upper = !lower;
        } else {
            lower = (x & k) != 0 && (x >> (lp + 1)) == ((x + k) >> (lp + 1));
            upper = (x & k) == 0 && x >= k && (x >> (lp + 1)) == ((x - k) >> (lp + 1));
        }
        if (lower || upper)
            keep<I>(r[j], s[blocked_slot<R>(lower ? base + j + k : base + j - k)], lower, upper);
    }
}

/* The whole network for segments of P = 2^log_p items (2R <= P <= the tile) on a tile in
 * the blocked layout; s is the tile's shared memory (blocked_slot), free for use. */
template <class I, int LogR, class Item>
__device__ void oem_sort_blocked(Item (&r)[1 << LogR], Item *s, int log_p) {
    constexpr int R = 1 << LogR;
    oem_sort_registers<I, LogR>(r); /* levels whose runs fit in a thread */
    for (int lp = LogR; lp < log_p; lp++) {
        const uint32_t M = 1u << (lp + 1 - LogR); /* threads per run of 2p */
        if (M <= 32) {
            const uint32_t u = threadIdx.x & (M - 1);
            for (int lk = lp; lk >= LogR; lk--)
                step_across_lanes<I, R>(r, u, 1u << (lk - LogR), M, lk == lp);
            steps_in_thread<I, R, R / 2>(r, u, M);
        } else {
            for (int lk = lp; lk >= 0; lk--)
                step_shared<I, R>(r, s, (1u << log_p) - 1, lp, lk);
        }
    }
}

} // namespace pb_sort
