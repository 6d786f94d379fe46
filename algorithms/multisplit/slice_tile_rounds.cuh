/* multisplit/auto's one pass over a bin of two digits (up to kTileRoundsMaxBins bins,
 * range buckets over 4-byte integer keys alone): each tile is sorted in shared memory by
 * the bin's low digit, then, stably, by its high digit, both times by slice_counters.cuh's
 * per-thread counters and raking scan, and goes out sorted by bin, in one run a bin. Two
 * passes (slice_scatter.cu) read and write every key twice; this reads and writes each
 * once, for twice the counting work a tile.
 *
 * Measured on the H200 (2^28 u32 keys, session 30, results/h200/session30-call1-* and
 * call2-*), it pays only near 361 bins, where the lane-mask scatter is slowest: there its
 * runs out of a tile are still long (about 23 keys). Time against the path it replaces:
 *   bins       64     256    300    361    384    512    1024    1344
 *   uniform  +23%    +0%    -0%    -7%    -7%   +15%    +70%    +98%
 * 361 bins: binomial +10% (150.6 against uniform's 144.4 Gelem/s), 90% of keys in one bin
 * -15%, 2^24 keys +10%, 2^26 -2%; with values +1% (hence keys alone). At 1024 bins a
 * tile's runs average 8 keys: L2 lines half written by one tile wait for the next tile of
 * the same slice, and one block an SM instead of two (fewer such lines at once) took 9%
 * less time, 3.0 ms against the two passes' 1.9.
 *
 * A counter sort leaves a tile's runs in run_order() (the even digits' runs, then the odd
 * ones'), so the tile sorted twice holds its bins in the order of their bin slots
 * (run_order of the high digit, then of the low one). Each key also adds one to its bin
 * slot's count in a per-tile histogram (a shared atomic), whose scan in slot order gives
 * where each bin's run starts. Slice s's first key of bin b goes to
 * starts[b * pieces + s * split]: the scan of a count of the whole bin. */
#pragma once

#include <cub/block/block_scan.cuh>

#include "slice_counters.cuh"
#include "slice_digit.cuh"

