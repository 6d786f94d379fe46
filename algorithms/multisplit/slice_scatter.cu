/* multisplit/auto: our design, stable, for any bin count.
 *
 * Block s of a one-wave grid owns one contiguous slice of the input. One pass over a digit
 * of the bin (the whole bin when there are few):
 *   1. piece_count_kernel (slice_count.cuh): each slice's digit counts, written
 *      digit-major, on a finer grid of its own (one read of the keys; per-thread counters
 *      up to 64 digits, shared atomics above);
 *   2. cub::DeviceScan over the digit-major counts: where slice s's keys of digit d start;
 *   3. slice_scatter_kernel walks its slice in tiles of 16 KB (or wider: wide_tiles).
 *      cp.async brings the next tile into a two-slot ring while this one is worked on,
 *      so the reads never wait on the work. Each warp ranks its keys in input order with
 *      a lane mask a digit (which lanes share my digit) and warp-private counters; a scan
 *      over the warps and digits gives each key its place in the tile sorted by digit;
 *      the sorted tile goes through shared memory and out in runs, consecutive threads to
 *      consecutive addresses. Running per-digit offsets carry the order from tile to tile.
 *      4-byte keys (alone or with values) with at most kCounterMaxDigits digits take
 *      slice_counters.cuh's kernel instead, which ranks by per-thread counters and a raking
 *      scan, with fewer shared-memory steps a key.
 * Keys are read twice and written once: the 12-bytes-per-key bound. Small inputs (up to
 * kFusedMaxKeys) do steps 1 and 2 inside step 3's kernel, launched cooperatively
 * (slice_fused.cuh): one launch a pass instead of four.
 *
 * Per-tile work grows with the digit count (warp counters, the scan), so more than
 * kSinglePassMaxBins bins (kPairsSinglePassMaxBins with values in narrow tiles) take two
 * such passes, least significant digit first (LSD radix sort of the bin, stable), with
 * digits of at most 256; the bins' offsets then come from a search of the sorted output.
 * Up to kSharedCountMaxBins bins over enough keys (shared_count_wanted), both passes take
 * their starting points from one count of the whole bin instead (slice_two_pass.cuh), which
 * also gives the offsets. Range buckets over 4-byte integer keys alone, kTileRoundsMinBins
 * to kTileRoundsMostBins bins, from kTileRoundsMinKeys keys, take one pass whose tiles are
 * sorted by both digits in shared memory (slice_tile_rounds.cuh) after that count. */
#include <stdlib.h>
#include <string.h>

#include <algorithm>

#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>

#include "async_copy.cuh"
#include "grid_dependency.cuh"
#include "search.cuh"
#include "slice_count.cuh"
#include "slice_counters.cuh"
#include "slice_fused.cuh"
#include "slice_tile_rounds.cuh"
#include "slice_tiles.cuh"
#include "slice_two_pass.cuh"

