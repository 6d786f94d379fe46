/* From a run-time dtype to a C++ key type, for the CUDA files: each primitive names the
 * types it takes, and the dispatch is written once. */
#pragma once

#include <cuda_runtime.h>
#include <stdint.h>

#include "primbench.h"

namespace pb {

template <class T> constexpr pb_dtype dtype_of();
template <> constexpr pb_dtype dtype_of<uint8_t>() { return PB_U8; }
template <> constexpr pb_dtype dtype_of<uint16_t>() { return PB_U16; }
template <> constexpr pb_dtype dtype_of<int8_t>() { return PB_I8; }
template <> constexpr pb_dtype dtype_of<int16_t>() { return PB_I16; }
template <> constexpr pb_dtype dtype_of<uint32_t>() { return PB_U32; }
template <> constexpr pb_dtype dtype_of<int32_t>() { return PB_I32; }
template <> constexpr pb_dtype dtype_of<uint64_t>() { return PB_U64; }
template <> constexpr pb_dtype dtype_of<int64_t>() { return PB_I64; }
template <> constexpr pb_dtype dtype_of<float>() { return PB_F32; }
template <> constexpr pb_dtype dtype_of<double>() { return PB_F64; }

/* Calls f(T{}) for the one T of Ts whose dtype is t; cudaErrorInvalidValue for a dtype
 * not in the list. */
template <class... Ts, class F> int with_dtype(int t, F &&f) {
    int result = (int)cudaErrorInvalidValue;
    (void)((t == (int)dtype_of<Ts>() ? (result = f(Ts{}), true) : false) || ...);
    return result;
}

} // namespace pb
