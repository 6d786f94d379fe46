/* What the multisplit kernels share: key-type dispatch, the bucket function per type,
 * per-tile counting, and turning per-tile counts into write positions.
 *
 * Counts live tile-major, counts[tile][bin], one row per tile (a tile is a block's or a
 * warp's contiguous slice of the input). After column_scan_kernel, counts[t][b] is the
 * number of keys of bin b in tiles before t, and offsets[b] (bin_starts_kernel) where bin
 * b starts: tile t writes its bin-b keys from offsets[b] + counts[t][b] on, in order. */
#pragma once

#include <cuda_runtime.h>
#include <stdint.h>

#include "dtype_dispatch.cuh"

extern "C" {
#include "bucket_rules.h"
#include "multisplit_gpu.h"
}

namespace pb_ms {

__device__ __forceinline__ uint32_t bin_of(const pb_bucket &b, uint32_t k) {
    return pb_bucket_u32(&b, k);
}
__device__ __forceinline__ uint32_t bin_of(const pb_bucket &b, int32_t k) {
    return pb_bucket_i32(&b, k);
}
__device__ __forceinline__ uint32_t bin_of(const pb_bucket &b, uint64_t k) {
    return pb_bucket_u64(&b, k);
}
__device__ __forceinline__ uint32_t bin_of(const pb_bucket &b, float k) {
    return pb_bucket_f32(&b, k);
}

/* Calls f(T{}) with the key type of a dtype the multisplit takes. */
template <class F> int with_key_type(int dtype, F &&f) {
    return pb::with_dtype<uint32_t, int32_t, uint64_t, float>(dtype, f);
}

inline int bits_for(uint32_t bins) {
    int bits = 1;
    while (bits < 32 && (1u << bits) < bins) bits++;
    return bits;
}

/* Counts the bins [bin_lo, bin_lo + bin_count) of block b's slice [b * span, (b+1) *
 * span) into counts[b][...], in shared memory (bin_count words of dynamic smem). Lanes of
 * a warp that share a bin add once (warp-aggregated), so a skewed input does not
 * serialize on one counter. */
template <class T, int kThreads>
__global__ void __launch_bounds__(kThreads)
    count_kernel(const T *__restrict__ keys, uint64_t n, uint64_t span, pb_bucket bucket,
                 uint32_t bin_lo, uint32_t bin_count, uint32_t *__restrict__ counts) {
    extern __shared__ uint32_t hist[];
    constexpr int kUnroll = 4;
    for (uint32_t i = threadIdx.x; i < bin_count; i += kThreads) hist[i] = 0;
    __syncthreads();
    const uint64_t begin = (uint64_t)blockIdx.x * span;
    const uint64_t end = begin + span < n ? begin + span : n;
    const unsigned lane = threadIdx.x % 32;
    /* Every lane of a warp runs the same iterations (validity per element), so the
     * full-mask warp intrinsics below are always convergent. */
    for (uint64_t base = begin; base < end; base += (uint64_t)kThreads * kUnroll) {
        T k[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++) {
            uint64_t i = base + (uint64_t)u * kThreads + threadIdx.x;
            if (i < end) k[u] = keys[i];
        }
#pragma unroll
        for (int u = 0; u < kUnroll; u++) {
            uint64_t i = base + (uint64_t)u * kThreads + threadIdx.x;
            uint32_t bin = i < end ? bin_of(bucket, k[u]) - bin_lo : 0xffffffffu;
            unsigned peers = __match_any_sync(0xffffffffu, bin);
            if (bin < bin_count && __ffs(peers) - 1 == (int)lane)
                atomicAdd(&hist[bin], __popc(peers));
        }
    }
    __syncthreads();
    uint32_t *row = counts + (uint64_t)blockIdx.x * bucket.bins + bin_lo;
    for (uint32_t i = threadIdx.x; i < bin_count; i += kThreads) row[i] = hist[i];
}

/* counts (tiles x bins, tile-major) in; out: counts[t][b] = keys of bin b in tiles before t,
 * and offsets[b] = where bin b starts (multisplit_scan.cu). totals: bins words of scratch. */
cudaError_t scan_counts(uint32_t *counts, int tiles, uint32_t bins, uint32_t *totals,
                        uint32_t *offsets, cudaStream_t stream);

/* Static plus dynamic shared memory past 48 KB must be asked for per kernel; asking
 * every time is cheap and right whatever the kernel's static part. */
template <class K> cudaError_t allow_smem(K kernel, size_t dynamic_bytes) {
    return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)dynamic_bytes);
}

inline int device_smem_optin() {
    int device = 0, bytes = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    return bytes;
}

inline int device_sms() {
    int device = 0, sms = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    return sms;
}

/* Scratch carved from one allocation, 256-byte aligned pieces. */
struct Carver {
    char *base;
    size_t used = 0;
    template <class P> P *take(size_t count) {
        size_t bytes = (count * sizeof(P) + 255) / 256 * 256;
        P *p = base ? reinterpret_cast<P *>(base + used) : nullptr;
        used += bytes;
        return p;
    }
};

/* The scratch of the count-scan-place methods: tiles x bins counts and the bins' totals. */
struct CountScratch {
    uint32_t *counts, *totals;
};

inline CountScratch carve_counts(void *base, int tiles, uint32_t bins, size_t *bytes) {
    Carver c{static_cast<char *>(base)};
    CountScratch s;
    s.counts = c.take<uint32_t>((size_t)tiles * bins);
    s.totals = c.take<uint32_t>(bins);
    *bytes = c.used;
    return s;
}

} // namespace pb_ms
