/* multisplit/auto's first step: how many keys of each digit every piece of the input
 * holds, written digit-major, counts[d * pieces + p], so that one exclusive scan turns
 * them into where each piece's keys of each digit go.
 *
 * A piece is a slice of the scatter kernel cut in `split` parts: the scatter runs a few
 * fat blocks an SM, the count wants many warps with loads in flight, so it gets its own
 * finer grid. Each thread keeps four 16-byte loads in flight, and issues the next four
 * before it counts these.
 *
 * Up to kPrivateCountMaxDigits digits each thread counts in its own column of 16-bit
 * counters (the kernel's kPrivate, while private_count_fits): a key costs a shared atomic
 * on the thread's own bank, never contended. The shared atomics on a block-wide histogram
 * (with a thread's run of equal digits added once, DigitRun) serve more digits. H200, 2^28
 * u32 keys, 40 bins: with the block-wide atomics 25.7 instructions a key, 0.325 ms, DRAM 69%
 * busy (results/h200/ncu-multisplit-count-40-session18.txt); with the counters 0.296 ms
 * (64 bins: 0.325 and 0.287). The loads ahead and the atomic (a load and a store before)
 * took 0.85% off the whole 40-bin multisplit and 0.7% off 1024 bins (session 28,
 * configs/tests/multisplit-count-ab.json, results/h200/session28-call1-*); the loads ahead
 * alone +0.4 and +0.5%, the atomic alone -0.6 and -0.3%, eight loads a thread +0.5 and
 * +0.5%. ncu then: 250 us, DRAM 90% busy, what CUB's sum of the same keys takes
 * (configs/tests/reduce-cub-read.json). */
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

/* Per-thread counters: word (d / 2) * kCountThreads + t holds thread t's counts of digits
 * d and d + 1 in its halves, so a thread owns one column and its bank. A thread counts at
 * most private_count_fits keys, so a half never carries into the other. */
constexpr uint32_t kPrivateCountMaxDigits = 64;
inline size_t private_count_bytes(uint32_t digits) {
    return (size_t)(digits + 1) / 2 * kCountThreads * 4;
}
/* Whether pieces of part_span keys take the per-thread counters: every thread's counts stay
 * below 2^16 (a thread takes 16 keys of every 4096, so at most part_span / 256 + 16), and
 * the piece has enough keys to pay for clearing and summing up to 8192 counter words.
 * H200, u32 keys, time against the atomics (configs/tests/multisplit-counters.json,
 * results/h200/session18-call3-*): 2^28 keys 1.5 to 3.1% less (40 to 4096 bins, alone and
 * with values), 90% of keys in one bin -0.4 and +0.5%; 2^23 keys, pieces of 7 to 10 K
 * keys, 1.6% less to 2.5% more. */
constexpr uint64_t kPrivateCountMinKeys = 1u << 16;
inline bool private_count_fits(uint32_t digits, uint64_t part_span) {
    return digits <= kPrivateCountMaxDigits && part_span >= kPrivateCountMinKeys &&
           part_span / kCountThreads + 64 < 65536;
}

/* Block b counts piece b: part (b % split) of slice (b / split), in
 * [slice * span + part * part_span, ...) clipped to the slice and to n. The warps of a
 * block share `copies` histograms in shared memory (warp w adds into copy w % copies):
 * one each for few digits, fewer when many digits would not leave room for 8 blocks. A
 * thread adds a run of equal digits among the keys it holds once (DigitRun). kPrivate:
 * per-thread counters instead (the shared memory private_count_bytes, copies unused). */
