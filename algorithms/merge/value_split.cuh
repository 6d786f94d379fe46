/* A k-way merge of keys alone in one pass over the keys, for many lists: the output is cut
 * at sampled keys, not at ranks, so no tile needs a k-way search. 4-byte integer keys; f32,
 * u64 and f64 keys too (merge/path takes them from 256 to 1024 lists and 2^24 keys, where it
 * won on the H100 in sessions 43 and 44: split_beats_merge_measured), whose (key, place) words
 * take 128 bits for 8-byte keys, whose samples are then sorted as (key bits, place) pairs, and
 * whose tiles of 8-byte keys leave one tile block an SM; a float tile holding -0.0 sorts its
 * zeros as equal keys and then writes their own bits again in the stable order
 * (write_zero_signs).
 *
 *  1. sample_kernel: every S-th key of the concatenation (S from k, sample_stride), and a
 *     CUB radix sort of those samples (8-byte keys: by 32 bits of each, window_kernel and
 *     window_sample_kernel, their picks checked for order by pick_window_kernel).
 *  2. every c-th sorted sample is a splitter; tile i holds the keys in
 *     [splitter i, splitter i + 1), about kTarget of them (a list's count below a
 *     splitter is known to within S keys, so a tile's size strays by about S sqrt(k / 6)).
 *  3. bounds_kernel: one read of the keys finds, for every list and splitter, how many of
 *     the list's keys lie below the splitter (bounds[list][row], a list's rows
 *     contiguous): a list is sorted, so a splitter's bound is where the keys cross it; a
 *     block whose keys are one list's finds the splitters that cross them from its first
 *     and last keys and each one's place by a binary search of its keys in shared memory,
 *     and a block of several lists' keys walks them, a thread its stretch, comparing
 *     against the next splitter.
 *  4. tile_kernel, a block a tile (two an SM): its stretch of every list (rows i and
 *     i + 1), its output place (the sum of row i), its keys copied into shared memory by
 *     cp.async, bucketed linearly over their range (about one key a bucket, 16-bit
 *     counters; the lowest and highest values a bucket each where either has many copies),
 *     the buckets scanned, the keys scattered into bucket order (equal keys are
 *     the same bits, so their order does not show) and each thread's run of buckets
 *     insertion-sorted (a run of equal keys moved as one), then written out; a float tile
 *     holding -0.0 then writes its zeros' own bits again, the whole block copying them.
 *
 * Keys are ordered by (key, place in the concatenation), the stable merge's order, and
 * splitters are sampled keys in that order, so runs of equal keys are cut like any others
 * and a tile's size is bounded by the samples whatever the keys. A tile over kCap keys, or
 * whose insertion sort would move keys too often (many distinct keys in few buckets),
 * raises a flag; the launch then reads it (one synchronisation) and sorts the whole input
 * with CUB's radix sort instead, which is the stable merge for 4-byte keys alone. So any
 * input is merged right, and only inputs that defeat the sampling pay for the attempt. */
#pragma once

#include <float.h>
#include <stdint.h>
#include <stdlib.h>

#include <type_traits>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>

#include "async_copy.cuh"
#include "merge_keys.cuh"
#include "search.cuh"

