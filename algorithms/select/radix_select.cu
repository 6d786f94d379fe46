/* Radix select: a per-row state machine driven by a fixed sequence of kernels, so the host
 * never waits. Every row keeps a candidate range [clo, chi] of ordered values (keys outside
 * it were already output or are out of the answer) and a bucket [blo, bhi] inside it that
 * holds the k-th key:
 *
 *   start   (sampled) a block per row sorts a strided sample and takes [blo, bhi] around
 *           the sample's k-th with a margin of 4 standard deviations (and a sampled group);
 *           a bracket below the sample's first key whose sampled keys are one value becomes
 *           that value alone (heavy values: one pass, no histogram); (otherwise) the bucket
 *           is the whole range, and the first pass only counts.
 *   filter  one pass over the row's current source (the input, or the candidates compacted
 *           by the previous pass): keys in [clo, blo) are in the answer and are appended to
 *           the output; keys in [blo, bhi] are candidates: counted in a histogram of the
 *           next digit, and appended to a candidate buffer when the scan said they fit.
 *   scan    a block per row: after the sampled pass, checks the guess (at most k keys
 *           before blo, at least k up to bhi) and restarts from the whole range if it was
 *           wrong; then finds the digit bucket that holds the k-th key, and narrows.
 *   final   once the bucket is one value (or every key of it is in the answer), a last
 *           filter appends the keys before it and the first k_rem of the bucket's keys,
 *           written from the end of the row's output so that ties cut at exactly k.
 *
 * Keys before the bucket are appended with one atomic per warp and tile; bucket keys (rare
 * after a sampled start) per lane into a block's shared-memory stage, flushed once; past
 * what the scan can use (the cap, or k keys of a one-value bucket) they are only counted.
 * Everything is in ordered unsigned values (select_order.h); the emit kernel gathers the
 * original keys. */
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>

#include <math.h>

#include "dtype_dispatch.cuh"
#include "radix_select.h"
#include "select_order.h"
#include "warp_scan.cuh"