template <class T, class Digit, bool kPrivate>
__global__ void __launch_bounds__(kCountThreads)
    piece_count_kernel(const T *__restrict__ keys, uint64_t n, uint64_t span, uint32_t split,
                       uint64_t part_span, Digit digit, uint32_t digits, uint32_t copies,
                       uint32_t *__restrict__ counts) {
    extern __shared__ uint32_t hist[]; /* copies x digits, or the private counters */
    constexpr int kVecKeys = 16 / sizeof(T);
    constexpr int kVecs = 4;
    constexpr uint64_t kWarpStep = 32 * kVecs * kVecKeys;
    const uint32_t words = kPrivate ? (digits + 1) / 2 * kCountThreads : copies * digits;
    for (uint32_t i = threadIdx.x; i < words; i += kCountThreads) hist[i] = 0;
    __syncthreads();
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    uint32_t *mine = hist + (warp % copies) * digits;
    uint32_t *column = hist + threadIdx.x;
    const uint64_t slice_begin = min((uint64_t)(blockIdx.x / split) * span, n);
    const uint64_t slice_end = min(slice_begin + span, n);
    const uint64_t begin = min(slice_begin + (blockIdx.x % split) * part_span, slice_end);
    const uint64_t end = min(begin + part_span, slice_end);
    /* full: the warp's whole stretch is inside the piece, so no key needs a bounds check
     * (every stretch but a piece's last; the checks cost a third of the kernel's work) */
    auto count_keys = [&](const T *k, const uint32_t *have, auto full) {
        DigitRun run;
#pragma unroll
        for (int v = 0; v < kVecs; v++) {
#pragma unroll
            for (int u = 0; u < kVecKeys; u++) {
                if (!full.value && u >= (int)have[v]) continue;
                const uint32_t d = digit(k[v * kVecKeys + u]);
                if (kPrivate)
                    atomicAdd(&column[(d >> 1) * kCountThreads], 1u << ((d & 1) * 16));
                else
                    run.add(mine, d);
            }
        }
        if (!kPrivate) run.flush(mine);
    };
    /* vector v of lane l in the stretch at base: keys [base + (v * 32 + l) * kVecKeys, ...) */
    auto load_full = [&](uint64_t base, T *k) {
#pragma unroll
        for (int v = 0; v < kVecs; v++) {
            const uint4 raw = *reinterpret_cast<const uint4 *>(
                keys + base + (uint64_t)(v * 32 + lane) * kVecKeys);
            memcpy(k + v * kVecKeys, &raw, sizeof raw);
        }
    };
    auto count_partial = [&](uint64_t base) {
        T k[kVecs * kVecKeys];
        uint32_t have[kVecs];
#pragma unroll
        for (int v = 0; v < kVecs; v++) {
            const uint64_t first = base + (uint64_t)(v * 32 + lane) * kVecKeys;
            if (first + kVecKeys <= end) {
                const uint4 raw = *reinterpret_cast<const uint4 *>(keys + first);
                memcpy(k + v * kVecKeys, &raw, sizeof raw);
                have[v] = kVecKeys;
            } else {
                have[v] = first < end ? (uint32_t)(end - first) : 0;
#pragma unroll
                for (int u = 0; u < kVecKeys; u++)
                    if (u < (int)have[v]) k[v * kVecKeys + u] = keys[first + u];
            }
        }
        count_keys(k, have, std::false_type{});
    };
    constexpr uint64_t kStep = kCountWarps * kWarpStep;
    uint64_t base = begin + warp * kWarpStep;
    /* the next stretch's loads are issued before this one is counted */
    if (base + kWarpStep <= end) {
        T cur[kVecs * kVecKeys];
        load_full(base, cur);
        for (;;) {
            const uint64_t next = base + kStep;
            T ahead[kVecs * kVecKeys];
            const bool more = next + kWarpStep <= end;
            if (more) load_full(next, ahead);
            count_keys(cur, nullptr, std::true_type{});
            base = next;
            if (!more) break;
#pragma unroll
            for (int i = 0; i < kVecs * kVecKeys; i++) cur[i] = ahead[i];
        }
    }
    if (base < end) count_partial(base); /* a piece's last stretch, cut short */
    __syncthreads();
    if constexpr (kPrivate) { /* a warp a row of words: both halves summed over the threads */
        for (uint32_t row = warp; row < (digits + 1) / 2; row += kCountWarps) {
            uint32_t low = 0, high = 0;
            for (uint32_t t = lane; t < kCountThreads; t += 32) {
                const uint32_t w = hist[row * kCountThreads + t];
                low += w & 0xffffu;
                high += w >> 16;
            }
            for (int o = 16; o > 0; o >>= 1) {
                low += __shfl_xor_sync(0xffffffffu, low, o);
                high += __shfl_xor_sync(0xffffffffu, high, o);
            }
            if (lane == 0) counts[(uint64_t)(2 * row) * gridDim.x + blockIdx.x] = low;
            if (lane == 0 && 2 * row + 1 < digits)
                counts[(uint64_t)(2 * row + 1) * gridDim.x + blockIdx.x] = high;
        }
    } else {
        for (uint32_t d = threadIdx.x; d < digits; d += kCountThreads) {
            uint32_t sum = 0;
            for (uint32_t c = 0; c < copies; c++) sum += hist[c * digits + d];
            counts[(uint64_t)d * gridDim.x + blockIdx.x] = sum;
        }
    }
}

} // namespace pb_ms
