/* The bucket functions, shared by the CPU (reference, CPU backend) and the GPU kernels,
 * so that both put every key in the same bin.
 *
 * range, integer keys: bin = d * whole + mulhi64(d, frac) with d = x - min and
 *   whole + frac / 2^64 = bins / (max - min + 1) rounded up in 64.64 fixed point: exactly
 *   floor(d * bins / (max - min + 1)) for 32-bit keys, no division per key.
 * range, float keys: bin = (int)((x - min) * fscale) in double, fscale = bins / (max - min),
 *   clamped to bins - 1 (x = max). A subtraction then a multiply: nothing for FMA to fuse.
 * modulo: the key's bits as an unsigned integer, modulo bins.
 * splitters: the count of splitters <= x, by binary search; with a cell index
 *   (splitter_cells.c), first the range rule over `cells` equal-width cells of the keys'
 *   range, whose entry gives the bin outright when no splitter falls in the key's cell and
 *   otherwise bounds the search to that cell's few splitters. */
#ifndef PB_BUCKET_RULES_H
#define PB_BUCKET_RULES_H

#include <stdint.h>
#include <string.h>

#include "multisplit.h"

#ifdef __CUDACC__
#define PB_BUCKET_HD __host__ __device__ __forceinline__
#else
#define PB_BUCKET_HD static inline
#endif

PB_BUCKET_HD uint64_t pb_bucket_mulhi(uint64_t a, uint64_t b) {
#ifdef __CUDA_ARCH__
    return __umul64hi(a, b);
#else
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
#endif
}

/* The range rule over `count` equal-width bins (the bins, or a splitter bucket's cells),
 * for integer keys (two's complement bits) and float keys. */
PB_BUCKET_HD uint32_t pb_range_of_bits(const struct pb_bucket *b, uint64_t bits, uint32_t count) {
    uint64_t d = bits - b->min_bits;
    uint64_t bin = d * b->scale_whole + pb_bucket_mulhi(d, b->scale_frac);
    return bin < count ? (uint32_t)bin : count - 1; /* only 64-bit ranges can round past */
}
PB_BUCKET_HD uint32_t pb_range_of_real(const struct pb_bucket *b, double x, uint32_t count) {
    double t = (x - b->fmin) * b->fscale;
    uint32_t bin = t > 0 ? (uint32_t)t : 0;
    return bin < count ? bin : count - 1;
}

PB_BUCKET_HD uint32_t pb_bucket_of_bits(const struct pb_bucket *b, uint64_t bits) {
    if (b->kind == PB_BUCKET_MODULO) {
        return (uint32_t)(bits % b->bins);
    }
    return pb_range_of_bits(b, bits, b->bins);
}

/* Range buckets over 32-bit integer keys, the form the kernels evaluate: with the key in
 * the input's [min, max], d = x - min < 2^32, whole <= bins, and the 64.64 product above
 * reduces to two 32 x 32 -> 64 multiplies with the same result:
 * floor(d * frac / 2^64) = floor((d * frac_hi + floor(d * frac_lo / 2^32)) / 2^32), whose
 * inner sum fits 64 bits. */
PB_BUCKET_HD uint32_t pb_range32(uint32_t d, uint32_t whole, uint32_t frac_hi, uint32_t frac_lo) {
#ifdef __CUDA_ARCH__
    /* the same sum as a carry chain of 32-bit multiplies: nvcc widens loop-invariant
     * factors to 64 bits and multiplies in 64 (ten instructions a key, ncu) */
    const uint32_t low_hi = __umulhi(d, frac_lo);
    uint32_t high_hi;
    asm("{\n\t.reg .u32 l;\n\t"
        "mad.lo.cc.u32 l, %1, %2, %3;\n\t"
        "madc.hi.u32 %0, %1, %2, 0;\n\t}"
        : "=r"(high_hi)
        : "r"(d), "r"(frac_hi), "r"(low_hi));
    return d * whole + high_hi;
#else
    const uint32_t low_hi = (uint32_t)(((uint64_t)d * frac_lo) >> 32);
    const uint64_t high = (uint64_t)d * frac_hi + low_hi;
    return d * whole + (uint32_t)(high >> 32);
#endif
}
PB_BUCKET_HD uint32_t pb_bucket_range32(const struct pb_bucket *b, uint32_t d) {
    return pb_range32(d, (uint32_t)b->scale_whole, (uint32_t)(b->scale_frac >> 32),
                      (uint32_t)b->scale_frac);
}