namespace {

constexpr int kFilterThreads = 256;
constexpr int kItems = 16; /* a thread's keys per tile: 64 bytes of u32 in flight */
constexpr int kTile = kFilterThreads * kItems;
/* Candidates a filter warp gathers in shared memory between flushes (one atomic on the
 * row's counter each): a sampled bracket leaves about 1 key in 300, and an atomic per
 * warp and tile on that one counter took 0.68 ms of a 2^28-key pass on the H200. */
constexpr int kWarps = kFilterThreads / 32;
/* Filter blocks an SM and a warp's stage (keys, with their indices). On the H200 (2^28
 * sparse keys, k = 1024) 6 blocks of 40 registers with a 384-key stage took u32 from
 * 0.427 ms (5 blocks, 48 registers, 512 keys) to 0.412 ms; f32 went from 0.499 to 0.506.
 * Eight-byte keys keep 5 blocks and 256 keys: at 6, ptxas spills about 2 KB a thread. */
template <class U> struct FilterShape {
    static constexpr int kBlocksPerSM = sizeof(U) == 4 ? 6 : 5;
    static constexpr unsigned kStageKeys = sizeof(U) == 4 ? 384 : 256;
};

constexpr int kMaxDigitBits = 11;
constexpr int kMaxBins = 1 << kMaxDigitBits;
constexpr int kScanThreads = 256;
constexpr int kBinsPerThread = kMaxBins / kScanThreads;
constexpr int kSampleThreads = 512;
constexpr int kSamplePerThread = 8;
constexpr int kSampleMax = kSampleThreads * kSamplePerThread;
/* consecutive keys per sampled spot (half a sector): the margin grows with the group
 * (see start_kernel), so smaller groups leave fewer candidates; tests/select_inputs.h
 * builds its traps on this layout */
constexpr int kSampleGroup = 4;

enum Stage : int { kFilter = 0, kFinal = 1, kDone = 2 };
enum Source : int { kInput = 0, kBufferA = 1, kBufferB = 2 };

struct RowState {
    unsigned long long clo, chi, blo, bhi;
    unsigned long long out_count;  /* keys before blo written, from the front */
    unsigned long long tie_count;  /* final: bucket keys seen, the first k_rem written */
    unsigned long long cand_count; /* candidates appended by the last filter */
    unsigned long long k_rem;      /* keys of [blo, bhi] the answer still needs */
    unsigned long long src_count;  /* items in the source buffer */
    int stage, src, dst, compact, shift, nbins, sampled_guess, pad;
};

template <class T> struct Ordered;
template <> struct Ordered<uint8_t> { typedef uint32_t U; };
template <> struct Ordered<uint16_t> { typedef uint32_t U; };
template <> struct Ordered<uint32_t> { typedef uint32_t U; };
template <> struct Ordered<uint64_t> { typedef uint64_t U; };
template <> struct Ordered<int8_t> { typedef uint32_t U; };
template <> struct Ordered<int16_t> { typedef uint32_t U; };
template <> struct Ordered<int32_t> { typedef uint32_t U; };
template <> struct Ordered<int64_t> { typedef uint64_t U; };
template <> struct Ordered<float> { typedef uint32_t U; };
template <> struct Ordered<double> { typedef uint64_t U; };

template <class T> __device__ __forceinline__ unsigned long long ordered_of(T x, bool largest) {
    unsigned long long v;
    if constexpr (std::is_same_v<T, float>) {
        v = pb_order_f32(__float_as_uint(x));
    } else if constexpr (std::is_same_v<T, double>) {
        v = pb_order_f64((unsigned long long)__double_as_longlong(x));
    } else if constexpr (std::is_signed_v<T>) {
        typedef std::make_unsigned_t<T> UT;
        v = (UT)((UT)x ^ ((UT)1 << (8 * sizeof(T) - 1)));
    } else {
        v = x;
    }
    return largest ? v ^ pb_order_max((int)sizeof(T)) : v;
}

struct Buffers {
    RowState *state;
    unsigned *hist;     /* batch x kMaxBins */
    void *cand_keys[2]; /* U, batch x cap each */
    uint32_t *cand_index[2];
    void *out_keys; /* U, batch x k */
    uint32_t *out_index;
    unsigned long long cap;
};

__device__ __forceinline__ int bit_length(unsigned long long x) { return x ? 64 - __clzll(x) : 0; }

/* Histogram digit shift for a bucket [lo, hi]: at most 2^digit_bits bins. */
__device__ __forceinline__ int shift_for(unsigned long long lo, unsigned long long hi,
                                         int digit_bits) {
    int s = bit_length(hi - lo) - digit_bits;
    return s > 0 ? s : 0;
}

__device__ void set_bucket(RowState &s, unsigned long long lo, unsigned long long hi,
                           int digit_bits) {
    s.blo = lo;
    s.bhi = hi;
    s.shift = shift_for(lo, hi, digit_bits);
    s.nbins = (int)((hi - lo) >> s.shift) + 1;
}

/* Candidates a filter pass writes (the rest are only counted): a one-value bucket needs
 * at most k of its keys, any other bucket all that fit the buffer. The scan relies on it. */
__device__ __forceinline__ unsigned long long
candidates_kept(const RowState &s, unsigned long long k, unsigned long long cap) {
    return s.blo == s.bhi && k < cap ? k : cap;
}

/* The whole-range start: count the top digit of every key, compact nothing. */
__device__ void restart(RowState &s, unsigned long long k, unsigned long long max, int digit_bits) {
    s.clo = 0;
    s.chi = max;
    set_bucket(s, 0, max, digit_bits);
    s.out_count = s.tie_count = s.cand_count = 0;
    s.k_rem = k;
    s.src = kInput;
    s.dst = kBufferA;
    s.src_count = 0;
    s.compact = 0;
    s.sampled_guess = 0;
    s.stage = kFilter;
}

/* ---- start ---------------------------------------------------------------------- */

template <class T, class U>
__global__ void __launch_bounds__(kSampleThreads)
    start_kernel(const T *keys, unsigned long long n, unsigned long long k, bool largest,
                 bool sample, int digit_bits, Buffers b) {
    typedef cub::BlockRadixSort<U, kSampleThreads, kSamplePerThread> Sort;
    __shared__ typename Sort::TempStorage sort_storage;
    __shared__ U picked[2], smallest;
    const unsigned row = blockIdx.x;
    const unsigned long long max = pb_order_max((int)sizeof(T));
    const T *row_keys = keys + row * n;
    unsigned *hist = b.hist + (size_t)row * kMaxBins;
    for (int i = threadIdx.x; i < kMaxBins; i += blockDim.x) hist[i] = 0;
    RowState *st = b.state + row;
    if (k == n || !sample) {
        if (threadIdx.x == 0) {
            RowState s{};
            restart(s, k, max, digit_bits);
            if (k == n) { /* everything: one final pass, as ties from the back */
                s.stage = kFinal;
                s.blo = 0;
            }
            *st = s;
        }
        return;
    }
    /* The sample: the whole row when it fits, else groups of consecutive keys spread
     * evenly over the row. */
    const unsigned long long count = n < kSampleMax ? n : kSampleMax;
    const unsigned long long groups = count / kSampleGroup;
    U items[kSamplePerThread];
#pragma unroll
    for (int j = 0; j < kSamplePerThread; j++) {
        unsigned long long i = (unsigned long long)threadIdx.x * kSamplePerThread + j;
        unsigned long long at = i;
        if (n > kSampleMax) at = (i / kSampleGroup) * (n / groups) + i % kSampleGroup;
        items[j] = i < count ? (U)ordered_of<T>(row_keys[at], largest) : (U)max;
    }
    Sort(sort_storage).Sort(items);
    /* Ranks (0-based) of the sample bracketing the k-th key with a margin. */
    const double p = (double)k / (double)n;
    const double expected = n == count ? (double)k : p * (double)count;
    /* Keys of a group are neighbours, not independent draws (sorted input makes a group
     * kSampleGroup copies of one rank): the variance is up to kSampleGroup times a random
     * sample's, and the margin at least a group. */
    const double margin =
        n == count ? 0.0 : 4.0 * sqrt(kSampleGroup * expected * (1.0 - p)) + 4.0 + kSampleGroup;
    const double lo_rank = ceil(expected - margin) - 1.0, hi_rank = ceil(expected + margin) - 1.0;
#pragma unroll
    for (int j = 0; j < kSamplePerThread; j++) {
        double rank = (double)(threadIdx.x * kSamplePerThread + j);
        if (rank == lo_rank) picked[0] = items[j];
        if (rank == hi_rank) picked[1] = items[j];
        if (rank == 0) smallest = items[j];
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        RowState s{};
        restart(s, k, max, digit_bits);
        unsigned long long lo = lo_rank < 0.0 ? 0 : picked[0];
        /* A bracket below the sample's first key whose sampled keys are all one value (a
         * heavy value: all-equal or few distinct keys): guess that value alone. One pass
         * then finds the keys before it and keeps k of its copies; a wrong guess (more
         * than k keys below it) restarts, as any. */
        if (lo_rank < 0.0 && hi_rank < (double)count && picked[1] == smallest) lo = smallest;
        unsigned long long hi = hi_rank >= (double)count ? max : picked[1];
        set_bucket(s, lo, hi, digit_bits);
        s.compact = 1;
        s.sampled_guess = 1;
        *st = s;
    }
}

/* ---- filter ---------------------------------------------------------------------- */

/* Calls f(j, v[j]) for each set bit j of m, in order: an unrolled test of every bit when
 * many are set, else a loop over the set bits that picks v[j] by selects (an indexed
 * register array would go to local memory). Sparse keys leave a bit or two a tile, and
 * the unrolled tests (with their branches) cost more than the rest of the pass. */
template <int N, class X, class F>
__device__ __forceinline__ void for_each_bit(unsigned m, const X (&v)[N], F f) {
    if (__popc(m) * 4 > N) {
#pragma unroll
        for (int j = 0; j < N; j++)
            if (m >> j & 1) f(j, v[j]);
        return;
    }
    while (m) {
        const int j = __ffs(m) - 1;
        m &= m - 1;
        X x = v[0];
#pragma unroll
        for (int i = 1; i < N; i++) x = i == j ? v[i] : x;
        f(j, x);
    }
}

/* A tile's keys: kItems a thread, in runs of V consecutive keys (one 16-byte load from the
 * input when V > 1), runs of consecutive threads adjacent: coalesced. Item j of the
 * thread is key base + ((j / V) * kFilterThreads + threadIdx.x) * V + j % V. */
template <int V> __device__ __forceinline__ uint32_t tile_index(uint32_t base, int j) {
    return base + ((uint32_t)(j / V) * kFilterThreads + threadIdx.x) * V + j % V;
}

/* Each lane's offset among the warp's `mine` counts (an exclusive scan; one ballot when
 * no lane has more than one, the common case for rare keys), and their total. Every lane
 * of the warp calls it. */
__device__ __forceinline__ unsigned warp_offset(unsigned mine, unsigned *total) {
    const unsigned lane = threadIdx.x & 31;
    if (__all_sync(0xffffffffu, mine <= 1)) {
        const unsigned lanes = __ballot_sync(0xffffffffu, mine);
        *total = __popc(lanes);
        return __popc(lanes & ((1u << lane) - 1));
    }
    return pb::warp_exclusive_sum(mine, total);
}

/* Reserves `mine` slots per thread with one atomic per warp; returns this thread's first.
 * Every lane of the warp calls it. */
__device__ __forceinline__ unsigned long long warp_reserve(unsigned mine,
                                                           unsigned long long *counter) {
    unsigned total;
    const unsigned offset = warp_offset(mine, &total);
    unsigned long long base = 0;
    if ((threadIdx.x & 31) == 0 && total) base = atomicAdd(counter, (unsigned long long)total);
    return __shfl_sync(0xffffffffu, base, 0) + offset;
}

/* One pass over a row's source (grid: blocks x rows): keys before the bucket appended to
 * the output, keys in it counted in the histogram and appended to the candidates (or, in
 * the final pass, the first k_rem of them to the back of the output). A warp reserves
 * space with one atomic for its 512 keys of a tile, and only when it has keys to place.
 * Candidates past what the scan can use (the cap, or k of a one-value bucket) are only
 * counted, in registers, and added once at the end: an input of one heavy value would
 * otherwise send an atomic per warp and tile to one counter. */
template <class T, class U, int V>
__global__ void __launch_bounds__(kFilterThreads, FilterShape<U>::kBlocksPerSM)
    filter_kernel(const T *keys, unsigned long long n, unsigned long long k, bool largest,
                  Buffers b) {
    static_assert(kItems % V == 0 && V * sizeof(T) <= 16 && kItems <= 32, "whole 16-byte runs");
    __shared__ RowState s;
    __shared__ unsigned hist[kMaxBins];
    constexpr unsigned S = FilterShape<U>::kStageKeys;
    __shared__ U stage_keys_all[kWarps][S];
    __shared__ uint32_t stage_index_all[kWarps][S];
    const unsigned row = blockIdx.y, lane = threadIdx.x & 31;
    U *const stage_keys = stage_keys_all[threadIdx.x / 32];
    uint32_t *const stage_index = stage_index_all[threadIdx.x / 32];
    if (threadIdx.x == 0) s = b.state[row];
    __syncthreads();
    if (s.stage == kDone) return;
    const bool final = s.stage == kFinal;
    /* one bin: its count is the candidates' count, no histogram needed */
    const bool histogram = !final && s.nbins > 1, compact = !final && s.compact;
    const unsigned long long keep = candidates_kept(s, k, b.cap);
    for (int i = threadIdx.x; i < s.nbins && histogram; i += blockDim.x) hist[i] = 0;
    __syncthreads();
    RowState *g = b.state + row;
    const T *row_keys = keys + row * n;
    const size_t cap_base = (size_t)row * b.cap;
    /* Buffer picked by a condition, not an index: an indexed parameter array would be
     * copied to local memory. */
    U *const cand_keys_a = (U *)b.cand_keys[0] + cap_base, *const cand_keys_b =
                                                               (U *)b.cand_keys[1] + cap_base;
    uint32_t *const cand_index_a = b.cand_index[0] + cap_base, *const cand_index_b =
                                                                   b.cand_index[1] + cap_base;
    const U *src_keys = s.src == kInput ? nullptr : (s.src == kBufferA ? cand_keys_a : cand_keys_b);
    const uint32_t *src_index =
        s.src == kInput ? nullptr : (s.src == kBufferA ? cand_index_a : cand_index_b);
    U *dst_keys = s.dst == kBufferA ? cand_keys_a : cand_keys_b;
    uint32_t *dst_index = s.dst == kBufferA ? cand_index_a : cand_index_b;
    U *out_keys = (U *)b.out_keys + row * k;
    uint32_t *out_index = b.out_index + row * k;
    const unsigned long long count =
        s.src == kInput ? n : (s.src_count < b.cap ? s.src_count : b.cap);
    const U clo = (U)s.clo, chi = (U)(s.chi < s.bhi ? s.chi : s.bhi), blo = (U)s.blo;
    /* the key's index in its row: its position in the input, or carried with a candidate */
    auto index_of = [&](unsigned long long i) { return src_keys ? src_index[i] : (uint32_t)i; };
    /* candidates are written while the buffer has room, then only counted */
    bool appending = compact;
    unsigned long long counted = 0; /* candidates this thread counted without writing */
    unsigned staged = 0;            /* the warp's stage (the same in every lane) */
    /* n candidate slots for the warp (n the same in every lane): one atomic; the buffer is
     * full once they pass keep */
    auto take = [&](unsigned n) {
        unsigned long long at = 0;
        if (lane == 0) at = atomicAdd(&g->cand_count, (unsigned long long)n);
        at = __shfl_sync(0xffffffffu, at, 0);
        appending = at + n < keep;
        return at;
    };
    /* The stage to the buffer: one atomic, coalesced writes. */
    auto flush = [&]() {
        const unsigned long long at = take(staged);
        __syncwarp();
        for (unsigned i = lane; i < staged && at + i < keep; i += 32) {
            dst_keys[at + i] = stage_keys[i];
            dst_index[at + i] = stage_index[i];
        }
        __syncwarp();
        staged = 0;
    };
    /* Positions within a row fit 32 bits (n < 2^32); a whole tile skips the bounds. */
    const U width = chi - clo;
    const int shift = s.shift;
    /* A tile's keys into registers: 16-byte runs where they are whole. */
    auto load_tile = [&](U(&v)[kItems], unsigned long long base64) {
        const uint32_t base = (uint32_t)base64;
        const bool whole = base64 + kTile <= count;
#pragma unroll
        for (int r = 0; r < kItems / V; r++) {
            const uint32_t i0 = tile_index<V>(base, r * V);
            bool loaded = false;
            if constexpr (V > 1)
                if (!src_keys && (whole || i0 + V <= count)) {
                    union {
                        uint4 raw;
                        T key[V];
                    } run;
                    run.raw = *reinterpret_cast<const uint4 *>(row_keys + i0);
#pragma unroll
                    for (int q = 0; q < V; q++)
                        v[r * V + q] = (U)ordered_of<T>(run.key[q], largest);
                    loaded = true;
                }
            if (!loaded) {
#pragma unroll
                for (int q = 0; q < V; q++) {
                    const uint32_t i = i0 + q;
                    v[r * V + q] = 0;
                    if (whole || i < count)
                        v[r * V + q] =
                            src_keys ? src_keys[i] : (U)ordered_of<T>(row_keys[i], largest);
                }
            }
        }
    };
    for (unsigned long long base64 = (unsigned long long)blockIdx.x * kTile; base64 < count;
         base64 += (unsigned long long)gridDim.x * kTile) {
        const uint32_t base = (uint32_t)base64;
        const bool whole = base64 + kTile <= count;
        U v[kItems];
        load_tile(v, base64);
        unsigned before = 0, inside = 0; /* bit j: item j is before the bucket, in it */
#pragma unroll
        for (int j = 0; j < kItems; j++) {
            const U x = v[j];
            /* clo <= x <= chi in one unsigned comparison */
            if ((U)(x - clo) > width || !(whole || tile_index<V>(base, j) < count)) continue;
            if (x < blo)
                before |= 1u << j;
            else
                inside |= 1u << j;
        }
        if (__any_sync(0xffffffffu, before)) {
            unsigned long long at = warp_reserve(__popc(before), &g->out_count);
            for_each_bit(before, v, [&](int j, U x) {
                if (at < k) { /* a sampled guess may find more than k: the scan restarts */
                    out_keys[at] = x;
                    out_index[at] = index_of(tile_index<V>(base, j));
                }
                at++;
            });
        }
        if (final) {
            if (!__any_sync(0xffffffffu, inside)) continue;
            unsigned long long tie = warp_reserve(__popc(inside), &g->tie_count);
            for_each_bit(inside, v, [&](int j, U x) {
                if (tie < s.k_rem) { /* ties from the back of the row's output */
                    out_keys[k - 1 - tie] = x;
                    out_index[k - 1 - tie] = index_of(tile_index<V>(base, j));
                }
                tie++;
            });
            continue;
        }
        /* Bucket keys go to the warp's stage at offsets from a warp scan of the lanes'
         * counts; a tile that would overflow the stage flushes it first, and one larger
         * than the stage is written straight out. */
        const unsigned mine = __popc(inside);
        if (!__any_sync(0xffffffffu, mine)) continue;
        if (histogram)
            for_each_bit(inside, v,
                         [&](int, U x) { atomicAdd(&hist[(uint32_t)((x - blo) >> shift)], 1u); });
        if (!appending) {
            counted += mine;
            continue;
        }
        unsigned total;
        const unsigned before_me = warp_offset(mine, &total);
        if (staged + total > S) flush();
        if (!appending) {
            counted += mine;
            continue;
        }
        if (total > S) { /* straight out: one atomic for the tile */
            unsigned long long at = take(total) + before_me;
            for_each_bit(inside, v, [&](int j, U x) {
                if (at < keep) {
                    dst_keys[at] = x;
                    dst_index[at] = index_of(tile_index<V>(base, j));
                }
                at++;
            });
            continue;
        }
        unsigned at = staged + before_me;
        for_each_bit(inside, v, [&](int j, U x) {
            stage_keys[at] = x;
            stage_index[at] = index_of(tile_index<V>(base, j));
            at++;
        });
        staged += total;
    }
    if (compact) {
        if (staged) flush();
        for (int d = 16; d > 0; d /= 2) counted += __shfl_down_sync(0xffffffffu, counted, d);
        if (lane == 0 && counted) atomicAdd(&g->cand_count, counted);
    }
    if (!histogram) return;
    __syncthreads();
    unsigned *row_hist = b.hist + (size_t)row * kMaxBins;
    for (int i = threadIdx.x; i < s.nbins; i += blockDim.x)
        if (hist[i]) atomicAdd(&row_hist[i], hist[i]);
}

/* ---- scan ------------------------------------------------------------------------- */

__global__ void __launch_bounds__(kScanThreads)
    scan_kernel(unsigned long long k, int key_bytes, int digit_bits, Buffers b) {
    typedef cub::BlockScan<unsigned long long, kScanThreads> Scan;
    __shared__ typename Scan::TempStorage scan_storage;
    __shared__ RowState s;
    __shared__ int restarted, found_bin;
    __shared__ unsigned long long found_before, found_count;
    const unsigned row = blockIdx.x;
    unsigned *hist = b.hist + (size_t)row * kMaxBins;
    if (threadIdx.x == 0) {
        s = b.state[row];
        restarted = 0;
        found_bin = 0;
        found_before = found_count = 0;
        if (s.stage == kFinal) s.stage = kDone;
        if (s.stage == kFilter && s.sampled_guess) {
            /* The sampled guess holds when at most k keys order before blo and at least k
             * up to bhi. */
            unsigned long long before = s.out_count, inside = s.cand_count;
            if (before <= k && before + inside >= k) {
                s.k_rem = k - before;
                s.sampled_guess = 0;
                if (s.k_rem == 0) s.stage = kDone; /* exactly k keys before blo */
            } else {
                restart(s, k, pb_order_max(key_bytes), digit_bits);
                restarted = 1;
            }
        }
    }
    __syncthreads();
    if (s.stage != kFilter) {
        if (threadIdx.x == 0) b.state[row].stage = s.stage;
        return;
    }
    if (restarted) { /* the guess's histogram is of no use: count the whole range next */
        for (int i = threadIdx.x; i < kMaxBins; i += blockDim.x) hist[i] = 0;
        if (threadIdx.x == 0) b.state[row] = s;
        return;
    }
    unsigned long long mine = 0;
    const int first = threadIdx.x * kBinsPerThread;
#pragma unroll
    for (int j = 0; j < kBinsPerThread; j++)
        if (first + j < s.nbins) mine += hist[first + j];
    unsigned long long before;
    Scan(scan_storage).ExclusiveSum(mine, before);
    if (before < s.k_rem && before + mine >= s.k_rem) {
        for (int j = 0; j < kBinsPerThread; j++) {
            unsigned long long c = hist[first + j];
            if (before + c >= s.k_rem) {
                found_bin = first + j;
                found_before = before;
                found_count = c;
                break;
            }
            before += c;
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < kMaxBins; i += blockDim.x) hist[i] = 0;
    if (threadIdx.x != 0) return;
    /* The candidates of the bucket just counted become the next source when they were
     * all kept, or when they are all one value and enough of them were kept. */
    const bool one_value = s.blo == s.bhi;
    const unsigned long long keep = candidates_kept(s, k, b.cap);
    const unsigned long long kept = s.cand_count < keep ? s.cand_count : keep;
    if (s.compact && (s.cand_count <= keep || (one_value && kept >= s.k_rem))) {
        s.src = s.dst;
        s.dst = s.dst == kBufferA ? kBufferB : kBufferA;
        s.src_count = kept;
    }
    s.k_rem -= found_before;
    s.clo = s.blo;
    s.chi = s.bhi;
    unsigned long long lo = s.blo + ((unsigned long long)found_bin << s.shift);
    unsigned long long width = ((1ull << s.shift) - 1);
    unsigned long long hi = s.bhi - lo < width ? s.bhi : lo + width;
    set_bucket(s, lo, hi, digit_bits);
    s.cand_count = 0;
    s.compact = found_count <= b.cap;
    if (lo == hi || found_count == s.k_rem) s.stage = kFinal;
    b.state[row] = s;
}

/* ---- emit --------------------------------------------------------------------------- */

template <class T>
__global__ void emit_kernel(const T *keys, unsigned long long n, unsigned long long k,
                            unsigned long long total, const uint32_t *index, T *out_keys,
                            uint32_t *out_index) {
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < total; i += (unsigned long long)gridDim.x * blockDim.x) {
        unsigned long long row = i / k;
        uint32_t id = index[i];
        out_keys[i] = keys[row * n + id];
        if (out_index) out_index[i] = id;
    }
}

__global__ void segment_offsets_kernel(unsigned long long k, unsigned batch, int *offsets) {
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i <= batch;
         i += gridDim.x * blockDim.x)
        offsets[i] = (int)(i * k);
}

