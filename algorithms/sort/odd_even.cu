/* sort/odd-even: the seed's odd-even transposition sort, one block per segment. The
 * segment's items sit in shared memory; phase by phase, the even pairs (0,1), (2,3), ...
 * and then the odd pairs (1,2), (3,4), ... are put in order, a barrier after each phase,
 * for as many phases as the segment has keys. Unlike the seed's code: every key is
 * loaded (odd lengths too), there are enough phases for odd lengths, items keep their
 * type, and every barrier is in uniform control flow. A block has ceil(L/2) threads up to
 * 1024; past that each thread takes several pairs. Also: the index fill for inputs. */
#include "sort_common.cuh"

namespace pb_sort {
namespace {

constexpr int MAX_THREADS = 1024;

template <class T, bool Pairs>
__global__ void transposition_kernel(const T *__restrict__ keys,
                                     const uint32_t *__restrict__ values, uint64_t n,
                                     uint64_t length, bool desc, T *__restrict__ out_keys,
                                     uint32_t *__restrict__ out_values) {
    using I = Items<T, Pairs>;
    using Item = typename I::Item;
    extern __shared__ __align__(16) unsigned char smem[];
    Item *s = reinterpret_cast<Item *>(smem);
    const uint64_t base = (uint64_t)blockIdx.x * length;
    const uint32_t len = segment_length(blockIdx.x, n, length);
    for (uint32_t i = threadIdx.x; i < len; i += blockDim.x) {
        Item it = I::make(keys[base + i], desc);
        if (Pairs) I::set_value(it, values[base + i]);
        s[i] = it;
    }
    __syncthreads();
    for (uint32_t phase = 0; phase < len; phase++) {
        for (uint32_t pair = threadIdx.x; 2 * pair + 1 < len; pair += blockDim.x) {
            uint32_t first = 2 * pair + (phase & 1);
            if (first + 1 < len) {
                Item a = s[first], b = s[first + 1];
                I::order(a, b);
                s[first] = a;
                s[first + 1] = b;
            }
        }
        __syncthreads();
    }
    for (uint32_t i = threadIdx.x; i < len; i += blockDim.x) {
        out_keys[base + i] = I::key(s[i], desc);
        if (Pairs) out_values[base + i] = I::value(s[i]);
    }
}

template <class T, bool Pairs> cudaError_t launch_for(const pb_sort_args *a, cudaStream_t st) {
    auto kernel = transposition_kernel<T, Pairs>;
    size_t smem = a->length * sizeof(typename Items<T, Pairs>::Item);
    cudaError_t e =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e != cudaSuccess) return e;
    uint64_t pairs = (a->length + 1) / 2;
    int threads = (int)(pairs < MAX_THREADS ? pairs : MAX_THREADS);
    kernel<<<(unsigned)a->count, threads, smem, st>>>((const T *)a->keys, a->values, a->n,
                                                      a->length, a->descending, (T *)a->out_keys,
                                                      a->out_values);
    return cudaGetLastError();
}

__global__ void fill_index_kernel(uint32_t *v, uint64_t n) {
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x)
        v[i] = (uint32_t)i;
}

} // namespace
} // namespace pb_sort

extern "C" int pb_sort_odd_even_plan(const pb_sort_args *a, size_t *scratch_bytes) {
    *scratch_bytes = 0;
    return (int)(a->length <= PB_SORT_MAX_NETWORK ? cudaSuccess : cudaErrorInvalidValue);
}

extern "C" int pb_sort_odd_even_launch(const pb_sort_args *a, cudaStream_t stream) {
    const bool pairs = a->values != nullptr;
    return pb::with_dtype<uint32_t, int32_t, float, uint64_t, double>(a->dtype, [&](auto t) {
        using T = decltype(t);
        return (int)(pairs ? pb_sort::launch_for<T, true>(a, stream)
                           : pb_sort::launch_for<T, false>(a, stream));
    });
}

extern "C" int pb_sort_fill_index(uint32_t *d_values, uint64_t n, cudaStream_t stream) {
    pb_sort::fill_index_kernel<<<1024, 256, 0, stream>>>(d_values, n);
    return (int)cudaGetLastError();
}