namespace pb::merge::split {

/* Two blocks an SM: 512 threads of at most 64 registers, and under half the shared memory. */
constexpr int kThreads = 512;
constexpr int kItems = 32;
constexpr int kCap = kThreads * kItems; /* the most keys a tile holds */
constexpr int kBuckets = kCap;
/* 16-bit counters, two a word; each thread scans kWordsThread consecutive words, and a pad
 * word every 32 lets a warp's threads meet no bank twice. */
constexpr int kWords = kBuckets / 2;
constexpr int kWordsThread = kWords / kThreads;
constexpr int kCounterWords = kWords + kWords / 32;
__host__ __device__ constexpr uint32_t counter_word(uint32_t bucket) {
    return (bucket >> 1) + (bucket >> 6);
}
/* Bucket b's 16-bit counter in count. */
__host__ __device__ inline uint32_t bucket_counter(const uint32_t *count, uint32_t b) {
    return count[counter_word(b)] >> (b & 1) * 16 & 0xffffu;
}
static_assert(kCap < 65536, "a bucket's start fits 16 bits");
/* The key moves a thread's insertion sort may make before its tile is given up: about
 * 3 a key of its 24 (two buckets of 40 distinct keys). */
constexpr uint32_t kMovesThread = 1024;
/* walk_buckets' answer for a walk that gave up. */
constexpr uint32_t kGaveUp = ~0u;

/* A walk moves runs of equal keys as one (session 46): a run of equal keys longer than a
 * tile is cut at tile edges, so its copies are the lowest or highest keys of the tiles it
 * touches; sharing their bucket with a few other keys, each other key the atomics left among
 * them moved past every copy before it, the tile gave up, and with it the whole input (rare:
 * one tile of 258, f64 keys with 1 in 8 zero, in tests/test_merge_split_inputs.cu's model).
 * 0: session 45's walk, for A/B runs (tools/link-variant NAME algorithms/merge/merge_path.cu
 * -DPB_SPLIT_RUN_WALK=0). */
#ifndef PB_SPLIT_RUN_WALK
#define PB_SPLIT_RUN_WALK 1
#endif
/* A key below the largest so far but not below the key before that key's run of copies (most
 * such keys: a bucket of two keys in the wrong order) takes one step: the run moves up a place
 * and the key takes its first place, by two stores beside the in-order test, with the key
 * before the run kept in a register; only a key below that too takes the walk's loop (session
 * 49: in the H100's profile of a tile of 2^27 u32 keys in 1024 lists, the walk was 35% of the
 * tile kernel's instructions, most in its out-of-order branch, which 87% of a warp's steps
 * took for about 4 of its lanes). 2: also the next key read before this one's stores, which
 * go to places at or below this one's, so that a key's load is not waited on where it is
 * compared. 0: every such key through the loop. For A/B runs: tools/link-variant NAME
 * algorithms/merge/merge_path.cu -DPB_SPLIT_STEP_WALK=V. */
#ifndef PB_SPLIT_STEP_WALK
#define PB_SPLIT_STEP_WALK 2
#endif
/* The moves a walk may make over its first `walked` places: with runs moved as one, a move a
 * key is linear work (a run beside a few other keys), so the budget grows by two a key;
 * quadratic walks (many distinct keys in a few buckets) still pass it soon. */
__host__ __device__ constexpr uint32_t walk_budget(uint32_t walked) {
    return PB_SPLIT_RUN_WALK ? kMovesThread + 2 * walked : kMovesThread;
}
constexpr int kBoundsThreads = 256;

/* 4-byte keys find a list's first key's rows by search_rows, not a load a row (lists drawn
 * sorted, or short ones, start rows past row 0; 8-byte keys search past any key's second
 * row). 0: the walk alone, for A/B runs (tools/link-variant NAME
 * algorithms/merge/merge_path.cu -DPB_SPLIT_FIRST_KEY_SEARCH=0). */
#ifndef PB_SPLIT_FIRST_KEY_SEARCH
#define PB_SPLIT_FIRST_KEY_SEARCH 1
#endif
/* A tile bucketed linearly gives its lowest and highest key values a bucket each, alone
 * (edge_bucket), where the linear map's first and last buckets, which hold every copy of lo
 * and hi, hold kEdgeCopies keys or more between them: a run of equal keys longer than a tile
 * is cut at tile edges, and bucketed with the few other keys nearest it, its copies each cost
 * the walk a move, one thread's serial work while the block waits (H100, session 47: an f64
 * tile of 8525 zeros and one tiny positive key before them, 7600 moves, took the whole tile
 * kernel of 2^24 keys in 1024 lists from 0.30 to 1.20 ms). Per tile, because giving every
 * linear tile edge buckets (two compares a key in the count and the scatter) cost 1 to 7%
 * elsewhere. The rule is read from the counters after the count, with no search, atomic or
 * barrier of its own; such a tile (rare) is counted again with edge buckets. H100, session
 * 49 (configs/tests/merge-edge-rule.json and merge-split-walk-rows.json against 0): that f64
 * input 0.558 against 1.451 ms, uniform keys -0.5 to +1.6% (session 47's rule, which searched
 * each stretch for the copies of lo and hi, cost 0.9 to 4.3%, and was removed).
 * PB_SPLIT_EDGE_BUCKETS (A/B runs, tools/link-variant NAME algorithms/merge/merge_path.cu
 * -DPB_SPLIT_EDGE_BUCKETS=V): 0 never, 1 every linear tile, 2 (default) by the rule. */
#ifndef PB_SPLIT_EDGE_BUCKETS
#define PB_SPLIT_EDGE_BUCKETS 2
#endif
constexpr uint32_t kEdgeCopies = 128;
/* Whether a linear tile whose linear map puts edge_keys keys in its first and last buckets
 * takes edge buckets. On the host too, for the CPU tests. */
__host__ __device__ constexpr bool edge_buckets_wanted(uint32_t edge_keys) {
    return PB_SPLIT_EDGE_BUCKETS == 1 || (PB_SPLIT_EDGE_BUCKETS == 2 && edge_keys >= kEdgeCopies);
}
/* Consecutive keys a thread of bounds_kernel walks: a block's keys fill 32 KB of shared
 * memory (with a pad key every 32 words). */
template <class K> __host__ __device__ constexpr int bounds_items() { return 128 / (int)sizeof(K); }

/* Every key type: 4-byte keys, and u64 and f64 keys (wide keys: tiles of 8-byte keys, one
 * block an SM). */
template <class K> constexpr bool takes() { return sizeof(K) == 4 || sizeof(K) == 8; }
template <class K> __host__ __device__ constexpr bool wide_keys() { return sizeof(K) == 8; }

/* The most lists: a tile thread owns at most 8 (lists_a_thread). */
constexpr uint32_t kMaxLists = 8 * kThreads;
/* The keys a tile is cut for: 3/4 of kCap, the rest room for the samples' error. */
constexpr uint32_t kTarget = kCap / 4 * 3;

/* The sample stride: a tile's size strays from the target by about S sqrt(k / 6) keys
 * (each list's count below a splitter is known to within S), kept to a fifth of the room
 * between the target and kCap. */
inline uint32_t sample_stride(uint32_t k) {
    const double s = (kCap - kTarget) / (5.0 * __builtin_sqrt(k / 6.0 + 1.0));
    return s < 1 ? 1u : (uint32_t)s;
}

struct Shape {
    uint64_t samples;  /* M */
    uint32_t stride;   /* S */
    uint32_t per_tile; /* c: samples a tile */
    uint32_t tiles;    /* P */
    bool empty_lists;  /* some list is empty (its bounds are written apart) */
    bool wide;         /* 8-byte keys: the samples' places are sorted apart from their keys */
    uint32_t window;   /* bits of each sample's key its sort reads (sample_window_bits); 0: all */
};

/* The samples' sort by a window of their keys' bits (session 51): the bits from the highest
 * where the input's least and greatest keys differ down, `window` of them, with the sample's
 * index beside them (SortPairs over 32-bit keys and values). 8-byte keys' samples were sorted
 * whole, 64 bits carrying their places, eight passes; a 32-bit window takes four. Samples
 * whose windows are equal but keys not stay in place order, so a pick may sit a few samples
 * from its rank (the tiles' sizes are checked anyway); picks out of order raise the flag and
 * the split runs again over whole samples (pick_window_kernel; the try costs the window's
 * kernels, the samples' sort and a synchronisation). 4-byte keys keep the exact sort of their
 * words by default. PB_SPLIT_SAMPLE_BITS=N (A/B runs) sets the window for every key size, 0
 * the exact sort. */
inline uint32_t sample_window_bits(size_t key_bytes) {
    const char *e = getenv("PB_SPLIT_SAMPLE_BITS");
    if (e && *e) {
        const long v = strtol(e, nullptr, 10);
        return v <= 0 ? 0u : v >= 32 ? 32u : (uint32_t)v;
    }
    return key_bytes == 8 ? 32u : 0u;
}

/* host_offsets: the k + 1 list offsets on the host, or null (then lists may be empty). */
inline Shape shape(uint64_t n, uint32_t k, const uint64_t *host_offsets, size_t key_bytes) {
    Shape s{};
    s.wide = key_bytes == 8;
    s.window = sample_window_bits(key_bytes);
    s.stride = sample_stride(k);
    s.samples = n / s.stride;
    s.per_tile = kTarget / s.stride ? kTarget / s.stride : 1;
    s.tiles = s.samples ? (uint32_t)((s.samples - 1) / s.per_tile + 1) : 1;
    s.empty_lists = !host_offsets;
    for (uint32_t j = 0; host_offsets && j < k && !s.empty_lists; j++)
        s.empty_lists = host_offsets[j] == host_offsets[j + 1];
    return s;
}

/* The lists a thread owns in tile_kernel: 1, 2, 4 or 8 (k <= kMaxLists). */
inline uint32_t lists_a_thread(uint32_t k) {
    uint32_t l = 1;
    while (l < 8 && l * kThreads < k) l *= 2;
    return l;
}
/* f(std::integral_constant<uint32_t, lists_a_thread(k)>) */
template <class F> cudaError_t with_lists(uint32_t k, F f) {
    switch (lists_a_thread(k)) {
    case 1:
        return f(std::integral_constant<uint32_t, 1>{});
    case 2:
        return f(std::integral_constant<uint32_t, 2>{});
    case 4:
        return f(std::integral_constant<uint32_t, 4>{});
    default:
        return f(std::integral_constant<uint32_t, 8>{});
    }
}

/* The words between two lists' bounds: a list's tiles + 1 rows (row `tiles` holds its
 * length), padded to a multiple of 4 so that a tile's row pair is one aligned 16-byte load
 * three times in four (H200, session 40: the bounds and tile kernels 1.0 to 3.7% less time
 * at k = 256 to 1024, 2^27 keys). */
__host__ __device__ inline uint32_t column_words(uint32_t tiles) { return (tiles + 4) & ~3u; }

#ifdef __CUDACC__
using pb::merge::from_ordered_bits;
using pb::merge::kSignBit;
using pb::merge::ordered_bits;
using pb::merge::ordered_t;

/* Keys are ordered as (key, place in the concatenation), which is the stable merge's
 * order, and written as one word: the key's ordered bits over its place (n < 2^32), 64 bits
 * for 4-byte keys, 128 for 8-byte ones. Splitters are such words, so equal keys are cut
 * between tiles like any others. */
template <class K>
using word_t =
    typename std::conditional<sizeof(K) == 4, unsigned long long, unsigned __int128>::type;
template <class K>
__host__ __device__ __forceinline__ word_t<K> key_word(ordered_t<K> bits, uint64_t place) {
    return (word_t<K>)bits << 32 | place;
}
/* A splitter word from global memory (read-only: through the texture path). */
__device__ __forceinline__ unsigned long long load_word(const unsigned long long *p) {
    return __ldg(p);
}
__device__ __forceinline__ unsigned __int128 load_word(const unsigned __int128 *p) {
    const ulonglong2 v = __ldg(reinterpret_cast<const ulonglong2 *>(p));
    return (unsigned __int128)v.y << 64 | v.x;
}
/* A key's ordered bits from its raw bits (as they are copied into shared memory). */
template <class K> __device__ __forceinline__ ordered_t<K> ordered_of_raw(ordered_t<K> raw) {
    if constexpr (std::is_floating_point<K>::value) {
        K x;
        memcpy(&x, &raw, sizeof x);
        return ordered_bits(x);
    } else {
        return ordered_bits((K)raw);
    }
}

/* Sample m's place in the concatenation: the middle of its stretch of S keys. */
__host__ __device__ inline uint64_t sample_place(uint64_t m, uint32_t stride) {
    return m * stride + stride / 2;
}

/* Every S-th key of the concatenation, as its word in out; 8-byte keys, whose words take 128
 * bits, as its ordered bits in out and its place in places (sorted as pairs by the bits). */
template <class K>
__global__ void sample_kernel(const K *keys, uint64_t samples, uint32_t stride,
                              unsigned long long *out, uint32_t *places) {
    for (uint64_t m = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; m < samples;
         m += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t g = sample_place(m, stride);
        if constexpr (wide_keys<K>()) {
            out[m] = ordered_bits(keys[g]);
            places[m] = (uint32_t)g;
        } else {
            out[m] = key_word<K>(ordered_bits(keys[g]), g);
        }
    }
}

/* Splitter r (1 <= r < tiles) is the word of sorted sample r c (8-byte keys: of its bits and
 * place); row 0 takes every key, row `tiles` none. */
template <class K>
__global__ void pick_kernel(const unsigned long long *sorted, const uint32_t *places,
                            uint32_t per_tile, uint32_t tiles, word_t<K> *splitters,
                            uint32_t *flag) {
    const uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r == 0) {
        *flag = 0;
        splitters[0] = 0;
        splitters[tiles] = ~(word_t<K>)0;
    }
    if (r >= 1 && r < tiles) {
        const uint64_t m = (uint64_t)r * per_tile;
        if constexpr (wide_keys<K>())
            splitters[r] = key_word<K>(sorted[m], places[m]);
        else
            splitters[r] = sorted[m];
    }
}

/* The flag's bits: a tile could not be bound (the input is then sorted instead), and the
 * picks over windows came out of order (the split is then run again over whole samples). */
constexpr uint32_t kTileGivenUp = 1, kPicksOutOfOrder = 2;

/* The lowest bit of a window of `bits` bits over keys whose ordered bits lie in [lo, hi]
 * (window_kernel); a key's window is its ordered bits from there up, cut to 32 bits. On the
 * host too, for tests/test_merge_value_split.cu. */
__host__ __device__ inline uint32_t window_shift(unsigned long long lo, unsigned long long hi,
                                                 uint32_t bits) {
    const unsigned long long differ = lo < hi ? lo ^ hi : 0;
    uint32_t top = 0; /* the bits that differ: [0, top) */
    while (top < 64 && (differ >> top) != 0) top++;
    return top > bits ? top - bits : 0;
}
__host__ __device__ inline uint32_t key_window(unsigned long long bits, uint32_t shift) {
    return (uint32_t)(bits >> shift);
}

/* The window's lowest bit (*shift): every key shares its bits above the highest bit where
 * the least and greatest keys differ, so `bits` bits from that one down order the keys as
 * their whole bits do, but for keys that differ only below them. Also clears the flag (the
 * picks raise it). One block. */
template <class K>
__global__ void window_kernel(const K *keys, const uint64_t *offsets, uint32_t k, uint32_t bits,
                              uint32_t *shift, uint32_t *flag) {
    __shared__ unsigned long long lo, hi;
    if (threadIdx.x == 0) {
        lo = ~0ull;
        hi = 0;
    }
    __syncthreads();
    unsigned long long l = ~0ull, h = 0;
    for (uint32_t j = threadIdx.x; j < k; j += blockDim.x) {
        const uint64_t a = offsets[j], b = offsets[j + 1];
        if (a < b) { /* a list's first key is its least */
            l = min(l, (unsigned long long)ordered_bits(keys[a]));
            h = max(h, (unsigned long long)ordered_bits(keys[b - 1]));
        }
    }
    atomicMin(&lo, l);
    atomicMax(&hi, h);
    __syncthreads();
    if (threadIdx.x == 0) {
        *shift = window_shift(lo, hi, bits);
        *flag = 0;
    }
}

