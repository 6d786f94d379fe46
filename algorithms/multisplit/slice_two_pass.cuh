/* multisplit/auto's two passes (an LSD radix sort of the bin by a low digit, then the
 * high one) from one count of the input.
 *
 * Counting each pass's digits reads all keys once a pass. Instead, one count of the whole
 * bin per piece of the input, scanned bin-major, gives bin_starts[b * pieces + p]: where
 * piece p's keys of bin b go in the output. Both passes' starting points follow from it:
 *   - pass 1 (low digit d = b % L, L = 2^low_bits) writes the intermediate array in
 *     blocks (d, p) in that order; piece p's keys of digit d start after every key of a
 *     lower digit and after earlier pieces' keys of digit d, all sums of bin counts
 *     (low_digit_starts_kernel);
 *   - pass 2 (high digit h = b / L) reads that array in slices that start anywhere. Its
 *     keys of digit h before position x, in a block (d0, p0) that began at x0, are the
 *     keys of bins hL + d for d < d0, those of bin hL + d0 in pieces before p0, and those
 *     of digit h in [x0, x): so the slice's first key of digit h goes to
 *     bin_starts[(hL + d0) pieces + p0] plus a count of that short head
 *     (high_digit_bases_kernel).
 * The bins' offsets are bin_starts[b * pieces], so no search of the output either. */
#pragma once

#include <stdint.h>

#include <cub/block/block_reduce.cuh>

#include "search.cuh"
#include "slice_count.cuh"

