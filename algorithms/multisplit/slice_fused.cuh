/* multisplit/auto on small inputs: a pass's count and scan inside its scatter kernel.
 *
 * At 2^20 keys a pass's separate count kernel, CUB's two scan kernels and the scatter
 * each take a few microseconds, mostly launch and ramp, not work. The scatter's grid is
 * one wave (every slice resident at once), so launched cooperatively it can do the other
 * steps itself, with two grid barriers:
 *   1. each block counts its slice's digits (shared memory) and writes them digit-major;
 *   2. block b scans rows b, b + grid, ...: where slice s's keys of digit d start among
 *      the digit's keys, and the digit's total;
 *   3. every block scans the digits' totals and adds its own row entries: the same
 *      starting points the count kernel and CUB's scan give the unfused pass.
 * The keys are then read again by the scatter itself (from L2 at these sizes). */
#pragma once

#include <cooperative_groups.h>
#include <stdint.h>

#include <cub/block/block_scan.cuh>

#include "grid_dependency.cuh"
#include "slice_count.cuh"

namespace pb_ms {

/* Global scratch of a fused pass: counts[d * slices + s], then row prefixes in place of
 * them, and each digit's total. */
struct FusedScratch {
    uint32_t *counts;
    uint32_t *totals;
};

/* The most slices the row scan takes: two a thread. */
template <int kThreads> constexpr uint32_t fused_max_slices() { return 2 * kThreads; }

/* base[d] (shared, digits words): where this block's slice [begin, end) writes its first
 * key of digit d. hist: digits words of shared scratch. Every block of the grid calls it. */
template <int kThreads, class T, class Digit, class Scan>
__device__ void fused_slice_bases(const T *__restrict__ keys, uint64_t begin, uint64_t end,
                                  const Digit &digit_of, uint32_t digits, FusedScratch f,
                                  uint32_t *hist, uint32_t *base,
                                  typename Scan::TempStorage &scan_storage) {
    namespace cg = cooperative_groups;
    constexpr int kRun = 8; /* consecutive keys a thread counts, equal digits added once */
    const uint32_t th = threadIdx.x, s = blockIdx.x, slices = gridDim.x;
    for (uint32_t d = th; d < digits; d += kThreads) hist[d] = 0;
    __syncthreads();
    for (uint64_t at = begin + (uint64_t)th * kRun; at < end; at += (uint64_t)kThreads * kRun) {
        DigitRun run;
#pragma unroll
        for (int j = 0; j < kRun; j++) {
            if (at + j >= end) break;
            run.add(hist, digit_of(keys[at + j]));
        }
        run.flush(hist);
    }
    __syncthreads();
    for (uint32_t d = th; d < digits; d += kThreads) f.counts[(uint64_t)d * slices + s] = hist[d];
    cg::this_grid().sync();

    /* 2. rows: slices 2t and 2t + 1 are thread t's */
    for (uint32_t d = s; d < digits; d += slices) {
        uint32_t *row = f.counts + (uint64_t)d * slices;
        uint32_t c[2], prefix[2], total;
        c[0] = 2 * th < slices ? row[2 * th] : 0;
        c[1] = 2 * th + 1 < slices ? row[2 * th + 1] : 0;
        Scan(scan_storage).ExclusiveSum(c, prefix, total);
        if (2 * th < slices) row[2 * th] = prefix[0];
        if (2 * th + 1 < slices) row[2 * th + 1] = prefix[1];
        if (th == 0) f.totals[d] = total;
        __syncthreads(); /* the scan's storage again */
    }
    cg::this_grid().sync();

    /* 3. thread t: digits [first, last), their totals scanned across the block */
    const uint32_t per = (digits + kThreads - 1) / kThreads;
    const uint32_t first = min(th * per, digits), last = min(first + per, digits);
    uint32_t sum = 0;
    for (uint32_t d = first; d < last; d++) sum += f.totals[d];
    uint32_t start;
    Scan(scan_storage).ExclusiveSum(sum, start);
    for (uint32_t d = first; d < last; d++) {
        base[d] = start + f.counts[(uint64_t)d * slices + s];
        start += f.totals[d];
    }
    __syncthreads();
}

/* Either scatter's start: base[d] (shared) where the block's slice writes its first key of
 * digit d, counted and scanned here (kFused, hist: digits words of shared scratch), else
 * read from the count kernel's scanned starts[d * pieces + s * split], after waiting for the
 * scan (the scatter is launched to overlap its end, grid_dependency.cuh). Block 0 also
 * writes the bins' offsets: slice 0's start of a digit is where the digit starts. */
template <int kThreads, bool kFused, class T, class Digit, class Scan>
__device__ __forceinline__ void
slice_bases(const T *__restrict__ keys, uint64_t begin, uint64_t end, const Digit &digit_of,
            uint32_t digits, FusedScratch fused, const uint32_t *__restrict__ starts,
            uint32_t pieces, uint32_t split, uint32_t *hist, uint32_t *base,
            uint32_t *__restrict__ offsets, typename Scan::TempStorage &scan_storage) {
    if constexpr (kFused)
        fused_slice_bases<kThreads, T, Digit, Scan>(keys, begin, end, digit_of, digits, fused, hist,
                                                    base, scan_storage);
    else
        pb::wait_for_prior_grid();
    for (uint32_t d = threadIdx.x; d < digits; d += kThreads) {
        if (!kFused) base[d] = starts[(uint64_t)d * pieces + (uint64_t)blockIdx.x * split];
        if (offsets && blockIdx.x == 0) offsets[d] = base[d];
    }
}

} // namespace pb_ms
