/* merge/path's second in-tile method: a tile's stretches, in list order, radix sorted
 * stably (LSD, in shared memory) on the bits its keys span. A stable sort of the stretches
 * in list order is their stable merge, and its cost does not grow with the runs a tile
 * merges, only with its key range: ceil(bits / kRadixBits) passes against the pairwise
 * merge's ceil(log2 runs) rounds (merge_tile.cuh). Each tile takes the cheaper. The code
 * and the choice are host and device code, for tests/test_merge_multiway.cu. */
#pragma once

#include <stdint.h>
#include <string.h>

#include <type_traits>

#include "merge_keys.cuh"
#include "merge_tile.cuh"

#ifdef __CUDACC__
#include <cub/block/block_scan.cuh>
#endif

namespace pb::merge {

constexpr unsigned kFullWarp = 0xffffffffu;

/* Digit bits a pass at most (a pass's digits are as wide as the span needs: 18 bits take
 * three passes of 6). 6 keeps the counters small enough for three blocks an SM. */
#ifndef PB_MERGE_RADIX_BITS
#define PB_MERGE_RADIX_BITS 6
#endif
constexpr int kRadixBits = PB_MERGE_RADIX_BITS;

/* The cost of a radix pass and of a merge round, a key, relative to each other (the
 * macros are for A/B builds). */
#ifndef PB_MERGE_RADIX_PASS_COST
#define PB_MERGE_RADIX_PASS_COST 3
#endif
#ifndef PB_MERGE_ROUND_COST
#define PB_MERGE_ROUND_COST 4
#endif

/* How a tile is merged: chosen by cost, or forced (PB_MERGE_TILE, for tests and A/B). */
enum TileMethod { kTileByCost = 0, kTileMerge = 1, kTileRadix = 2 };

/* What a key is sorted as: its ordered bits less the tile's lowest; for floats shifted up
 * one, the low bit marking -0.0, which sorts with +0.0 and is written back as itself. */
template <class K> struct RadixCode {
    using O = ordered_t<K>;
    static constexpr int kShift = std::is_floating_point<K>::value ? 1 : 0;
    static constexpr int kWidth = (int)sizeof(O) * 8;

    __host__ __device__ static O encode(K k, O lo) {
        const O off = (O)(ordered_bits(k) - lo);
        if (kShift == 0) return off;
        O raw;
        memcpy(&raw, &k, sizeof k);
        const O negative_zero = k == K(0) ? raw >> (kWidth - 1) : 0;
        return (O)(off << 1) | negative_zero;
    }
    __host__ __device__ static K decode(O x, O lo) {
        K k = from_ordered<K>((O)(lo + (x >> kShift)));
        if (kShift == 1 && (x & 1)) k = -k; /* +0.0 back to -0.0 */
        return k;
    }
    /* The bits that differ between lo and hi's codes. */
    __host__ __device__ static int span_bits(O lo, O hi) {
        int bits = 0;
        for (O d = (O)(hi - lo); d != 0; d >>= 1) bits++;
        return bits;
    }
};

/* Whether a tile of `runs` stretches whose codes span `bits` bits is radix sorted (4-byte
 * keys only: 8-byte ones span too many bits to gain, and their tiles have no room to
 * spare for the counters). */
template <class K>
__host__ __device__ inline bool radix_wins(int bits, int runs, TileMethod method) {
    if (sizeof(K) != 4 || method == kTileMerge ||
        RadixCode<K>::kShift + bits > RadixCode<K>::kWidth)
        return false;
    if (method == kTileRadix) return true;
    int rounds = 0;
    while ((1 << rounds) < runs) rounds++;
    const int passes = (bits + kRadixBits - 1) / kRadixBits;
    return passes * PB_MERGE_RADIX_PASS_COST < rounds * PB_MERGE_ROUND_COST;
}

/* Shared memory a tile block needs past its merge's: the radix sort's digit counters (a
 * row of them a digit, 4-byte keys only). */
constexpr int kTileWarps = kTileThreads / 32;
constexpr int kCounterRow = kTileWarps | 1; /* a counter a warp, padded to an odd count */
template <class K> __host__ __device__ constexpr size_t radix_counter_bytes() {
    return sizeof(K) == 4 ? (size_t)(1 << kRadixBits) * kCounterRow * 4 : 0;
}

#ifdef __CUDACC__
/* Ranks (below 2^16) two to a register, for the register budget of three blocks an SM. */
template <int I> struct PackedRanks {
    uint32_t r[(I + 1) / 2] = {};
    __device__ __forceinline__ uint32_t get(int j) const {
        return (r[j >> 1] >> (16 * (j & 1))) & 0xffffu;
    }
    __device__ __forceinline__ void set(int j, uint32_t v) {
        const int s = 16 * (j & 1);
        r[j >> 1] = (r[j >> 1] & ~(0xffffu << s)) | (v << s);
    }
};

/* One stable pass over digit (x >> shift) & mask (mask + 1 <= 2^kRadixBits) of the codes
 * in src, thread by thread the codes at src[at + 32 j] (so a warp holds consecutive
 * stretches of 32): each one's rank among its warp's keys of its digit, by match.any, and
 * a counter a (digit, warp), scanned digit-major, so that a key's rank in the tile is its
 * rank plus its counter. */
template <class O, int I>
__device__ __forceinline__ void rank_digits(const O *src, int at, PackedRanks<I> &rank, int shift,
                                            uint32_t mask, int *counters) {
    using Scan = cub::BlockScan<int, kTileThreads>;
    __shared__ typename Scan::TempStorage scan;
    const int th = (int)threadIdx.x, warp = th >> 5;
    const int total = (int)(mask + 1) * kCounterRow;
    for (int c = th; c < total; c += kTileThreads) counters[c] = 0;
    __syncthreads();
    const unsigned below = (1u << (th & 31)) - 1;
#pragma unroll
    for (int j = 0; j < I; j++) {
        const uint32_t d = (uint32_t)(src[at + 32 * j] >> shift) & mask;
        const unsigned peers = __match_any_sync(kFullWarp, d);
        int *counter = counters + d * kCounterRow + warp;
        const int before = *counter;
        __syncwarp();
        const int ahead = __popc(peers & below);
        if (ahead == 0) *counter = before + __popc(peers);
        __syncwarp();
        rank.set(j, (uint32_t)(before + ahead));
    }
    __syncthreads();
    /* exclusive scan of the counters, digit-major: a stretch of consecutive ones a thread */
    const int per = (total + kTileThreads - 1) / kTileThreads;
    const int c0 = th * per < total ? th * per : total;
    const int c1 = c0 + per < total ? c0 + per : total;
    int sum = 0;
    for (int c = c0; c < c1; c++) sum += counters[c];
    int at_scan;
    Scan(scan).ExclusiveSum(sum, at_scan);
    for (int c = c0; c < c1; c++) {
        const int n = counters[c];
        counters[c] = at_scan;
        at_scan += n;
    }
    __syncthreads();
}

/* Sorts the tile's D keys (4-byte) in b.keys(0) (values in b.values(0)), stretches in list
 * order, by their codes from lo over bits (at least 1) bits, and writes them to
 * out_keys[0, D) (out_values), coalesced. LSD passes of equal digits of at most kRadixBits
 * bits; the codes ping-pong between two buffers in shared memory (the keys' second one, or
 * with values the second value buffer), the values stay in registers between passes and
 * are exchanged through the first value buffer; the counters lie past the tile's buffers.
 * Every thread of the block calls it. */
template <class K, bool kPairs>
__device__ void radix_tile(const TileBuffers<K, kPairs> &b, int D, ordered_t<K> lo, int bits,
                           K *__restrict__ out_keys, uint32_t *__restrict__ out_values) {
    static_assert(sizeof(K) == 4, "radix tiles are for 4-byte keys");
    using Code = RadixCode<K>;
    using O = ordered_t<K>;
    constexpr int I = Tile<K>::kItems;
    constexpr int kSize = (int)Tile<K>::kSize;
    O *src = reinterpret_cast<O *>(b.keys(0));
    O *dst = keys_ping_pong<K>(kPairs) ? reinterpret_cast<O *>(b.keys(1))
                                       : reinterpret_cast<O *>(b.values(1));
    uint32_t *ev = b.values(0);
    int *counters = reinterpret_cast<int *>(b.base + tile_smem_bytes<K>(kPairs));
    const int th = (int)threadIdx.x, lane = th & 31, warp = th >> 5;
    const int at = warp * 32 * I + lane; /* a thread's keys: at + 32 j */
    uint32_t v[kPairs ? I : 1];
#pragma unroll
    for (int j = 0; j < I; j++) { /* in place; past D the highest code: those sort last */
        const int o = at + 32 * j;
        const K k = b.keys(0)[o];
        src[o] = o < D ? Code::encode(k, lo) : (O) ~(O)0;
        if constexpr (kPairs) v[j] = o < D ? ev[o] : 0u;
    }
    const int passes = (bits + kRadixBits - 1) / kRadixBits;
    const int width = (bits + passes - 1) / passes;
    const uint32_t mask = (1u << width) - 1;
    for (int p = 0; p < passes; p++) {
        PackedRanks<I> rank;
        /* its first barrier orders the codes' writes before any reads */
        rank_digits<O, I>(src, at, rank, Code::kShift + p * width, mask, counters);
        const int shift = Code::kShift + p * width, warp_at = warp;
#pragma unroll
        for (int j = 0; j < I; j++) {
            const O x = src[at + 32 * j];
            const int r = (int)rank.get(j) +
                          counters[((uint32_t)(x >> shift) & mask) * kCounterRow + warp_at];
            dst[r] = x;
            if constexpr (kPairs) ev[r] = v[j];
        }
        __syncthreads();
        O *const t = src;
        src = dst;
        dst = t;
        if (kPairs && p + 1 < passes) {
#pragma unroll
            for (int j = 0; j < I; j++) v[j] = ev[at + 32 * j];
        }
    }
    static_assert(kSize % kTileThreads == 0, "striped output");
#pragma unroll
    for (int j = 0; j < I; j++) {
        const int o = th + j * kTileThreads;
        if (o < D) {
            out_keys[o] = Code::decode(src[o], lo);
            if constexpr (kPairs) out_values[o] = ev[o];
        }
    }
}
#endif

} // namespace pb::merge