/* ---- plan and launch ------------------------------------------------------------------ */

struct Layout {
    size_t state, hist, cand_keys[2], cand_index[2], out_keys, out_index, alt_keys, alt_index,
        offsets, sort_temp, sort_temp_bytes, total;
    unsigned long long cap;
};

size_t align_up(size_t x) { return (x + 255) & ~(size_t)255; }

template <class U> cudaError_t sort_temp_bytes(const pb_select_params *p, size_t *bytes) {
    *bytes = 0;
    if (!p->sorted) return cudaSuccess;
    const size_t items = (size_t)p->batch * p->k;
    if (p->batch == 1)
        return cub::DeviceRadixSort::SortPairs(nullptr, *bytes, (const U *)nullptr, (U *)nullptr,
                                               (const uint32_t *)nullptr, (uint32_t *)nullptr,
                                               (int64_t)items);
    return cub::DeviceSegmentedRadixSort::SortPairs(
        nullptr, *bytes, (const U *)nullptr, (U *)nullptr, (const uint32_t *)nullptr,
        (uint32_t *)nullptr, (int64_t)items, (int64_t)p->batch, (const int *)nullptr,
        (const int *)nullptr);
}

template <class U> cudaError_t plan(const pb_select_params *p, Layout *l) {
    const size_t us = sizeof(U), rows = p->batch, items = rows * p->k;
    if (p->method == PB_SELECT_RADIX8 || p->n <= 4096)
        l->cap = p->n;
    else
        l->cap = p->n / 8 > 4096 ? p->n / 8 : 4096;
    size_t at = 0;
    l->state = at, at = align_up(at + rows * sizeof(RowState));
    l->hist = at, at = align_up(at + rows * kMaxBins * sizeof(unsigned));
    for (int i = 0; i < 2; i++) {
        l->cand_keys[i] = at, at = align_up(at + rows * l->cap * us);
        l->cand_index[i] = at, at = align_up(at + rows * l->cap * 4);
    }
    l->out_keys = at, at = align_up(at + items * us);
    l->out_index = at, at = align_up(at + items * 4);
    l->alt_keys = l->alt_index = l->offsets = l->sort_temp = at;
    cudaError_t e = sort_temp_bytes<U>(p, &l->sort_temp_bytes);
    if (e != cudaSuccess) return e;
    if (p->sorted) {
        l->alt_keys = at, at = align_up(at + items * us);
        l->alt_index = at, at = align_up(at + items * 4);
        l->offsets = at, at = align_up(at + (rows + 1) * sizeof(int));
        l->sort_temp = at, at = align_up(at + l->sort_temp_bytes);
    }
    l->total = at;
    return cudaSuccess;
}

