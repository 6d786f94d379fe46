/* multisplit/auto: our design, stable, for any bin count.
 *
 * The grid is as many blocks as fit on the GPU at once; block s owns one contiguous slice
 * of the input. One pass over a digit of the bin (the whole bin when there are few):
 *   1. slice_count_kernel: each slice's digit counts, written digit-major (one read of
 *      the keys);
 *   2. cub::DeviceScan over the digit-major counts: where slice s's keys of digit d start;
 *   3. slice_scatter_kernel walks its slice in tiles of 4096 keys. Each warp ranks its
 *      keys in input order with ballots (which lanes share my digit) and warp-private
 *      counters; a scan over
 *      the warps and digits gives each key its place in the tile sorted by digit; the
 *      sorted tile goes through shared memory and out in runs, consecutive threads to
 *      consecutive addresses. Running per-digit offsets carry the order from tile to tile.
 * Keys are read twice and written once: the 12-bytes-per-key bound.
 *
 * Per-tile work grows with the digit count (warp counters, the scan), so more than
 * kSinglePassMaxBins bins take two such passes, least significant digit first (LSD radix
 * sort of the bin, stable), with digits of at most 256; the bins' offsets then come from
 * a binary search of the sorted output for each bin. */
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>

#include "multisplit_common.cuh"