namespace pb_ms {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
/* Whether an unfused scatter is launched to overlap the end of the scan before it
 * (grid_dependency.cuh); 0 for A/B builds. H200, u32 keys alone, 40 / 1024 bins, time
 * against 0 (session 28, multisplit-counter-items.json, results/h200/session28-call4-*):
 * 2^22 keys -4.1/-4.1%, 2^23 -2.5/-3.6%, 2^24 -1.3/-2.2%, 2^25 -1.2/-1.2%, 2^26 to 2^28
 * -0.2 to -0.5% (2^21, fused, -0.3/-0.0%). */
#ifndef PB_MULTISPLIT_PDL
#define PB_MULTISPLIT_PDL 1
#endif
/* The most bins one pass takes, by input size. Measured on the H200 with the lane-mask
 * ranking, one pass against two (u32 keys): at 2^28 keys 256 bins 2.08 against 2.56 ms,
 * 361 2.43 / 2.52, 512 2.94 / 2.56; at 2^22 to 2^24 keys 512 bins 0.063 / 0.082,
 * 0.109 / 0.130 and 0.203 / 0.214 ms but 1024 bins 0.097 / 0.086 at 2^22; at 2^20 keys,
 * where one pass's fewer launches weigh most, 1024 bins 36.8 against 45.8 us (2048: 53.9
 * against 46.2). */
constexpr uint32_t kSinglePassMaxBins = PB_MULTISPLIT_ONE_PASS_MAX_BINS;
constexpr uint64_t kMidInputKeys = 1ull << 24;
constexpr uint32_t kMidSinglePassMaxBins = 512;
constexpr uint64_t kSmallInputKeys = 1ull << 21;
constexpr uint32_t kSmallSinglePassMaxBins = 1024;
/* With values in narrow tiles a block's shared memory holds more bytes a key and the
 * per-digit work weighs more: 2^28 key-value pairs, one pass against two, at 200 bins
 * 3.09 against 3.56 ms, at 361 4.53 against 3.57 (with the values' own staging array of
 * then). Pairs in wide tiles (wide_tiles) take one pass up to kWideTileMaxDigits bins. */
constexpr uint32_t kPairsSinglePassMaxBins = 200;
constexpr int kStages = 2;
/* The fewest keys a count piece takes when a slice is cut in several (two rounds of a
 * count block's loads). */
constexpr uint64_t kCountMinKeys = 8192;

/* Keys per thread of the lane-mask scatter: a tile of 16 KB of keys, with values too (two
 * blocks an SM then, the values' ring beside the keys', sorted values staged in the key
 * ring's slot of the tile). Pairs' tiles of 8 KB, three blocks an SM, were slower (2^28
 * u32 pairs: 361 bins 3.77 against 3.57 ms, 4096 5.35 / 4.29, 65536 11.76 / 7.13).
 *
 * 4-byte keys alone with kWideTileMinDigits to kWideTileMaxDigits digits, more than
 * kSmallInputKeys of them, take wide tiles, 24 KB, two blocks an SM: the per-tile work
 * over the digits (each warp's counters, their scan) then weighs on fewer keys, and each
 * digit's run out of a tile is longer. (More digits, one pass over small inputs, would fit
 * one wide block an SM where two narrow ones fit: not measured, left narrow.) H200, 2^28
 * u32 keys, time against 16 KB tiles (configs/tests/multisplit-tile-shapes.json,
 * results/h200/session18-call6-*): 200 bins 14% less, 256 19%, 361 17%, 65536 (two passes
 * of 256 digits) 19%; at 64 bins 1% more, 128 1% less, 4096 and 12288 (passes of 64 and
 * 128 digits) 1% more to even, 2^23 keys at 200 bins 1% more; 90% of keys in one bin even.
 * Tiles of 20 KB did a little less; of 12 and 8 KB, with four and five blocks an SM, 2 to
 * 43% more time (session18-call5-*); of 32 KB, one block an SM, 12 to 19% more at 200, 256
 * and 65536 bins (session19-call3-*). The build with the rule: 200, 256, 361 and 65536 bins
 * 15 to 19% less time at 2^28, 361 bins 9% less at 2^23; at 2^20 keys (fused passes, two
 * thirds of the blocks) 13% more at 200 and 361 bins, so small inputs keep narrow tiles
 * (session18-call7-*).
 *
 * With values, 4-byte keys with kPairsWideTileMinDigits to kWideTileMaxDigits digits over
 * more than kSmallInputKeys keys take tiles of 32 KB of keys, one block an SM, and one
 * pass up to kWideTileMaxDigits bins: fewer, longer runs out of each tile. H200, 2^28 u32
 * pairs, time against 16 KB tiles, two blocks an SM (configs/tests/multisplit-pairs-tiles
 * .json, session19-call3-*): 128 bins 16% less, 200 30%, 256 21% (one pass against two),
 * 361 5%, 65536 32%, 2^23 pairs at 200 and 361 bins 12 and 20% less, 90% of keys in one
 * bin 12% more at 200 bins but 32% less at 361; tiles of 24 KB (one block) did less.
 * From 17 digits up (40 to 4096 bins) 32 KB pair tiles took 5 to 24% more time
 * (session19-call9-*), hence kPairsWideTileMinDigits.
 * Where two narrow blocks replaced one (their values' staging moved into the key ring),
 * 200 and 65536 bins took 12% more time than with one (session19-call2-*): at these digit
 * counts more blocks, each with more and shorter runs, are slower.
 * PB_MULTISPLIT_TILES=narrow keeps 16 KB tiles, =wide takes wide ones at any digit count and
 * size, for A/B runs. */
constexpr int kWideItems = 24, kPairsWideItems = 32;
constexpr uint32_t kWideTileMinDigits = 129, kWideTileMaxDigits = 384;
constexpr uint32_t kPairsWideTileMinDigits = 65;
template <class T> constexpr int narrow_items() { return 64 / (int)sizeof(T); }
template <class T, bool kPairs> bool wide_tiles(uint32_t max_digits, uint64_t n) {
    const char *knob = getenv("PB_MULTISPLIT_TILES");
    if (knob && strcmp(knob, "narrow") == 0) return false;
    if (knob && strcmp(knob, "wide") == 0) return sizeof(T) == 4;
    const uint32_t least = kPairs ? kPairsWideTileMinDigits : kWideTileMinDigits;
    return sizeof(T) == 4 && max_digits >= least && max_digits <= kWideTileMaxDigits &&
           n > kSmallInputKeys;
}
/* Calls f(std::integral_constant<int, keys a thread>). */
template <class T, bool kPairs, class F> auto with_tile_items(bool wide, F &&f) {
    if constexpr (sizeof(T) == 4) {
        constexpr int kItems = kPairs ? kPairsWideItems : kWideItems;
        if (wide) return f(std::integral_constant<int, kItems>{});
    }
    return f(std::integral_constant<int, narrow_items<T>()>{});
}
/* The blocks an SM the scatter's registers are cut for: three for 4-byte keys in narrow
 * tiles (at most 85 registers), one for wide tiles with values, else two. */
template <class T, bool kPairs, int kItems> constexpr int scatter_min_blocks() {
    if (kItems == narrow_items<T>()) return sizeof(T) == 4 ? 3 : 2;
    return kPairs ? 1 : 2;
}

/* The digit array's element: a byte while digits fit one (plus the sentinel `digits` of an
 * empty slot, which is never stored), else 16 bits; the byte keeps three blocks an SM at
 * 256 digits. Evaluating a range bucket's digit again for the write instead of keeping
 * the array was a wash (H200, 2^28 u32 keys, configs/tests/multisplit-ab.json, time:
 * alone 0 to 2% less, with values 5% less to 2% more, by bin count). */
template <class F> auto with_digit_width(uint32_t digits, F &&f) {
    if (digits <= 256) return f(uint8_t{});
    return f(uint16_t{});
}

/* Shared memory of the scatter kernel, carved from the dynamic allocation. With values,
 * the tile's values are staged sorted in its key ring slot, whose keys are in registers by
 * then, so they take no array of their own beside their ring. */
template <class T, bool kPairs, class DigitT, int kItems> struct TileSmem {
    static constexpr int kTile = kThreads * kItems;
    T *ring;               /* kStages x kTile: tiles on their way in */
    uint32_t *value_ring;  /* kStages x kTile, pairs only */
    T *keys;               /* kTile: the tile, sorted by digit */
    uint32_t *warp_counts; /* kWarps x digits: ranks, then where each warp's run starts */
    uint32_t *tile_count;  /* digits: keys of the digit in this tile */
    uint32_t *delta;       /* digits: global position minus tile position */
    uint32_t *base;        /* digits: where this slice's next key of the digit goes */
    uint32_t *match;       /* kWarps x (digits + 1): lanes of the warp holding each digit */
    DigitT *digit;         /* kTile: digit of each sorted key */

    __host__ __device__ static size_t bytes(uint32_t digits) {
        const size_t value_bytes = kPairs ? (size_t)kStages * kTile * 4 : 0;
        return (size_t)(kStages + 1) * kTile * sizeof(T) + value_bytes +
               (size_t)(kWarps + 3) * digits * 4 + (size_t)kWarps * (digits + 1) * 4 +
               (size_t)kTile * sizeof(DigitT);
    }
    __device__ TileSmem(unsigned char *p, uint32_t digits) {
        /* the widest arrays first, so each stays aligned */
        ring = reinterpret_cast<T *>(p);
        keys = ring + kStages * kTile;
        p += (size_t)(kStages + 1) * kTile * sizeof(T);
        value_ring = reinterpret_cast<uint32_t *>(p);
        p += kPairs ? (size_t)kStages * kTile * 4 : 0;
        warp_counts = reinterpret_cast<uint32_t *>(p);
        tile_count = warp_counts + (size_t)kWarps * digits;
        delta = tile_count + digits;
        base = delta + digits;
        match = base + digits;
        digit = reinterpret_cast<DigitT *>(match + (size_t)kWarps * (digits + 1));
    }
};

/* Three blocks an SM for 4-byte keys in 16 KB tiles (scatter_min_blocks), so one block's
 * barriers overlap the others' work. starts[d * pieces + s * split]: where slice s's keys of digit
 * d go. keys and values must be 16-byte aligned (cp.async). */
template <class T, class Digit, bool kPairs, class DigitT, bool kFused, int kItems>
__global__ void __launch_bounds__(kThreads, (scatter_min_blocks<T, kPairs, kItems>()))
    slice_scatter_kernel(const T *__restrict__ keys, const uint32_t *__restrict__ values,
                         uint64_t n, uint64_t span, Digit digit_of, uint32_t digits,
                         const uint32_t *__restrict__ starts, uint32_t pieces, uint32_t split,
                         FusedScratch fused, T *__restrict__ out_keys,
                         uint32_t *__restrict__ out_values, uint32_t *__restrict__ offsets) {
    using Smem = TileSmem<T, kPairs, DigitT, kItems>;
    constexpr int kTile = Smem::kTile;
    constexpr int kWarpTile = 32 * kItems;
    using Scan = cub::BlockScan<uint32_t, kThreads>;
    __shared__ typename Scan::TempStorage scan_storage;
    extern __shared__ __align__(16) unsigned char dynamic_smem[];
    const Smem sm(dynamic_smem, digits);
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const uint32_t lanes_before = (1u << lane) - 1;
    uint32_t *my_counts = sm.warp_counts + warp * digits;
    uint32_t *my_match = sm.match + warp * (digits + 1);

    const SliceTiles<kTile> slice(n, span);
    /* Tile t into ring slot t % kStages, as one cp.async group (empty past the end). Only
     * the next tile is ever in flight when a thread waits, so waiting for all its groups
     * is waiting for that tile. */
    auto fetch = [&](uint32_t t) {
        if (t < slice.tiles) {
            const uint64_t at = slice.start(t);
            const int slot = t % kStages;
            copy_tile_async<kThreads>(sm.ring + slot * kTile, keys + at, slice.keys(t) * sizeof(T));
            if (kPairs)
                copy_tile_async<kThreads>(sm.value_ring + slot * kTile, values + at,
                                          slice.keys(t) * 4);
        }
        pb::commit_async();
    };

    fetch(0);
    /* kFused (launched cooperatively): the count and the scan of the starts are done here
     * (slice_fused.cuh), starts unused */
    slice_bases<kThreads, kFused, T, Digit, Scan>(keys, slice.begin, slice.end, digit_of, digits,
                                                  fused, starts, pieces, split, sm.tile_count,
                                                  sm.base, offsets, scan_storage);
    for (uint32_t i = threadIdx.x; i < kWarps * digits; i += kThreads) sm.warp_counts[i] = 0;
    for (uint32_t i = threadIdx.x; i < kWarps * (digits + 1); i += kThreads) sm.match[i] = 0;
    /* Thread t scans the digits [first, last) across warps. */
    const uint32_t per_thread = (digits + kThreads - 1) / kThreads;
    const uint32_t first = min(threadIdx.x * per_thread, digits);
    const uint32_t last = min(first + per_thread, digits);
    pb::wait_async_all();
    fetch(1);
    __syncthreads();

    for (uint32_t t = 0; t < slice.tiles; t++) {
        const uint32_t valid = slice.keys(t);
        const int slot = t % kStages;
        const T *ring_keys = sm.ring + slot * kTile;
        /* 1. Rank in input order inside the warp. Warp w owns tile positions
         * [w * kWarpTile, (w + 1) * kWarpTile), item j of lane l is position j * 32 + l in
         * it, so (j, lane) is input order. The lanes sharing a digit find each other by
         * each setting its bit in the warp's mask word of that digit (one shared atomic,
         * whatever the digit count: 6 to 9 ballots a key cost twice the kernel's other
         * work), then take consecutive ranks after what the warp's earlier items of the
         * digit took. The lowest lane of a digit (the leader) alone writes its counter
         * and clears its mask word: no other atomics. Ranking two items a step (a second
         * mask set, half the dependent steps) was not faster: H200, u32 keys, time 5%
         * less to 4% more by bin count at 2^28, 4% less to 5% more (mostly 2 to 5% more)
         * at 2^20 and 2^23 (multisplit-two-masks-*.csv). */
        T k[kItems];
        /* digit (low 16 bits) and rank in the warp (high 16 bits) of each item */
        uint32_t digit_rank[kItems];
        auto rank_items = [&](auto full) {
#pragma unroll
            for (int j = 0; j < kItems; j++) {
                const uint32_t at = warp * kWarpTile + j * 32 + lane;
                const bool here = full.value || at < valid;
                k[j] = here ? ring_keys[at] : T{};
                /* an empty slot takes the sentinel digit, which has its own mask word */
                const uint32_t d = here ? digit_of(k[j]) : digits;
                atomicOr(&my_match[d], 1u << lane);
                __syncwarp();
                const unsigned peers = my_match[d];
                const uint32_t before = my_counts[d]; /* d = digits: a harmless neighbour */
                const uint32_t below = __popc(peers & lanes_before);
                __syncwarp(); /* every lane has read its mask and counter */
                if (below == 0) {
                    my_match[d] = 0;
                    if (full.value || d < digits) my_counts[d] = before + __popc(peers);
                }
                __syncwarp(); /* the next item's lanes see the cleared masks and counters */
                digit_rank[j] = d | (before + below) << 16;
            }
        };
        if (valid == (uint32_t)kTile)
            rank_items(std::true_type{});
        else
            rank_items(std::false_type{});
        __syncthreads();
        /* 2. Per digit: the tile's count, its start in the digit-sorted tile (a block
         * scan), each warp's start, and where the tile's run goes in the output. */
        uint32_t sum = 0;
        for (uint32_t x = first; x < last; x++) {
            uint32_t c = 0;
#pragma unroll
            for (int w = 0; w < kWarps; w++) c += sm.warp_counts[w * digits + x];
            sm.tile_count[x] = c;
            sum += c;
        }
        uint32_t start;
        Scan(scan_storage).ExclusiveSum(sum, start);
        for (uint32_t x = first; x < last; x++) {
            const uint32_t c = sm.tile_count[x];
            uint32_t run = start;
#pragma unroll
            for (int w = 0; w < kWarps; w++) {
                const uint32_t mine = sm.warp_counts[w * digits + x];
                sm.warp_counts[w * digits + x] = run;
                run += mine;
            }
            sm.delta[x] = sm.base[x] - start; /* unsigned wrap-around is exact */
            sm.base[x] += c;
            start += c;
        }
        __syncthreads();
        /* 3. The tile, sorted by digit, into shared memory (values into this tile's key ring
         * slot, whose keys every warp read in step 1); then this warp's counters back to zero
         * for the next tile (only this warp reads them here). */
        const uint32_t *ring_values = sm.value_ring + slot * kTile;
        uint32_t *sorted_values = reinterpret_cast<uint32_t *>(sm.ring + slot * kTile);
#pragma unroll
        for (int j = 0; j < kItems; j++) {
            const uint32_t d = digit_rank[j] & 0xffffu;
            if (d < digits) {
                const uint32_t at = my_counts[d] + (digit_rank[j] >> 16);
                sm.keys[at] = k[j];
                sm.digit[at] = (DigitT)d;
                if constexpr (kPairs)
                    sorted_values[at] = ring_values[warp * kWarpTile + j * 32 + lane];
            }
        }
        __syncwarp();
        for (uint32_t i = lane; i < digits; i += 32) my_counts[i] = 0;
        /* The next tile has landed (this thread's part; the barrier makes it everyone's),
         * and, keys alone, this tile's slot is free for the one after it. */
        pb::wait_async_all();
        __syncthreads();
        if constexpr (!kPairs) {
            fetch(t + kStages);
        }
        /* 4. Out in runs: consecutive threads, consecutive addresses inside a digit. */
#pragma unroll 4
        for (uint32_t i = threadIdx.x; i < valid; i += kThreads) {
            const uint32_t dest = sm.delta[sm.digit[i]] + i;
            out_keys[dest] = sm.keys[i];
            if constexpr (kPairs) out_values[dest] = sorted_values[i];
        }
        /* with values the slot is free once they are out */
        if constexpr (kPairs) {
            __syncthreads();
            fetch(t + kStages);
        }
    }
}

/* offsets[b] = first position of bin b in the bin-sorted keys (n when none follows): G
 * lanes a bin search for the first key not below bin b (pb::kary_step, ceil(log(G+1) n)
 * dependent loads); the probes below it form a prefix, the keys being sorted by bin. */
template <class T, int G>
__global__ void bin_offsets_kernel(const T *__restrict__ sorted, uint64_t n, pb_bucket bucket,
                                   uint32_t *__restrict__ offsets) {
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t b = t / G, j = t % G;
    if (__all_sync(0xffffffffu, b >= bucket.bins)) return; /* the whole warp */
    const uint64_t lo = pb::kary_search_warp<G>(
        0, b < bucket.bins ? n : 0, [&](uint64_t i) { return bin_of(bucket, sorted[i]) < b; });
    if (j == 0 && b < bucket.bins) offsets[b] = (uint32_t)lo;
}

/* A warp a bin up to this many bins, else a thread a bin (H200, 2^20 u32 keys: at 1024
 * bins the warp's 4 dependent loads against a thread's 20 took the run from 53.6 to 49.9
 * us; 8192 bins 56.3 to 55.2; at 12288 even; at 65536 the warps' 32 probes a round made
 * it 81.3 us against 60.2). */
constexpr uint32_t kWarpOffsetsMaxBins = 8192;

/* One pass sorts by (bin >> shift) & mask, which takes `digits` values. */
struct PassDigit {
    uint32_t shift, mask, digits;
};

struct Plan {
    uint32_t bins;
    int passes;
    PassDigit pass[2];
    uint32_t max_digits;
    uint32_t slices;     /* scatter blocks, one slice each */
    uint64_t span;       /* keys per slice, whole tiles */
    uint32_t split;      /* count blocks per slice */
    uint64_t part_span;  /* keys per count block */
    uint32_t copies;     /* histograms per count block */
    bool fused;          /* count and scan inside the scatter kernel (slice_fused.cuh) */
    int counter_rows;    /* the counter scatter's rows (slice_counters.cuh), 0: lane masks */
    int counter_items;   /* and its keys a thread */
    bool wide;           /* the lane-mask scatter's wide tiles (wide_tiles) */
    bool private_counts; /* the count kernel's per-thread counters (slice_count.cuh) */
    bool shared_count;   /* two passes from one count of the whole bin (slice_two_pass.cuh) */
    bool tile_rounds; /* the two digits sorted in each tile, one scatter (slice_tile_rounds.cuh) */
    size_t scan_temp_bytes;
    uint32_t pieces() const { return slices * split; }
    /* the counts of one pass's digits, or of every bin (shared_count, tile_rounds) */
    size_t count_words() const {
        return (size_t)(shared_count || tile_rounds ? bins : max_digits) * pieces();
    }
    /* whether the keys pass through the intermediate array */
    bool two_scatters() const { return passes == 2 && !tile_rounds; }
};

/* Scratch: digit-major counts and their scan, CUB's scan storage, and for two passes the
 * keys (and values) between them. */
template <class T> struct Scratch {
    uint32_t *counts, *starts, *totals;
    uint32_t *high_bases; /* shared_count: pass 2's starting points, digit-major */
    void *scan_temp;
    T *mid_keys;
    uint32_t *mid_values;
};

/* The count kernel's histograms: one per warp while 8 blocks of them fit an SM. */
inline uint32_t count_copies(uint32_t digits) {
    const uint32_t fit = (24u << 10) / (digits * 4);
    return fit < 1 ? 1 : fit > (uint32_t)kCountWarps ? (uint32_t)kCountWarps : fit;
}

/* Whether passes of at most `digits` digits count in per-thread counters, unless
 * PB_MULTISPLIT_COUNT is "atomics" (for A/B runs). */
inline bool private_counts_wanted(uint32_t digits) {
    const char *knob = getenv("PB_MULTISPLIT_COUNT");
    if (knob && strcmp(knob, "atomics") == 0) return false;
    return digits <= kPrivateCountMaxDigits;
}

/* Calls f(count kernel, its shared memory bytes) for a pass of `digits` digits. */
template <class T, class Digit, class F>
auto with_count_kernel(const Plan &p, uint32_t digits, F &&f) {
    if (p.private_counts) return f(piece_count_kernel<T, Digit, true>, private_count_bytes(digits));
    return f(piece_count_kernel<T, Digit, false>, (size_t)p.copies * digits * 4);
}

/* Inputs up to this many keys take fused passes (slice_fused.cuh), unless
 * PB_MULTISPLIT_FUSED is 0 (never) or 1 (whenever the grid allows) for A/B runs. H200,
 * u32 keys, 40 to 65536 bins, fused time against unfused (configs/tests/multisplit-fused
 * .json): at 2^20 keys 6 to 25% less (12288 bins 43.9 against 55.5 us), at 2^21 7% less to
 * 0.4% more, at 2^22 0 to 4% more alone and 5 to 10% with values, at 2^23 7 to 22% more:
 * likely because the fused count reads with a scatter's few blocks, the count kernel with
 * many (not profiled). */
constexpr uint64_t kFusedMaxKeys = 1ull << 21;

inline bool fused_wanted(uint64_t n) {
    const char *knob = getenv("PB_MULTISPLIT_FUSED");
    if (knob && *knob) return *knob != '0';
    return n <= kFusedMaxKeys;
}

/* The most digits a pass of the counter scatter takes: kCounterMaxDigits, or fewer by
 * PB_MULTISPLIT_COUNTER_MAX_DIGITS for A/B runs (42: session 30's rule, before 33 rows;
 * 66: session 31's, before 65). */
inline uint32_t counter_max_digits_asked() {
    const char *knob = getenv("PB_MULTISPLIT_COUNTER_MAX_DIGITS");
    const unsigned long asked = knob && *knob ? strtoul(knob, nullptr, 10) : kCounterMaxDigits;
    return asked < kCounterMaxDigits ? (uint32_t)asked : kCounterMaxDigits;
}

/* The counter rows a pass of `digits` digits takes (counter_rows), or for A/B runs, where
 * PB_MULTISPLIT_COUNTER_SKIP_ROWS names that choice, the next one up (none past the
 * most). */
inline int pass_counter_rows(uint32_t digits, bool pairs) {
    const int rows = counter_rows(digits, pairs);
    const char *knob = getenv("PB_MULTISPLIT_COUNTER_SKIP_ROWS");
    if (rows == 0 || !knob || !*knob || strtol(knob, nullptr, 10) != rows) return rows;
    return counter_rows(2 * rows + 1, pairs);
}

/* Passes of at most kCounterMaxDigits digits over 4-byte keys take the counter scatter
 * (slice_counters.cuh), unless PB_MULTISPLIT_RANK is "masks" (for A/B runs). H200, 2^28 u32
 * keys, time against the lane masks (configs/tests/multisplit-counters.json,
 * multisplit-few-bins.json): 1 to 40 bins 44 to 6% less, 90% of keys in one bin 34% (40
 * bins) and 38% (512) less, 512 bins (two passes of 16 and 32 digits) 4% less, 1024 even;
 * 64 bins with 33 rows then 2 to 4% more (session 17). 33 rows (43 to 66 digits) on
 * today's kernel, one binary against PB_MULTISPLIT_COUNTER_MAX_DIGITS=42 (session 31 call
 * 1, configs/tests/multisplit-counter-rows.json, results/h200/session31-call1-*), 2^28 u32
 * keys alone: 48, 64, 66 bins -14 to -16% (64: 1.2950 -> 1.1033 ms), 2048, 3000, 4096
 * (two passes, the second of 64, 47, 64 digits) -14 to -16% (4096: 2.4046 -> 2.0253);
 * with values -9 to -16% and -8 to -13%; 90% of keys in one bin -40 and -43%, binomial
 * -7.5 and -12%; 2^24 keys -13 and -16% (values -7%), 2^22 -11% (values -1%), 2^20 (16
 * keys a thread) -0 to -4%. 65 rows (67 to 130 digits; one block an SM at 32 keys a
 * thread), one binary against PB_MULTISPLIT_COUNTER_MAX_DIGITS=66 (session 32 call 1,
 * configs/tests/multisplit-counter-rows-65.json, results/h200/session32-call1-*), 2^28
 * u32 keys alone: 100 and 128 bins -3.7 and -6.0%, 5000, 8192 and 12288 (two passes of
 * 64 x 79, 64 x 128, 128 x 96) -2.1, -4.5 and -1.8%; with values 100, 128, 8192, 12288
 * -11.1, -6.5, -11.8, -8.7%; 90% of keys in one bin, 128 bins -26.8%, binomial +3.1%;
 * 2^25 keys 100 and 8192 bins -1.6 and -6.3%, with values 100 -12.9%; 2^20 keys (16 a
 * thread) 100 and 8192 +0.6 and -0.5%, with values 100 +5.1%. 65 rows at 16 keys a
 * thread (two blocks an SM; PB_MULTISPLIT_COUNTER_ITEMS=16) took 8 to 12% more time than
 * the masks at 2^28 keys alone, 11 to 23% with values. Passes of 67 to 82 digits then
 * took 41 rows, two blocks an SM (session 32 call 4, configs/tests/multisplit-counter-
 * rows-41.json, results/h200/session32-call4-*), against the masks: 2^28 keys 72, 80
 * and 5000 bins -13.9, -14.9 and -15.6%, binomial 80 and 5000 -7.3 and -11.4%, with
 * values -15.3, -13.7 and -16.1%; 2^23 to 2^26 keys -4.5 to -16.2%; 2^20 keys -1.7 to
 * +5.3%. With values (session
 * 29, one binary, configs/tests/multisplit-pairs-counters.json, results/h200/
 * session29-call1-*), 2^28 u32 pairs, 32 keys a thread: 40 bins 5.8% less (1.8163 ->
 * 1.7112 ms), 512 1.6% less, 1024 2.5% less, 90% of keys in one bin 26 to 28% less; 2^25
 * pairs at 40 bins 3.6% less, 2^23 even. */
template <class T> int counter_rows_wanted(uint32_t max_digits, bool pairs) {
    if (sizeof(T) != 4) return 0;
    const char *knob = getenv("PB_MULTISPLIT_RANK");
    if (knob && strcmp(knob, "masks") == 0) return 0;
    if (max_digits > counter_max_digits_asked()) return 0;
    return pass_counter_rows(max_digits, pairs);
}

/* The counter scatter's keys a thread (counter_items_for), or PB_MULTISPLIT_COUNTER_ITEMS (one
 * of kCounterItemChoices) for A/B runs. */
inline int counter_items_wanted(uint64_t n) {
    const char *knob = getenv("PB_MULTISPLIT_COUNTER_ITEMS");
    const int asked = knob ? (int)strtol(knob, nullptr, 10) : 0;
    for (int items : kCounterItemChoices)
        if (asked == items) return items;
    return counter_items_for(n);
}

/* Two passes over at most kSharedCountMaxBins bins (a histogram of 12288 fills the count
 * kernel's 48 KB of shared memory) take their starting points from one count of the whole
 * bin (slice_two_pass.cuh) over more than kSharedCountMinKeys keys, and at least
 * kSharedCountKeysAWord keys a word of its counts (bins x pieces). The one count saves a
 * read of the keys but scans bins x pieces words instead of digits x pieces, and adds two
 * small kernels. H200, u32 keys, time against a count a pass, one binary
 * (PB_MULTISPLIT_SHARED_COUNT=0) unless said:
 *   - 2^28 keys: 1024 bins -9.4% (2.1194 -> 1.9205 ms), 4096 -7.5%, 90% of keys in one bin
 *     -2.9% (session 29 call 4, multisplit-shared-count-short.json); 512 to 12288 bins
 *     -7.2 to -9.6%, with values -3.1 to -6.3% (call 3);
 *   - 2^24 keys, 1024 bins -6.8%; 2^22 keys +8.0% (session 29 call 4);
 *   - 2^23 keys, 1024 / 4096 bins: -0.6 / +15.5%, with values -4.4 / +18.8%; 3 x 2^22
 *     keys: -4.5 / +9.5%, with values -6.1 / +10.7% (session 30 call 3,
 *     multisplit-shared-count-crossover.json);
 *   - configs/multisplit.json's rows (results/h200/multisplit.csv; across calls: session
 *     30 call 4 or 5, against session 28's count a pass): 2^23 keys, 2048 to 12288 bins +6
 *     to +59%; 2^24 keys, 2048 bins -6%, 4096 0%, 5000 +3%, 8192 +12%, 12288 +22 to 29%;
 *     2^25 keys, 4096 -6%, 5000 -4%, 8192 +2%, 12288 +9%.
 * The break-even is near 10 keys a word from 2^24 keys up, more below.
 * PB_MULTISPLIT_SHARED_COUNT (tests and A/B runs): 0 never, 1 wherever the bins allow. */
constexpr uint32_t kSharedCountMaxBins = 12288;
constexpr uint64_t kSharedCountMinKeys = 1ull << 23;
constexpr uint64_t kSharedCountKeysAWord = 10;
inline bool shared_count_wanted(uint32_t bins, uint64_t n, uint32_t pieces) {
    const char *knob = getenv("PB_MULTISPLIT_SHARED_COUNT");
    if (knob && *knob == '0') return false;
    if (bins > kSharedCountMaxBins) return false;
    if (knob && *knob == '1') return true;
    return n > kSharedCountMinKeys && n >= kSharedCountKeysAWord * bins * pieces;
}

/* Range buckets over 4-byte integer keys alone (Range32Digit) with kTileRoundsMinBins to
 * kTileRoundsMostBins bins, from kTileRoundsMinKeys keys, take one pass sorting each tile
 * by both digits (slice_tile_rounds.cuh, which gives the measurements), from a count of the
 * whole bin. PB_MULTISPLIT_TILE_ROUNDS (tests and A/B runs): 0 never; 1 wherever the kernel
 * can (more bins than its high digit takes, up to kTileRoundsMaxBins, inputs too big for
 * fused passes). PB_MULTISPLIT_RANK=masks: never. */
constexpr uint32_t kTileRoundsMinBins = 320, kTileRoundsMostBins = 384;
constexpr uint64_t kTileRoundsMinKeys = 1ull << 26;
template <class T, class Digit, bool kPairs> bool tile_rounds_wanted(uint32_t bins, uint64_t n) {
    if (kPairs || !std::is_same<Digit, Range32Digit>::value ||
        counter_rows_wanted<T>(1, false) == 0)
        return false;
    const char *knob = getenv("PB_MULTISPLIT_TILE_ROUNDS");
    if (knob && *knob == '0') return false;
    if (knob && *knob == '1')
        return bins > kTileRoundsMaxHighDigits && bins <= kTileRoundsMaxBins && n > kFusedMaxKeys;
    return bins >= kTileRoundsMinBins && bins <= kTileRoundsMostBins && n >= kTileRoundsMinKeys;
}

inline bool device_cooperative() {
    int device = 0, yes = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&yes, cudaDevAttrCooperativeLaunch, device);
    return yes != 0;
}