int digit_bits_of(const pb_select_params *p) { return p->method == PB_SELECT_RADIX8 ? 8 : 11; }

template <class T>
cudaError_t launch(const pb_select_params *p, const T *keys, T *out_keys, uint32_t *out_index,
                   char *scratch, size_t scratch_bytes, cudaStream_t stream) {
    typedef typename Ordered<T>::U U;
    Layout l;
    cudaError_t e = plan<U>(p, &l);
    if (e != cudaSuccess) return e;
    if (scratch_bytes < l.total) return cudaErrorInvalidValue;
    Buffers b;
    b.state = (RowState *)(scratch + l.state);
    b.hist = (unsigned *)(scratch + l.hist);
    for (int i = 0; i < 2; i++) {
        b.cand_keys[i] = scratch + l.cand_keys[i];
        b.cand_index[i] = (uint32_t *)(scratch + l.cand_index[i]);
    }
    b.out_keys = scratch + l.out_keys;
    b.out_index = (uint32_t *)(scratch + l.out_index);
    b.cap = l.cap;
    int device = 0, sms = 0;
    if ((e = cudaGetDevice(&device)) != cudaSuccess ||
        (e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device)) != cudaSuccess)
        return e;
    const int digit_bits = digit_bits_of(p);
    const bool largest = p->largest != 0;
    start_kernel<T, U><<<p->batch, kSampleThreads, 0, stream>>>(
        keys, p->n, p->k, largest, p->method == PB_SELECT_SAMPLED, digit_bits, b);
    /* 16-byte loads of the input where every row starts on 16 bytes */
    constexpr int V = 16 / sizeof(T) < kItems ? 16 / sizeof(T) : kItems;
    const bool runs = (uintptr_t)keys % 16 == 0 && (p->batch == 1 || p->n * sizeof(T) % 16 == 0);
    /* Blocks per row: one wave of the device (every block loops over tiles; a second,
     * partial wave left SMs idle at the end of the first pass), not more than the row has
     * tiles. */
    int resident = 0;
    e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &resident, runs ? filter_kernel<T, U, V> : filter_kernel<T, U, 1>, kFilterThreads, 0);
    if (e != cudaSuccess) return e;
    if (resident < 1) resident = 1;
    unsigned long long tiles = (p->n + kTile - 1) / kTile;
    unsigned long long per_row = ((unsigned long long)sms * resident + p->batch - 1) / p->batch;
    dim3 grid((unsigned)(per_row < tiles ? per_row : tiles), p->batch);
    const int bits = 8 * (int)sizeof(T);
    const int passes = (bits + digit_bits - 1) / digit_bits + 2;
    for (int pass = 0; pass < passes; pass++) {
        if (runs)
            filter_kernel<T, U, V>
                <<<grid, kFilterThreads, 0, stream>>>(keys, p->n, p->k, largest, b);
        else
            filter_kernel<T, U, 1>
                <<<grid, kFilterThreads, 0, stream>>>(keys, p->n, p->k, largest, b);
        scan_kernel<<<p->batch, kScanThreads, 0, stream>>>(p->k, (int)sizeof(T), digit_bits, b);
    }
    const U *sel_keys = (const U *)b.out_keys;
    const uint32_t *sel_index = b.out_index;
    const size_t items = (size_t)p->batch * p->k;
    if (p->sorted) {
        U *alt_keys = (U *)(scratch + l.alt_keys);
        uint32_t *alt_index = (uint32_t *)(scratch + l.alt_index);
        size_t temp = l.sort_temp_bytes;
        if (p->batch == 1) {
            e = cub::DeviceRadixSort::SortPairs(scratch + l.sort_temp, temp, sel_keys, alt_keys,
                                                sel_index, alt_index, (int64_t)items, 0,
                                                (int)(8 * sizeof(U)), stream);
        } else {
            int *offsets = (int *)(scratch + l.offsets);
            segment_offsets_kernel<<<(p->batch + 256) / 256, 256, 0, stream>>>(p->k, p->batch,
                                                                               offsets);
            e = cub::DeviceSegmentedRadixSort::SortPairs(
                scratch + l.sort_temp, temp, sel_keys, alt_keys, sel_index, alt_index,
                (int64_t)items, (int64_t)p->batch, offsets, offsets + 1, 0, (int)(8 * sizeof(U)),
                stream);
        }
        if (e != cudaSuccess) return e;
        sel_index = alt_index;
    }
    unsigned long long emit_blocks = (items + 255) / 256;
    if (emit_blocks > (unsigned long long)sms * 32) emit_blocks = (unsigned long long)sms * 32;
    emit_kernel<T><<<(unsigned)emit_blocks, 256, 0, stream>>>(keys, p->n, p->k, items, sel_index,
                                                              out_keys, out_index);
    return cudaGetLastError();
}