namespace pb_ms {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kItems = 16;
constexpr int kTile = kThreads * kItems;
constexpr int kWarpTile = 32 * kItems;
constexpr uint32_t kSinglePassMaxBins = 1024;

/* The digit of a key in one pass: (bin >> shift) & mask. */
struct DigitRule {
    pb_bucket bucket;
    uint32_t shift, mask;
};

template <class T> __device__ __forceinline__ uint32_t digit_of(const DigitRule &r, T key) {
    return (bin_of(r.bucket, key) >> r.shift) & r.mask;
}

/* counts[d * slices + s] = keys of digit d in slice s. Lanes of a warp that share a digit
 * add once (warp-aggregated), so a skewed input does not serialize on one counter. */
/* Lanes of the warp holding the same digit as this lane: one ballot per digit bit. A
 * constant cost, where __match_any_sync's grows with the number of distinct values. */
__device__ __forceinline__ unsigned peers_of(uint32_t d, int bits) {
    unsigned peers = 0xffffffffu;
    for (int b = 0; b < bits; b++) {
        const bool set = (d >> b) & 1u;
        const unsigned ones = __ballot_sync(0xffffffffu, set);
        peers &= set ? ones : ~ones;
    }
    return peers;
}

constexpr int kCountThreads = 256;
constexpr int kCountWarps = kCountThreads / 32;

/* counts[d * slices + s] = keys of digit d in slice s. Each warp counts into its own
 * histogram in shared memory; a thread adds a run of equal digits among its consecutive
 * keys once, so a skewed input does not pile atomics onto one counter. Keys arrive in
 * 16-byte vectors, two per thread per step, each load instruction one coalesced 512 B. */
template <class T>
__global__ void __launch_bounds__(kCountThreads)
    slice_count_kernel(const T *__restrict__ keys, uint64_t n, uint64_t span, DigitRule rule,
                       uint32_t digits, uint32_t *__restrict__ counts) {
    extern __shared__ uint32_t hist[]; /* kCountWarps x digits */
    constexpr int kVecKeys = 16 / sizeof(T);
    constexpr int kVecs = 2;
    constexpr uint64_t kStep = (uint64_t)kCountThreads * kVecs * kVecKeys;
    for (uint32_t i = threadIdx.x; i < kCountWarps * digits; i += kCountThreads) hist[i] = 0;
    __syncthreads();
    uint32_t *mine = hist + (threadIdx.x / 32) * digits;
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const uint64_t begin = (uint64_t)blockIdx.x * span;
    const uint64_t end = begin + span < n ? begin + span : n;
    for (uint64_t base = begin + (uint64_t)warp * 32 * kVecs * kVecKeys; base < end;
         base += kStep) {
        T k[kVecs][kVecKeys];
        uint32_t have[kVecs];
#pragma unroll
        for (int v = 0; v < kVecs; v++) {
            const uint64_t first = base + (uint64_t)(v * 32 + lane) * kVecKeys;
            if (first + kVecKeys <= end) {
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
        uint32_t run_digit = 0, run = 0;
#pragma unroll
        for (int v = 0; v < kVecs; v++)
#pragma unroll
            for (int u = 0; u < kVecKeys; u++) {
                if (u >= (int)have[v]) continue;
                const uint32_t d = digit_of(rule, k[v][u]);
                if (run && d != run_digit) {
                    atomicAdd(&mine[run_digit], run);
                    run = 0;
                }
                run_digit = d;
                run++;
            }
        if (run) atomicAdd(&mine[run_digit], run);
    }
    __syncthreads();
    for (uint32_t d = threadIdx.x; d < digits; d += kCountThreads) {
        uint32_t sum = 0;
#pragma unroll
        for (int w = 0; w < kCountWarps; w++) sum += hist[w * digits + d];
        counts[(uint64_t)d * gridDim.x + blockIdx.x] = sum;
    }
}

/* Shared memory of the scatter kernel, carved from the dynamic allocation. */
template <class T, bool kPairs> struct TileSmem {
    uint32_t *warp_counts; /* kWarps x digits: ranks, then where each warp's run starts */
    uint32_t *tile_count;  /* digits: keys of the digit in this tile */
    uint32_t *delta;       /* digits: global position minus tile position */
    uint32_t *base;        /* digits: where this slice's next key of the digit goes */
    T *keys;               /* kTile: the tile, sorted by digit */
    uint32_t *values;      /* kTile, pairs only */
    uint16_t *digit;       /* kTile: digit of each sorted key */

    __host__ __device__ static size_t bytes(uint32_t digits) {
        return (size_t)(kWarps + 3) * digits * 4 + (size_t)kTile * sizeof(T) +
               (kPairs ? (size_t)kTile * 4 : 0) + (size_t)kTile * 2;
    }
    __device__ TileSmem(unsigned char *p, uint32_t digits) {
        /* the widest arrays first, so each stays aligned */
        keys = reinterpret_cast<T *>(p);
        p += (size_t)kTile * sizeof(T);
        values = reinterpret_cast<uint32_t *>(p);
        p += kPairs ? (size_t)kTile * 4 : 0;
        warp_counts = reinterpret_cast<uint32_t *>(p);
        tile_count = warp_counts + (size_t)kWarps * digits;
        delta = tile_count + digits;
        base = delta + digits;
        digit = reinterpret_cast<uint16_t *>(base + digits);
    }
};

/* Three blocks an SM for 4-byte keys (at most 85 registers), so one block's barriers
 * overlap the others' loads. */
template <class T, bool kPairs>
__global__ void __launch_bounds__(kThreads, sizeof(T) == 4 ? 3 : 2)
    slice_scatter_kernel(const T *__restrict__ keys, const uint32_t *__restrict__ values,
                         uint64_t n, uint64_t span, DigitRule rule, uint32_t digits,
                         const uint32_t *__restrict__ starts, T *__restrict__ out_keys,
                         uint32_t *__restrict__ out_values) {
    using Scan = cub::BlockScan<uint32_t, kThreads>;
    __shared__ typename Scan::TempStorage scan_storage;
    extern __shared__ __align__(16) unsigned char dynamic_smem[];
    const TileSmem<T, kPairs> sm(dynamic_smem, digits);
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const uint32_t lanes_before = (1u << lane) - 1;
    uint32_t *my_counts = sm.warp_counts + warp * digits;
    const int digit_bits = 32 - __clz(digits); /* enough for the sentinel `digits` too */

    for (uint32_t d = threadIdx.x; d < digits; d += kThreads)
        sm.base[d] = starts[(uint64_t)d * gridDim.x + blockIdx.x];
    for (uint32_t i = threadIdx.x; i < kWarps * digits; i += kThreads) sm.warp_counts[i] = 0;
    /* Thread t scans the digits [first, last) across warps. */
    const uint32_t per_thread = (digits + kThreads - 1) / kThreads;
    const uint32_t first = min(threadIdx.x * per_thread, digits);
    const uint32_t last = min(first + per_thread, digits);
    __syncthreads();

    const uint64_t begin = (uint64_t)blockIdx.x * span;
    const uint64_t end = begin + span < n ? begin + span : n;
    for (uint64_t tile = begin; tile < end; tile += kTile) {
        const uint32_t valid = end - tile < (uint64_t)kTile ? (uint32_t)(end - tile) : kTile;
        /* 1. Load: warp w owns tile positions [w * kWarpTile, (w + 1) * kWarpTile), item j
         * of lane l is position j * 32 + l in it, so each load is one coalesced line and
         * (j, lane) is input order. */
        T k[kItems];
        /* digit (low 16 bits) and rank in the warp (high 16 bits) of each item: one
         * register each, for occupancy; values wait in memory until step 4. */
        uint32_t digit_rank[kItems];
#pragma unroll
        for (int j = 0; j < kItems; j++) {
            const uint32_t at = warp * kWarpTile + j * 32 + lane;
            if (at < valid) k[j] = keys[tile + at];
        }
        /* 2. Rank in input order inside the warp: the lanes sharing a digit take
         * consecutive ranks after what the warp's earlier items of it took. Only the
         * leader of a digit's lanes touches its counter: no atomics needed. */
#pragma unroll
        for (int j = 0; j < kItems; j++) {
            const uint32_t at = warp * kWarpTile + j * 32 + lane;
            const uint32_t d = at < valid ? digit_of(rule, k[j]) : digits;
            const unsigned peers = peers_of(d, digit_bits);
            const int leader = __ffs(peers) - 1;
            uint32_t before = 0;
            if ((int)lane == leader && d < digits) {
                before = my_counts[d];
                my_counts[d] = before + __popc(peers);
            }
            const uint32_t rank =
                __shfl_sync(0xffffffffu, before, leader) + __popc(peers & lanes_before);
            digit_rank[j] = d | rank << 16;
            __syncwarp(); /* the next item's leader reads what this one's wrote */
        }
        __syncthreads();
        /* 3. Per digit: the tile's count, its start in the digit-sorted tile (a block
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
        /* 4. The tile, sorted by digit, into shared memory. */
#pragma unroll
        for (int j = 0; j < kItems; j++) {
            const uint32_t d = digit_rank[j] & 0xffffu;
            if (d < digits) {
                const uint32_t at = my_counts[d] + (digit_rank[j] >> 16);
                sm.keys[at] = k[j];
                sm.digit[at] = (uint16_t)d;
                if (kPairs) sm.values[at] = values[tile + warp * kWarpTile + j * 32 + lane];
            }
        }
        __syncthreads();
        /* 5. Out in runs: consecutive threads, consecutive addresses inside a digit. */
        for (uint32_t i = threadIdx.x; i < valid; i += kThreads) {
            const uint32_t dest = sm.delta[sm.digit[i]] + i;
            out_keys[dest] = sm.keys[i];
            if (kPairs) out_values[dest] = sm.values[i];
        }
        for (uint32_t i = threadIdx.x; i < kWarps * digits; i += kThreads) sm.warp_counts[i] = 0;
        __syncthreads();
    }
}

/* offsets[b] = first position of bin b in the bin-sorted keys (n when none follows). */
template <class T>
__global__ void bin_offsets_kernel(const T *__restrict__ sorted, uint64_t n, pb_bucket bucket,
                                   uint32_t *__restrict__ offsets) {
    const uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= bucket.bins) return;
    uint64_t lo = 0, hi = n;
    while (lo < hi) {
        const uint64_t mid = (lo + hi) / 2;
        if (bin_of(bucket, sorted[mid]) < b)
            lo = mid + 1;
        else
            hi = mid;
    }
    offsets[b] = (uint32_t)lo;
}

/* offsets[d] = starts[d * slices]: where each digit starts (single pass: each bin). */
__global__ void digit_starts_kernel(const uint32_t *__restrict__ starts, uint32_t digits,
                                    uint32_t slices, uint32_t *__restrict__ offsets) {
    const uint32_t d = blockIdx.x * blockDim.x + threadIdx.x;
    if (d < digits) offsets[d] = starts[(uint64_t)d * slices];
}

struct Pass {
    DigitRule rule;
    uint32_t digits;
};

struct Plan {
    int passes;
    Pass pass[2];
    uint32_t max_digits;
    int slices;
    uint64_t span;
    size_t scan_temp_bytes;
};

/* Scratch: digit-major counts and their scan, CUB's scan storage, and for two passes the
 * keys (and values) between them. */
template <class T> struct Scratch {
    uint32_t *counts, *starts;
    void *scan_temp;
    T *mid_keys;
    uint32_t *mid_values;
};

template <class T, bool kPairs> size_t scatter_smem(uint32_t digits) {
    return TileSmem<T, kPairs>::bytes(digits);
}

template <class T> int blocks_per_sm(bool pairs, uint32_t digits) {
    int blocks = 0;
    if (pairs)
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, slice_scatter_kernel<T, true>,
                                                      kThreads, scatter_smem<T, true>(digits));
    else
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, slice_scatter_kernel<T, false>,
                                                      kThreads, scatter_smem<T, false>(digits));
    return blocks > 0 ? blocks : 1;
}