template <class K> int resident_blocks(K kernel, int threads, size_t smem) {
    int blocks = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, smem);
    return blocks > 0 ? blocks : 1;
}

/* Pairs of 4-byte keys from kPairsCounterPassesMinKeys keys take one pass only up to
 * kPairsCounterPassesAbove bins: above, two passes of the counter scatter (of at most 16
 * and 24 digits up to 384 bins) from one count. H200, 2^28 u32 pairs, one binary, two
 * passes (PB_MULTISPLIT_ONE_PASS_MAX=256) against one pass of wide lane-mask tiles
 * (configs/tests/multisplit-pairs-two-pass.json, results/h200/session31-call1-*): 300 bins
 * +8.3%, 361 -3.7% (3.2235 -> 3.1040 ms), 384 -4.5%; the even point by these, about 340. */
constexpr uint32_t kPairsCounterPassesAbove = 340;
constexpr uint64_t kPairsCounterPassesMinKeys = 1ull << 26;

/* Whether `bins` bins of n keys take one pass: up to kSinglePassMaxBins (fewer keys:
 * kMidSinglePassMaxBins, kSmallSinglePassMaxBins; values: kPairsSinglePassMaxBins), or up
 * to PB_MULTISPLIT_ONE_PASS_MAX for A/B runs, while one pass's shared memory fits a block
 * (with 2 KB to spare for the kernel's static part, the scan's); pairs, the rule above. */