/* Every S-th key of the concatenation as its window (the key's ordered bits from *shift up,
 * cut to 32) and its index. */
template <class K>
__global__ void window_sample_kernel(const K *keys, uint64_t samples, uint32_t stride,
                                     const uint32_t *shift, uint32_t *windows, uint32_t *index) {
    const uint32_t low = *shift;
    for (uint64_t m = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; m < samples;
         m += (uint64_t)gridDim.x * blockDim.x) {
        const uint64_t g = sample_place(m, stride);
        windows[m] = key_window(ordered_bits(keys[g]), low);
        index[m] = (uint32_t)m;
    }
}

/* The word of the sample whose index lies at sorted place p. */
template <class K>
__device__ inline word_t<K> sample_word(const K *keys, const uint32_t *index, uint64_t p,
                                        uint32_t stride) {
    const uint64_t g = sample_place(index[p], stride);
    return key_word<K>(ordered_bits(keys[g]), g);
}

/* The samples a pick looks at on each side for unequal keys in its window. */
constexpr uint32_t kPickScan = 8;

/* pick_kernel over samples sorted by their windows: splitter r is the word of the sample at
 * sorted place r c. Equal windows of unequal keys are in place order, not key order, so a
 * pick may sit as far from its rank as its run of equal windows is long. kPicksOutOfOrder
 * (the bounds and tile kernels then do nothing, and the split runs again over whole
 * samples) where that could matter: a splitter not above the one before it, two neighbouring
 * picks of unequal keys in one window, or a pick whose run reaches kPickScan samples to a
 * side and holds another key within them. A run of one key (copies) is in the exact order. */
template <class K>
__global__ void pick_window_kernel(const K *keys, const uint32_t *windows, const uint32_t *index,
                                   uint64_t samples, uint32_t stride, uint32_t per_tile,
                                   uint32_t tiles, word_t<K> *splitters, uint32_t *flag) {
    const uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r == 0) {
        splitters[0] = 0;
        splitters[tiles] = ~(word_t<K>)0;
    }
    if (r < 1 || r >= tiles) return;
    const uint64_t p = (uint64_t)r * per_tile, q = p + per_tile;
    const word_t<K> w = sample_word<K>(keys, index, p, stride);
    splitters[r] = w;
    bool out_of_order = false;
    if (r + 1 < tiles) {
        const word_t<K> next = sample_word<K>(keys, index, q, stride);
        out_of_order = !(w < next) || (windows[p] == windows[q] && w >> 32 != next >> 32);
    }
    bool other_key = false, long_run = false;
    for (int side = -1; side <= 1; side += 2) {
        uint32_t j = 1;
        for (; j <= kPickScan; j++) {
            const int64_t at = (int64_t)p + side * (int64_t)j;
            if (at < 0 || at >= (int64_t)samples || windows[at] != windows[p]) break;
            other_key |= sample_word<K>(keys, index, (uint64_t)at, stride) >> 32 != w >> 32;
        }
        long_run |= j > kPickScan;
    }
    if (out_of_order || (other_key && long_run)) atomicOr(flag, kPicksOutOfOrder);
}

/* An empty list's column: every row 0. */
__global__ void empty_lists_kernel(const uint64_t *offsets, uint32_t k, uint32_t tiles,
                                   uint32_t *bounds) {
    const uint32_t j = blockIdx.x;
    if (offsets[j] != offsets[j + 1]) return;
    for (uint32_t r = threadIdx.x; r <= tiles; r += blockDim.x)
        bounds[(uint64_t)j * column_words(tiles) + r] = 0;
}

/* The rows a block of keys from one list finds by searching its keys, a thread a row (at
 * k = 1024 and 2^27 keys about 680, 2.7 a thread); a block with more, or with keys of
 * several lists, walks its keys instead. H200, k = 2048 (about 1370 rows a block), split
 * forced: 8 a thread against 4 took 0.97x and 0.97x the time at 2^26 and 2^27 keys
 * (results/h200/session38-call4-merge-split-rule-ab*). */
constexpr uint32_t kSearchRowsMost = 8 * kBoundsThreads;

/* The last row at or above lo whose splitter lies at or below word (splitter lo does, and
 * splitter `tiles` lies above every word), by pb::first_not_galloping: about 2 log2 of the
 * rows crossed probes. at(r): splitter r. On the host too, for tests/test_merge_value_split.cu. */
template <class Word, class SplitterAt>
__host__ __device__ inline int64_t last_row_at_or_below(int64_t lo, uint32_t tiles, Word word,
                                                        SplitterAt at) {
    return (int64_t)pb::first_not_galloping((uint32_t)lo + 1, tiles,
                                            [&](uint32_t r) { return at(r) <= word; }) -
           1;
}

/* Rows c + 1 on of a list's column (col) whose splitters lie at or below word (splitter
 * c + 1 does), each set to place `local`; returns the last of them. A key of a short list
 * crosses many rows (a list of one key in the middle of the range, half of them), and a load
 * a row, each waiting for the one before, left one thread walking thousands of rows while its
 * block held the kernel's end (H100, session 44: 1.25 ms of the bounds kernel in two merges
 * of the seed's experiment, whose lists start at one key). So the rows are found by
 * last_row_at_or_below. Not inlined: walk_bounds calls it only for a key past two rows, in a
 * loop it unrolls 16 times. 4-byte keys (32 a thread) call it only at a list's first key: at
 * every key it made the bounds kernel 9 to 22% slower where no key crossed many rows (2^24
 * and 2^26 u32 keys in lists of sizes uniform: whole merges 3.2 and 1.5% slower; not
 * explained; session 44); at first keys alone, the merge of 2^26 u32 keys drawn sorted took
 * 30.3% less time and those of sizes uniform +1.5, -0.1, 0.0% at 2^24, 2^26, 2^27 keys (H100,
 * session 45, configs/tests/merge-split-walk-rows.json). */
template <class Word>
__device__ __noinline__ int64_t search_rows(const Word *spl, uint32_t tiles, Word word,
                                            uint32_t *col, int64_t c, uint32_t local) {
    const int64_t last =
        last_row_at_or_below(c + 1, tiles, word, [&](int64_t r) { return load_word(spl + r); });
    for (int64_t r = c + 1; r <= last; r++) col[r] = local;
    return last;
}

/* Each thread walks kBoundsItems consecutive keys (x(q), from g0 on): the rows r whose
 * splitter lies above the key before and at or below this one get this key's place in its
 * list; a list's first key takes row 0 up, and past its last key the remaining rows take
 * its length. */
template <class K, class KeyAt>
__device__ __forceinline__ void
walk_bounds(const K *keys, uint64_t n, uint64_t g0, const uint64_t *offsets, uint32_t k,
            const word_t<K> *spl, uint32_t tiles, uint32_t *bounds, KeyAt x) {
    uint32_t j = pb::last_at_or_below(offsets, k, g0); /* the list holding g0 */
    uint64_t start = __ldg(offsets + j), end = __ldg(offsets + j + 1);
    /* the rows already taken in list j: those at or below the key before g0 */
    int64_t c = g0 == start ? -1
                            : (int64_t)pb::last_at_or_below(
                                  spl, tiles, key_word<K>(ordered_bits(keys[g0 - 1]), g0 - 1));
    /* the next row's splitter (row `tiles`: past every key) */
    const auto splitter = [&](int64_t r) { return load_word(spl + r); };
    word_t<K> next = splitter(c + 1);
    uint32_t *col = bounds + (uint64_t)j * column_words(tiles); /* list j's rows */
#pragma unroll
    for (int q = 0; q < bounds_items<K>(); q++) {
        const uint64_t g = g0 + q;
        if (g >= n) break;
        const uint32_t local = (uint32_t)(g - start);
        if (c < 0) { /* a list's first key */
            col = bounds + (uint64_t)j * column_words(tiles);
            col[0] = 0;
            c = 0;
            next = splitter(1);
#if PB_SPLIT_FIRST_KEY_SEARCH
            if constexpr (!wide_keys<K>()) {
                const word_t<K> first = key_word<K>(x(q), g);
                if (next <= first) {
                    c = search_rows(spl, tiles, first, col, c, local);
                    next = splitter(c + 1);
                }
            }
#endif
        }
        const word_t<K> word = key_word<K>(x(q), g);
        if constexpr (wide_keys<K>()) {
            if (next <= word) { /* a row crossed, as for most keys that cross any */
                c++;
                col[c] = local;
                next = splitter(c + 1);
                if (next <= word) { /* more: by a search, not a load a row */
                    c = search_rows(spl, tiles, word, col, c, local);
                    next = splitter(c + 1);
                }
            }
        } else {
            while (next <= word) {
                c++;
                col[c] = local;
                next = splitter(c + 1);
            }
        }
        if (g + 1 == end) { /* past the list's last key */
            const uint32_t len = (uint32_t)(end - start);
            for (uint64_t r = (uint64_t)c + 1; r <= tiles; r++) col[r] = len;
            if (g + 1 < n) {
                j++;
                while (__ldg(offsets + j + 1) == __ldg(offsets + j)) j++;
                start = __ldg(offsets + j);
                end = __ldg(offsets + j + 1);
                c = -1;
            }
        }
    }
}

/* bounds_kernel's searches for the block starting at block0 with `count` keys, by warps 0
 * (its first key) and 1 (its last), every lane: the list holding the key (list_of), and the
 * rank among the splitters of the key before the block's first (-1 if the block starts its
 * list) and of its last key (rank_of; used only where both keys are one list's). Run before
 * the keys are staged, so that their loads, one after another, overlap the other warps'
 * staging instead of following it. H200, session 40 (against threads 0 and 1 searching,
 * the rank searches after the staging): 1.7 to 3.6% less time at k = 256 to 1024, 2^27 keys
 * (results/h200/session40-call1-*). */