template <class T> cudaError_t allow_scatter_smem(bool pairs, uint32_t digits) {
    return pairs ? allow_smem(slice_scatter_kernel<T, true>, scatter_smem<T, true>(digits))
                 : allow_smem(slice_scatter_kernel<T, false>, scatter_smem<T, false>(digits));
}

template <class T> Plan make_plan(const pb_multisplit_args *a) {
    Plan p{};
    const uint32_t bins = a->bucket.bins;
    if (bins <= kSinglePassMaxBins) {
        p.passes = 1;
        p.pass[0] = {{a->bucket, 0, 0xffffffffu}, bins};
    } else {
        /* low digit of 2^low_bits values first, then the rest (both <= 256) */
        const int bits = bits_for(bins);
        const int low_bits = bits / 2;
        p.passes = 2;
        p.pass[0] = {{a->bucket, 0, (1u << low_bits) - 1}, 1u << low_bits};
        p.pass[1] = {{a->bucket, (uint32_t)low_bits, 0xffffffffu},
                     ((bins - 1) >> low_bits) + 1};
    }
    p.max_digits = p.pass[0].digits > p.pass[1].digits ? p.pass[0].digits : p.pass[1].digits;
    allow_scatter_smem<T>(a->values != nullptr, p.max_digits);
    const uint64_t tiles = (a->n + kTile - 1) / kTile;
    const uint64_t resident =
        (uint64_t)device_sms() * blocks_per_sm<T>(a->values != nullptr, p.max_digits);
    p.slices = (int)(tiles < resident ? tiles : resident);
    p.span = (tiles + p.slices - 1) / p.slices * kTile;
    const int count = (int)(p.max_digits * (uint32_t)p.slices);
    cub::DeviceScan::ExclusiveSum(nullptr, p.scan_temp_bytes, (uint32_t *)nullptr,
                                  (uint32_t *)nullptr, count);
    return p;
}