PB_BUCKET_HD uint32_t pb_bucket_of_real(const struct pb_bucket *b, double x, uint64_t bits) {
    if (b->kind == PB_BUCKET_MODULO) {
        return (uint32_t)(bits % b->bins);
    }
    return pb_range_of_real(b, x, b->bins);
}

/* Where splitter i of `bins` bins lies in a sample of `samples` keys. */
PB_BUCKET_HD uint32_t pb_splitter_index(uint32_t i, uint32_t samples, uint32_t bins) {
    return (uint32_t)((i + 1u) * samples / bins);
}

/* Words a cell index's entries take: the compact splitters after them stay 8-byte aligned. */
PB_BUCKET_HD uint32_t pb_splitter_entry_words(uint32_t cells) { return cells + (cells & 1); }

/* A splitter bucket's cell of a key: any rule will do that never puts a larger key in a
 * lower cell, and the range rule over the input's [min, max] is one (both the cell index
 * and the keys come from the input). 32-bit integer keys take pb_range32's two 32-bit
 * multiplies. */
PB_BUCKET_HD uint32_t pb_splitter_cell32(const struct pb_bucket *b, uint32_t bits) {
    const uint32_t cell = pb_bucket_range32(b, bits - (uint32_t)b->min_bits);
    return cell < b->cells ? cell : b->cells - 1;
}

/* Per key type: the binary search for the count of splitters <= k over the whole sample
 * (the reference's rule, host only), the key's cell, and its bin in [0, bins - 1]. The
 * cell's entry holds the cell's first splitter (low 16 bits) and how many splitters it
 * holds (high 16 bits); the search over those runs on the compact splitters that follow
 * the entries (pb_splitter_cells_new), so a step is one load and one compare, inlined.
 * Kernels always have the index: the search over the sample, with a division a step, is
 * kept out of device code, which every non-range rule's kernels would carry (session 35:
 * as a call it cost modulo buckets 5.5% at 5000 bins; inlined, 9 to 14%). */
#ifdef __CUDA_ARCH__
#define PB_SPLITTER_WHOLE_SEARCH(NAME, T)
#else
#define PB_SPLITTER_WHOLE_SEARCH(NAME, T)                                                          \
    if (!b->cell_splitters)                                                                        \
        return pb_splitter_search_##NAME((const T *)b->sample, b->samples, b->bins, k);
#endif
#define PB_SPLITTER_RULE(NAME, T, CELL)                                                            \
    static inline uint32_t pb_splitter_search_##NAME(const T *sample, uint32_t samples,            \
                                                     uint32_t bins, T k) {                         \
        uint32_t lo = 0, hi = bins - 1;                                                            \
        while (lo < hi) {                                                                          \
            uint32_t mid = (lo + hi) / 2;                                                          \
            if (sample[pb_splitter_index(mid, samples, bins)] <= k)                                \
                lo = mid + 1;                                                                      \
            else                                                                                   \
                hi = mid;                                                                          \
        }                                                                                          \
        return lo;                                                                                 \
    }                                                                                              \
    PB_BUCKET_HD uint32_t pb_splitter_cell_##NAME(const struct pb_bucket *b, T k) { return CELL; } \
    PB_BUCKET_HD uint32_t pb_splitter_bin_##NAME(const struct pb_bucket *b, T k) {                 \
        PB_SPLITTER_WHOLE_SEARCH(NAME, T)                                                          \
        const uint32_t entry = b->cell_splitters[pb_splitter_cell_##NAME(b, k)];                   \
        const T *splitters = (const T *)(b->cell_splitters + pb_splitter_entry_words(b->cells));   \
        uint32_t first = entry & 0xffffu, count = entry >> 16;                                     \
        while (count) {                                                                            \
            const uint32_t half = count / 2;                                                       \
            if (splitters[first + half] <= k) {                                                    \
                first += half + 1;                                                                 \
                count -= half + 1;                                                                 \
            } else {                                                                               \
                count = half;                                                                      \
            }                                                                                      \
        }                                                                                          \
        return first;                                                                              \
    }