template <class K>
__device__ __forceinline__ void bounds_searches(const K *keys, uint64_t block0, uint32_t count,
                                                const uint64_t *offsets, uint32_t k,
                                                const word_t<K> *spl, uint32_t tiles,
                                                uint32_t (&list_of)[2], long long (&rank_of)[2]) {
    const uint32_t warp = threadIdx.x / 32;
    if (warp >= 2) return;
    const uint64_t g = warp ? block0 + count - 1 : block0;
    /* the key whose rank is wanted: the block's last, or the one before its first */
    const uint64_t at = warp ? g : (block0 ? block0 - 1 : 0);
    const word_t<K> word = key_word<K>(ordered_bits(keys[at]), at);
    /* pb::last_at_or_below_warp: about 3 rounds of loads over 11000 splitters, not 14 */
    const uint32_t j = (uint32_t)pb::last_at_or_below_warp(offsets, k, g);
    const long long rank = !warp && block0 == __ldg(offsets + j)
                               ? -1ll
                               : (long long)pb::last_at_or_below_warp(spl, tiles, word);
    if (threadIdx.x % 32 == 0) {
        list_of[warp] = j;
        rank_of[warp] = rank;
    }
}

/* Row r of list j takes the place in list j of its first key at or above splitter r (its
 * length if none): the rows whose place lies in a block's keys are the block's to write, and
 * where those keys are all list j's, they are the rows above the key before the block's first
 * (rank_lo, -1 at the list's start) up to its last key's (rank_hi), each found by a binary
 * search of the block's keys, and the block with the list's last key also writes the rows
 * above it. Otherwise each thread walks its keys (walk_bounds). */
template <class K>
__global__ __launch_bounds__(kBoundsThreads) void bounds_kernel(const K *keys, uint64_t n,
                                                                const uint64_t *offsets, uint32_t k,
                                                                const word_t<K> *spl,
                                                                uint32_t tiles, uint32_t *bounds,
                                                                const uint32_t *flag) {
    if (*flag) return; /* picks out of order (pick_window_kernel): the split runs again */
    /* The block's keys come in coalesced, through shared memory (a pad key every 32 words,
     * so that neither the striped writes nor each thread's run of reads meets a bank twice),
     * as their raw bits. */
    using Raw = ordered_t<K>;
    constexpr int kItems = bounds_items<K>();
    constexpr int kBlockKeys = kBoundsThreads * kItems;
    constexpr int kPadShift = sizeof(K) == 4 ? 5 : 4;
    __shared__ Raw staged[kBlockKeys + (kBlockKeys >> kPadShift)];
    __shared__ uint32_t list_of[2];  /* the lists of the block's first and last keys */
    __shared__ long long rank_of[2]; /* rank_lo, rank_hi */
    const uint64_t block0 = blockIdx.x * (uint64_t)kBlockKeys;
    const uint32_t count = (uint32_t)(n - block0 < kBlockKeys ? n - block0 : kBlockKeys);
    const auto pad = [](uint32_t w) { return w + (w >> kPadShift); };
    bounds_searches(keys, block0, count, offsets, k, spl, tiles, list_of, rank_of);
    if (count == kBlockKeys) {
        /* 16-byte loads, each 16 / sizeof(K) keys */
        constexpr int kPerLoad = 16 / (int)sizeof(Raw);
        const uint4 *p = reinterpret_cast<const uint4 *>(keys + block0);
#pragma unroll
        for (int q = 0; q < kItems / kPerLoad; q++) {
            const uint32_t i = q * kBoundsThreads + threadIdx.x;
            const uint4 v = __ldg(p + i);
            Raw r[kPerLoad];
            memcpy(r, &v, sizeof v);
#pragma unroll
            for (int e = 0; e < kPerLoad; e++) staged[pad(kPerLoad * i + e)] = r[e];
        }
    } else {
        for (uint32_t i = threadIdx.x; i < count; i += kBoundsThreads) {
            if constexpr (std::is_floating_point<K>::value)
                memcpy(&staged[pad(i)], keys + block0 + i, sizeof(Raw));
            else
                staged[pad(i)] = (Raw)keys[block0 + i];
        }
    }
    __syncthreads();
    /* the block's q-th key's word, from shared memory */
    const auto word_at = [&](uint32_t q) {
        return key_word<K>(ordered_of_raw<K>(staged[pad(q)]), block0 + q);
    };
    const uint32_t j = list_of[0];
    if (j == list_of[1]) {
        const uint64_t start = __ldg(offsets + j), end = __ldg(offsets + j + 1);
        const long long rank_lo = rank_of[0], rank_hi = rank_of[1];
        if (rank_hi - rank_lo <= (long long)kSearchRowsMost) {
            uint32_t *col = bounds + (uint64_t)j * column_words(tiles);
            const uint32_t before = (uint32_t)(block0 - start); /* the list's keys before ours */
            for (long long r = rank_lo + 1 + threadIdx.x; r <= rank_hi; r += kBoundsThreads) {
                /* the first key at or above splitter r: it is one of ours, since the key
                 * before ours lies below it and our last key at or above it */
                const word_t<K> s = load_word(spl + r);
                col[r] = before +
                         pb::first_not(0, count - 1, [&](uint32_t q) { return word_at(q) < s; });
            }
            if (block0 + count == end) /* the list's last key is ours */
                for (long long r = rank_hi + 1 + threadIdx.x; r <= (long long)tiles;
                     r += kBoundsThreads)
                    col[r] = (uint32_t)(end - start);
            return;
        }
    }
    const uint64_t g0 = block0 + threadIdx.x * (uint64_t)kItems;
    if (g0 >= n) return;
    walk_bounds(keys, n, g0, offsets, k, spl, tiles, bounds,
                [&](int q) { return ordered_of_raw<K>(staged[pad(threadIdx.x * kItems + q)]); });
}

/* A tile's stretches as one thread of tile_kernel sees them: its run of kLists lists
 * (contiguous, for the scan), where each starts in its list and in the tile, and the
 * tile's size and output place. */
template <uint32_t kLists> struct TileStretches {
    uint32_t lo[kLists], len[kLists];
    uint32_t at;             /* where this thread's first stretch starts in the tile */
    uint32_t keys;           /* the tile's keys, every thread */
    unsigned long long base; /* its first output place, every thread */
    /* whether the tile is copied in and sorted: not empty, not over kCap */
    __device__ bool sorted_in_shared() const { return keys > 0 && keys <= kCap; }
};

/* B: the keys' ordered bits (ordered_t). */
template <uint32_t kLists, class B = uint32_t> struct TileShared {
    using Scan = cub::BlockScan<uint32_t, kThreads, cub::BLOCK_SCAN_WARP_SCANS>;
    using Sum64 = cub::BlockReduce<unsigned long long, kThreads>;
    using Reduce = cub::BlockReduce<B, kThreads>;
    union {
        typename Scan::TempStorage scan;
        typename Sum64::TempStorage sum;
        typename Reduce::TempStorage reduce;
    } temp;
    unsigned long long base;
    B lo, hi;
    /* write_by_value: the bucket each warp's places start in */
    uint32_t warp_bucket[kThreads / 32];
};

/* Reads tile i's rows of the bounds (a list's `column` words apart): its size and place.
 * Ends with a barrier. */
template <uint32_t kLists, class B>
__device__ TileStretches<kLists> stretches_of(const uint32_t *bounds, uint32_t column, uint32_t k,
                                              uint32_t i, TileShared<kLists, B> &sh) {
    TileStretches<kLists> t;
    uint32_t mine = 0;
    unsigned long long below = 0;
#pragma unroll
    for (uint32_t l = 0; l < kLists; l++) {
        const uint32_t j = threadIdx.x * kLists + l;
        const uint32_t *col = bounds + (uint64_t)j * column + i;
        /* rows i & ~3 to (i & ~3) + 3 in one load; row i + 1 apart where i % 4 == 3 */
        uint32_t lo = 0, hi = 0;
        if (j < k) {
            const uint4 f = __ldg(reinterpret_cast<const uint4 *>(col - (i & 3)));
            /* selects, not an indexed array, which would live in local memory */
            switch (i & 3) {
            case 0:
                lo = f.x, hi = f.y;
                break;
            case 1:
                lo = f.y, hi = f.z;
                break;
            case 2:
                lo = f.z, hi = f.w;
                break;
            default:
                lo = f.w, hi = __ldg(col + 1);
            }
        }
        t.lo[l] = lo;
        t.len[l] = hi - lo;
        mine += t.len[l];
        below += t.lo[l];
    }
    typename TileShared<kLists, B>::Scan(sh.temp.scan).ExclusiveSum(mine, t.at, t.keys);
    __syncthreads();
    const unsigned long long base = typename TileShared<kLists, B>::Sum64(sh.temp.sum).Sum(below);
    if (threadIdx.x == 0) sh.base = base;
    __syncthreads();
    t.base = sh.base;
    return t;
}