template <class T>
Scratch<T> carve(const pb_multisplit_args *a, const Plan &p, void *base, size_t *bytes) {
    Carver c{static_cast<char *>(base)};
    Scratch<T> s{};
    const size_t count = (size_t)p.max_digits * p.slices;
    s.counts = c.take<uint32_t>(count);
    s.starts = c.take<uint32_t>(count);
    s.scan_temp = c.take<unsigned char>(p.scan_temp_bytes);
    if (p.passes == 2) {
        s.mid_keys = c.take<T>(a->n);
        if (a->values) s.mid_values = c.take<uint32_t>(a->n);
    }
    *bytes = c.used;
    return s;
}

template <class T>
cudaError_t run_pass(const Pass &pass, const Plan &p, Scratch<T> &s, const T *keys,
                     const uint32_t *values, uint64_t n, T *out_keys, uint32_t *out_values,
                     cudaStream_t stream) {
    slice_count_kernel<T><<<p.slices, kCountThreads, kCountWarps * pass.digits * 4, stream>>>(
        keys, n, p.span, pass.rule, pass.digits, s.counts);
    size_t temp = p.scan_temp_bytes;
    cudaError_t e = cub::DeviceScan::ExclusiveSum(s.scan_temp, temp, s.counts, s.starts,
                                                  (int)(pass.digits * (uint32_t)p.slices), stream);
    if (e != cudaSuccess) return e;
    if (values)
        slice_scatter_kernel<T, true>
            <<<p.slices, kThreads, scatter_smem<T, true>(pass.digits), stream>>>(
                keys, values, n, p.span, pass.rule, pass.digits, s.starts, out_keys, out_values);
    else
        slice_scatter_kernel<T, false>
            <<<p.slices, kThreads, scatter_smem<T, false>(pass.digits), stream>>>(
                keys, nullptr, n, p.span, pass.rule, pass.digits, s.starts, out_keys, nullptr);
    return cudaGetLastError();
}