PB_SPLITTER_RULE(u32, uint32_t, pb_splitter_cell32(b, k))
PB_SPLITTER_RULE(i32, int32_t, pb_splitter_cell32(b, (uint32_t)k))
PB_SPLITTER_RULE(u64, uint64_t, pb_range_of_bits(b, k, b->cells))
PB_SPLITTER_RULE(f32, float, pb_range_of_real(b, (double)k, b->cells))

/* Key types as C++ templates on the GPU and as four functions on the CPU. */
PB_BUCKET_HD uint32_t pb_bucket_u32(const struct pb_bucket *b, uint32_t k) {
    if (b->kind == PB_BUCKET_SPLITTERS) return pb_splitter_bin_u32(b, k);
    return pb_bucket_of_bits(b, k);
}
PB_BUCKET_HD uint32_t pb_bucket_i32(const struct pb_bucket *b, int32_t k) {
    if (b->kind == PB_BUCKET_SPLITTERS) return pb_splitter_bin_i32(b, k);
    /* Sign-extended two's complement: x - min is the same modulo 2^64 as in integers. */
    return pb_bucket_of_bits(b, b->kind == PB_BUCKET_MODULO ? (uint64_t)(uint32_t)k
                                                            : (uint64_t)(int64_t)k);
}
PB_BUCKET_HD uint32_t pb_bucket_u64(const struct pb_bucket *b, uint64_t k) {
    if (b->kind == PB_BUCKET_SPLITTERS) return pb_splitter_bin_u64(b, k);
    return pb_bucket_of_bits(b, k);
}
PB_BUCKET_HD uint32_t pb_bucket_f32(const struct pb_bucket *b, float k) {
    if (b->kind == PB_BUCKET_SPLITTERS) return pb_splitter_bin_f32(b, k);
    uint32_t bits;
    memcpy(&bits, &k, 4);
    return pb_bucket_of_real(b, (double)k, bits);
}

#ifndef __CUDACC__
/* The bin of keys[i] on the host, for any key type. */
static inline uint32_t pb_bucket_at(const struct pb_bucket *b, const void *keys, uint64_t i) {
    switch (b->dtype) {
    case PB_U32:
        return pb_bucket_u32(b, ((const uint32_t *)keys)[i]);
    case PB_I32:
        return pb_bucket_i32(b, ((const int32_t *)keys)[i]);
    case PB_U64:
        return pb_bucket_u64(b, ((const uint64_t *)keys)[i]);
    default:
        return pb_bucket_f32(b, ((const float *)keys)[i]);
    }
}

/* The cell of key *k on the host, for any key type. */
static inline uint32_t pb_splitter_cell_of(const struct pb_bucket *b, const void *k) {
    switch (b->dtype) {
    case PB_U32:
        return pb_splitter_cell_u32(b, *(const uint32_t *)k);
    case PB_I32:
        return pb_splitter_cell_i32(b, *(const int32_t *)k);
    case PB_U64:
        return pb_splitter_cell_u64(b, *(const uint64_t *)k);
    default:
        return pb_splitter_cell_f32(b, *(const float *)k);
    }
}
#endif

#endif