template <class T, bool kPairs> bool one_pass(uint32_t bins, uint64_t n) {
    const bool wide = wide_tiles<T, kPairs>(bins, n);
    const bool counter_passes =
        kPairs && n >= kPairsCounterPassesMinKeys && counter_rows_wanted<T>(1, kPairs) != 0;
    uint32_t most = kPairs && wide && counter_passes ? kPairsCounterPassesAbove
                    : kPairs && wide                 ? kWideTileMaxDigits
                    : kPairs                         ? kPairsSinglePassMaxBins
                    : n <= kSmallInputKeys           ? kSmallSinglePassMaxBins
                    : n <= kMidInputKeys             ? kMidSinglePassMaxBins
                                                     : kSinglePassMaxBins;
    const char *knob = getenv("PB_MULTISPLIT_ONE_PASS_MAX");
    if (knob && *knob) most = (uint32_t)strtoul(knob, nullptr, 10);
    const size_t bytes = with_tile_items<T, kPairs>(
        wide, [&](auto items) { return TileSmem<T, kPairs, uint16_t, items.value>::bytes(bins); });
    return bins <= most && bytes + 2048 <= (size_t)device_smem_optin();
}

/* Blocks of a scatter kernel an SM; a fused grid must all be resident at once, so it
 * takes the fewer of the plain and the fused kernel's. */
