/* select/cub-sort: the seed's comparison, a full sort. Keys are turned into ordered values
 * (select_order.h: NaN last, "max" complemented) with their indices, CUB sorts the pairs
 * (DeviceRadixSort for one row, DeviceSegmentedSort for many), and the first k of each
 * row are gathered from the input. */
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include "dtype_dispatch.cuh"
#include "select_gpu.h"
#include "select_order.h"

namespace {

template <class T> struct OrderedOf {
    typedef std::conditional_t<sizeof(T) == 8, unsigned long long, uint32_t> U;
};

template <class T, class U>
__global__ void ordered_pairs_kernel(const T *keys, unsigned long long total, int dtype,
                                     bool largest, unsigned long long n, U *ordered,
                                     uint32_t *index) {
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < total; i += (unsigned long long)gridDim.x * blockDim.x) {
        ordered[i] = (U)pb_order_key((enum pb_dtype)dtype, keys, i, largest);
        index[i] = (uint32_t)(i % n);
    }
}

template <class T>
__global__ void first_k_kernel(const T *keys, unsigned long long n, unsigned long long k,
                               unsigned long long total, const uint32_t *sorted_index, T *out_keys,
                               uint32_t *out_index) {
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
         i < total; i += (unsigned long long)gridDim.x * blockDim.x) {
        unsigned long long row = i / k, j = i % k;
        uint32_t id = sorted_index[row * n + j];
        out_keys[i] = keys[row * n + id];
        if (out_index) out_index[i] = id;
    }
}

__global__ void offsets_kernel(unsigned long long n, unsigned batch, long long *offsets) {
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i <= batch;
         i += gridDim.x * blockDim.x)
        offsets[i] = (long long)(i * n);
}

size_t align_up(size_t x) { return (x + 255) & ~(size_t)255; }

struct Layout {
    size_t keys[2], index[2], offsets, temp, temp_bytes, total;
};

template <class U> cudaError_t plan(const pb_select_params *p, Layout *l) {
    const size_t items = (size_t)p->n * p->batch;
    size_t at = 0;
    for (int i = 0; i < 2; i++) {
        l->keys[i] = at, at = align_up(at + items * sizeof(U));
        l->index[i] = at, at = align_up(at + items * 4);
    }
    l->offsets = at, at = align_up(at + ((size_t)p->batch + 1) * sizeof(long long));
    cudaError_t e;
    l->temp_bytes = 0;
    if (p->batch == 1)
        e = cub::DeviceRadixSort::SortPairs(nullptr, l->temp_bytes, (const U *)nullptr,
                                            (U *)nullptr, (const uint32_t *)nullptr,
                                            (uint32_t *)nullptr, (int64_t)items);
    else
        e = cub::DeviceSegmentedSort::SortPairs(
            nullptr, l->temp_bytes, (const U *)nullptr, (U *)nullptr, (const uint32_t *)nullptr,
            (uint32_t *)nullptr, (int64_t)items, (int64_t)p->batch, (const long long *)nullptr,
            (const long long *)nullptr);
    l->temp = at, at = align_up(at + l->temp_bytes);
    l->total = at;
    return e;
}

template <class T>
cudaError_t launch(const pb_select_params *p, const T *keys, T *out_keys, uint32_t *out_index,
                   char *scratch, size_t scratch_bytes, cudaStream_t stream) {
    typedef typename OrderedOf<T>::U U;
    Layout l;
    cudaError_t e = plan<U>(p, &l);
    if (e != cudaSuccess) return e;
    if (scratch_bytes < l.total) return cudaErrorInvalidValue;
    int device = 0, sms = 0;
    if ((e = cudaGetDevice(&device)) != cudaSuccess ||
        (e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device)) != cudaSuccess)
        return e;
    const unsigned long long items = p->n * p->batch, picked = p->k * p->batch;
    U *ordered[2] = {(U *)(scratch + l.keys[0]), (U *)(scratch + l.keys[1])};
    uint32_t *index[2] = {(uint32_t *)(scratch + l.index[0]), (uint32_t *)(scratch + l.index[1])};
    const unsigned grid = (unsigned)sms * 16;
    ordered_pairs_kernel<T, U><<<grid, 256, 0, stream>>>(keys, items, p->dtype, p->largest != 0,
                                                         p->n, ordered[0], index[0]);
    size_t temp = l.temp_bytes;
    if (p->batch == 1) {
        e = cub::DeviceRadixSort::SortPairs(scratch + l.temp, temp, ordered[0], ordered[1],
                                            index[0], index[1], (int64_t)items, 0,
                                            (int)(8 * sizeof(T)), stream);
    } else {
        long long *offsets = (long long *)(scratch + l.offsets);
        offsets_kernel<<<(p->batch + 256) / 256, 256, 0, stream>>>(p->n, p->batch, offsets);
        e = cub::DeviceSegmentedSort::SortPairs(scratch + l.temp, temp, ordered[0], ordered[1],
                                                index[0], index[1], (int64_t)items,
                                                (int64_t)p->batch, offsets, offsets + 1, stream);
    }
    if (e != cudaSuccess) return e;
    first_k_kernel<T>
        <<<grid, 256, 0, stream>>>(keys, p->n, p->k, picked, index[1], out_keys, out_index);
    return cudaGetLastError();
}

template <class F> int with_key_type(int dtype, F &&f) {
    return pb::with_dtype<uint8_t, uint16_t, uint32_t, uint64_t, int8_t, int16_t, int32_t, int64_t,
                          float, double>(dtype, f);
}

} // namespace

extern "C" int pb_select_cub_scratch_bytes(const struct pb_select_params *p, size_t *bytes) {
    return with_key_type(p->dtype, [&](auto key) -> int {
        Layout l;
        cudaError_t e = plan<typename OrderedOf<decltype(key)>::U>(p, &l);
        *bytes = l.total;
        return e;
    });
}

extern "C" int pb_select_cub_launch(const struct pb_select_params *p, const void *keys,
                                    void *out_keys, uint32_t *out_index, void *scratch,
                                    size_t scratch_bytes, cudaStream_t stream) {
    return with_key_type(p->dtype, [&](auto key) -> int {
        typedef decltype(key) T;
        return launch<T>(p, (const T *)keys, (T *)out_keys, out_index, (char *)scratch,
                         scratch_bytes, stream);
    });
}
