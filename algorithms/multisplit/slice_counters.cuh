/* multisplit/auto's scatter for passes of few digits over 4-byte keys: each key ranked
 * by its own thread's counter instead of a warp's lane masks.
 *
 * The lane-mask scatter (slice_scatter.cu) is held up by shared memory: at 40 bins ncu
 * counted 27 wavefronts a warp's item, half of them bank conflicts, most from the ranking
 * (an atomic, two reads and two stores a key, all to digit-indexed words). Here:
 *   - thread t owns tile positions [kItems t, kItems (t + 1)) (blocked), read from the ring
 *     as 16-byte pieces; the ring's pieces are swizzled so that these reads, and cp.async's
 *     writes, fill every bank once;
 *   - a key adds one to its thread's counter of its digit, counters[row][t] with row = d / 2,
 *     two 16-bit counters a word (even digits in the low half). Column t is thread t's
 *     alone: a shared atomic on bank t % 32 whatever the digit, never contended, which
 *     returns the count before the key without a load-store chain from key to key;
 *   - one raking scan over the words in (row, thread) order turns them into where each
 *     (digit, thread) starts in the tile sorted by digit, stable; the high halves add the
 *     low halves' total, so the tile holds the even digits' runs, then the odd ones' (the
 *     order of the runs does not matter: each goes out to its own place). kRows is odd, so
 *     the rakers' reads do not collide either;
 *   - a key's place is that start plus the thread's earlier keys of its digit.
 * The raking costs about 3 kRows / 16 shared-memory steps a key (read, write, clear), so
 * this pays only for few digits. The sorted tile goes where it came from (its ring slot,
 * read into registers by then), and out in runs as in the lane-mask scatter. */
#pragma once

#include <type_traits>

#include <cub/block/block_scan.cuh>

#include "slice_digit.cuh"
#include "slice_fused.cuh"
#include "slice_tiles.cuh"

