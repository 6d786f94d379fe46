/* A multiway tile's merge in a constant number of steps, whatever its number of stretches:
 * a stable sort of the tile by (key, position in the tile), which is the merge because the
 * stretches lie in the tile in list order. A tile is a narrow slice of the merged order, so
 * its keys spread over [min, max] about evenly; they are bucketed linearly over that range
 * (about one key a bucket, shared-memory atomics), the buckets scanned, the tile's
 * positions scattered into bucket order, and each thread's run of buckets insertion-sorted. A tile
 * where some bucket holds more than kBucketMost keys (many equal keys, or clustered ones) is left
 * to the pairwise rounds (merge_tile), so the cost a key stays bounded. */
#pragma once

#include <stdint.h>

#include <type_traits>

#include <cub/block/block_scan.cuh>

#include "merge_keys.cuh"
#include "merge_tile.cuh"
#include "multiway_plan.cuh"

namespace pb::merge {

/* The pairwise rounds a tile must need before it is bucketed instead. Bucketing every tile
 * against rounds only (H200, 2^27 keys, multiway passes forced, configs/tests/
 * merge-bucket-ab.json, results/h200/session24-merge-bucket-ab-*.csv, session 24's bucket
 * sort), time change by rounds a tile: 8-byte keys 2 rounds +31%, 3 +5 and +4%, 4 -13%, the
 * seed's f64 experiment (5) -23%; 4-byte keys with values 2 +41%, 3 +12%, 4 -6%, 5 -18%;
 * 4-byte keys alone 2 +73%, 3 +37%, 4 +11 and +12% (f32 +24%), 5 -8%, 6 -20%. With session
 * 25's cheaper sort, one round lower against these (configs/tests/merge-threshold-ab.json,
 * results/h200/session25-call3-merge-threshold-ab*.csv, 2^24 and 2^27 keys): 3 rounds of u64
 * -3.6 and -2.4%, f64 +1.6 and -0.8%, u32 with values -3.7 and -3.8%; 4 rounds of u32 alone
 * -0.3 and -0.8% but f32 -7.2 and +24.9% (its uniform keys repeat at 2^27 and its tiles fall
 * back to the rounds), so 4-byte keys alone kept 5. Session 33 sorts keys alone straight into
 * the second buffer (bucket_tile_keys), and lets a tile bucketed by value keep any number of
 * equal keys a bucket; 4 rounds of 4-byte keys alone, before the latter, against 5
 * (configs/tests/merge-bucket-rounds4-ab.json, results/h200/session33-call2-*): u32 k = 12
 * and 16 -7.4 to -10.7%, f32 k = 16 -10.2% at 2^24 keys but +23% at 2^27; with tiles
 * bucketed by value (session33-call4-*): u32 -8.1 to -12.2%, f32 -7.4 and -17.9%, so 4-byte
 * keys alone take 4. A/B builds:
 * -DPB_MERGE_BUCKET_ROUNDS8=N and so on (1: always, 99: never). */
#ifndef PB_MERGE_BUCKET_ROUNDS8
#define PB_MERGE_BUCKET_ROUNDS8 3
#endif
#ifndef PB_MERGE_BUCKET_ROUNDS4_PAIRS
#define PB_MERGE_BUCKET_ROUNDS4_PAIRS 3
#endif
#ifndef PB_MERGE_BUCKET_ROUNDS4
#define PB_MERGE_BUCKET_ROUNDS4 4
#endif
#ifndef PB_MERGE_BUCKET_MOST
#define PB_MERGE_BUCKET_MOST 16
#endif
template <class K, bool kPairs> __host__ __device__ constexpr int bucket_min_rounds() {
    return sizeof(K) == 8 ? PB_MERGE_BUCKET_ROUNDS8
                          : (kPairs ? PB_MERGE_BUCKET_ROUNDS4_PAIRS : PB_MERGE_BUCKET_ROUNDS4);
}
/* Whether a tile of S segments is bucketed: ceil(log2 S) rounds at least the above. */
template <class K, bool kPairs> __host__ __device__ constexpr bool bucketed_tile(int S) {
    constexpr int r = bucket_min_rounds<K, kPairs>();
    if constexpr (r > 16)
        return false; /* never */
    else
        return S > (1 << (r - 1));
}
/* The most lists one multiway pass merges (plan_passes): where a tile of 64 stretches is
 * bucketed, a pass of up to 64 lists, which costs less than two passes of 8 (H200, 2^27
 * keys, multiway forced, k = 64, merge-bucket-ab.json: u64 19% and u32 with values 24% less
 * time; u32 alone, session 25's bucket sort, merge-threshold-ab.json: k = 48 and 64 13 and
 * 11% less at 2^24 keys, 21 and 14% at 2^27), else kOnePassMost. */
template <class K> __host__ __device__ constexpr uint32_t one_pass_most(bool pairs) {
    const int most = (int)multiway::kMaxGroup;
    return (pairs ? bucketed_tile<K, true>(most) : bucketed_tile<K, false>(most))
               ? multiway::kMaxGroup
               : multiway::kOnePassMost;
}
constexpr int kBucketMost = PB_MERGE_BUCKET_MOST;

/* Buckets a tile: a multiple of 2 kThreads (two 16-bit counters a word, whole words a
 * thread in the scan), at most one a key. */
template <class K, int kThreads> __host__ __device__ constexpr int tile_buckets() {
    return (int)(Tile<K, kThreads>::kSize / (2 * kThreads)) * 2 * kThreads;
}

/* The scratch the bucketing uses is the buffer the rounds would write first (the second key
 * buffer, or with 4-byte keys and values the second value buffer): 16-bit counters, then
 * the tile's positions in bucket order, then (8-byte keys) each key's bucket. */
template <class K, bool kPairs> __host__ __device__ constexpr size_t bucket_scratch_key_bytes() {
    return keys_ping_pong<K>(kPairs) ? sizeof(K) : sizeof(uint32_t);
}
template <class K, bool kPairs, int kThreads>
__device__ inline unsigned char *bucket_scratch(const TileBuffers<K, kPairs, kThreads> &b) {
    return keys_ping_pong<K>(kPairs) ? reinterpret_cast<unsigned char *>(b.keys(1))
                                     : reinterpret_cast<unsigned char *>(b.values(1));
}

#ifdef __CUDACC__
/* Keys that compare equal but differ in their bits (floats' -0.0 beside +0.0): the
 * stable order of such keys is their tile order, which only bucket_tile's positions keep. */
template <class K> __device__ __forceinline__ bool equal_but_not_same(K key) {
    if constexpr (std::is_floating_point<K>::value)
        return key == K(0) && signbit(key);
    else
        return false;
}

/* The counting half of bucketing a tile (keys in b.keys(0), D of them, S segments), shared
 * by both ways of finishing it: the tile's range from its segments' ends, its keys counted
 * by bucket (16-bit counters, two a word, at `count`), each key's slot in its bucket kept,
 * and the counts scanned into where each bucket starts. */
template <class K, int kThreads> struct TileBuckets {
    using U = ordered_t<K>;
    static constexpr int I = Tile<K, kThreads>::kItems;
    static constexpr int kBuckets = tile_buckets<K, kThreads>();
    static constexpr int kWords = kBuckets / 2 / kThreads; /* counter words a thread scans */
    uint32_t *const count;
    const int D;
    U lo;
    uint32_t shift, mul;
    /* Each key's slot in its bucket as 16 bits (two a register, for the register budget of
     * three blocks an SM). */
    uint32_t mine[(I + 1) / 2] = {};

    __device__ TileBuckets(uint32_t *counters, int keys) : count(counters), D(keys) {}
    __device__ void keep(int j, uint32_t x) { mine[j >> 1] |= x << ((j & 1) * 16); }
    __device__ uint32_t kept(int j) const { return (mine[j >> 1] >> ((j & 1) * 16)) & 0xffff; }
    /* key j's 16 bits replaced by x */
    __device__ void replace_kept(int j, uint32_t x) {
        mine[j >> 1] = (mine[j >> 1] & (0xffffu << ((~j & 1) * 16))) | x << ((j & 1) * 16);
    }
    __device__ uint32_t bucket_of(K key) const {
        const uint32_t d = (uint32_t)((ordered_bits(key) - lo) >> shift);
        return mul ? __umulhi(d, mul) : d;
    }
    __device__ uint32_t bucket_start(uint32_t bk) const {
        return (count[bk >> 1] >> ((bk & 1) * 16)) & 0xffff;
    }
    /* the same, also past the last bucket */
    __device__ uint32_t start_of(uint32_t bk) const {
        return bk < (uint32_t)kBuckets ? bucket_start(bk) : (uint32_t)D;
    }

    /* Counts the tile; false (every thread) where a bucket holds more than kBucketMost keys,
     * so that its sort would cost too much. kByKey (keys sorted by key alone, not by
     * position): a tile bucketed by value may hold any number (its buckets need no sort),
     * but one holding a key equal_but_not_same is refused. on_key(i, bk) sees each key's
     * bucket as it is counted. */
    template <bool kByKey, class OnKey>
    __device__ bool count_tile(const K *sk, const uint16_t *seg_off, int S, OnKey on_key) {
        using Scan = cub::BlockScan<uint32_t, kThreads, cub::BLOCK_SCAN_WARP_SCANS>;
        __shared__ typename Scan::TempStorage scan;
        __shared__ U lo_shared;
        __shared__ uint32_t shift_shared, mul_shared;
        const int th = (int)threadIdx.x;

        /* The tile's range: its segments' first and last keys, a warp. */
        if (th < 32) {
            U l = ~(U)0, h = 0;
            for (int s = th; s < S; s += 32) {
                if (seg_off[s] < seg_off[s + 1]) {
                    l = min(l, ordered_bits(sk[seg_off[s]]));
                    h = max(h, ordered_bits(sk[seg_off[s + 1] - 1]));
                }
            }
            for (int d = 16; d > 0; d >>= 1) {
                l = min(l, (U)__shfl_xor_sync(0xffffffffu, l, d));
                h = max(h, (U)__shfl_xor_sync(0xffffffffu, h, d));
            }
            if (th == 0) {
                /* bucket = d * kBuckets / (span + 1) on the span's top 32 bits; a span
                 * below kBuckets is bucketed by value (mul 0) */
                const U span = h - l;
                const int bits = 64 - __clzll((long long)span);
                const uint32_t sh = bits > 32 ? (uint32_t)(bits - 32) : 0;
                const uint64_t top = (uint64_t)(span >> sh);
                lo_shared = l;
                shift_shared = sh;
                mul_shared = top < (uint64_t)kBuckets
                                 ? 0
                                 : (uint32_t)(((uint64_t)kBuckets << 32) / (top + 1));
            }
        }
        for (int w = th; w < kBuckets / 2; w += kThreads) count[w] = 0;
        __syncthreads();
        lo = lo_shared;
        shift = shift_shared;
        mul = mul_shared;

        bool refuse = false;
#pragma unroll
        for (int j = 0; j < I; j++) {
            const int i = th + j * kThreads;
            if (i < D) {
                const K key = sk[i];
                const uint32_t bk = bucket_of(key), half = (bk & 1) * 16;
                keep(j, (atomicAdd(&count[bk >> 1], 1u << half) >> half) & 0xffff);
                on_key(i, bk);
                if constexpr (kByKey) refuse |= equal_but_not_same(key);
            }
        }
        __syncthreads();

        /* Counts to starts (each thread kWords consecutive words); the largest bucket
         * decides. */
        uint32_t sum = 0, most = 0;
#pragma unroll
        for (int w = 0; w < kWords; w++) {
            const uint32_t c = count[th * kWords + w], c0 = c & 0xffff, c1 = c >> 16;
            sum += c0 + c1;
            most = max(most, max(c0, c1));
        }
        uint32_t at;
        Scan(scan).ExclusiveSum(sum, at);
#pragma unroll
        for (int w = 0; w < kWords; w++) {
            const uint32_t c = count[th * kWords + w], c0 = c & 0xffff, c1 = c >> 16;
            count[th * kWords + w] = at | (at + c0) << 16;
            at += c0 + c1;
        }
        return !__syncthreads_or((most > (uint32_t)kBucketMost && !(kByKey && by_value())) ||
                                 refuse);
    }
    /* Whether a bucket is one value: the tile spans fewer values than buckets. */
    __device__ bool by_value() const { return mul == 0; }

    /* This thread's stretch of the tile in bucket order: its kWords counter words' buckets. */
    __device__ uint32_t my_first() const { return start_of(2 * kWords * threadIdx.x); }
    __device__ uint32_t my_end() const { return start_of(2 * kWords * (threadIdx.x + 1)); }
};

/* Sorts the tile (keys in b.keys(0), D of them, S segments): returns order, where output o
 * is keys(0)[order[o]] (and values(0)[order[o]]), if its keys spread over the buckets, else
 * null, the scratch spoilt and the tile intact.
 * Every thread of the block calls it. */
template <class K, bool kPairs, int kThreads>
__device__ const uint16_t *bucket_tile(const TileBuffers<K, kPairs, kThreads> &b,
                                       const uint16_t *seg_off, int S, int D) {
    using Buckets = TileBuckets<K, kThreads>;
    constexpr int I = Buckets::I;
    constexpr int kBuckets = Buckets::kBuckets;
    const K *sk = b.keys(0);
    uint32_t *count = reinterpret_cast<uint32_t *>(bucket_scratch(b));
    uint16_t *order = reinterpret_cast<uint16_t *>(count + kBuckets / 2);
    /* 8-byte keys' buckets are kept past `order` (their scratch holds 8 bytes a key): a store
     * and a load cost less than a double's ordered bits again. 4-byte keys' scratch has no
     * room, and their buckets take a few instructions. */
    constexpr bool kKeepBuckets = sizeof(K) == 8;
    constexpr size_t kTileKeys = Tile<K, kThreads>::kSize;
    static_assert(kBuckets * 2 + kTileKeys * 2 * (kKeepBuckets ? 2 : 1) <=
                      kTileKeys * bucket_scratch_key_bytes<K, kPairs>(),
                  "counters, positions (and buckets) fit the scratch buffer");
    uint16_t *bucket_at = order + kTileKeys;
    const int th = (int)threadIdx.x;

    Buckets bs(count, D);
    if (!bs.template count_tile<false>(sk, seg_off, S, [&](int i, uint32_t bk) {
            if constexpr (kKeepBuckets) bucket_at[i] = (uint16_t)bk;
        }))
        return nullptr;
#pragma unroll
    for (int j = 0; j < I; j++) { /* positions in bucket order */
        const int i = th + j * kThreads;
        if (i < D) {
            uint32_t bk;
            if constexpr (kKeepBuckets)
                bk = bucket_at[i];
            else
                bk = bs.bucket_of(sk[i]);
            order[bs.bucket_start(bk) + bs.kept(j)] = (uint16_t)i;
        }
    }
    __syncthreads();

    /* Each thread's buckets (those of its kWords counter words, consecutive) put in (key,
     * position) order: one insertion sort over their stretch of `order`. A bucket's keys
     * are all below the next bucket's, so an insert stops at its bucket's start at the
     * latest. About one key a bucket, so little moves; and a warp waits on its busiest
     * thread's keys over all its buckets, not on each bucket's busiest thread in turn (a
     * thread a counter word took 38% of the seed's tile kernel's instructions, ncu). */
    {
        const uint32_t s0 = bs.my_first(), s1 = bs.my_end();
        /* the largest so far, at p - 1: most keys come after it and stay, tested in registers */
        int top_q = s0 < s1 ? order[s0] : 0;
        K top = s0 < s1 ? sk[top_q] : K{};
        for (uint32_t p = s0 + 1; p < s1; p++) {
            const int q = order[p];
            const K key = sk[q];
            if (top < key || (!(key < top) && top_q < q)) {
                top = key, top_q = q;
                continue;
            }
            order[p] = (uint16_t)top_q;
            uint32_t to = p - 1;
            for (; to > s0; to--) {
                const int r = order[to - 1];
                const K other = sk[r];
                if (!(key < other || (!(other < key) && q < r))) break;
                order[to] = (uint16_t)r;
            }
            order[to] = (uint16_t)q;
        }
    }
    __syncthreads();
    return order;
}

/* Keys alone: the tile sorted into b.keys(1) itself, no positions. Keys that compare equal
 * are the same bits (integers; floats unless a tile holds -0.0, which goes to the rounds),
 * so the order among them, which the counters' atomics leave unstable, does not show. Each
 * key goes straight to its slot, each thread's stretch is insertion-sorted by key alone, and
 * the tile goes out of keys(1) in order: no position read before each key, in the sort or
 * on the way out. True when sorted; false leaves keys(0) intact, keys(1) spoilt. The
 * counters are kept at the head of keys(1), which the keys overwrite once every slot is
 * known. */
template <class K, int kThreads>
__device__ bool bucket_tile_keys(const TileBuffers<K, false, kThreads> &b, const uint16_t *seg_off,
                                 int S, int D) {
    using Buckets = TileBuckets<K, kThreads>;
    constexpr int I = Buckets::I;
    static_assert(keys_ping_pong<K>(false), "keys alone have a second buffer");
    static_assert(Buckets::kBuckets / 2 * sizeof(uint32_t) <= Tile<K, kThreads>::kSize * sizeof(K),
                  "the counters fit the second buffer");
    const K *sk = b.keys(0);
    K *sorted = b.keys(1);
    const int th = (int)threadIdx.x;

    Buckets bs(reinterpret_cast<uint32_t *>(sorted), D);
    if (!bs.template count_tile<true>(sk, seg_off, S, [](int, uint32_t) {})) return false;
    /* My stretch, and every key's slot (kept over its slot in the bucket), before any key
     * overwrites the counters. */
    const uint32_t s0 = bs.my_first(), s1 = bs.my_end();
#pragma unroll
    for (int j = 0; j < I; j++) {
        const int i = th + j * kThreads;
        if (i < D) bs.replace_kept(j, bs.bucket_start(bs.bucket_of(sk[i])) + bs.kept(j));
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < I; j++) {
        const int i = th + j * kThreads;
        if (i < D) sorted[bs.kept(j)] = sk[i];
    }
    __syncthreads();

    /* My stretch by key: an insertion sort, the largest so far kept in a register (most
     * keys come after it and stay). A tile bucketed by value is sorted already (its buckets
     * may hold any number of keys then: many equal keys cost nothing). */
    if (s0 < s1 && !bs.by_value()) {
        /* the largest so far (at p - 1) and the one below it (p - 2), in registers: a key
         * goes after the largest, or between the two (a bucket of two out of order) by two
         * predicated stores, which a warp takes without diverging; only a key below both (a
         * bucket of three or more) walks down. The walk for every key out of order took
         * 27% of a bucketed tile kernel's instructions, most in a warp's diverged branches
         * (ncu, u32, k = 64, session 33). */
        K top = sorted[s0], below = top;
        for (uint32_t p = s0 + 1; p < s1; p++) {
            const K key = sorted[p];
            const bool in_order = !(key < top);
            if (!in_order && p - 1 > s0 && key < below) {
                sorted[p] = top;
                sorted[p - 1] = below;
                uint32_t to = p - 2;
                for (; to > s0; to--) {
                    const K other = sorted[to - 1];
                    if (!(key < other)) break;
                    sorted[to] = other;
                }
                sorted[to] = key;
                continue; /* the two largest stay */
            }
            if (!in_order) {
                sorted[p - 1] = key;
                sorted[p] = top;
            }
            below = in_order ? top : key;
            top = in_order ? key : top;
        }
    }
    __syncthreads();
    return true;
}
#endif

} // namespace pb::merge