template <class T> int launch_for(const pb_multisplit_args *a, cudaStream_t stream) {
    const Plan p = make_plan<T>(a);
    size_t bytes = 0;
    Scratch<T> s = carve<T>(a, p, a->scratch, &bytes);
    const T *keys = static_cast<const T *>(a->keys);
    T *out = static_cast<T *>(a->out_keys);
    cudaError_t e;
    if (p.passes == 1) {
        e = run_pass<T>(p.pass[0], p, s, keys, a->values, a->n, out, a->out_values, stream);
        if (e == cudaSuccess)
            digit_starts_kernel<<<(a->bucket.bins + 255) / 256, 256, 0, stream>>>(
                s.starts, a->bucket.bins, (uint32_t)p.slices, a->offsets);
    } else {
        e = run_pass<T>(p.pass[0], p, s, keys, a->values, a->n, s.mid_keys, s.mid_values,
                        stream);
        if (e == cudaSuccess)
            e = run_pass<T>(p.pass[1], p, s, s.mid_keys, s.mid_values, a->n, out, a->out_values,
                            stream);
        if (e == cudaSuccess)
            bin_offsets_kernel<T><<<(a->bucket.bins + 255) / 256, 256, 0, stream>>>(
                out, a->n, a->bucket, a->offsets);
    }
    if (e == cudaSuccess) e = cudaGetLastError();
    return (int)e;
}

} // namespace
} // namespace pb_ms

extern "C" int pb_multisplit_slice_plan(const struct pb_multisplit_args *a,
                                        size_t *scratch_bytes) {
    return pb_ms::with_key_type(a->bucket.dtype, [&](auto key) {
        using T = decltype(key);
        const pb_ms::Plan p = pb_ms::make_plan<T>(a);
        pb_ms::carve<T>(a, p, nullptr, scratch_bytes);
        return (int)cudaGetLastError();
    });
}

extern "C" int pb_multisplit_slice_launch(const struct pb_multisplit_args *a,
                                          cudaStream_t stream) {
    return pb_ms::with_key_type(a->bucket.dtype,
                                [&](auto key) { return pb_ms::launch_for<decltype(key)>(a, stream); });
}