namespace pb_ms {

constexpr int kCounterThreads = 256;
/* Keys a thread (kCounterItemChoices): 16 (64 bytes, three blocks an SM) up to
 * kCounterNarrowMaxKeys keys, 32 (two blocks) above; 24 (two blocks) for A/B runs
 * (PB_MULTISPLIT_COUNTER_ITEMS). Wider tiles spread the per-tile work (the raking scan, the
 * clearing, the barriers) over more keys and make each digit's run out of a tile longer,
 * for a third fewer warps an SM. H200, u32 keys alone, 40 bins (one pass of 40 digits) and
 * 1024 (two of 32), time against 16 (session 26; configs/tests/multisplit-counter-items.json,
 * one binary, results/h200/session26-call2-*; link-variant builds,
 * multisplit-counter-shape-ab.json, session26-call1-*):
 *   keys    2^20     2^21      2^22        2^23         2^24        2^25       2^26..2^28
 *   24    +14/-0   -0/-0    +0/-1       -3/-3        -1/-2       -2/-3      -0..-4/-1..-5
 *   32    +11/+0   -22/-0   -10/-9     -11/-11       -5/-5       -0/-1      +1..+2/+0..+1
 * Since the next tile is counted beside this one's way out (session 28), 32 against 24
 * from 2^25 keys up, 40 / 1024 bins: 2^25 -3.7/-4.3%, 2^26 -3.1/-3.5%, 2^27 -3.8/-3.8%,
 * 2^28 -4.5/-4.6% (results/h200/session28-call4-multisplit-counter-items*.csv, one
 * binary). 90% of keys in one bin, 2^28, 40 bins (session 26): 24 -3.8%, 32 +0.4%; 8 bins
 * -0.9 and -2.8%. 128-thread blocks of 16 keys, six an SM: 2^28 40 bins +7.6%. */
template <int kItems> __host__ __device__ constexpr int counter_tile() {
    return kCounterThreads * kItems;
}
constexpr int kCounterItemChoices[] = {16, 24, 32};
constexpr uint64_t kCounterNarrowMaxKeys = 1ull << 20;
/* The keys a thread for n keys, by the rule above. With values too: 2^28 u32 pairs, 40
 * bins, time against 16 keys a thread (two blocks an SM; 24 and 32 fit one), session 29
 * call 1: 24 -9.2%, 32 -11.0%; 2^25 -5.9 / -6.2%; 512 and 1024 bins (two passes)
 * 32 -4.1 and -8.4%. */
inline int counter_items_for(uint64_t n) {
    return n <= kCounterNarrowMaxKeys ? kCounterItemChoices[0] : kCounterItemChoices[2];
}
/* Counter rows the kernels are built for (odd, fewer first): at most 2 x kRows digits.
 * 33 rows at 16 keys a thread (three blocks an SM, 80 registers) spill 24 bytes; they
 * still took 0 to 4% less time than the lane masks at 2^20 keys (session 31). 65 rows:
 * 128 registers at 16 keys a thread, 168 at 32, 202 with values, no spill. 41 rows
 * (passes of 67 to 82 digits, as 5000 bins' 79) keep two blocks an SM at 32 keys a
 * thread, where 65 hold one: 128 registers, no spill for range buckets (186 with values,
 * one block); modulo and splitter rules, which also keep a digit byte a key, fit one block
 * only (counter_min_blocks takes CounterSmem's bytes, that array with them: cut for two, as
 * until session 34, they spilled 20 bytes). H200,
 * u32 keys alone, time against 65 rows (session 32 call 4, configs/tests/
 * multisplit-counter-rows-41.json, PB_MULTISPLIT_COUNTER_SKIP_ROWS=41, one binary,
 * results/h200/session32-call4-*): 2^28 keys 72 and 80 bins -14.3%, 5000 -13.7% (129.0
 * Gelem/s), binomial -14.3 and -13.8%; 2^23 to 2^26 keys -10.7 to -14.3%; 2^20 keys -3.6
 * to +3.7%; with values (one block either way) +0.1 to +1.1%.
 * 129 rows (132 KB of counters, one block an SM; 32 keys a thread alone, 16 with values;
 * 238 and 231 registers, no spill) were tried for passes of 131 to 256 digits and
 * dropped: H200, u32, time against the lane masks, one binary (session 32 call 1,
 * configs/tests/multisplit-counter-rows-65.json: the build with them as it is against
 * PB_MULTISPLIT_COUNTER_MAX_DIGITS=66, results/h200/session32-call1-*): 2^28 keys 200
 * bins +6.8%, 256 +0.3%, 65536 (two passes of 256) +0.4%, binomial 256 +11.7%, 90% of
 * keys in one bin -15.6%; with values 256 bins +43%, 65536 +42%; 2^25 keys 256 bins
 * +5.2%, with values +39%. */
/* 51 rows (passes of 83 to 102 digits, as 100 bins; session 48) take keys alone: one block
 * an SM, as 65 do, but a quarter less raking, clearing and counter memory. H100, u32 keys,
 * time against 65 rows (configs/tests/multisplit-counter-rows-51.json,
 * PB_MULTISPLIT_COUNTER_SKIP_ROWS=51, one binary, results/h100/session48-call1-*): 2^28
 * keys 100 bins -2.9% (uniform), -2.5% (binomial), -3.0% (90% in one bin), 6000 (64 x 94)
 * -1.4 to -1.7%; 2^23 to 2^26 -1.4 to -2.7%. With values +0.5% (2^28, 100 bins), so pairs
 * keep 65 rows (counter_rows). At 24 keys a thread (two blocks an SM, whose 128 registers
 * spill 8 to 16 bytes there, ptxas sm_90) they took 1 to 6% more time than 65 rows at 32. */
constexpr int kCounterMidRows = 51;
constexpr int kCounterRowChoices[] = {9, 21, 33, 41, kCounterMidRows, 65};
constexpr int kCounterRowKinds = sizeof(kCounterRowChoices) / sizeof(kCounterRowChoices[0]);
constexpr int kCounterMostRows = kCounterRowChoices[kCounterRowKinds - 1];
constexpr uint32_t kCounterMaxDigits = 2 * kCounterMostRows;
/* The sorted tile skips a word after every 32 (padded()): a thread's keys of one digit go
 * to consecutive places, kItems apart from the next thread's, which without the gap would
 * put many lanes on one bank whenever a few digits hold most keys. */
template <int kItems> __host__ __device__ constexpr int counter_slot() {
    return counter_tile<kItems>() + counter_tile<kItems>() / 32;
}
__device__ __forceinline__ uint32_t padded(uint32_t at) { return at + (at >> 5); }
/* Tile slots in a counter-scatter block's ring (CounterSmem says why two). */
constexpr int kCounterStages = 2;
/* Blocks an SM the registers are cut for, for blocks of `block` bytes of dynamic shared
 * memory (CounterSmem::bytes): with values a thread also holds its values, and a block's
 * shared memory (values' ring beside the keys') fits two at most; and no more blocks than
 * an SM's shared memory holds (228 KB on sm_90; each block's dynamic memory and 2.5 KB
 * besides: the scan's storage, the 1 KB the system keeps, and the margin every measured
 * shape was cut with). 65 rows (66.5 KB of counters): two blocks of 16 keys a thread, one
 * of more or with values. */
constexpr size_t kCounterSmemPerSm = 228 << 10, kCounterSmemBesides = 2560;
template <int kItems, bool kPairs>
__host__ __device__ constexpr int counter_min_blocks(size_t block) {
    const int wanted = kPairs ? (kItems <= 16 ? 2 : 1) : kItems <= 16 ? 3 : 2;
    const int fit = (int)(kCounterSmemPerSm / (block + kCounterSmemBesides));
    return fit < 1 ? 1 : fit < wanted ? fit : wanted;
}

/* 16-byte piece c of a tile is kept at piece swizzle_piece(c). Thread t reads pieces
 * kPieces t to kPieces (t + 1) - 1. Bits 0 to 2 take the XOR of the thread's low bits (a
 * permutation of each 8 pieces), so that a quarter warp's 8 reads of its q-th piece land on
 * 8 distinct bank groups (swizzle_spreads), and so do 8 consecutive pieces written by
 * cp.async where they are one thread's. */
template <int kPieces> __host__ __device__ constexpr uint32_t swizzle_piece(uint32_t c) {
    return c ^ ((c / kPieces) & 7);
}
template <int kPieces> __host__ __device__ constexpr bool swizzle_spreads() {
    for (uint32_t first = 0; first < 32; first += 8) /* a quarter warp's threads */
        for (uint32_t q = 0; q < kPieces; q++) {
            uint32_t groups = 0;
            for (uint32_t t = first; t < first + 8; t++)
                groups |= 1u << (swizzle_piece<kPieces>(t * kPieces + q) % 8);
            if (groups != 0xffu) return false;
        }
    return true;
}
template <int kPieces> struct Swizzled {
    __device__ uint32_t operator()(uint32_t c) const { return swizzle_piece<kPieces>(c); }
};

/* Whether the counter scatter keeps each sorted key's digit (a byte a key in shared
 * memory) for the way out, or works it out again from the key. Range32Digit's eight
 * instructions cost less than the byte's store and load: with the atomic count, keeping
 * the bytes took 3 to 4% more time from 2^25 keys up (H200, 40 and 1024 bins, session
 * 27). The other rules (splitter searches, 64-bit products) keep them. */
template <class Digit> __host__ __device__ constexpr bool counter_keeps_digits() {
    return !std::is_same<Digit, Range32Digit>::value;
}

/* Shared memory of the counter scatter for digit rule Digit, carved from the dynamic
 * allocation. */
template <int kRows, int kItems, class Digit, bool kPairs> struct CounterSmem {
    /* Two slots: tile t + 1 comes in while tile t is worked on. Three (tile t + 2 on its
     * way too) took 1% more time at 24 keys a thread from 2^25 keys up (H200, session 28,
     * multisplit-counter-items.json, results/h200/session28-call3-*). The kernel takes any
     * count. */
    static constexpr int kStages = kCounterStages;
    static constexpr bool kKeepsDigits = counter_keeps_digits<Digit>();
    static constexpr int kSlot = counter_slot<kItems>();
    uint32_t *ring;       /* kStages x kSlot: tiles coming in, then sorted in place */
    uint32_t *value_ring; /* kStages x kSlot, kPairs: their values, the same way */
    uint32_t *counters;   /* kRows x kCounterThreads */
    uint32_t *delta;      /* digits: global position minus tile position */
    uint32_t *base;       /* digits: where this slice's next key of the digit goes */
    uint8_t *digit;       /* kSlot, kKeepsDigits: digit of each sorted key (padded) */

    __host__ __device__ static constexpr size_t bytes(uint32_t digits) {
        return (size_t)(kPairs ? 2 : 1) * kStages * kSlot * 4 +
               (size_t)kRows * kCounterThreads * 4 + (size_t)2 * digits * 4 +
               (kKeepsDigits ? kSlot : 0);
    }
    __device__ CounterSmem(unsigned char *p, uint32_t digits) {
        ring = reinterpret_cast<uint32_t *>(p);
        value_ring = ring + kStages * kSlot;
        counters = value_ring + (kPairs ? kStages * kSlot : 0);
        delta = counters + kRows * kCounterThreads;
        base = delta + digits;
        digit = reinterpret_cast<uint8_t *>(base + digits);
    }
};

/* The same contract as slice_scatter_kernel. Block s scatters slice s of `span` keys (and
 * kPairs, their values: values and out_values unused without), and
 * starts[d * pieces + s * split] is where its keys of digit d go (or, kFused, the kernel
 * counts and scans them itself); digits <= 2 * kRows. */
/* Digit d's counter: word row = d / 2 of a thread's column, bits [shift, shift + 16) with
 * shift = 16 (d % 2): fewer instructions from d than a split at kRows. */
struct CounterOf {
    uint32_t row, odd;
    __device__ explicit CounterOf(uint32_t d) : row(d >> 1), odd(d & 1) {}
    __device__ uint32_t in(uint32_t word) const { return word >> (odd << 4) & 0xffffu; }
    __device__ uint32_t one() const { return odd * 0xffffu + 1; } /* 1 << shift */
};
/* Thread th's kItems consecutive keys of a tile kept swizzled (swizzle_piece), as 16-byte
 * pieces, into k; kPairs, their values from value_tile (kept the same way) into v, each
 * piece's beside its keys'. */
template <bool kPairs, int kItems, int kValues>
__device__ __forceinline__ void read_my_pieces(const uint32_t *tile, const uint32_t *value_tile,
                                               uint32_t th, uint32_t (&k)[kItems],
                                               uint32_t (&v)[kValues]) {
    constexpr int kPieces = kItems / 4;
#pragma unroll
    for (int q = 0; q < kPieces; q++) {
        const uint32_t piece = swizzle_piece<kPieces>(th * kPieces + q) * 4;
        const uint4 kw = *reinterpret_cast<const uint4 *>(tile + piece);
        k[4 * q] = kw.x, k[4 * q + 1] = kw.y, k[4 * q + 2] = kw.z, k[4 * q + 3] = kw.w;
        if constexpr (kPairs) {
            static_assert(kValues == kItems, "a value a key");
            const uint4 vw = *reinterpret_cast<const uint4 *>(value_tile + piece);
            v[4 * q] = vw.x, v[4 * q + 1] = vw.y, v[4 * q + 2] = vw.z, v[4 * q + 3] = vw.w;
        }
    }
}

/* put(i, padded(i)) for the places i of a sorted tile of `valid` keys that are thread th's
 * on the way out (th, th + kCounterThreads, ...). A full tile's places th + j
 * kCounterThreads are padded to padded(th) + j (kCounterThreads + kCounterThreads / 32):
 * fixed offsets, no loop test. */
template <int kItems, class Put>
__device__ __forceinline__ void for_my_sorted_places(uint32_t valid, uint32_t th, Put put) {
    if (valid == (uint32_t)counter_tile<kItems>()) {
        constexpr uint32_t kStride = kCounterThreads + kCounterThreads / 32;
        static_assert(kCounterThreads % 32 == 0, "padded() steps by whole rows");
        const uint32_t at = padded(th);
#pragma unroll
        for (int j = 0; j < kItems; j++) put(th + j * kCounterThreads, at + j * kStride);
    } else {
#pragma unroll 4
        for (uint32_t i = th; i < valid; i += kCounterThreads) put(i, padded(i));
    }
}

/* Counts my keys k[j] (those with holds(j)) on my column of counters (my_counters, row r
 * at my_counters[r * kCounterThreads]), each by digit d = digit_of(value_of(key)), by a
 * shared atomic on my own column: it hands back the count before the key without waiting
 * on the previous key's store (a load and a store chain the keys, 5% more time: H200, 2^22
 * to 2^28 keys, 40 and 1024 bins, session 27). digit_before[j] = d | the whole counter
 * word before the key << 8 (both its 16-bit counts are below kItems). Every value first
 * (independent of one another, their arithmetic overlaps), then each key's count, with
 * seen(value) beside it. */
template <int kItems, class T, class Holds, class ValueOf, class DigitOf, class Seen>
__device__ __forceinline__ void
count_on_column(const uint32_t (&k)[kItems], uint32_t (&digit_before)[kItems],
                uint32_t *my_counters, Holds holds, ValueOf value_of, DigitOf digit_of, Seen seen) {
#pragma unroll
    for (int j = 0; j < kItems; j++) {
        if (!holds(j)) continue;
        T key;
        memcpy(&key, &k[j], 4);
        digit_before[j] = value_of(key);
    }
#pragma unroll
    for (int j = 0; j < kItems; j++) {
        if (!holds(j)) continue;
        const uint32_t value = digit_before[j];
        const uint32_t d = digit_of(value);
        const CounterOf c(d);
        const uint32_t old = atomicAdd(my_counters + c.row * kCounterThreads, c.one());
        seen(value);
        digit_before[j] = d | old << 8;
    }
}

/* The digit whose run follows digit d's in a sorted tile (2 kRows: none, the tile's end). */
template <int kRows> __device__ uint32_t next_run(uint32_t d) {
    return d + 2 < 2u * kRows ? d + 2 : (d & 1) ? 2u * kRows : 1u;
}

template <class T, class Digit, int kRows, bool kFused, int kItems, bool kPairs>
__global__ void __launch_bounds__(kCounterThreads,
                                  (counter_min_blocks<kItems, kPairs>(
                                      CounterSmem<kRows, kItems, Digit, kPairs>::bytes(2 * kRows))))
    counter_scatter_kernel(const T *__restrict__ keys, const uint32_t *__restrict__ values,
                           uint64_t n, uint64_t span, Digit digit_of, uint32_t digits,
                           const uint32_t *__restrict__ starts, uint32_t pieces, uint32_t split,
                           FusedScratch fused, T *__restrict__ out_keys,
                           uint32_t *__restrict__ out_values, uint32_t *__restrict__ offsets) {
    static_assert(sizeof(T) == 4, "the counter scatter takes 4-byte keys");
    static_assert(kRows % 2 == 1, "odd rows keep the rakers off each other's banks");
    static_assert(kItems % 4 == 0 && kItems < 256, "whole pieces, ranks below 2^8");
    constexpr int kPieces = kItems / 4;
    static_assert(swizzle_spreads<kPieces>(), "the tile reads fill every bank once");
    using Smem = CounterSmem<kRows, kItems, Digit, kPairs>;
    constexpr bool kKeepsDigits = Smem::kKeepsDigits;
    using Scan = cub::BlockScan<uint32_t, kCounterThreads>;
    constexpr int kTile = counter_tile<kItems>(), kSlot = Smem::kSlot, kStages = Smem::kStages;
    __shared__ typename Scan::TempStorage scan_storage;
    extern __shared__ __align__(16) unsigned char dynamic_smem[];
    const Smem sm(dynamic_smem, digits);
    const uint32_t th = threadIdx.x;
    uint32_t *my_counters = sm.counters + th; /* row r at my_counters[r * kCounterThreads] */

    const SliceTiles<kTile> slice(n, span);
    auto slot_of = [&](uint32_t t) { return sm.ring + (t % kStages) * kSlot; };
    /* the values' slot beside a key slot */
    auto values_of = [&](auto *slot) { return slot + (sm.value_ring - sm.ring); };
    /* tile t into ring slot t % kStages as one cp.async group (empty past the end) */
    auto fetch = [&](uint32_t t) {
        if (t < slice.tiles) {
            copy_tile_async<kCounterThreads>(slot_of(t), keys + slice.start(t), slice.keys(t) * 4,
                                             Swizzled<kPieces>{});
            if constexpr (kPairs)
                copy_tile_async<kCounterThreads>(values_of(slot_of(t)), values + slice.start(t),
                                                 slice.keys(t) * 4, Swizzled<kPieces>{});
        }
        pb::commit_async();
    };

    /* tiles 0 to kStages - 2 on their way in; tile t + kStages - 1 is fetched as tile t's
     * turn begins, into the slot tile t - 1 has left */
    for (int t = 0; t < kStages - 1; t++) fetch(t);
    slice_bases<kCounterThreads, kFused, T, Digit, Scan>(keys, slice.begin, slice.end, digit_of,
                                                         digits, fused, starts, pieces, split,
                                                         sm.delta, sm.base, offsets, scan_storage);
#pragma unroll
    for (int r = 0; r < kRows; r++) my_counters[r * kCounterThreads] = 0;

    /* My kItems keys of the tile in flight, and for each its digit (low byte) and above it
     * the whole counter word before the key: both its 16-bit counts are below kItems, so
     * they fit beside the digit, and step 3 adds the word as it is to the scanned word,
     * saving the field's extraction here. */
    uint32_t k[kItems], digit_before[kItems] = {};
    [[maybe_unused]] uint32_t v[kPairs ? kItems : 1]; /* and their values */
    /* whether key j of my kItems is in a tile of `valid` keys (always in a full one) */
    auto holds = [&](auto full, uint32_t valid, int j) {
        return full.value || th * kItems + j < valid;
    };
    /* 1. Tile t's keys counted on my own column (count_on_column). */
    auto count_tile = [&](uint32_t t) {
        const uint32_t *tile = slot_of(t);
        read_my_pieces<kPairs>(tile, values_of(tile), th, k, v);
        const uint32_t valid = slice.keys(t);
        auto count_items = [&](auto full) {
            count_on_column<kItems, T>(
                k, digit_before, my_counters, [&](int j) { return holds(full, valid, j); },
                digit_of, [](uint32_t d) { return d; }, [](uint32_t) {});
        };
        if (valid == (uint32_t)kTile)
            count_items(std::true_type{});
        else
            count_items(std::false_type{});
    };

    if (slice.tiles) {
        pb::wait_async<kStages - 2>(); /* tile 0 (its group the oldest) */
        __syncthreads();
        count_tile(0);
    }
    /* Per tile, three barriers (and the block scan's): its count, its scan, its sorted
     * tile. A tile's way out shares the last stretch with the next tile's count, whose
     * atomics and arithmetic overlap the way out's stores: one barrier a tile fewer than
     * a loop of count, scan, sort and way out. H200, u32 keys alone, 40 and 1024 bins, time
     * against that loop (session 28, multisplit-counter-items.json, results/h200/
     * session28-call3-*): 2^23 keys -1.9 and -1.8%, 2^24 -3.3 and -3.3% (32 keys a thread),
     * 2^25 to 2^28 -0.3 to +0.1% (24 keys a thread then). */
    for (uint32_t t = 0; t < slice.tiles; t++) {
        __syncthreads(); /* tile t counted; tile t - 1 out, its slot free */
        fetch(t + kStages - 1);
        const uint32_t valid = slice.keys(t);
        uint32_t *tile = slot_of(t);

        /* 2. Raking scan: thread th takes words [th * kRows, th * kRows + kRows) */
        {
            uint32_t *mine = sm.counters + th * kRows;
            uint32_t w[kRows], sum = 0;
#pragma unroll
            for (int i = 0; i < kRows; i++) sum += w[i] = mine[i];
            uint32_t prefix, total;
            Scan(scan_storage).ExclusiveSum(sum, prefix, total);
            prefix += (total & 0xffffu) << 16; /* the high halves follow every low one */
#pragma unroll
            for (int i = 0; i < kRows; i++) {
                mine[i] = prefix;
                prefix += w[i];
            }
        }
        __syncthreads();

        /* 3. The tile sorted by digit into its own slot; per digit, where its run goes.
         * Every key's place before any store, so that the counter loads overlap (a store
         * to the tile between them would order them). */
        auto place_items = [&](auto full) {
#pragma unroll
            for (int j = 0; j < kItems; j++) {
                if (!holds(full, valid, j)) continue;
                /* my start and my earlier keys, field by field: neither field carries
                 * (starts are below kTile, earlier keys below kItems); the digit kept
                 * above the place (places are below 2^16) */
                const CounterOf c(digit_before[j] & 0xffu);
                const uint32_t at =
                    padded(c.in(my_counters[c.row * kCounterThreads] + (digit_before[j] >> 8)));
                digit_before[j] = at | (digit_before[j] & 0xffu) << 16;
            }
#pragma unroll
            for (int j = 0; j < kItems; j++) {
                if (!holds(full, valid, j)) continue;
                const uint32_t at = digit_before[j] & 0xffffu;
                tile[at] = k[j];
                if constexpr (kPairs) values_of(tile)[at] = v[j];
                if constexpr (kKeepsDigits) sm.digit[at] = (uint8_t)(digit_before[j] >> 16);
            }
        };
        if (valid == (uint32_t)kTile)
            place_items(std::true_type{});
        else
            place_items(std::false_type{});
        /* where digit d's run starts in the sorted tile (digits past `digits` count none) */
        auto tile_start = [&](uint32_t d) {
            if (d >= 2u * kRows) return valid;
            const CounterOf c(d);
            return c.in(sm.counters[c.row * kCounterThreads]);
        };
        for (uint32_t d = th; d < digits; d += kCounterThreads) {
            const uint32_t start = tile_start(d);
            sm.delta[d] = sm.base[d] - start; /* unsigned wrap-around is exact */
            sm.base[d] += tile_start(next_run<kRows>(d)) - start;
        }
        /* tile t + 1 has landed (this thread's part; the barrier makes it everyone's): the
         * groups of tiles t + 2 to t + kStages - 1 may still be in flight */
        pb::wait_async<kStages - 2>();
        __syncthreads();

        /* 4. Out in runs (for_my_sorted_places); my counters back to zero, and the next
         * tile counted. */
        auto put = [&](uint32_t i, uint32_t at) {
            /* not memcpy, which stores 4 bytes one by one */
            const T key = reinterpret_cast<const T *>(tile)[at];
            const uint32_t dest = sm.delta[kKeepsDigits ? sm.digit[at] : digit_of(key)] + i;
            out_keys[dest] = key;
            if constexpr (kPairs) out_values[dest] = values_of(tile)[at];
        };
        for_my_sorted_places<kItems>(valid, th, put);
#pragma unroll
        for (int r = 0; r < kRows; r++) my_counters[r * kCounterThreads] = 0;
        if (t + 1 < slice.tiles) count_tile(t + 1);
    }
}

/* The fewest rows that take `digits` (pairs: not kCounterMidRows), 0 when none does. */
inline int counter_rows(uint32_t digits, bool pairs) {
    for (int rows : kCounterRowChoices)
        if (digits <= 2u * rows && !(pairs && rows == kCounterMidRows)) return rows;
    return 0;
}

/* Calls f(std::integral_constant<int, rows>) for one of kCounterRowChoices up to kMostRows
 * (a kernel built for fewer rows than the choices' most instantiates no more); rows none
 * of them: the second choice. */
template <int kMostRows = kCounterMostRows, int kChoice = 0, class F>
auto with_counter_rows(int rows, F &&f) {
    constexpr int kRows = kCounterRowChoices[kChoice];
    if constexpr (kChoice + 1 < kCounterRowKinds && kCounterRowChoices[kChoice + 1] <= kMostRows) {
        if (rows == kRows) return f(std::integral_constant<int, kRows>{});
        return with_counter_rows<kMostRows, kChoice + 1>(rows, static_cast<F &&>(f));
    } else {
        if (rows != kRows) return f(std::integral_constant<int, kCounterRowChoices[1]>{});
        return f(std::integral_constant<int, kRows>{});
    }
}

/* Calls f(std::integral_constant<int, keys a thread>) for one of kCounterItemChoices. */
template <class F> auto with_counter_items(int items, F &&f) {
    if (items == kCounterItemChoices[1])
        return f(std::integral_constant<int, kCounterItemChoices[1]>{});
    if (items == kCounterItemChoices[2])
        return f(std::integral_constant<int, kCounterItemChoices[2]>{});
    return f(std::integral_constant<int, kCounterItemChoices[0]>{});
}

} // namespace pb_ms
