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

/* Slot of tile item i in shared memory: one spare slot per R items, so that threads
 * reading R consecutive items each hit different banks. */
template <int R> __device__ __forceinline__ uint32_t blocked_slot(uint32_t i) { return i + i / R; }

/* Step (p, k = m*R) of a level whose runs are M threads, for thread u of its run: the
 * first step of a level (k == p) pairs thread u with u + m when bit m of u is clear; the
 * later ones pair u with u + m when bit m is set and u + m is still in the run. The same
 * register on both sides: by warp shuffle, or (Shared, runs past a warp) through s. */
template <class I, int R, bool Shared, class Item>
__device__ __forceinline__ void step_across_threads(Item (&r)[R], Item *s, uint32_t u, uint32_t m,
                                                    uint32_t M, bool first) {
    const bool lower = first ? (u & m) == 0 : (u & m) != 0 && u + m < M;
    const bool upper = first ? (u & m) != 0 : (u & m) == 0 && u >= m;
    if constexpr (Shared) {
        const uint32_t base = threadIdx.x * R, partner = lower ? base + m * R : base - m * R;
        __syncthreads(); /* the previous step's reads are done */
#pragma unroll
        for (int j = 0; j < R; j++) s[blocked_slot<R>(base + j)] = r[j];
        __syncthreads();
        if (lower || upper)
#pragma unroll
            for (int j = 0; j < R; j++)
                keep<I>(r[j], s[blocked_slot<R>(partner + j)], lower, upper);
    } else {
        const int lane = (int)(threadIdx.x & 31);
        const int src = lower ? lane + (int)m : upper ? lane - (int)m : lane;
#pragma unroll
        for (int j = 0; j < R; j++) keep<I>(r[j], shfl_item(r[j], src), lower, upper);
    }
}

/* Step (p >= R, k = K < R): pairs (j, j + K) for j with bit K, inside the thread, and the
 * thread's top K items with the next thread's first K, unless the run ends between them:
 * those by warp shuffle, or (Shared) through s, laid out item-major so that neighbouring
 * threads hit neighbouring banks. */
template <class I, int R, int K, bool Shared, class Item>
__device__ __forceinline__ void step_in_thread(Item (&r)[R], Item *s, uint32_t u, uint32_t M) {
    const bool has_next = u + 1 < M, has_prev = u > 0;
    Item from_next[K], from_prev[K];
    if constexpr (Shared) {
        const uint32_t t = threadIdx.x, T = blockDim.x;
        __syncthreads();
#pragma unroll
        for (int i = 0; i < K; i++) {
            s[i * T + t] = r[i];
            s[(K + i) * T + t] = r[R - K + i];
        }
        __syncthreads();
#pragma unroll
        for (int i = 0; i < K; i++) {
            from_next[i] = has_next ? s[i * T + t + 1] : r[R - K + i];
            from_prev[i] = has_prev ? s[(K + i) * T + t - 1] : r[i];
        }
    } else {
        const int lane = (int)(threadIdx.x & 31);
#pragma unroll
        for (int i = 0; i < K; i++) {
            from_next[i] = shfl_item(r[i], lane + 1 < 32 ? lane + 1 : lane);
            from_prev[i] = shfl_item(r[R - K + i], lane > 0 ? lane - 1 : lane);
        }
    }
#pragma unroll
    for (int j = 0; j + K < R; j++)
        if (j & K) I::order(r[j], r[j + K]);
#pragma unroll
    for (int i = 0; i < K; i++) {
        keep<I>(r[R - K + i], from_next[i], has_next, false);
        keep<I>(r[i], from_prev[i], false, has_prev);
    }
}

/* One merge level with p >= R, runs of M threads: the steps k = p, .., R between
 * threads, then k = R/2, .., 1 inside them. */
template <class I, int R, int K, bool Shared, class Item>
__device__ __forceinline__ void steps_in_thread(Item (&r)[R], Item *s, uint32_t u, uint32_t M) {
    step_in_thread<I, R, K, Shared>(r, s, u, M);
    if constexpr (K > 1) steps_in_thread<I, R, K / 2, Shared>(r, s, u, M);
}
template <class I, int LogR, bool Shared, class Item>
__device__ __forceinline__ void merge_level(Item (&r)[1 << LogR], Item *s, int lp) {
    constexpr int R = 1 << LogR;
    const uint32_t M = 1u << (lp + 1 - LogR); /* threads per run of 2p */
    const uint32_t u = threadIdx.x & (M - 1);
    for (int lk = lp; lk >= LogR; lk--)
        step_across_threads<I, R, Shared>(r, s, u, 1u << (lk - LogR), M, lk == lp);
    steps_in_thread<I, R, R / 2, Shared>(r, s, u, M);
}

/* The whole network for segments of P = 2^log_p items (2R <= P <= the tile) on a tile in
 * the blocked layout; s is the tile's shared memory, free for use. Levels whose runs
 * span at most a warp exchange by shuffles, the others through s. */
template <class I, int LogR, class Item>
__device__ void oem_sort_blocked(Item (&r)[1 << LogR], Item *s, int log_p) {
    oem_sort_registers<I, LogR>(r); /* levels whose runs fit in a thread */
    for (int lp = LogR; lp < log_p; lp++) {
        if ((1 << (lp + 1 - LogR)) <= 32)
            merge_level<I, LogR, false>(r, s, lp);
        else
            merge_level<I, LogR, true>(r, s, lp);
    }
}

} // namespace pb_sort