template <class K> int scatter_blocks_per_sm(K plain, K fused, size_t smem, bool fused_candidate) {
    allow_smem(plain, smem);
    int blocks = resident_blocks(plain, kThreads, smem);
    if (fused_candidate) {
        allow_smem(fused, smem);
        const int fused_blocks = resident_blocks(fused, kThreads, smem);
        if (fused_blocks < blocks) blocks = fused_blocks;
    }
    return blocks;
}

/* At most this many scatter blocks an SM: PB_MULTISPLIT_BLOCKS_PER_SM, for A/B runs (fewer
 * slices, each longer: fewer runs in flight at once). */
inline int scatter_blocks_per_sm_asked() {
    const char *knob = getenv("PB_MULTISPLIT_BLOCKS_PER_SM");
    const int asked = knob ? (int)strtol(knob, nullptr, 10) : 0;
    return asked > 0 ? asked : 1 << 30;
}

/* Calls f(plain kernel, fused kernel, shared memory bytes) for the scatter a pass of
 * `digits` digits takes under plan p: the counter scatter (the rows these digits need, the
 * plan's keys a thread), or the lane-mask one with digits of the width the most digits of
 * the plan need, in wide tiles or not. */
template <class T, class Digit, bool kPairs, class F>
auto with_scatter_kernel(const Plan &p, uint32_t digits, F &&f) {
    const bool wide = p.wide;
    const uint32_t max_digits = p.max_digits;
    if constexpr (sizeof(T) == 4 && std::is_same<Digit, Range32Digit>::value && !kPairs) {
        if (p.tile_rounds)
            return with_counter_rows<kTileRoundsMaxRows>(
                counter_rows(max_digits, false), [&](auto r) {
                    constexpr int kRows = r.value;
                    auto kernel = tile_rounds_kernel<T, kRows, kTileRoundsItems>;
                    return f(kernel, kernel, RoundsSmem<kRows, kTileRoundsItems>::bytes());
                });
    }
    if constexpr (sizeof(T) == 4) {
        if (p.counter_rows)
            return with_counter_rows(pass_counter_rows(digits, kPairs), [&](auto r) {
                return with_counter_items(p.counter_items, [&](auto items) {
                    /* (pairs never take kCounterMidRows: no kernel built for them) */
                    constexpr int kRows =
                        kPairs && r.value == kCounterMidRows ? kCounterMostRows : r.value;
                    constexpr int kItems = items.value;
                    return f(counter_scatter_kernel<T, Digit, kRows, false, kItems, kPairs>,
                             counter_scatter_kernel<T, Digit, kRows, true, kItems, kPairs>,
                             CounterSmem<kRows, kItems, Digit, kPairs>::bytes(digits));
                });
            });
    }
    return with_digit_width(max_digits, [&](auto width) {
        using DigitT = decltype(width);
        return with_tile_items<T, kPairs>(wide, [&](auto items) {
            constexpr int kItems = items.value;
            return f(slice_scatter_kernel<T, Digit, kPairs, DigitT, false, kItems>,
                     slice_scatter_kernel<T, Digit, kPairs, DigitT, true, kItems>,
                     TileSmem<T, kPairs, DigitT, kItems>::bytes(digits));
        });
    });
}

