/* Hand-made select inputs for the tests: special values of every type, and a row whose
 * strided sample misleads select/radix (so its fallback runs). */
#ifndef PB_TEST_SELECT_INPUTS_H
#define PB_TEST_SELECT_INPUTS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "datagen_rules.h"
#include "primbench.h"

/* Key i: one of the type's special values (extremes, zero, -1, and for floats -0.0,
 * +-inf, NaN of both signs, denormals) every third key, else random bits. */
static inline void fill_specials(enum pb_dtype t, uint64_t n, uint64_t seed, void *out) {
    size_t ks = pb_dtype_size(t);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t h = pb_mix64(seed * 0x9e3779b97f4a7c15ull + i + 1), bits = h;
        uint64_t pick = (h >> 59) % 10;
        if (i % 3 == 0) {
            if (t == PB_F32) {
                const uint32_t f[] = {0x7fc00000u, 0xffc00001u, 0x80000000u, 0x00000000u,
                                      0x7f800000u, 0xff800000u, 0x00000001u, 0x80000001u,
                                      0x7f7fffffu, 0xbf800000u};
                bits = f[pick];
            } else if (t == PB_F64) {
                const uint64_t f[] = {0x7ff8000000000000ull,
                                      0xfff8000000000001ull,
                                      0x8000000000000000ull,
                                      0ull,
                                      0x7ff0000000000000ull,
                                      0xfff0000000000000ull,
                                      1ull,
                                      0x8000000000000001ull,
                                      0x7fefffffffffffffull,
                                      0xbff0000000000000ull};
                bits = f[pick];
            } else {
                uint64_t top = 1ull << (8 * ks - 1); /* the sign bit */
                const uint64_t v[] = {0, ~0ull, top, top - 1, 1, 0, ~0ull, top, top - 1, 2};
                bits = v[pick]; /* unsigned: 0, max, mid; signed: 0, -1, min, max */
            }
        }
        memcpy((char *)out + i * ks, &bits, ks); /* little-endian: the low bytes */
    }
}

/* select/radix samples 1024 groups of 4 consecutive keys, evenly spread, when n > 4096 */
#define PB_TEST_SAMPLE_GROUPS 1024
#define PB_TEST_SAMPLE_GROUP  4

/* u32 keys whose select/radix sample sees only the largest key, while every other key is
 * smaller: with k = n / 2 the guess finds more than k keys before its interval, and the
 * whole-range fallback runs. */
static inline void fill_sample_trap(uint64_t n, uint32_t *out) {
    uint64_t stride = n / PB_TEST_SAMPLE_GROUPS;
    for (uint64_t i = 0; i < n; i++) out[i] = (uint32_t)(pb_mix64(i + 7) % 0xfffffff0u);
    for (uint64_t g = 0; g < PB_TEST_SAMPLE_GROUPS && n > 4096; g++)
        for (uint64_t j = 0; j < PB_TEST_SAMPLE_GROUP; j++) out[g * stride + j] = 0xffffffffu;
}

/* One heavy value (1000) everywhere the sample looks, and 200 smaller keys (0..199) just
 * past sampled groups: select/radix guesses the heavy value alone; with k < 200 that guess
 * has more than k keys before it and must restart, with k > 200 it holds and only k - 200
 * of the heavy value's copies are kept. */
static inline void fill_heavy_value_trap(uint64_t n, uint32_t *out) {
    uint64_t stride = n / PB_TEST_SAMPLE_GROUPS;
    for (uint64_t i = 0; i < n; i++) out[i] = 1000;
    for (uint64_t g = 0; g < 200 && n > 4096; g++) out[g * stride + 100] = (uint32_t)g;
}

#endif
