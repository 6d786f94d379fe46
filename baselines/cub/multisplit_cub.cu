/* multisplit/cub-sort: what users do today. A kernel writes every key's bin id, CUB's
 * stable radix sort orders (bin id, key) pairs over just the bits a bin id needs, and
 * CUB's histogram and scan give the offsets. With values, the sort carries each key's
 * index and a gather moves keys and values. */
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "multisplit_common.cuh"

namespace pb_ms {
namespace {

template <class T>
__global__ void gather_kernel(const T *__restrict__ keys, const uint32_t *__restrict__ values,
                              const uint32_t *__restrict__ order, uint64_t n,
                              T *__restrict__ out_keys, uint32_t *__restrict__ out_values) {
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        uint32_t from = order[i];
        out_keys[i] = keys[from];
        out_values[i] = values[from];
    }
}

struct Scratch {
    uint32_t *bins_in, *bins_out, *index_in, *index_out, *counts;
    void *temp;
    size_t temp_bytes;
};

/* Sizes every CUB call with null pointers, then lays the scratch out. */
template <class T>
cudaError_t carve(const pb_multisplit_args *a, void *base, Scratch *s, size_t *bytes) {
    const bool pairs = a->values != nullptr;
    const int bits = bits_for(a->bucket.bins);
    const int64_t n = (int64_t)a->n;
    size_t sort_bytes = 0, hist_bytes = 0, scan_bytes = 0;
    cudaError_t e = pairs
                        ? cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, (uint32_t *)nullptr,
                                                          (uint32_t *)nullptr, (uint32_t *)nullptr,
                                                          (uint32_t *)nullptr, n, 0, bits)
                        : cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, (uint32_t *)nullptr,
                                                          (uint32_t *)nullptr, (const T *)nullptr,
                                                          (T *)nullptr, n, 0, bits);
    if (e == cudaSuccess)
        e = cub::DeviceHistogram::HistogramEven(nullptr, hist_bytes, (const uint32_t *)nullptr,
                                                (uint32_t *)nullptr, (int)a->bucket.bins + 1, 0u,
                                                a->bucket.bins, n);
    if (e == cudaSuccess)
        e = cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, (uint32_t *)nullptr,
                                          (uint32_t *)nullptr, (int)a->bucket.bins);
    if (e != cudaSuccess) return e;
    Carver c{static_cast<char *>(base)};
    s->bins_in = c.take<uint32_t>(a->n);
    s->bins_out = c.take<uint32_t>(a->n);
    s->index_in = pairs ? c.take<uint32_t>(a->n) : nullptr;
    s->index_out = pairs ? c.take<uint32_t>(a->n) : nullptr;
    s->counts = c.take<uint32_t>(a->bucket.bins);
    s->temp_bytes = sort_bytes > hist_bytes ? sort_bytes : hist_bytes;
    s->temp_bytes = s->temp_bytes > scan_bytes ? s->temp_bytes : scan_bytes;
    s->temp = c.take<char>(s->temp_bytes);
    *bytes = c.used;
    return cudaSuccess;
}

template <class T> int launch_for(const pb_multisplit_args *a, cudaStream_t stream) {
    Scratch s;
    size_t bytes;
    cudaError_t e = carve<T>(a, a->scratch, &s, &bytes);
    if (e != cudaSuccess) return (int)e;
    const bool pairs = a->values != nullptr;
    const int64_t n = (int64_t)a->n;
    const int bits = bits_for(a->bucket.bins);
    const int grid = 4 * device_sms();
    e = (cudaError_t)pb_multisplit_bin_ids(a, s.bins_in, s.index_in, stream);
    if (e != cudaSuccess) return (int)e;
    size_t temp = s.temp_bytes;
    if (pairs) {
        e = cub::DeviceRadixSort::SortPairs(s.temp, temp, s.bins_in, s.bins_out, s.index_in,
                                            s.index_out, n, 0, bits, stream);
        if (e == cudaSuccess)
            gather_kernel<<<grid, 256, 0, stream>>>(static_cast<const T *>(a->keys), a->values,
                                                    s.index_out, a->n,
                                                    static_cast<T *>(a->out_keys), a->out_values);
    } else {
        e = cub::DeviceRadixSort::SortPairs(s.temp, temp, s.bins_in, s.bins_out,
                                            static_cast<const T *>(a->keys),
                                            static_cast<T *>(a->out_keys), n, 0, bits, stream);
    }
    temp = s.temp_bytes;
    if (e == cudaSuccess)
        e = cub::DeviceHistogram::HistogramEven(s.temp, temp, s.bins_in, s.counts,
                                                (int)a->bucket.bins + 1, 0u, a->bucket.bins, n,
                                                stream);
    temp = s.temp_bytes;
    if (e == cudaSuccess)
        e = cub::DeviceScan::ExclusiveSum(s.temp, temp, s.counts, a->offsets, (int)a->bucket.bins,
                                          stream);
    return e == cudaSuccess ? (int)cudaGetLastError() : (int)e;
}

__global__ void fill_index_kernel(uint32_t *values, uint64_t n) {
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x)
        values[i] = (uint32_t)i;
}

} // namespace
} // namespace pb_ms

extern "C" int pb_multisplit_cub_plan(const struct pb_multisplit_args *a, size_t *scratch_bytes) {
    return pb_ms::with_key_type(a->bucket.dtype, [&](auto key) {
        using T = decltype(key);
        pb_ms::Scratch s;
        return (int)pb_ms::carve<T>(a, nullptr, &s, scratch_bytes);
    });
}

extern "C" int pb_multisplit_cub_launch(const struct pb_multisplit_args *a, cudaStream_t stream) {
    return pb_ms::with_key_type(a->bucket.dtype, [&](auto key) {
        using T = decltype(key);
        return pb_ms::launch_for<T>(a, stream);
    });
}

/* The values of a key-value input: each key's index, so stability shows in the output. */
extern "C" int pb_multisplit_fill_index(uint32_t *d_values, uint64_t n, cudaStream_t stream) {
    pb_ms::fill_index_kernel<<<4 * pb_ms::device_sms(), 256, 0, stream>>>(d_values, n);
    return (int)cudaGetLastError();
}