/* Calls place(q, source) for each place q < t.keys of stretches laid end to end in list order
 * (stretch l of this thread: list threadIdx.x * kLists + l from its key t.lo[l], t.len[l]
 * keys, from place t.at on), source being that key's index in `keys`: a thread a place and a
 * warp 32 adjacent places, so that a warp's loads and stores are one contiguous run with all
 * its lanes busy, and no shuffles or loop over stretches: about 16 instructions a place, where
 * session 38's copy (a team of lanes copying each lane's stretches in turn; git history) took
 * about 26 a turn, 32 turns a thread at k = 1024. H200, session 40, 2^27 keys, both with the
 * warp searches and 16-byte bounds rows, time against the teams' copy: k = 256 and 512 -3.7
 * and -2.6%, k = 1024 +1.2% with uniform keys, +0.4% normal, -3.8% zipf, -29.5% few-unique,
 * -9.8% with zipf list sizes (results/h200/session40-call2-*). Each non-empty stretch leaves
 * its start's bit in a mask and its source less its start (delta) in a table, by its rank
 * among the non-empty stretches, which is their order in the tile; a place's stretch is the
 * last start at or before it: the starts in the mask's words before its own, plus those in
 * its word up to it. The tables take `tables` (the counters' memory, free until the sort and
 * after it). */
template <uint32_t kLists, class B, class Place>
__device__ __forceinline__ void for_stretch_places(const uint64_t *offsets,
                                                   const TileStretches<kLists> &t, uint32_t *tables,
                                                   TileShared<kLists, B> &sh, Place place) {
    static_assert(kThreads * 32 == kCap, "a mask word a thread");
    static_assert(2 * kThreads + kMaxLists <= kCounterWords, "the tables fit the counters' memory");
    uint32_t *mask = tables, *starts_before = tables + kThreads, *delta = tables + 2 * kThreads;
    const uint32_t th = threadIdx.x, lane = th & 31;
    uint32_t starts = 0;
#pragma unroll
    for (uint32_t l = 0; l < kLists; l++) starts += t.len[l] != 0;
    uint32_t rank;
    typename TileShared<kLists, B>::Scan(sh.temp.scan).ExclusiveSum(starts, rank);
    mask[th] = 0;
    __syncthreads();
    uint32_t at = t.at;
#pragma unroll
    for (uint32_t l = 0; l < kLists; l++) {
        if (t.len[l] != 0) { /* so its list j < k */
            const uint32_t j = th * kLists + l;
            /* modulo 2^32: a place's source, q + delta, is below n < 2^32 */
            delta[rank++] = (uint32_t)(__ldg(offsets + j) + t.lo[l]) - at;
            atomicOr(&mask[at >> 5], 1u << (at & 31));
        }
        at += t.len[l];
    }
    __syncthreads();
    uint32_t before;
    typename TileShared<kLists, B>::Scan(sh.temp.scan)
        .ExclusiveSum((uint32_t)__popc(mask[th]), before);
    starts_before[th] = before;
    __syncthreads();
    const uint32_t D = t.keys;
#pragma unroll 4
    for (int r = 0; r < kItems; r++) {
        const uint32_t q = th + r * kThreads; /* its mask word, q / 32, is the warp's */
        if (q >= D) break;
        const uint32_t w = q >> 5;
        /* place 0 starts the first non-empty stretch, so every place has a start at or
         * before it */
        const uint32_t s = starts_before[w] + __popc(mask[w] & 0xffffffffu >> (31 - lane)) - 1;
        place(q, delta[s] + q);
    }
}

/* Issues the copies of the tile's stretches into sk (4-byte cp.async, all in flight; the
 * tables in the counters' memory). */
template <class K, uint32_t kLists, class B>
__device__ void copy_slots(const K *keys, const uint64_t *offsets, const TileStretches<kLists> &t,
                           B *sk, uint32_t *tables, TileShared<kLists, B> &sh) {
    for_stretch_places(offsets, t, tables, sh, [&](uint32_t q, uint32_t source) {
        pb::copy_async<sizeof(K)>(sk + q, keys + source);
    });
    pb::commit_async();
}

/* Counts a tile's keys (sk, D of them) into their buckets' 16-bit counters, keeping them
 * in key[]; kShared (a tile bucketed by value, whose buckets may hold many copies of a key,
 * and which needs its keys no more): the lanes of a warp that share a bucket add once
 * (match_any), so that their atomics do not queue on one counter. */
template <class K, bool kShared, class B, class BucketOf>
__device__ __forceinline__ void count_keys(const B *sk, uint32_t *count, uint32_t D,
                                           BucketOf bucket_of, B (&key)[kItems]) {
    const uint32_t lane = threadIdx.x & 31;
#pragma unroll
    for (int r = 0; r < kItems; r++) {
        const uint32_t q = threadIdx.x + r * kThreads;
        const B x = q < D ? ordered_of_raw<K>(sk[q]) : 0;
        if constexpr (!kShared) key[r] = x;
        const uint32_t b = bucket_of(x), add = 1u << (b & 1) * 16;
        if constexpr (kShared) {
            const uint32_t active = __ballot_sync(0xffffffffu, q < D);
            if (q < D) {
                const uint32_t peers = __match_any_sync(active, b);
                if (lane == (uint32_t)__ffs(peers) - 1)
                    atomicAdd(&count[counter_word(b)], (uint32_t)__popc(peers) * add);
            }
        } else if (q < D) {
            atomicAdd(&count[counter_word(b)], add);
        }
    }
}

/* Each key to the next free place of its bucket (count holds the starts): equal keys are
 * the same bits, so the order the atomics leave among them does not show. */
template <class B, class BucketOf>
__device__ __forceinline__ void scatter_keys(B *sk, uint32_t *count, uint32_t D, BucketOf bucket_of,
                                             const B (&key)[kItems]) {
#pragma unroll
    for (int r = 0; r < kItems; r++) {
        const uint32_t q = threadIdx.x + r * kThreads;
        if (q < D) {
            const uint32_t b = bucket_of(key[r]), half = (b & 1) * 16;
            sk[(atomicAdd(&count[counter_word(b)], 1u << half) >> half) & 0xffff] = key[r];
        }
    }
}

/* The first mark in `breaks` (a bit a place) at or after `from`, or end; the words up to
 * end's are written. */
__host__ __device__ __forceinline__ uint32_t next_mark(const uint32_t *breaks, uint32_t from,
                                                       uint32_t end) {
    uint32_t w = from >> 5, bits = from < end ? breaks[w] & ~0u << (from & 31) : 0;
    while (!bits) {
        if (++w * 32 >= end) return end;
        bits = breaks[w];
    }
#ifdef __CUDA_ARCH__
    const uint32_t at = w * 32 + __ffs(bits) - 1;
#else
    const uint32_t at = w * 32 + (uint32_t)__builtin_ctz(bits);
#endif
    return at < end ? at : end;
}

/* A thread's insertion walk over its places sk[first, end) (its buckets, in key order, each
 * in any order inside): sorted, equal keys never moved; the largest key so far stays in a
 * register, so a key in order (most: about 0.75 a bucket) costs one load and one compare,
 * where session 37's read its left neighbour and stored it back. kSkip (sort_marked_buckets):
 * `breaks` marks each place whose key is below the one before it, and a key in order skips the
 * walk to the next mark, since the keys up to it are in order and not below the largest so
 * far, so they stay. PB_SPLIT_RUN_WALK: a key below the largest so far does not move past
 * that key's copies one by one: the run of them (from top_start) moves up one place by one
 * store at its end, and the key is inserted before it, so a run of equal keys beside a few
 * others (a run longer than a tile, cut at its edges) costs a move a key, not a move a copy.
 * Returns the key moves, or kGaveUp once they pass walk_budget (many distinct keys in a few
 * buckets: the tile gives up). On the host too, for tests/test_merge_value_split.cu. */
template <bool kSkip, class B>
__host__ __device__ __forceinline__ uint32_t walk_buckets(B *sk, const uint32_t *breaks,
                                                          uint32_t first, uint32_t end) {
    uint32_t moves = 0;
    B top = first < end ? sk[first] : 0;
    uint32_t top_start = first; /* sk[top_start, a): the copies of top ending the walked places */
    constexpr uint32_t kUnknown = ~0u; /* top_start after a skip: found again if needed */
    uint32_t a = first + 1;
    /* the plain walk's one step (PB_SPLIT_STEP_WALK), and the key before top's run it reads:
     * sk[top_start - 1], where top_start > first */
    constexpr bool kStep = !kSkip && PB_SPLIT_STEP_WALK && PB_SPLIT_RUN_WALK;
    constexpr bool kReadAhead = !kSkip && PB_SPLIT_STEP_WALK == 2;
    B under = 0;
    B ahead = kReadAhead && a < end ? sk[a] : 0;
    while (a < end) {
        const B v = kReadAhead ? ahead : sk[a];
        if (kReadAhead && a + 1 < end) ahead = sk[a + 1];
        if constexpr (kStep) {
            /* one move a step never passes walk_budget, which grows by two a place */
            const bool below = v < top;
            if (!below || top_start == first || !(under > v)) {
                if (below) {
                    sk[a] = top;
                    sk[top_start] = v;
                    under = v;
                    top_start++;
                    moves++;
                } else if (v > top) {
                    under = top;
                    top_start = a;
                }
                top = below ? top : v;
                a++;
                continue;
            }
        }
        if (v >= top) {
            if constexpr (kSkip) { /* sk[a, next) in order, from v >= top: all stay */
                const uint32_t next = next_mark(breaks, a + 1, end);
                const B last = sk[next - 1];
                /* (one value throughout keeps the run; otherwise found again when needed) */
                if (last != top) top_start = kUnknown;
                top = last;
                a = next;
            } else {
                if (v > top) top_start = a;
                top = v;
                a++;
            }
            continue;
        }
#if PB_SPLIT_RUN_WALK
        if (top_start == kUnknown) {
            top_start = a - 1;
            while (top_start > first && sk[top_start - 1] == top) top_start--;
        }
        sk[a] = top; /* the run sk[top_start, a) one place up: its first place is free */
        uint32_t b = top_start;
        while (b > first && sk[b - 1] > v) {
            sk[b] = sk[b - 1];
            b--;
        }
        sk[b] = v;
        moves += top_start - b + 1;
        top_start++;
        if constexpr (kStep) under = sk[top_start - 1]; /* (a load only the step reads) */
#else
        uint32_t b = a;
        while (b > first && sk[b - 1] > v) {
            sk[b] = sk[b - 1];
            b--;
        }
        sk[b] = v;
        moves += a - b;
#endif
        a++;
        if (moves > walk_budget(a - first)) return kGaveUp;
    }
    return moves;
}

