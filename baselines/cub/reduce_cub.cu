/* reduce/cub: the same reductions through CUB's DeviceReduce, the library users reach
 * for. Sums accumulate in the same types as reduce/butterfly (sum_t), so both move the
 * same bytes and return the same answers. */
#include <cub/device/device_reduce.cuh>

#include "reduce_types.cuh"

namespace {

/* One call shape for both phases: with d_temp == NULL CUB only sizes its scratch. */
template <class T>
cudaError_t cub_reduce(enum pb_reduce_op op, const T *in, int64_t n, void *d_temp,
                       size_t &temp_bytes, void *result, cudaStream_t stream) {
    using Sum = pb_reduce::sum_t<T>;
    T *value = static_cast<T *>(result);
    switch (op) {
    case PB_REDUCE_SUM:
        return cub::DeviceReduce::Sum(d_temp, temp_bytes, in, static_cast<Sum *>(result), n,
                                      stream);
    case PB_REDUCE_MIN:
        return cub::DeviceReduce::Min(d_temp, temp_bytes, in, value, n, stream);
    case PB_REDUCE_MAX:
        return cub::DeviceReduce::Max(d_temp, temp_bytes, in, value, n, stream);
    case PB_REDUCE_ARGMIN: {
        int64_t *index = reinterpret_cast<int64_t *>(static_cast<char *>(result) + 8);
        return cub::DeviceReduce::ArgMin(d_temp, temp_bytes, in, value, index, n, stream);
    }
    }
    return cudaErrorInvalidValue;
}

} // namespace

extern "C" int pb_reduce_cub_plan(enum pb_reduce_op op, enum pb_dtype t, uint64_t n,
                                  struct pb_reduce_gpu_plan *plan) {
    return pb_reduce::with_key_type(t, [&](auto key) {
        using T = decltype(key);
        size_t bytes = 0;
        cudaError_t err = cub_reduce<T>(op, nullptr, (int64_t)n, nullptr, bytes, nullptr, 0);
        plan->grid = 0; /* CUB picks its own */
        plan->scratch_bytes = bytes;
        return (int)err;
    });
}

extern "C" int pb_reduce_cub_launch(enum pb_reduce_op op, enum pb_dtype t, const void *d_in,
                                    uint64_t n, const struct pb_reduce_gpu_plan *plan,
                                    void *d_scratch, void *d_result, cudaStream_t stream) {
    return pb_reduce::with_key_type(t, [&](auto key) {
        using T = decltype(key);
        size_t bytes = plan->scratch_bytes;
        return (int)cub_reduce<T>(op, static_cast<const T *>(d_in), (int64_t)n, d_scratch, bytes,
                                  d_result, stream);
    });
}
