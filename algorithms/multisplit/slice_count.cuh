/* multisplit/auto's first step: how many keys of each digit every piece of the input
 * holds, written digit-major, counts[d * pieces + p], so that one exclusive scan turns
 * them into where each piece's keys of each digit go.
 *
 * A piece is a slice of the scatter kernel cut in `split` parts: the scatter runs a few
 * fat blocks an SM, the count wants many warps with loads in flight, so it gets its own
 * finer grid. Reading is the whole cost: each thread keeps four 16-byte loads in flight. */
#pragma once

#include <string.h>

#include <type_traits>

#include "slice_digit.cuh"

namespace pb_ms {

constexpr int kCountThreads = 256;
constexpr int kCountWarps = kCountThreads / 32;

/* A thread's run of equal digits among the keys it counts in turn, added to a shared
 * histogram once: a skewed input does not pile atomics onto one counter. */
struct DigitRun {
    uint32_t digit = 0, count = 0;
    __device__ __forceinline__ void add(uint32_t *hist, uint32_t d) {
        if (count && d != digit) {
            atomicAdd(&hist[digit], count);
            count = 0;
        }
        digit = d;
        count++;
    }
    __device__ __forceinline__ void flush(uint32_t *hist) {
        if (count) atomicAdd(&hist[digit], count);
    }
};

/* Block b counts piece b: part (b % split) of slice (b / split), in
 * [slice * span + part * part_span, ...) clipped to the slice and to n. The warps of a
 * block share `copies` histograms in shared memory (warp w adds into copy w % copies):
 * one each for few digits, fewer when many digits would not leave room for 8 blocks. A
 * thread adds a run of equal digits among the keys it holds once (DigitRun). */
template <class T, class Digit>
__global__ void __launch_bounds__(kCountThreads)
    piece_count_kernel(const T *__restrict__ keys, uint64_t n, uint64_t span, uint32_t split,
                       uint64_t part_span, Digit digit, uint32_t digits, uint32_t copies,
                       uint32_t *__restrict__ counts) {
    extern __shared__ uint32_t hist[]; /* copies x digits */
    constexpr int kVecKeys = 16 / sizeof(T);
    constexpr int kVecs = 4;
    constexpr uint64_t kWarpStep = 32 * kVecs * kVecKeys;
    for (uint32_t i = threadIdx.x; i < copies * digits; i += kCountThreads) hist[i] = 0;
    __syncthreads();
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    uint32_t *mine = hist + (warp % copies) * digits;
    const uint64_t slice_begin = min((uint64_t)(blockIdx.x / split) * span, n);
    const uint64_t slice_end = min(slice_begin + span, n);
    const uint64_t begin = min(slice_begin + (blockIdx.x % split) * part_span, slice_end);
    const uint64_t end = min(begin + part_span, slice_end);
    /* full: the warp's whole stretch is inside the piece, so no key needs a bounds check
     * (every stretch but a piece's last; the checks cost a third of the kernel's work) */
    auto count_stretch = [&](uint64_t base, auto full) {
        T k[kVecs][kVecKeys];
        uint32_t have[kVecs];
#pragma unroll
        for (int v = 0; v < kVecs; v++) {
            /* vector v of lane l: keys [base + (v * 32 + l) * kVecKeys, ...) */
            const uint64_t first = base + (uint64_t)(v * 32 + lane) * kVecKeys;
            if (full.value || first + kVecKeys <= end) {
                const uint4 raw = *reinterpret_cast<const uint4 *>(keys + first);
                memcpy(k[v], &raw, sizeof raw);
                have[v] = kVecKeys;
            } else {
                have[v] = first < end ? (uint32_t)(end - first) : 0;
#pragma unroll
                for (int u = 0; u < kVecKeys; u++)
                    if (u < (int)have[v]) k[v][u] = keys[first + u];
            }
        }
        DigitRun run;
#pragma unroll
        for (int v = 0; v < kVecs; v++) {
#pragma unroll
            for (int u = 0; u < kVecKeys; u++) {
                if (!full.value && u >= (int)have[v]) continue;
                run.add(mine, digit(k[v][u]));
            }
        }
        run.flush(mine);
    };
    for (uint64_t base = begin + warp * kWarpStep; base < end; base += kCountWarps * kWarpStep) {
        if (base + kWarpStep <= end)
            count_stretch(base, std::true_type{});
        else
            count_stretch(base, std::false_type{});
    }
    __syncthreads();
    for (uint32_t d = threadIdx.x; d < digits; d += kCountThreads) {
        uint32_t sum = 0;
        for (uint32_t c = 0; c < copies; c++) sum += hist[c * digits + d];
        counts[(uint64_t)d * gridDim.x + blockIdx.x] = sum;
    }
}

} // namespace pb_ms