/* This thread's buckets hold sk[first, first + sum): walked (walk_buckets); false, every
 * thread, where a thread gave up. Ends with a barrier. */
template <class B>
__device__ __forceinline__ bool sort_thread_buckets(B *sk, uint32_t first, uint32_t sum) {
    return !__syncthreads_or(walk_buckets<false>(sk, nullptr, first, first + sum) == kGaveUp);
}

/* A thread whose buckets hold more keys than this (24 on average; about 50 at most, by estimate,
 * over a uniform tile's 512 threads) makes its tile take sort_marked_buckets: many copies of a few
 * values spread over linear buckets (normal keys: a tile of 12288 keys spans about a dozen
 * values, a thousand copies each, far apart), which one thread would walk a key at a time
 * while the block waited. */
constexpr uint32_t kHeavyThread = 128;

/* sort_thread_buckets for a tile with heavy threads: the block first marks, a place each
 * (balanced), the places whose key is below the one before it, a bit each in `breaks`
 * (kCap / 32 words); then each thread walks its places skipping to the marks. A tile of many
 * copies (each bucket one value) has no marks, and its walks cost a load a run. */
template <class B>
__device__ __forceinline__ bool sort_marked_buckets(B *sk, uint32_t *breaks, uint32_t first,
                                                    uint32_t sum, uint32_t D) {
    const uint32_t th = threadIdx.x, lane = th & 31;
    for (uint32_t row = 0; row < D; row += kThreads) {
        const uint32_t q = row + th;
        const B x = q < D ? sk[q] : 0;
        B before = __shfl_up_sync(0xffffffffu, x, 1);
        if (lane == 0 && q > 0 && q < D) before = sk[q - 1];
        const uint32_t marks = __ballot_sync(0xffffffffu, q > 0 && q < D && x < before);
        if (lane == 0) breaks[q >> 5] = marks;
    }
    __syncthreads();
    return !__syncthreads_or(walk_buckets<true>(sk, breaks, first, first + sum) == kGaveUp);
}

/* A tile bucketed by value (a bucket a value, `count` holding the starts; sk zeroed) written
 * out to o: each non-empty bucket marks its first place in sk with its number, and each warp
 * fills its own contiguous stretch of places, a row of 32 at a time, each place with the last
 * mark at or before it (a ballot and a shuffle), carried from row to row. So every thread
 * writes its share, where a thread writing its own buckets' copies left a tile of a few
 * values, thousands of copies each (normal keys), to one thread while the block waited.
 * first: this thread's buckets' first place. Ends with a barrier. */
template <class K, class B>
__device__ void write_by_value(B *sk, const uint32_t *count, uint32_t first, uint32_t D, B lo,
                               uint32_t *warp_bucket, K *o) {
    constexpr uint32_t kWarps = kThreads / 32;
    const uint32_t th = threadIdx.x, lane = th & 31, warp = th >> 5;
    const uint32_t stretch = (D + kWarps * 32 - 1) / (kWarps * 32) * 32; /* places a warp */
    /* a: this bucket's first place; next_warp: the next warp stretch to start */
    uint32_t a = first, next_warp = (first + stretch - 1) / stretch;
    for (uint32_t b = 2 * kWordsThread * th; b < 2 * kWordsThread * (th + 1); b++) {
        const uint32_t c = b + 1 < (uint32_t)kBuckets ? bucket_counter(count, b + 1) : D;
        if (c == a) continue;
        sk[a] = b; /* place 0's mark, bucket 0, is the zero it had */
        for (; next_warp * stretch < c; next_warp++) warp_bucket[next_warp] = b;
        a = c;
    }
    __syncthreads();
    const uint32_t p0 = warp * stretch, end = min(D, p0 + stretch);
    uint32_t carry = p0 < D ? warp_bucket[warp] : 0;
    for (uint32_t row = p0; row < end; row += 32) { /* the same trips for the whole warp */
        const uint32_t q = row + lane;
        const uint32_t mark = q < end ? (uint32_t)sk[q] : 0u;
        const uint32_t marks = __ballot_sync(0xffffffffu, mark != 0) & 0xffffffffu >> (31 - lane);
        const uint32_t last = __shfl_sync(0xffffffffu, mark, marks ? 31 - __clz(marks) : 0);
        const uint32_t b = marks ? last : carry;
        if (q < end) o[q] = from_ordered_bits<K>((B)(lo + b));
        carry = __shfl_sync(0xffffffffu, b, 31);
    }
    __syncthreads();
}

/* A tile's buckets over its range [lo, hi] of ordered key bits: a bucket a value where the
 * range holds at most kBuckets values (by_value), else linear over the range. On the host
 * too, for tests/test_merge_value_split.cu. */
template <class B> struct TileRange;
template <> struct TileRange<uint32_t> {
    uint32_t lo;
    uint64_t width;
    bool by_value;
    uint32_t mul;
    __host__ __device__ TileRange(uint32_t lo_, uint32_t hi)
        : lo(lo_), width((uint64_t)hi - lo_ + 1), by_value(width <= (uint64_t)kBuckets),
          mul(by_value ? 0 : (uint32_t)(((uint64_t)kBuckets << 32) / width)) {}
    __host__ __device__ static bool one_value(uint32_t lo, uint32_t hi) {
        return (uint64_t)hi - lo + 1 == 1;
    }
    __host__ __device__ uint32_t bucket(uint32_t key) const {
        const uint32_t d = key - lo;
#ifdef __CUDA_ARCH__
        return by_value ? d : __umulhi(d, mul);
#else
        return by_value ? d : (uint32_t)((uint64_t)d * mul >> 32);
#endif
    }
};
/* 8-byte keys: d * mul / 2^64 < kBuckets for d <= hi - lo, whatever the span (2^64 - 1
 * included, where mul is kBuckets). */
template <> struct TileRange<uint64_t> {
    uint64_t lo, span;
    bool by_value;
    uint64_t mul;
    __host__ __device__ TileRange(uint64_t lo_, uint64_t hi)
        : lo(lo_), span(hi - lo_), by_value(span < (uint64_t)kBuckets),
          mul(by_value ? 0
                       : (uint64_t)(((unsigned __int128)kBuckets << 64) /
                                    ((unsigned __int128)span + 1))) {}
    __host__ __device__ static bool one_value(uint64_t lo, uint64_t hi) { return hi == lo; }
    __host__ __device__ uint32_t bucket(uint64_t key) const {
        const uint64_t d = key - lo;
#ifdef __CUDA_ARCH__
        return by_value ? (uint32_t)d : (uint32_t)__umul64hi(d, mul);
#else
        return by_value ? (uint32_t)d : (uint32_t)((unsigned __int128)d * mul >> 64);
#endif
    }
};

/* Float keys: linear over the tile's values (as doubles), not their bits, whose spacing
 * doubles at every power of two. The bits of a tile of uniform keys around zero run through
 * some two thousand binades (f64) and its keys through the top few, which crowd a few buckets
 * and give the tile up, and with it the whole input (H100, session 42: 0.26x the multiway
 * passes; 1.09 to 1.11x with this map). x <= y gives (x - lo) * scale <= (y - lo) * scale
 * under rounding, so the buckets stay in key order. Linear over the bits where the range
 * holds few values, or where its span or scale would overflow (f64 subnormal spans, whose
 * bits are linear in their values, and spans past DBL_MAX). */
template <class K> struct RealTileRange {
    using B = ordered_t<K>;
    TileRange<B> bits;
    bool by_value; /* as TileRange's: a bucket a value */
    bool by_bits;  /* by_value, or a scale that over- or underflowed */
    double lo, scale;
    __host__ __device__ RealTileRange(B lo_, B hi)
        : bits(lo_, hi), by_value(bits.by_value), lo((double)from_ordered_bits<K>(lo_)),
          scale(kBuckets / ((double)from_ordered_bits<K>(hi) - lo)) {
        /* the span is positive: 0 where it passed DBL_MAX, infinite where it is subnormal */
        by_bits = by_value || !(scale > 0 && scale <= DBL_MAX);
    }
    __host__ __device__ uint32_t bucket(B key) const {
        if (by_bits) return bits.bucket(key);
        const double t = ((double)from_ordered_bits<K>(key) - lo) * scale;
        return t < (double)(kBuckets - 1) ? (uint32_t)t : (uint32_t)(kBuckets - 1);
    }
};
/* The bucket of key in a tile over [lo, hi] bucketed linearly by range, but for the tile's
 * lowest and highest values, each alone in the first and the last bucket (edge buckets). On
 * the host too, for tests/test_merge_value_split.cu. */
template <class Range, class B>
__host__ __device__ __forceinline__ uint32_t edge_bucket(const Range &range, B lo, B hi, B key) {
    constexpr uint32_t last = kBuckets - 1;
    if (key == lo) return 0;
    if (key == hi) return last;
    const uint32_t b = range.bucket(key);
    return b < 1 ? 1 : b > last - 1 ? last - 1 : b;
}

/* A key's bucket in a tile over [lo, hi]: range's, or edge_bucket's where the tile takes edge
 * buckets (edges: edge_buckets_wanted, for a tile bucketed linearly). On the host too, for
 * tests/test_merge_split_inputs.cu. */