template <class T, class Digit, bool kPairs> Plan make_plan(const pb_multisplit_args *a) {
    Plan p{};
    const uint32_t bins = a->bucket.bins;
    p.bins = bins;
    p.tile_rounds = tile_rounds_wanted<T, Digit, kPairs>(bins, a->n);
    if (!p.tile_rounds && one_pass<T, kPairs>(bins, a->n)) {
        p.passes = 1;
        p.pass[0] = {0, 0xffffffffu, bins};
    } else {
        /* low digit of 2^low_bits values first, then the rest (both <= 256; with
         * tile_rounds, at most kTileRoundsMaxLowDigits and kTileRoundsMaxHighDigits) */
        const int bits = bits_for(bins);
        const int low_bits = bits / 2;
        p.passes = 2;
        p.pass[0] = {0, (1u << low_bits) - 1, 1u << low_bits};
        p.pass[1] = {(uint32_t)low_bits, 0xffffffffu, ((bins - 1) >> low_bits) + 1};
    }
    p.max_digits = p.pass[0].digits > p.pass[1].digits ? p.pass[0].digits : p.pass[1].digits;
    /* every pass's digits take the width (or the counter rows, or the tiles) of the most
     * digits */
    p.counter_rows = counter_rows_wanted<T>(p.max_digits, kPairs);
    p.counter_items = p.tile_rounds ? kTileRoundsItems : counter_items_wanted(a->n);
    p.wide = p.counter_rows == 0 && wide_tiles<T, kPairs>(p.max_digits, a->n);
    static_assert(kCounterThreads == kThreads, "both scatters launch kThreads");
    const uint64_t kTile = p.counter_rows ? (uint64_t)kThreads * p.counter_items
                                          : with_tile_items<T, kPairs>(p.wide, [](auto items) {
                                                return (uint64_t)kThreads * items.value;
                                            });
    const uint64_t tiles = (a->n + kTile - 1) / kTile;
    const int sms = device_sms();
    const bool fused_candidate = !p.tile_rounds && fused_wanted(a->n) && device_cooperative();
    const int per_sm =
        std::min(with_scatter_kernel<T, Digit, kPairs>(p, p.max_digits,
                                                       [&](auto plain, auto fused, size_t smem) {
                                                           return scatter_blocks_per_sm(
                                                               plain, fused, smem, fused_candidate);
                                                       }),
                 scatter_blocks_per_sm_asked());
    const uint64_t resident = (uint64_t)sms * per_sm;
    p.slices = (uint32_t)(tiles < resident ? tiles : resident);
    p.fused = fused_candidate && p.slices <= fused_max_slices<kThreads>();
    p.span = (tiles + p.slices - 1) / p.slices * kTile;
    /* the count's grid: as many blocks as fit at once, whole slices apart */
    p.copies = count_copies(p.max_digits);
    auto cut_pieces = [&] {
        const uint64_t count_resident =
            (uint64_t)sms *
            with_count_kernel<T, Digit>(p, p.max_digits, [&](auto kernel, size_t smem) {
                return resident_blocks(kernel, kCountThreads, smem);
            });
        /* Rounded down, so the grid is one wave: rounded up, 2^28 u32 keys took 1188 blocks
         * where 1056 fit, and the last 132 ran alone. H200, same call, time against rounding
         * up (configs/tests/multisplit-count-l2-ab.json, session23-multisplit-onewave-*):
         * keys alone at 2^28 2.0 to 2.2% less (8, 40 and 1024 bins), every other case of
         * 2^20 to 2^28 keys, pairs and u64 within 0.4%. */
        p.split = (uint32_t)std::max<uint64_t>(count_resident / p.slices, 1);
        /* but at least kCountMinKeys keys a piece: each piece also clears, flushes and scans
         * its digits' counters, which at 2^20 keys and hundreds of digits outweighed its keys */
        const uint64_t most = p.span / kCountMinKeys;
        if (p.split > most) p.split = most > 1 ? (uint32_t)most : 1;
        p.part_span = (p.span / p.split + 1023) / 1024 * 1024;
    };
    p.private_counts = private_counts_wanted(p.max_digits);
    cut_pieces();
    if (p.private_counts && !private_count_fits(p.max_digits, p.part_span)) {
        p.private_counts = false; /* and the atomics' grid */
        cut_pieces();
    }
    p.shared_count = p.two_scatters() && !p.fused && shared_count_wanted(bins, a->n, p.pieces());
    cub::DeviceScan::ExclusiveSum(nullptr, p.scan_temp_bytes, (uint32_t *)nullptr,
                                  (uint32_t *)nullptr, (int)p.count_words());
    return p;
}

