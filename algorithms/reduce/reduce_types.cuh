/* Key-type and op dispatch shared by the reduction's CUDA files. */
#pragma once

#include <cuda/std/limits>
#include <cuda/std/type_traits>
#include <stdint.h>

#include "reduce.h"

namespace pb_reduce {

/* The type a sum accumulates in: 64-bit for integers (no overflow below 2^32 keys of
 * 32 bits), the key type itself for floats. */
template <class T>
using sum_t = cuda::std::conditional_t<
    cuda::std::is_floating_point_v<T>, T,
    cuda::std::conditional_t<cuda::std::is_signed_v<T>, int64_t, uint64_t>>;

/* Calls f(T{}) with the C++ type of a dtype; returns cudaErrorInvalidValue for a
 * dtype the reduction does not take. */
template <class F> int with_key_type(enum pb_dtype t, F &&f) {
    switch (t) {
    case PB_U32:
        return f(uint32_t{});
    case PB_I32:
        return f(int32_t{});
    case PB_U64:
        return f(uint64_t{});
    case PB_I64:
        return f(int64_t{});
    case PB_F32:
        return f(float{});
    case PB_F64:
        return f(double{});
    default:
        return (int)cudaErrorInvalidValue;
    }
}

} // namespace pb_reduce