namespace pb_ms {

/* The low digit takes the bin's low bits, at most kTileRoundsMaxLowDigits values; the
 * high digit at most kTileRoundsMaxHighDigits (kTileRoundsMaxRows counter rows: the rows
 * it was measured with, and registers enough for two blocks an SM). */
constexpr uint32_t kTileRoundsMaxLowDigits = 32;
constexpr int kTileRoundsMaxRows = kCounterRowChoices[1];
constexpr uint32_t kTileRoundsMaxHighDigits = 2 * kTileRoundsMaxRows;
constexpr uint32_t kTileRoundsMaxBins = kTileRoundsMaxLowDigits * kTileRoundsMaxHighDigits;
/* Keys a thread: the counter scatter's choice above 2^20 keys (counter_items_for). */
constexpr int kTileRoundsItems = kCounterItemChoices[2];

/* Where digit x's run lies among a counter-sorted tile's runs. */
template <int kRows> __device__ __forceinline__ uint32_t run_order(uint32_t x) {
    return (x & 1) * kRows + (x >> 1);
}
/* The digit whose run lies at place r (run_order's inverse). */
template <int kRows> __device__ __forceinline__ uint32_t digit_at_run(uint32_t r) {
    return r < (uint32_t)kRows ? 2 * r : 2 * (r - kRows) + 1;
}

/* Shared memory of tile_rounds_kernel, carved from the dynamic allocation. */
template <int kRows, int kItems> struct RoundsSmem {
    static constexpr int kStages = kCounterStages; /* as the counter scatter's */
    static constexpr int kSlot = counter_slot<kItems>();
    static constexpr int kBinSlots = 4 * kRows * kRows; /* (high run, low run) */
    uint32_t *ring;     /* kStages x kSlot: tiles coming in, then sorted in place */
    uint32_t *counters; /* kRows x kCounterThreads */
    uint32_t *hist;     /* kBinSlots: the tile's keys of each bin slot */
    uint32_t *delta;    /* kBinSlots: global position minus tile position */
    uint32_t *base;     /* kBinSlots: where this slice's next key of the bin goes */

    __host__ __device__ static constexpr size_t bytes() {
        return ((size_t)kStages * kSlot + (size_t)kRows * kCounterThreads + (size_t)3 * kBinSlots) *
               4;
    }
    __device__ explicit RoundsSmem(unsigned char *p) {
        ring = reinterpret_cast<uint32_t *>(p);
        counters = ring + kStages * kSlot;
        hist = counters + kRows * kCounterThreads;
        delta = hist + kBinSlots;
        base = delta + kBinSlots;
    }
};

/* slice_scatter_kernel's contract for keys alone (values unused), with digits = bins, and
 * the rule's shift the low digit's width (its mask all ones): the rule gives the high
 * digit, and with no shift the bin. The fused scratch is unused (never fused). Registers
 * are cut as for the counter scatter's 33 rows, as measured, not by RoundsSmem's bytes. */
template <class T, int kRows, int kItems>
__global__ void __launch_bounds__(
    kCounterThreads,
    (counter_min_blocks<kItems, false>(CounterSmem<33, kItems, Range32Digit, false>::bytes(66))))
    tile_rounds_kernel(const T *__restrict__ keys, const uint32_t *, uint64_t n, uint64_t span,
                       Range32Digit high_of, uint32_t bins, const uint32_t *__restrict__ starts,
                       uint32_t pieces, uint32_t split, FusedScratch, T *__restrict__ out_keys,
                       uint32_t *, uint32_t *__restrict__ offsets) {
    static_assert(sizeof(T) == 4, "the counters take 4-byte keys");
    static_assert(kRows % 2 == 1, "odd rows keep the rakers off each other's banks");
    static_assert(kItems % 4 == 0 && kItems < 256, "whole pieces, ranks below 2^8");
    constexpr int kPieces = kItems / 4;
    using Smem = RoundsSmem<kRows, kItems>;
    /* one scan a round: the counter words' sums, and in the second the histogram's beside
     * them (both below 2^32, so neither carries into the other) */
    using Scan = cub::BlockScan<uint32_t, kCounterThreads>;
    using PairScan = cub::BlockScan<uint64_t, kCounterThreads>;
    constexpr int kTile = counter_tile<kItems>(), kSlot = Smem::kSlot, kStages = Smem::kStages;
    constexpr uint32_t kRuns = 2 * kRows, kBinSlots = Smem::kBinSlots;
    constexpr uint32_t kSlotsEach = (kBinSlots + kCounterThreads - 1) / kCounterThreads;
    __shared__ union {
        typename Scan::TempStorage one;
        typename PairScan::TempStorage pair;
    } scan_storage;
    extern __shared__ __align__(16) unsigned char dynamic_smem[];
    const Smem sm(dynamic_smem);
    const uint32_t th = threadIdx.x;
    uint32_t *my_counters = sm.counters + th; /* row r at my_counters[r * kCounterThreads] */
    const uint32_t low_bits = high_of.shift, low_mask = (1u << low_bits) - 1;
    Range32Digit bin_of = high_of;
    bin_of.shift = 0;
    auto bin_slot = [&](uint32_t bin) {
        return run_order<kRows>(bin >> low_bits) * kRuns + run_order<kRows>(bin & low_mask);
    };

    const SliceTiles<kTile> slice(n, span);
    auto slot_of = [&](uint32_t t) { return sm.ring + (t % kStages) * kSlot; };
    auto fetch = [&](uint32_t t) {
        if (t < slice.tiles) {
            copy_tile_async<kCounterThreads>(slot_of(t), keys + slice.start(t), slice.keys(t) * 4,
                                             Swizzled<kPieces>{});
        }
        pb::commit_async();
    };
    for (int t = 0; t < kStages - 1; t++) fetch(t);

    /* the slice's bases, by bin slot (a slot no bin takes: 0, never used) */
    pb::wait_for_prior_grid();
    for (uint32_t i = th; i < kBinSlots; i += kCounterThreads) {
        const uint32_t high = digit_at_run<kRows>(i / kRuns), low = digit_at_run<kRows>(i % kRuns);
        const uint32_t bin = high << low_bits | low;
        const bool taken = low <= low_mask && bin < bins;
        const uint32_t first = taken ? starts[(uint64_t)bin * pieces + blockIdx.x * split] : 0;
        sm.base[i] = first;
        if (taken && offsets && blockIdx.x == 0) offsets[bin] = first;
        sm.hist[i] = 0;
    }
#pragma unroll
    for (int r = 0; r < kRows; r++) my_counters[r * kCounterThreads] = 0;

    uint32_t k[kItems], digit_before[kItems] = {};
    auto holds = [&](auto full, uint32_t valid, int j) {
        return full.value || th * kItems + j < valid;
    };
    auto with_full = [&](uint32_t valid, auto &&f) {
        if (valid == (uint32_t)kTile)
            f(std::true_type{});
        else
            f(std::false_type{});
    };
    /* My keys k[] counted by one digit of their bin (count_on_column), the low one (and
     * the histogram) or the high one. */
    auto count_keys = [&](auto full, uint32_t valid, auto low_round) {
        count_on_column<kItems, T>(
            k, digit_before, my_counters, [&](int j) { return holds(full, valid, j); }, bin_of,
            [&](uint32_t bin) { return low_round.value ? bin & low_mask : bin >> low_bits; },
            [&](uint32_t bin) {
                if constexpr (low_round.value) atomicAdd(sm.hist + bin_slot(bin), 1u);
            });
    };
    /* Round 1 of tile t: my kItems consecutive keys from its ring slot. */
    auto count_tile = [&](uint32_t t) {
        uint32_t no_values[1];
        read_my_pieces<false>(slot_of(t), nullptr, th, k, no_values);
        const uint32_t valid = slice.keys(t);
        with_full(valid, [&](auto full) { count_keys(full, valid, std::true_type{}); });
    };
    /* Raking scan: thread th takes words [th kRows, th kRows + kRows) and turns them into
     * where each (digit, thread) starts in the tile sorted by digit; `aside` (below 2^32)
     * is scanned beside them, its exclusive prefix returned. */
    auto rake = [&](auto with_aside, uint32_t aside) {
        uint32_t *mine = sm.counters + th * kRows;
        uint32_t sum = 0;
#pragma unroll
        for (int i = 0; i < kRows; i++) sum += mine[i];
        uint64_t prefix, total;
        if constexpr (with_aside.value) {
            PairScan(scan_storage.pair).ExclusiveSum((uint64_t)aside << 32 | sum, prefix, total);
        } else {
            uint32_t p, all;
            Scan(scan_storage.one).ExclusiveSum(sum, p, all);
            prefix = p, total = all;
        }
        /* the high halves (odd digits) follow every low one; the words read again, not
         * kept (with them in registers beside the keys this kernel spilled) */
        uint32_t at = (uint32_t)prefix + (((uint32_t)total & 0xffffu) << 16);
#pragma unroll
        for (int i = 0; i < kRows; i++) {
            const uint32_t w = mine[i];
            mine[i] = at;
            at += w;
        }
        return (uint32_t)(prefix >> 32);
    };
    /* My keys to their places in the tile sorted by the round's digit; my
     * counters back to zero (only I read my column outside the scan). Every place before
     * any store, so that the counter loads overlap. */
    auto place_keys = [&](auto full, uint32_t valid, uint32_t *tile) {
#pragma unroll
        for (int j = 0; j < kItems; j++) {
            if (!holds(full, valid, j)) continue;
            const CounterOf c(digit_before[j] & 0xffu);
            digit_before[j] =
                padded(c.in(my_counters[c.row * kCounterThreads] + (digit_before[j] >> 8)));
        }
#pragma unroll
        for (int r = 0; r < kRows; r++) my_counters[r * kCounterThreads] = 0;
#pragma unroll
        for (int j = 0; j < kItems; j++) {
            if (!holds(full, valid, j)) continue;
            tile[digit_before[j]] = k[j];
        }
    };

    if (slice.tiles) {
        pb::wait_async<kStages - 2>(); /* tile 0 */
        __syncthreads();
        count_tile(0);
    }
    for (uint32_t t = 0; t < slice.tiles; t++) {
        __syncthreads(); /* tile t counted by its low digits; tile t - 1 out, its slot free */
        fetch(t + kStages - 1);
        const uint32_t valid = slice.keys(t);
        uint32_t *tile = slot_of(t);
        rake(std::false_type{}, 0);
        __syncthreads();
        with_full(valid, [&](auto full) { place_keys(full, valid, tile); });
        __syncthreads();
        /* 2. Round 2: my kItems consecutive keys of the tile sorted by the low digit (their
         * order the input's among equal low digits), counted by the high digit. Padded
         * places kItems th + j are 33 apart from thread to thread: no bank conflicts. */
        with_full(valid, [&](auto full) {
#pragma unroll
            for (int j = 0; j < kItems; j++) {
                if (!holds(full, valid, j)) continue;
                const uint32_t at = padded(th * kItems + j);
                k[j] = tile[at];
            }
            count_keys(full, valid, std::false_type{});
        });
        __syncthreads();
        /* the histogram's slots [first, first + kSlotsEach), scanned beside the counters:
         * where each bin's run starts in the tile sorted by both digits */
        const uint32_t first = th * kSlotsEach;
        uint32_t sum = 0;
#pragma unroll
        for (uint32_t i = 0; i < kSlotsEach; i++)
            if (first + i < kBinSlots) sum += sm.hist[first + i];
        uint32_t start = rake(std::true_type{}, sum);
#pragma unroll
        for (uint32_t i = 0; i < kSlotsEach; i++) {
            if (first + i >= kBinSlots) break;
            const uint32_t count = sm.hist[first + i];
            sm.delta[first + i] = sm.base[first + i] - start; /* unsigned wrap-around is exact */
            sm.base[first + i] += count;
            sm.hist[first + i] = 0;
            start += count;
        }
        __syncthreads();
        with_full(valid, [&](auto full) { place_keys(full, valid, tile); });
        /* tile t + 1 has landed (this thread's part; the barrier makes it everyone's) */
        pb::wait_async<kStages - 2>();
        __syncthreads();

        /* 3. Out in runs, and the next tile's first round beside it. */
        auto put = [&](uint32_t i, uint32_t at) {
            const T key = reinterpret_cast<const T *>(tile)[at];
            const uint32_t dest = sm.delta[bin_slot(bin_of(key))] + i;
            out_keys[dest] = key;
        };
        for_my_sorted_places<kItems>(valid, th, put);
        if (t + 1 < slice.tiles) count_tile(t + 1);
    }
}

} // namespace pb_ms