template <class T>
Scratch<T> carve(const pb_multisplit_args *a, const Plan &p, void *base, size_t *bytes) {
    Carver c{static_cast<char *>(base)};
    Scratch<T> s{};
    s.counts = c.take<uint32_t>(p.count_words());
    s.starts = c.take<uint32_t>(p.count_words());
    s.totals = c.take<uint32_t>(p.max_digits);
    if (p.shared_count) s.high_bases = c.take<uint32_t>((size_t)p.pass[1].digits * p.slices);
    s.scan_temp = c.take<unsigned char>(p.scan_temp_bytes);
    if (p.two_scatters()) {
        s.mid_keys = c.take<T>(a->n);
        if (a->values) s.mid_values = c.take<uint32_t>(a->n);
    }
    *bytes = c.used;
    return s;
}

/* Counts `digits` digits of every piece of keys into s.counts (plan q's count kernel) and
 * scans them into s.starts: where piece p's keys of digit d go, starts[d * pieces + p]. */
template <class T, class Digit>
cudaError_t count_and_scan(const Plan &q, const Digit &digit, uint32_t digits, Scratch<T> &s,
                           const T *keys, uint64_t n, cudaStream_t stream) {
    with_count_kernel<T, Digit>(q, digits, [&](auto kernel, size_t smem) {
        kernel<<<q.pieces(), kCountThreads, smem, stream>>>(keys, n, q.span, q.split, q.part_span,
                                                            digit, digits, q.copies, s.counts);
    });
    size_t temp = q.scan_temp_bytes;
    return cub::DeviceScan::ExclusiveSum(s.scan_temp, temp, s.counts, s.starts,
                                         (int)(digits * q.pieces()), stream);
}

/* One pass's scatter: block b writes its slice's first key of digit d to
 * starts[d * pieces + b * split] (unused when fused: counted and scanned in the kernel). */
template <class T, class Digit, bool kPairs>
cudaError_t scatter(const Digit &digit, uint32_t digits, const Plan &p, Scratch<T> &s,
                    const uint32_t *starts, uint32_t pieces, uint32_t split, const T *keys,
                    const uint32_t *values, uint64_t n, T *out_keys, uint32_t *out_values,
                    uint32_t *offsets, cudaStream_t stream) {
    return with_scatter_kernel<T, Digit, kPairs>(
        p, digits, [&](auto plain, auto fused, size_t smem) {
            auto kernel = p.fused ? fused : plain;
            allow_smem(kernel, smem);
            /* fused: cooperative (its grid barriers); else overlapping the end of the kernel
             * before it (the kernel waits for it before it reads the starts) */
            cudaLaunchAttribute attr{};
            if (p.fused) {
                attr.id = cudaLaunchAttributeCooperative;
                attr.val.cooperative = 1;
            } else {
                attr = pb::overlap_prior_grid();
            }
            cudaLaunchConfig_t config{};
            config.gridDim = p.slices;
            config.blockDim = kThreads;
            config.dynamicSmemBytes = smem;
            config.stream = stream;
            config.attrs = &attr;
            config.numAttrs = p.fused || PB_MULTISPLIT_PDL ? 1 : 0;
            return cudaLaunchKernelEx(&config, kernel, keys, values, n, p.span, digit, digits,
                                      starts, pieces, split, FusedScratch{s.counts, s.totals},
                                      out_keys, out_values, offsets);
        });
}

template <class T, class Digit, bool kPairs>
cudaError_t run_pass(const Digit &digit, uint32_t digits, const Plan &p, Scratch<T> &s,
                     const T *keys, const uint32_t *values, uint64_t n, T *out_keys,
                     uint32_t *out_values, uint32_t *offsets, cudaStream_t stream) {
    if (!p.fused) {
        const cudaError_t e = count_and_scan<T, Digit>(p, digit, digits, s, keys, n, stream);
        if (e != cudaSuccess) return e;
    }
    return scatter<T, Digit, kPairs>(digit, digits, p, s, s.starts, p.pieces(), p.split, keys,
                                     values, n, out_keys, out_values, offsets, stream);
}