namespace pb_ms {

constexpr int kTwoPassThreads = 256;

/* The sum of term(i) over i in [0, count), kLoadsAhead terms at a time whose loads are all
 * in flight together: each term is evaluated at an index clamped into range and dropped
 * after, with no branch between the loads. (A loop of unknown length, as nvcc unrolls it,
 * tests for its end after each term and so waits for each load in turn: pass 1's starts
 * took 17 us at 1024 bins, 2^28 keys, on the H200, session 29.) */
constexpr uint32_t kLoadsAhead = 8;
template <class Term> __device__ __forceinline__ uint32_t sum_ahead(uint32_t count, Term term) {
    uint32_t sum = 0;
    for (uint32_t first = 0; first < count; first += kLoadsAhead) {
        uint32_t v[kLoadsAhead];
#pragma unroll
        for (uint32_t j = 0; j < kLoadsAhead; j++) v[j] = term(min(first + j, count - 1));
#pragma unroll
        for (uint32_t j = 0; j < kLoadsAhead; j++)
            if (first + j < count) sum += v[j];
    }
    return sum;
}

/* starts[d * pieces + p] (pass 1's, digit-major as the scatter reads them) and offsets[b],
 * from bin_starts. Block (d, c): low digit d, pieces [c kTwoPassThreads, ...). */
__global__ void __launch_bounds__(kTwoPassThreads)
    low_digit_starts_kernel(const uint32_t *__restrict__ bin_starts, uint32_t bins,
                            uint32_t low_bits, uint32_t pieces, uint64_t n,
                            uint32_t *__restrict__ starts, uint32_t *__restrict__ offsets) {
    using Reduce = cub::BlockReduce<uint32_t, kTwoPassThreads>;
    __shared__ typename Reduce::TempStorage reduce_storage;
    __shared__ uint32_t lower_keys;
    const uint32_t d = blockIdx.x, low = 1u << low_bits;
    auto bin_start = [&](uint32_t b) {
        return b < bins ? bin_starts[(uint64_t)b * pieces] : (uint32_t)n;
    };
    /* the keys of every low digit below d: bins threadIdx.x + i kTwoPassThreads */
    const uint32_t my_bins =
        threadIdx.x < bins ? (bins - threadIdx.x + kTwoPassThreads - 1) / kTwoPassThreads : 0;
    uint32_t lower = sum_ahead(my_bins, [&](uint32_t i) {
        const uint32_t b = threadIdx.x + i * kTwoPassThreads;
        const uint32_t next_start = bin_starts[(uint64_t)min(b + 1, bins - 1) * pieces];
        const uint32_t next = b + 1 < bins ? next_start : (uint32_t)n;
        const uint32_t keys = next - bin_starts[(uint64_t)b * pieces];
        return (b & (low - 1)) < d ? keys : 0u;
    });
    lower = Reduce(reduce_storage).Sum(lower);
    if (threadIdx.x == 0) lower_keys = lower;
    __syncthreads();
    const uint32_t p = blockIdx.y * kTwoPassThreads + threadIdx.x;
    if (p < pieces) {
        /* bins d + h low, d < low < bins */
        const uint32_t highs = (bins - d + low - 1) / low;
        starts[(uint64_t)d * pieces + p] = lower_keys + sum_ahead(highs, [&](uint32_t h) {
                                               const uint64_t row =
                                                   (uint64_t)(d + h * low) * pieces;
                                               return bin_starts[row + p] - bin_starts[row];
                                           });
    }
    if (blockIdx.y == 0)
        for (uint32_t b = d + threadIdx.x * low; b < bins; b += kTwoPassThreads * low)
            offsets[b] = bin_start(b);
}

/* bases[h * slices + s]: where pass 2's slice s (mid keys [s span, s span + span)) writes
 * its first key of high digit h (digit_of: pass 2's rule, high_digits <= 256 values).
 * Block s, kBasesThreads threads. starts: pass 1's, non-decreasing in (d, p) order. A
 * head holds a few thousand keys, or, where most keys share a bin, most of a piece: with
 * one 256-thread block a slice loading a key at a time the kernel took 34 us (ncu, H200,
 * 2^28 u32 keys, 1024 bins) and 90% of keys in one bin made the whole multisplit 24.7%
 * slower than a count a pass; with 1024 threads and 16 loads a thread in flight 16 us and
 * 2.9% faster (session 29, calls 2 to 4). */
constexpr int kBasesThreads = 1024;
template <class T, class Digit>
__global__ void __launch_bounds__(kBasesThreads)
    high_digit_bases_kernel(const T *__restrict__ mid, uint64_t n, uint64_t span, Digit digit_of,
                            uint32_t high_digits, const uint32_t *__restrict__ starts,
                            uint32_t low_bits, uint32_t pieces,
                            const uint32_t *__restrict__ bin_starts, uint32_t bins,
                            uint32_t *__restrict__ bases) {
    constexpr int kKeys = 64 / sizeof(T); /* loads a thread has in flight */
    __shared__ uint32_t hist[256];
    const uint32_t s = blockIdx.x, slices = gridDim.x;
    const uint64_t begin = (uint64_t)s * span;
    if (begin >= n) { /* an empty slice (the grid's last), which writes nothing */
        for (uint32_t h = threadIdx.x; h < high_digits; h += kBasesThreads)
            bases[(uint64_t)h * slices + s] = (uint32_t)n;
        return;
    }
    for (uint32_t h = threadIdx.x; h < high_digits; h += kBasesThreads) hist[h] = 0;
    /* the last block (d0, p0) starting at or before begin, which begin lies in (or ends):
     * one before the first that starts after it (starts[0] = 0 does not); each warp finds
     * it for itself */
    const uint32_t block =
        (uint32_t)pb::last_at_or_below_warp(starts, (uint64_t)pieces << low_bits, begin);
    const uint32_t d0 = block / pieces, p0 = block % pieces;
    __syncthreads();
    DigitRun run; /* runs of equal digits (a skewed block's head) add once */
    for (uint64_t x = starts[block] + threadIdx.x; x < begin; x += kKeys * kBasesThreads) {
        T k[kKeys];
#pragma unroll
        for (int j = 0; j < kKeys; j++) {
            /* clamped, not branched around: every load in flight at once */
            k[j] = mid[min(x + (uint64_t)j * kBasesThreads, begin - 1)];
        }
#pragma unroll
        for (int j = 0; j < kKeys; j++)
            if (x + (uint64_t)j * kBasesThreads < begin) run.add(hist, digit_of(k[j]));
    }
    run.flush(hist);
    __syncthreads();
    for (uint32_t h = threadIdx.x; h < high_digits; h += kBasesThreads) {
        const uint32_t b = (h << low_bits) + d0;
        /* a bin past the last holds no key, and so no key of digit h follows begin */
        const uint32_t before = b < bins ? bin_starts[(uint64_t)b * pieces + p0] : (uint32_t)n;
        bases[(uint64_t)h * slices + s] = before + hist[h];
    }
}

} // namespace pb_ms
