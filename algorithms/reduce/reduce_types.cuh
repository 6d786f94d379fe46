/* Key-type and op dispatch shared by the reduction's CUDA files. */
#pragma once

#include <cuda/std/limits>
#include <cuda/std/type_traits>
#include <stdint.h>

#include "dtype_dispatch.cuh"
#include "reduce.h"

namespace pb_reduce {

/* The type a sum accumulates in: 64-bit for integers (no overflow below 2^32 keys of
 * 32 bits), the key type itself for floats. */
template <class T>
using sum_t = cuda::std::conditional_t<
    cuda::std::is_floating_point_v<T>, T,
    cuda::std::conditional_t<cuda::std::is_signed_v<T>, int64_t, uint64_t>>;

/* Calls f(T{}) with the C++ type of a dtype the reduction takes. */
template <class F> int with_key_type(enum pb_dtype t, F &&f) {
    return pb::with_dtype<uint32_t, int32_t, uint64_t, int64_t, float, double>(t, f);
}

} // namespace pb_reduce