template <class Range, class B>
__host__ __device__ __forceinline__ uint32_t tile_bucket(const Range &range, B lo, B hi, B key,
                                                         bool edges) {
    return edges && !range.by_value ? edge_bucket(range, lo, hi, key) : range.bucket(key);
}

/* The bucket map a tile of K keys uses. */
template <class K>
using tile_range_t = typename std::conditional<std::is_floating_point<K>::value, RealTileRange<K>,
                                               TileRange<ordered_t<K>>>::type;

/* Whether a tile of float keys (raw bits in sk) holds a -0.0 (raw bits: the sign bit alone);
 * false for integer keys. Every thread; a barrier for floats. */
template <class K, class B> __device__ bool holds_negative_zero(const B *sk, uint32_t D) {
    if constexpr (std::is_floating_point<K>::value) {
        bool found = false;
        for (uint32_t q = threadIdx.x; q < D; q += kThreads) found |= sk[q] == kSignBit<B>;
        return __syncthreads_or(found);
    }
    return false;
}

/* Sorts a tile whose D keys (raw K bits) have landed in sk and writes it to out (floats'
 * zeros all as +0.0: the order takes -0.0 and +0.0 as equal); false (every thread) if its
 * insertion sort would move keys too often. Ends with a barrier. */
template <class K, uint32_t kLists, class B>
__device__ bool sort_tile(B *sk, uint32_t *count, const TileStretches<kLists> &t,
                          TileShared<kLists, B> &sh, K *out) {
    const int th = (int)threadIdx.x;
    const uint32_t D = t.keys;
    /* the tile's range: its stretches' first and last keys */
    B lo_key = ~(B)0, hi_key = 0;
    uint32_t at = t.at;
#pragma unroll
    for (uint32_t l = 0; l < kLists; l++) {
        if (t.len[l] == 0) continue;
        lo_key = min(lo_key, ordered_of_raw<K>(sk[at]));
        hi_key = max(hi_key, ordered_of_raw<K>(sk[at + t.len[l] - 1]));
        at += t.len[l];
    }
    using Reduce = typename TileShared<kLists, B>::Reduce;
    const B lo_all = Reduce(sh.temp.reduce).Reduce(lo_key, [](B a, B b) { return a < b ? a : b; });
    __syncthreads();
    const B hi_all = Reduce(sh.temp.reduce).Reduce(hi_key, [](B a, B b) { return a > b ? a : b; });
    if (th == 0) {
        sh.lo = lo_all;
        sh.hi = hi_all;
    }
    for (int w = th; w < kCounterWords; w += kThreads) count[w] = 0;
    __syncthreads();
    const B lo = sh.lo;
    K *o = out + t.base;
    if (TileRange<B>::one_value(lo, sh.hi)) { /* one key value: no sort */
        for (uint32_t q = th; q < D; q += kThreads) o[q] = from_ordered_bits<K>(lo);
        __syncthreads();
        return true;
    }
    const tile_range_t<K> range(lo, sh.hi);
    const bool by_value = range.by_value;
    const B hi = sh.hi;
    bool edges = !by_value && PB_SPLIT_EDGE_BUCKETS == 1;
    /* tile_bucket's two maps, each compiled apart, so that a tile without edge buckets pays
     * nothing a key */
    const auto bucket_of = [&](B key) { return tile_bucket(range, lo, hi, key, false); };
    const auto edge_bucket_of = [&](B key) { return tile_bucket(range, lo, hi, key, true); };

    /* A tile bucketed by value may hold many copies of a key, whose atomics on one counter
     * would queue: there the lanes of a warp that share a bucket add once, together. */
    B key[kItems];
    if (by_value)
        count_keys<K, true>(sk, count, D, bucket_of, key);
    else if (edges)
        count_keys<K, false>(sk, count, D, edge_bucket_of, key);
    else
        count_keys<K, false>(sk, count, D, bucket_of, key);
    __syncthreads();
    if (PB_SPLIT_EDGE_BUCKETS == 2 && !by_value &&
        edge_buckets_wanted(bucket_counter(count, 0) + bucket_counter(count, kBuckets - 1))) {
        edges = true; /* (the same counters for every thread: the barriers are the block's) */
        __syncthreads();
        for (int w = th; w < kCounterWords; w += kThreads) count[w] = 0;
        __syncthreads();
        count_keys<K, false>(sk, count, D, edge_bucket_of, key);
        __syncthreads();
    }
    if (by_value) /* for write_by_value's marks: the keys are counted, and not needed again */
        for (uint32_t q = th; q < D; q += kThreads) sk[q] = 0;
    /* counts to starts, each thread kWordsThread consecutive words (two buckets each) */
    uint32_t sum = 0;
#pragma unroll
    for (int w = 0; w < kWordsThread; w++) {
        const uint32_t c = count[counter_word(2 * (th * kWordsThread + w))];
        sum += (c & 0xffff) + (c >> 16);
    }
    uint32_t first;
    typename TileShared<kLists, B>::Scan(sh.temp.scan).ExclusiveSum(sum, first);
    {
        uint32_t a = first; /* the words again rather than in registers, beside the keys */
#pragma unroll
        for (int w = 0; w < kWordsThread; w++) {
            uint32_t *word = &count[counter_word(2 * (th * kWordsThread + w))];
            const uint32_t c = *word, c0 = c & 0xffff;
            *word = a | (a + c0) << 16;
            a += c0 + (c >> 16);
        }
    }
    const bool heavy = __syncthreads_or(sum > kHeavyThread);
    if (by_value) { /* a bucket is one value: its copies need no sort */
        write_by_value(sk, count, first, D, lo, sh.warp_bucket, o);
        return true;
    }
    if (edges)
        scatter_keys(sk, count, D, edge_bucket_of, key);
    else
        scatter_keys(sk, count, D, bucket_of, key);
    __syncthreads();
    /* (the counters are free once the keys are scattered) */
    if (!(heavy ? sort_marked_buckets(sk, count, first, sum, D)
                : sort_thread_buckets(sk, first, sum)))
        return false;
#pragma unroll
    for (int r = 0; r < kItems; r++) {
        const uint32_t q = th + r * kThreads;
        if (q < D) o[q] = from_ordered_bits<K>(sk[q]);
    }
    __syncthreads();
    return true;
}

/* A list's zeros in its stretch of tile i: the list is sorted, so they are one run, found
 * by two searches in global memory. The stretch is read again from the bounds (plain loads,
 * which the barriers between keep the compiler from reusing), not kept from stretches_of:
 * kept, its kLists pairs stayed live across sort_tile, and the f32 tile kernels (64
 * registers) spilled 4 to 68 bytes, which they do not without this step (ptxas, session 45). */
template <class K> struct ListZeros {
    uint32_t lo;               /* the stretch's first key in its list */
    uint32_t first_zero, past; /* its zeros: the stretch's keys [first_zero, past) */
    __device__ ListZeros(const K *keys, const uint64_t *offsets, const uint32_t *bounds,
                         uint32_t column, uint32_t k, uint32_t i, uint32_t j)
        : lo(0), first_zero(0), past(0) {
        if (j >= k) return;
        const uint32_t *col = bounds + (uint64_t)j * column + i;
        lo = col[0];
        const uint32_t len = col[1] - lo;
        const K *s = keys + __ldg(offsets + j) + lo;
        const auto zero = ordered_bits((K)0);
        first_zero = pb::first_not(0, len, [&](uint32_t q) { return ordered_bits(s[q]) < zero; });
        past =
            pb::first_not(first_zero, len, [&](uint32_t q) { return ordered_bits(s[q]) <= zero; });
    }
};

/* A sorted tile i of float keys that holds a -0.0 (sort_tile wrote every zero as +0.0): its
 * zeros' own bits written again in the stable order, list by list and each list's in place
 * order; the tile's zeros follow all its negative keys. The zeros are stretches laid end to
 * end like the tile's own, so the whole block copies them, a thread a place
 * (for_stretch_places; `tables`: the counters' memory, free after the sort). Session 45's
 * copy, each thread its own lists' zeros in turn, left a tile inside a run of zeros (its
 * zeros from one or two lists) to one or two threads: H100, 1 key in 8 zero, 2.3 to 6.1x
 * the time of uniform keys. Only tiles holding a -0.0 pay for this, where before session 44
 * they sent the whole input to the radix sort. Not inlined: inlined, the f32 tile kernels
 * spilled 4 to 12 bytes (ptxas sm_90, session 46); called, no tile kernel spills. */
template <class K, uint32_t kLists, class B>
__device__ __noinline__ void
write_zero_signs(const K *keys, const uint64_t *offsets, const uint32_t *bounds, uint32_t column,
                 uint32_t k, uint32_t i, uint32_t *tables, TileShared<kLists, B> &sh, K *o) {
    TileStretches<kLists> zeros;
    uint32_t negatives = 0, mine = 0;
#pragma unroll
    for (uint32_t l = 0; l < kLists; l++) {
        const ListZeros<K> z(keys, offsets, bounds, column, k, i, threadIdx.x * kLists + l);
        negatives += z.first_zero;
        zeros.lo[l] = z.lo + z.first_zero;
        zeros.len[l] = z.past - z.first_zero;
        mine += zeros.len[l];
    }
    using Scan = typename TileShared<kLists, B>::Scan;
    uint32_t unused, below;
    Scan(sh.temp.scan).ExclusiveSum(negatives, unused, below);
    __syncthreads();
    Scan(sh.temp.scan).ExclusiveSum(mine, zeros.at, zeros.keys);
    __syncthreads();
    o += below;
    /* (__ldg: read-only, so the loads of a thread's places need not wait for its stores) */
    for_stretch_places(offsets, zeros, tables, sh,
                       [&](uint32_t q, uint32_t source) { o[q] = __ldg(keys + source); });
}