cudaError_t check_params(const pb_select_params *p) {
    if (!p || p->n == 0 || p->n > 0xffffffffull || p->batch == 0 || p->k == 0 || p->k > p->n ||
        p->method < PB_SELECT_SAMPLED || p->method > PB_SELECT_RADIX8 ||
        (p->sorted && (uint64_t)p->batch * p->k > 0x7fffffffull))
        return cudaErrorInvalidValue;
    return cudaSuccess;
}

template <class F> int with_key_type(int dtype, F &&f) {
    return pb::with_dtype<uint8_t, uint16_t, uint32_t, uint64_t, int8_t, int16_t, int32_t, int64_t,
                          float, double>(dtype, f);
}

} // namespace

extern "C" int pb_radix_select_scratch_bytes(const struct pb_select_params *p, size_t *bytes) {
    cudaError_t e = check_params(p);
    if (e != cudaSuccess) return e;
    return with_key_type(p->dtype, [&](auto key) -> int {
        typedef typename Ordered<decltype(key)>::U U;
        Layout l;
        cudaError_t err = plan<U>(p, &l);
        *bytes = l.total;
        return err;
    });
}

extern "C" int pb_radix_select_detail(const struct pb_select_params *p, const void *keys,
                                      void *out_keys, uint32_t *out_index, void *scratch,
                                      size_t scratch_bytes, cudaStream_t stream) {
    cudaError_t e = check_params(p);
    if (e != cudaSuccess) return e;
    return with_key_type(p->dtype, [&](auto key) -> int {
        typedef decltype(key) T;
        return launch<T>(p, (const T *)keys, (T *)out_keys, out_index, (char *)scratch,
                         scratch_bytes, stream);
    });
}

extern "C" int pb_radix_select(const struct pb_select_params *p, const void *keys, void *out_keys,
                               uint32_t *out_index) {
    size_t bytes = 0;
    void *scratch = nullptr;
    cudaError_t e = (cudaError_t)pb_radix_select_scratch_bytes(p, &bytes);
    if (e == cudaSuccess) e = cudaMalloc(&scratch, bytes);
    if (e == cudaSuccess)
        e = (cudaError_t)pb_radix_select_detail(p, keys, out_keys, out_index, scratch, bytes, 0);
    if (e == cudaSuccess) e = cudaStreamSynchronize(0);
    if (scratch) cudaFree(scratch);
    return e;
}
