/* sort/cub-segmented and sort/cub-radix: what users do today. CUB's DeviceSegmentedSort
 * over offsets laid out once in setup (segment i is [i * length, min((i + 1) * length,
 * n))), and, for one whole array, DeviceRadixSort. Both take the keys as they are; CUB
 * orders -0.0 and +0.0 as equal, which the verifier accepts. */
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include "dtype_dispatch.cuh"
#include "sort_gpu.h"

namespace {

constexpr size_t ALIGN = 256;

size_t offsets_bytes(const pb_sort_args *a) {
    return ((a->count + 1) * sizeof(int64_t) + ALIGN - 1) / ALIGN * ALIGN;
}

__global__ void offsets_kernel(int64_t *offsets, uint64_t count, uint64_t length, uint64_t n) {
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i <= count;
         i += (uint64_t)gridDim.x * blockDim.x)
        offsets[i] = (int64_t)(i * length < n ? i * length : n);
}

/* Calls CUB's segmented sort (temp == nullptr: sizes it). */
template <class T>
cudaError_t segmented(const pb_sort_args *a, void *temp, size_t &bytes, cudaStream_t st) {
    const int64_t *begin = (const int64_t *)a->scratch, *end = begin ? begin + 1 : nullptr;
    const T *in = (const T *)a->keys;
    T *out = (T *)a->out_keys;
    int64_t n = (int64_t)a->n, segs = (int64_t)a->count;
    using S = cub::DeviceSegmentedSort;
    if (a->values) {
        return a->descending ? S::SortPairsDescending(temp, bytes, in, out, a->values,
                                                      a->out_values, n, segs, begin, end, st)
                             : S::SortPairs(temp, bytes, in, out, a->values, a->out_values, n, segs,
                                            begin, end, st);
    }
    return a->descending ? S::SortKeysDescending(temp, bytes, in, out, n, segs, begin, end, st)
                         : S::SortKeys(temp, bytes, in, out, n, segs, begin, end, st);
}

template <class T>
cudaError_t radix(const pb_sort_args *a, void *temp, size_t &bytes, cudaStream_t st) {
    const T *in = (const T *)a->keys;
    T *out = (T *)a->out_keys;
    int64_t n = (int64_t)a->n;
    using R = cub::DeviceRadixSort;
    if (a->values) {
        return a->descending ? R::SortPairsDescending(temp, bytes, in, out, a->values,
                                                      a->out_values, n, 0, (int)sizeof(T) * 8, st)
                             : R::SortPairs(temp, bytes, in, out, a->values, a->out_values, n, 0,
                                            (int)sizeof(T) * 8, st);
    }
    return a->descending ? R::SortKeysDescending(temp, bytes, in, out, n, 0, (int)sizeof(T) * 8, st)
                         : R::SortKeys(temp, bytes, in, out, n, 0, (int)sizeof(T) * 8, st);
}

template <class F> int dispatch(const pb_sort_args *a, F &&f) {
    return pb::with_dtype<uint32_t, int32_t, float, uint64_t, double>(a->dtype, f);
}

} // namespace

extern "C" int pb_sort_cub_segmented_plan(const pb_sort_args *a, size_t *scratch_bytes) {
    return dispatch(a, [&](auto t) {
        size_t temp = 0;
        cudaError_t e = segmented<decltype(t)>(a, nullptr, temp, 0);
        *scratch_bytes = offsets_bytes(a) + temp;
        return (int)e;
    });
}

extern "C" int pb_sort_cub_segmented_setup(const pb_sort_args *a, cudaStream_t stream) {
    offsets_kernel<<<1024, 256, 0, stream>>>((int64_t *)a->scratch, a->count, a->length, a->n);
    return (int)cudaGetLastError();
}

extern "C" int pb_sort_cub_segmented_launch(const pb_sort_args *a, cudaStream_t stream) {
    return dispatch(a, [&](auto t) {
        size_t temp = a->scratch_bytes - offsets_bytes(a);
        return (int)segmented<decltype(t)>(a, (char *)a->scratch + offsets_bytes(a), temp, stream);
    });
}

extern "C" int pb_sort_cub_radix_plan(const pb_sort_args *a, size_t *scratch_bytes) {
    return dispatch(a, [&](auto t) {
        size_t temp = 0;
        cudaError_t e = radix<decltype(t)>(a, nullptr, temp, 0);
        *scratch_bytes = temp;
        return (int)e;
    });
}

extern "C" int pb_sort_cub_radix_launch(const pb_sort_args *a, cudaStream_t stream) {
    return dispatch(a, [&](auto t) {
        size_t temp = a->scratch_bytes;
        return (int)radix<decltype(t)>(a, a->scratch, temp, stream);
    });
}