/* A block a tile: copied in and sorted, or the flag raised (over kCap keys, or a sort that
 * would move keys too often). Two blocks an SM for 4-byte keys, one for 8-byte ones (their
 * tile takes 128 KB). */
template <class K, uint32_t kLists>
__global__ __launch_bounds__(kThreads, sizeof(K) == 4 ? 2 : 1) void tile_kernel(
    const K *keys, const uint64_t *offsets, uint32_t k, const uint32_t *bounds, uint32_t column,
    K *out, uint32_t *flag) {
    using B = ordered_t<K>;
    __shared__ TileShared<kLists, B> sh;
    extern __shared__ __align__(16) uint32_t smem[];
    B *sk = reinterpret_cast<B *>(smem);
    uint32_t *count = smem + kCap * (sizeof(B) / 4);
    if (*flag) return; /* picks out of order, or a tile given up: the result is not kept */
    const TileStretches<kLists> t = stretches_of(bounds, column, k, blockIdx.x, sh);
    if (t.keys == 0) return;
    bool done = false;
    if (t.sorted_in_shared()) {
        copy_slots(keys, offsets, t, sk, count, sh);
        pb::wait_async_all();
        __syncthreads();
        const bool signed_zeros = holds_negative_zero<K>(sk, t.keys);
        done = sort_tile(sk, count, t, sh, out);
        if (done && signed_zeros)
            write_zero_signs(keys, offsets, bounds, column, k, blockIdx.x, count, sh, out + t.base);
    }
    if (!done && threadIdx.x == 0) atomicOr(flag, kTileGivenUp);
}

/* The scratch, carved in this order. */
struct Scratch {
    unsigned long long *samples, *sorted;    /* words; 8-byte keys: their ordered bits */
    uint32_t *sample_places, *sorted_places; /* 8-byte keys: the samples' places */
    uint32_t *windows[2], *index[2];         /* Shape::window: in and sorted */
    uint32_t *shift;                         /* Shape::window: its lowest bit */
    void *splitters;                         /* word_t<K> */
    uint32_t *bounds, *flag;
    void *sort_temp;
};

template <class Carver> Scratch carve(Carver &c, const Shape &sh, uint32_t k, size_t sort_temp) {
    Scratch s;
    /* the whole samples' arrays, and over them the windows' (a split over windows that is
     * run again over whole samples has done with its windows) */
    const uint64_t m = sh.samples + 1;
    const size_t start = c.used;
    s.samples = c.template take<unsigned long long>(m);
    s.sorted = c.template take<unsigned long long>(m);
    s.sample_places = c.template take<uint32_t>(sh.wide ? m : 0);
    s.sorted_places = c.template take<uint32_t>(sh.wide ? m : 0);
    const size_t whole_end = c.used;
    c.used = start;
    for (int i = 0; i < 2; i++) {
        s.windows[i] = c.template take<uint32_t>(sh.window ? m : 0);
        s.index[i] = c.template take<uint32_t>(sh.window ? m : 0);
    }
    if (c.used < whole_end) c.used = whole_end;
    s.shift = c.template take<uint32_t>(1);
    s.splitters = c.template take<unsigned char>((sh.tiles + 1) * (sh.wide ? 16 : 8));
    s.bounds = c.template take<uint32_t>((size_t)k * column_words(sh.tiles));
    s.flag = c.template take<uint32_t>(1);
    s.sort_temp = c.template take<unsigned char>(sort_temp);
    return s;
}

/* The samples' sort (temp null: its temporary storage's size in temp_bytes): by their
 * windows carrying their indices, or 4-byte keys' words by the key bits alone, 8-byte keys'
 * bits carrying their places. Stable, so equal keys keep their places' order. */
template <class K>
cudaError_t sort_samples(void *temp, size_t &temp_bytes, const Scratch *s, const Shape &sh,
                         cudaStream_t stream) {
    const uint64_t samples = sh.samples;
    if (sh.window)
        return cub::DeviceRadixSort::SortPairs(temp, temp_bytes, s ? s->windows[0] : nullptr,
                                               s ? s->windows[1] : nullptr,
                                               s ? s->index[0] : nullptr, s ? s->index[1] : nullptr,
                                               (int64_t)samples, 0, (int)sh.window, stream);
    if constexpr (wide_keys<K>())
        return cub::DeviceRadixSort::SortPairs(
            temp, temp_bytes, s ? s->samples : nullptr, s ? s->sorted : nullptr,
            s ? s->sample_places : nullptr, s ? s->sorted_places : nullptr, (int64_t)samples, 0, 64,
            stream);
    else
        return cub::DeviceRadixSort::SortKeys(temp, temp_bytes, s ? s->samples : nullptr,
                                              s ? s->sorted : nullptr, (int64_t)samples, 32, 64,
                                              stream);
}

/* The samples' sort's temporary storage for shape sh: over windows, the larger of that try's
 * and the whole samples' (run's second try). */
template <class K> cudaError_t sort_samples_bytes(const Shape &sh, size_t *bytes) {
    *bytes = 0;
    cudaError_t e = sort_samples<K>(nullptr, *bytes, nullptr, sh, nullptr);
    if (e != cudaSuccess || !sh.window) return e;
    Shape whole = sh;
    whole.window = 0;
    size_t again = 0;
    e = sort_samples<K>(nullptr, again, nullptr, whole, nullptr);
    if (again > *bytes) *bytes = again;
    return e;
}

template <class K> size_t tile_smem_bytes() {
    return (size_t)kCap * sizeof(ordered_t<K>) + (size_t)kCounterWords * sizeof(uint32_t);
}

/* Lets the tile kernel for k lists have its shared memory (untimed, at plan time). */
template <class K> cudaError_t configure(uint32_t k) {
    return with_lists(k, [](auto lists) {
        return cudaFuncSetAttribute(tile_kernel<K, decltype(lists)::value>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)tile_smem_bytes<K>());
    });
}

/* One try of the merge by shape sh: its flag's bits in *flag_out (synchronises the stream
 * once, to read them). */
template <class K>
cudaError_t attempt(const K *keys, uint64_t n, const uint64_t *offsets, uint32_t k, K *out,
                    const Shape &sh, const Scratch &s, size_t sort_temp, cudaStream_t stream,
                    uint32_t *flag_out) {
    const uint32_t tiles = sh.tiles;
    const bool window = sh.window && sh.samples > 0;
    if (sh.samples > 0) {
        const uint64_t blocks = (sh.samples + 255) / 256;
        const unsigned grid = (unsigned)(blocks < 4096 ? blocks : 4096);
        if (window) {
            window_kernel<K><<<1, 1024, 0, stream>>>(keys, offsets, k, sh.window, s.shift, s.flag);
            window_sample_kernel<K><<<grid, 256, 0, stream>>>(keys, sh.samples, sh.stride, s.shift,
                                                              s.windows[0], s.index[0]);
        } else {
            sample_kernel<K>
                <<<grid, 256, 0, stream>>>(keys, sh.samples, sh.stride, s.samples, s.sample_places);
        }
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess) return e;
        size_t temp = sort_temp;
        e = sort_samples<K>(s.sort_temp, temp, &s, sh, stream);
        if (e != cudaSuccess) return e;
    }
    using Word = word_t<K>;
    Word *splitters = static_cast<Word *>(s.splitters);
    if (window)
        pick_window_kernel<K><<<(tiles + 255) / 256, 256, 0, stream>>>(
            keys, s.windows[1], s.index[1], sh.samples, sh.stride, sh.per_tile, tiles, splitters,
            s.flag);
    else
        pick_kernel<K><<<(tiles + 255) / 256, 256, 0, stream>>>(
            s.sorted, s.sorted_places, sh.per_tile, tiles, splitters, s.flag);
    if (sh.empty_lists) empty_lists_kernel<<<k, 256, 0, stream>>>(offsets, k, tiles, s.bounds);
    constexpr int kItems = bounds_items<K>();
    const uint64_t walkers = (n + kItems - 1) / kItems;
    bounds_kernel<K><<<(unsigned)((walkers + kBoundsThreads - 1) / kBoundsThreads), kBoundsThreads,
                       0, stream>>>(keys, n, offsets, k, splitters, tiles, s.bounds, s.flag);
    with_lists(k, [&](auto lists) {
        tile_kernel<K, decltype(lists)::value><<<tiles, kThreads, tile_smem_bytes<K>(), stream>>>(
            keys, offsets, k, s.bounds, column_words(tiles), out, s.flag);
        return cudaSuccess;
    });
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    e = cudaMemcpyAsync(flag_out, s.flag, sizeof *flag_out, cudaMemcpyDeviceToHost, stream);
    return e == cudaSuccess ? cudaStreamSynchronize(stream) : e;
}

/* The merge (keys to out); *fell_back: whether a tile could not be bound, so the caller
 * must merge another way. Synchronises the stream once, to read the flag (twice where picks
 * over windows came out of order and the split runs again over whole samples). */
template <class K>
cudaError_t run(const K *keys, uint64_t n, const uint64_t *offsets, uint32_t k, K *out,
                const Shape &sh, const Scratch &s, size_t sort_temp, cudaStream_t stream,
                bool *fell_back) {
    uint32_t flag = 0;
    cudaError_t e = attempt(keys, n, offsets, k, out, sh, s, sort_temp, stream, &flag);
    if (e == cudaSuccess && (flag & kPicksOutOfOrder)) {
        Shape whole = sh;
        whole.window = 0;
        e = attempt(keys, n, offsets, k, out, whole, s, sort_temp, stream, &flag);
    }
    *fell_back = e == cudaSuccess && flag != 0;
    return e;
}
#endif

} // namespace pb::merge::split
