/* Every key's bin as a 32-bit id, one thread a key in a grid-stride loop: the first step
 * of the cub-sort baseline, and of multisplit/auto where the bin is costly to find
 * (backend_auto.c). With index, each key's input position too. */
#include "multisplit_common.cuh"

namespace pb_ms {
namespace {

template <class T>
__global__ void bin_ids_kernel(const T *__restrict__ keys, uint64_t n, pb_bucket bucket,
                               uint32_t *__restrict__ bins, uint32_t *__restrict__ index) {
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        bins[i] = bin_of(bucket, keys[i]);
        if (index) index[i] = (uint32_t)i;
    }
}

} // namespace
} // namespace pb_ms

extern "C" int pb_multisplit_bin_ids(const struct pb_multisplit_args *a, uint32_t *bins,
                                     uint32_t *index, cudaStream_t stream) {
    return pb_ms::with_key_type(a->bucket.dtype, [&](auto key) {
        using T = decltype(key);
        pb_ms::bin_ids_kernel<<<4 * pb_ms::device_sms(), 256, 0, stream>>>(
            static_cast<const T *>(a->keys), a->n, a->bucket, bins, index);
        return (int)cudaGetLastError();
    });
}
