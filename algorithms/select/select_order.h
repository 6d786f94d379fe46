/* The order every select implementation shares: a key maps to an unsigned "ordered" value
 * whose unsigned order is the selection order. Signed integers flip their sign bit; floats
 * use the IEEE trick (negative: all bits flipped, positive: sign bit set), with every NaN
 * made the largest value, so NaN comes after every number (+inf included) and -0.0 before
 * +0.0. For order "max" the ordered value is complemented within the key's width, so
 * selecting the k smallest ordered values always answers the question. */
#ifndef PB_SELECT_ORDER_H
#define PB_SELECT_ORDER_H

#include <stdint.h>
#include <string.h>

#include "primbench.h"

#ifdef __CUDACC__
#define PB_SELECT_HD __host__ __device__ __forceinline__
#else
#define PB_SELECT_HD static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

PB_SELECT_HD uint32_t pb_order_f32(uint32_t bits) {
    if ((bits & 0x7fffffffu) > 0x7f800000u) return 0xffffffffu; /* NaN */
    return (bits & 0x80000000u) ? ~bits : bits | 0x80000000u;
}

PB_SELECT_HD uint64_t pb_order_f64(uint64_t bits) {
    if ((bits & 0x7fffffffffffffffull) > 0x7ff0000000000000ull) return ~0ull; /* NaN */
    return (bits & 0x8000000000000000ull) ? ~bits : bits | 0x8000000000000000ull;
}

/* All-ones in the key's width: the largest ordered value. */
PB_SELECT_HD uint64_t pb_order_max(int key_bytes) {
    return key_bytes == 8 ? ~0ull : ((1ull << (8 * key_bytes)) - 1);
}

/* Ordered value of element i of keys of dtype t; largest != 0 for order "max". */
PB_SELECT_HD uint64_t pb_order_key(enum pb_dtype t, const void *keys, uint64_t i, int largest) {
    uint64_t v;
    int bytes;
    switch (t) {
    case PB_U8:
        v = ((const uint8_t *)keys)[i];
        bytes = 1;
        break;
    case PB_U16:
        v = ((const uint16_t *)keys)[i];
        bytes = 2;
        break;
    case PB_U32:
        v = ((const uint32_t *)keys)[i];
        bytes = 4;
        break;
    case PB_U64:
        v = ((const uint64_t *)keys)[i];
        bytes = 8;
        break;
    case PB_I8:
        v = (uint8_t)(((const uint8_t *)keys)[i] ^ 0x80u);
        bytes = 1;
        break;
    case PB_I16:
        v = (uint16_t)(((const uint16_t *)keys)[i] ^ 0x8000u);
        bytes = 2;
        break;
    case PB_I32:
        v = ((const uint32_t *)keys)[i] ^ 0x80000000u;
        bytes = 4;
        break;
    case PB_I64:
        v = ((const uint64_t *)keys)[i] ^ 0x8000000000000000ull;
        bytes = 8;
        break;
    case PB_F32:
        v = pb_order_f32(((const uint32_t *)keys)[i]);
        bytes = 4;
        break;
    default:
        v = pb_order_f64(((const uint64_t *)keys)[i]);
        bytes = 8;
        break;
    }
    return largest ? v ^ pb_order_max(bytes) : v;
}

#ifdef __cplusplus
}
#endif

#endif
