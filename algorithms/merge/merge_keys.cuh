/* Device-side key order shared by the GPU merge backends: the stable merge compares keys
 * by value (floats: -0.0 == +0.0, no NaNs); ties go to the lower list index, then to the
 * lower position. ordered_bits maps a key to an unsigned integer with the same order,
 * for searches over the value range. */
#pragma once

#include <stdint.h>

#include <type_traits>

#include "dtype_dispatch.cuh"

namespace pb::merge {

template <class T> struct bits_of;
template <> struct bits_of<uint32_t> { using type = uint32_t; };
template <> struct bits_of<int32_t> { using type = uint32_t; };
template <> struct bits_of<float> { using type = uint32_t; };
template <> struct bits_of<uint64_t> { using type = uint64_t; };
template <> struct bits_of<double> { using type = uint64_t; };

template <class T> using ordered_t = typename bits_of<T>::type;

__host__ __device__ inline uint32_t ordered_bits(uint32_t x) { return x; }
__host__ __device__ inline uint64_t ordered_bits(uint64_t x) { return x; }
__host__ __device__ inline uint32_t ordered_bits(int32_t x) { return (uint32_t)x ^ 0x80000000u; }
__host__ __device__ inline uint32_t ordered_bits(float x) {
    if (x == 0.0f) x = 0.0f; /* -0.0 sorts with +0.0 */
    uint32_t u;
    memcpy(&u, &x, 4);
    return (u & 0x80000000u) ? ~u : u | 0x80000000u;
}
__host__ __device__ inline uint64_t ordered_bits(double x) {
    if (x == 0.0) x = 0.0;
    uint64_t u;
    memcpy(&u, &x, 8);
    return (u >> 63) ? ~u : u | 0x8000000000000000ull;
}

/* The top bit of B: a float's sign, and -0.0's raw bits. */
template <class B> constexpr B kSignBit = (B)1 << (8 * sizeof(B) - 1);

/* ordered_bits undone (of -0.0 it gives +0.0, whose bits ordered_bits gives it). */
template <class K> __host__ __device__ inline K from_ordered_bits(ordered_t<K> u) {
    if constexpr (std::is_floating_point<K>::value) {
        using B = ordered_t<K>;
        const B raw = (u & kSignBit<B>) ? u ^ kSignBit<B> : ~u;
        K x;
        memcpy(&x, &raw, sizeof x);
        return x;
    } else {
        return std::is_signed<K>::value ? (K)(u ^ 0x80000000u) : (K)u;
    }
}

/* The key types the merge takes, for pb::with_dtype. */
#define PB_MERGE_KEY_TYPES uint32_t, int32_t, float, uint64_t, double

} // namespace pb::merge