/* Counts every bin of every piece (per-thread counters where the bins fit them, else the
 * atomics' kernel with as many histograms as fit) into s.counts and scans them into
 * s.starts: where piece p's keys of bin b go, starts[b * pieces + p]. */
template <class T, class Digit>
cudaError_t count_whole_bins(const pb_multisplit_args *a, const Plan &p, Scratch<T> &s,
                             cudaStream_t stream) {
    Plan whole = p;
    whole.private_counts = private_counts_wanted(p.bins) && private_count_fits(p.bins, p.part_span);
    whole.copies = count_copies(p.bins);
    return count_and_scan<T, Digit>(whole, Digit::make(a->bucket, 0, 0xffffffffu), p.bins, s,
                                    static_cast<const T *>(a->keys), a->n, stream);
}

/* One pass, each tile sorted by both digits (slice_tile_rounds.cuh), from the count of the
 * whole bin; the kernel's rule shifts by the low digit's width. */
template <class T, class Digit, bool kPairs>
cudaError_t run_tile_rounds(const pb_multisplit_args *a, const Plan &p, Scratch<T> &s,
                            cudaStream_t stream) {
    const cudaError_t e = count_whole_bins<T, Digit>(a, p, s, stream);
    if (e != cudaSuccess) return e;
    return scatter<T, Digit, kPairs>(
        Digit::make(a->bucket, p.pass[1].shift, 0xffffffffu), p.bins, p, s, s.starts, p.pieces(),
        p.split, static_cast<const T *>(a->keys), a->values, a->n, static_cast<T *>(a->out_keys),
        a->out_values, a->offsets, stream);
}

/* Both passes from one count of the whole bin (slice_two_pass.cuh): keys -> mid by the low
 * digit, mid -> out by the high one. */
template <class T, class Digit, bool kPairs>
cudaError_t run_two_passes_one_count(const pb_multisplit_args *a, const Plan &p, Scratch<T> &s,
                                     cudaStream_t stream) {
    const T *keys = static_cast<const T *>(a->keys);
    cudaError_t e = count_whole_bins<T, Digit>(a, p, s, stream);
    if (e != cudaSuccess) return e;
    const uint32_t *bin_starts = s.starts, pieces = p.pieces();
    const uint32_t low_bits = p.pass[1].shift;
    /* pass 1's starts in place of the counts, which the scan has read */
    const dim3 grid(p.pass[0].digits, (pieces + kTwoPassThreads - 1) / kTwoPassThreads);
    low_digit_starts_kernel<<<grid, kTwoPassThreads, 0, stream>>>(
        bin_starts, p.bins, low_bits, pieces, a->n, s.counts, a->offsets);
    const Digit low = Digit::make(a->bucket, 0, p.pass[0].mask);
    e = scatter<T, Digit, kPairs>(low, p.pass[0].digits, p, s, s.counts, pieces, p.split, keys,
                                  a->values, a->n, s.mid_keys, s.mid_values, nullptr, stream);
    if (e != cudaSuccess) return e;
    const Digit high = Digit::make(a->bucket, low_bits, p.pass[1].mask);
    high_digit_bases_kernel<<<p.slices, kBasesThreads, 0, stream>>>(
        s.mid_keys, a->n, p.span, high, p.pass[1].digits, s.counts, low_bits, pieces, bin_starts,
        p.bins, s.high_bases);
    return scatter<T, Digit, kPairs>(high, p.pass[1].digits, p, s, s.high_bases, p.slices, 1,
                                     s.mid_keys, s.mid_values, a->n, static_cast<T *>(a->out_keys),
                                     a->out_values, nullptr, stream);
}

/* Calls f(digit rule, pairs) with the kernels' template arguments for these arguments. */
template <class T, class F> int with_variant(const pb_multisplit_args *a, F &&f) {
    return with_digit_type<T>(a->bucket, [&](auto rule) {
        return a->values ? f(rule, std::true_type{}) : f(rule, std::false_type{});
    });
}

template <class T, class Digit, bool kPairs>
int launch_variant(const pb_multisplit_args *a, cudaStream_t stream) {
    if (a->n == 0) return (int)cudaMemsetAsync(a->offsets, 0, a->bucket.bins * 4, stream);
    /* cp.async copies whole 16-byte pieces of the tiles */
    if ((uintptr_t)a->keys % 16 || (uintptr_t)a->values % 16)
        return (int)cudaErrorMisalignedAddress;
    const Plan p = make_plan<T, Digit, kPairs>(a);
    size_t bytes = 0;
    Scratch<T> s = carve<T>(a, p, a->scratch, &bytes);
    const T *keys = static_cast<const T *>(a->keys);
    T *out = static_cast<T *>(a->out_keys);
    /* the last pass's scatter also writes the bins' offsets when the digit is the bin */
    auto pass = [&](int i, const T *in, const uint32_t *in_values, T *to, uint32_t *to_values) {
        uint32_t *offsets = p.passes == 1 ? a->offsets : nullptr;
        const Digit rule = Digit::make(a->bucket, p.pass[i].shift, p.pass[i].mask);
        return run_pass<T, Digit, kPairs>(rule, p.pass[i].digits, p, s, in, in_values, a->n, to,
                                          to_values, offsets, stream);
    };
    cudaError_t e;
    if (p.passes == 1) {
        e = pass(0, keys, a->values, out, a->out_values);
    } else if (p.tile_rounds) {
        e = run_tile_rounds<T, Digit, kPairs>(a, p, s, stream);
    } else if (p.shared_count) {
        e = run_two_passes_one_count<T, Digit, kPairs>(a, p, s, stream);
    } else {
        e = pass(0, keys, a->values, s.mid_keys, s.mid_values);
        if (e == cudaSuccess) e = pass(1, s.mid_keys, s.mid_values, out, a->out_values);
        if (e == cudaSuccess && a->bucket.bins <= kWarpOffsetsMaxBins)
            bin_offsets_kernel<T, 32>
                <<<(a->bucket.bins + 7) / 8, 256, 0, stream>>>(out, a->n, a->bucket, a->offsets);
        else if (e == cudaSuccess)
            bin_offsets_kernel<T, 1><<<(a->bucket.bins + 255) / 256, 256, 0, stream>>>(
                out, a->n, a->bucket, a->offsets);
    }
    if (e == cudaSuccess) e = cudaGetLastError();
    return (int)e;
}

} // namespace
} // namespace pb_ms

extern "C" int pb_multisplit_slice_plan(const struct pb_multisplit_args *a, size_t *scratch_bytes) {
    return pb_ms::with_key_type(a->bucket.dtype, [&](auto key) {
        using T = decltype(key);
        return pb_ms::with_variant<T>(a, [&](auto rule, auto pairs) {
            const pb_ms::Plan p = pb_ms::make_plan<T, decltype(rule), pairs.value>(a);
            pb_ms::carve<T>(a, p, nullptr, scratch_bytes);
            return (int)cudaGetLastError();
        });
    });
}

extern "C" int pb_multisplit_slice_launch(const struct pb_multisplit_args *a, cudaStream_t stream) {
    return pb_ms::with_key_type(a->bucket.dtype, [&](auto key) {
        using T = decltype(key);
        return pb_ms::with_variant<T>(a, [&](auto rule, auto pairs) {
            return pb_ms::launch_variant<T, decltype(rule), pairs.value>(a, stream);
        });
    });
}
