/* multisplit/auto: our design for any bin count (1..65536), stable.
 *
 * Each block owns one contiguous slice of the input (four per SM, so the per-block count
 * rows stay small whatever the bin count) and walks it in chunks of kChunk keys:
 *   1. count_kernel: the slice's bin counts (one read of the keys);
 *   2. scan_counts: where each block's keys of each bin go;
 *   3. scatter_kernel, per chunk: load the keys coalesced into shared memory, sort the
 *      chunk's (bin, position) pairs with a stable block radix sort over just the bits a
 *      bin needs, find each bin's run in the sorted chunk, and write every run to its
 *      place: consecutive threads write consecutive addresses (coalesced). A running
 *      offset per bin carries the order from chunk to chunk, so the whole is stable.
 * The keys are read twice and written once: the 12-bytes-per-key bound. */
#include <cub/block/block_discontinuity.cuh>
#include <cub/block/block_exchange.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>

#include "multisplit_common.cuh"

namespace pb_ms {
namespace {

/* 256 threads x 16 keys: at about 128 registers a thread, two blocks fit on an SM, so
 * one block's barriers overlap the other's loads and sorting. */
constexpr int kThreads = 256;
constexpr int kItems = 16;
constexpr int kChunk = kThreads * kItems;
/* Bins counted per count_kernel launch: a u32 counter each in shared memory. */
constexpr uint32_t kCountBinsPerLaunch = 32768;

using BinSort = cub::BlockRadixSort<uint32_t, kThreads, kItems, uint32_t>;
using Exchange = cub::BlockExchange<uint32_t, kThreads, kItems>;
using Discontinuity = cub::BlockDiscontinuity<uint32_t, kThreads>;
using MaxScan = cub::BlockScan<uint32_t, kThreads>;

union ChunkStorage {
    typename BinSort::TempStorage sort;
    typename Exchange::TempStorage exchange;
    typename Discontinuity::TempStorage discontinuity;
    typename MaxScan::TempStorage scan;
};

struct NotEqual {
    __device__ bool operator()(uint32_t a, uint32_t b) const { return a != b; }
};

struct Max {
    __device__ uint32_t operator()(uint32_t a, uint32_t b) const { return a > b ? a : b; }
};

/* kSmemRuns: the running write position of every bin sits in shared memory; otherwise in
 * the block's own row of `counts` in global memory (bins too many for shared memory). */
template <class T, bool kPairs, bool kSmemRuns>
__global__ void __launch_bounds__(kThreads, 2)
    scatter_kernel(const T *__restrict__ keys, const uint32_t *__restrict__ values, uint64_t n,
                   uint64_t span, pb_bucket bucket, int bits, const uint32_t *__restrict__ offsets,
                   uint32_t *__restrict__ counts, T *__restrict__ out_keys,
                   uint32_t *__restrict__ out_values) {
    __shared__ ChunkStorage storage;
    extern __shared__ __align__(16) unsigned char dynamic_smem[];
    T *chunk_keys = reinterpret_cast<T *>(dynamic_smem);
    uint32_t *chunk_values = reinterpret_cast<uint32_t *>(chunk_keys + kChunk);
    uint32_t *smem_runs = chunk_values + (kPairs ? kChunk : 0);
    const uint32_t bins = bucket.bins;
    uint32_t *runs = kSmemRuns ? smem_runs : counts + (uint64_t)blockIdx.x * bins;

    /* Where this block's keys of each bin start. */
    const uint32_t *my_counts = counts + (uint64_t)blockIdx.x * bins;
    for (uint32_t b = threadIdx.x; b < bins; b += kThreads) runs[b] = offsets[b] + my_counts[b];
    __syncthreads();

    const uint64_t begin = (uint64_t)blockIdx.x * span;
    const uint64_t end = begin + span < n ? begin + span : n;
    for (uint64_t chunk = begin; chunk < end; chunk += kChunk) {
        const uint32_t valid = end - chunk < (uint64_t)kChunk ? (uint32_t)(end - chunk) : kChunk;
        uint32_t bin[kItems], position[kItems];
        /* 1. Coalesced load; keys stay in shared memory, bins go to registers. Keys past
         * the slice get the largest bin: a stable sort puts them after every real key. */
#pragma unroll
        for (int j = 0; j < kItems; j++) {
            uint32_t local = j * kThreads + threadIdx.x;
            if (local < valid) {
                T k = keys[chunk + local];
                chunk_keys[local] = k;
                if (kPairs) chunk_values[local] = values[chunk + local];
                bin[j] = bin_of(bucket, k);
            } else {
                bin[j] = bins - 1;
            }
        }
        Exchange(storage.exchange).StripedToBlocked(bin);
        __syncthreads();
        /* 2. Stable sort of (bin, chunk position), blocked in and out. */
#pragma unroll
        for (int j = 0; j < kItems; j++) position[j] = threadIdx.x * kItems + j;
        BinSort(storage.sort).Sort(bin, position, 0, bits);
        __syncthreads();
        /* 3. Each run of equal bins: where it starts in the sorted chunk. */
        bool head[kItems], tail[kItems];
        Discontinuity(storage.discontinuity).FlagHeadsAndTails(head, tail, bin, NotEqual());
        __syncthreads();
        uint32_t run_start[kItems];
#pragma unroll
        for (int j = 0; j < kItems; j++) run_start[j] = head[j] ? threadIdx.x * kItems + j : 0;
        MaxScan(storage.scan).InclusiveScan(run_start, run_start, Max());
        __syncthreads();
        uint32_t dest[kItems];
#pragma unroll
        for (int j = 0; j < kItems; j++)
            dest[j] = runs[bin[j]] + (threadIdx.x * kItems + j - run_start[j]);
        /* Every thread has read runs[] for this chunk before any run advances. */
        __syncthreads();
#pragma unroll
        for (int j = 0; j < kItems; j++) {
            uint32_t sorted_at = threadIdx.x * kItems + j;
            bool last_of_run = (tail[j] || sorted_at == valid - 1) && sorted_at < valid;
            if (last_of_run) runs[bin[j]] += sorted_at - run_start[j] + 1;
        }
        /* 4. Back to striped order so consecutive threads write consecutive addresses. */
        Exchange(storage.exchange).BlockedToStriped(dest);
        __syncthreads();
        Exchange(storage.exchange).BlockedToStriped(position);
#pragma unroll
        for (int j = 0; j < kItems; j++) {
            if (position[j] < valid) {
                out_keys[dest[j]] = chunk_keys[position[j]];
                if (kPairs) out_values[dest[j]] = chunk_values[position[j]];
            }
        }
        __syncthreads(); /* chunk_keys, storage and runs are reused by the next chunk */
    }
}

struct Plan {
    int blocks;
    uint64_t span;
    bool smem_runs;
    size_t scatter_smem;
};

template <class T> Plan make_plan(const pb_multisplit_args *a) {
    Plan p;
    const uint64_t chunks = (a->n + kChunk - 1) / kChunk;
    /* Four slices per SM (two resident at a time): the count rows stay at most 4 x SMs
     * x bins words. */
    const uint64_t slices = 4ull * (uint64_t)device_sms();
    p.blocks = (int)(chunks < slices ? chunks : slices);
    if (p.blocks < 1) p.blocks = 1;
    p.span = (chunks + p.blocks - 1) / p.blocks * kChunk;
    const bool pairs = a->values != nullptr;
    size_t base = kChunk * sizeof(T) + (pairs ? kChunk * sizeof(uint32_t) : 0);
    /* Leave room for two blocks on an SM when the bins allow it. */
    size_t limit = (size_t)device_smem_optin() / 2 - sizeof(ChunkStorage) - 1024;
    p.smem_runs = base + (size_t)a->bucket.bins * sizeof(uint32_t) <= limit;
    p.scatter_smem = base + (p.smem_runs ? (size_t)a->bucket.bins * sizeof(uint32_t) : 0);
    return p;
}

template <class T, bool kPairs, bool kSmemRuns>
cudaError_t launch_scatter(const pb_multisplit_args *a, const Plan &p, const CountScratch &s,
                           cudaStream_t stream) {
    auto kernel = scatter_kernel<T, kPairs, kSmemRuns>;
    cudaError_t e = allow_smem(kernel, p.scatter_smem);
    if (e != cudaSuccess) return e;
    kernel<<<p.blocks, kThreads, p.scatter_smem, stream>>>(
        static_cast<const T *>(a->keys), a->values, a->n, p.span, a->bucket,
        bits_for(a->bucket.bins), a->offsets, s.counts, static_cast<T *>(a->out_keys),
        a->out_values);
    return cudaGetLastError();
}

template <class T> int launch_for(const pb_multisplit_args *a, cudaStream_t stream) {
    const Plan p = make_plan<T>(a);
    size_t bytes;
    const CountScratch s = carve_counts(a->scratch, p.blocks, a->bucket.bins, &bytes);
    const uint32_t bins = a->bucket.bins;
    for (uint32_t lo = 0; lo < bins; lo += kCountBinsPerLaunch) {
        uint32_t count = bins - lo < kCountBinsPerLaunch ? bins - lo : kCountBinsPerLaunch;
        auto kernel = count_kernel<T, kThreads>;
        cudaError_t e = allow_smem(kernel, count * sizeof(uint32_t));
        if (e != cudaSuccess) return (int)e;
        kernel<<<p.blocks, kThreads, count * sizeof(uint32_t), stream>>>(
            static_cast<const T *>(a->keys), a->n, p.span, a->bucket, lo, count, s.counts);
    }
    cudaError_t e = scan_counts(s.counts, p.blocks, bins, s.totals, a->offsets, stream);
    if (e != cudaSuccess) return (int)e;
    const bool pairs = a->values != nullptr;
    if (pairs)
        e = p.smem_runs ? launch_scatter<T, true, true>(a, p, s, stream)
                        : launch_scatter<T, true, false>(a, p, s, stream);
    else
        e = p.smem_runs ? launch_scatter<T, false, true>(a, p, s, stream)
                        : launch_scatter<T, false, false>(a, p, s, stream);
    return (int)e;
}

} // namespace
} // namespace pb_ms

extern "C" int pb_multisplit_chunk_sort_plan(const struct pb_multisplit_args *a,
                                             size_t *scratch_bytes) {
    return pb_ms::with_key_type(a->bucket.dtype, [&](auto key) {
        using T = decltype(key);
        const pb_ms::Plan p = pb_ms::make_plan<T>(a);
        pb_ms::carve_counts(nullptr, p.blocks, a->bucket.bins, scratch_bytes);
        return (int)cudaSuccess;
    });
}

extern "C" int pb_multisplit_chunk_sort_launch(const struct pb_multisplit_args *a,
                                               cudaStream_t stream) {
    return pb_ms::with_key_type(a->bucket.dtype, [&](auto key) {
        using T = decltype(key);
        return pb_ms::launch_for<T>(a, stream);
    });
}
