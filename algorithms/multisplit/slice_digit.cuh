/* The digit of a key in one pass of multisplit/auto: (bin >> shift) & mask, the whole bin
 * when there is one pass.
 *
 * The bin is computed twice per key (count, then scatter), so the common case gets its
 * own rule: range buckets over 32-bit integer keys, where the 64.64 fixed-point product of
 * bucket_rules.h reduces to two 32 x 32 -> 64 multiplies (pb_bucket_range32): the same
 * bin, exactly, in a third of the instructions. */
#pragma once

#include <type_traits>

#include "multisplit_common.cuh"

namespace pb_ms {

/* Any key type and bucket kind: the shared bucket function. */
struct GenericDigit {
    pb_bucket bucket;
    uint32_t shift, mask;

    static GenericDigit make(const pb_bucket &b, uint32_t shift, uint32_t mask) {
        return {b, shift, mask};
    }
    template <class T> __device__ __forceinline__ uint32_t operator()(T key) const {
        return (bin_of(bucket, key) >> shift) & mask;
    }
};

/* Range buckets, 32-bit integer keys: pb_bucket_range32 of bucket_rules.h, its factors
 * split into 32-bit words once. The bucket is built from the input's own minimum and
 * maximum, so the bin is below bins; the clamp only keeps a foreign key inside the shared
 * memory. */
struct Range32Digit {
    uint32_t lo, last_bin;
    uint32_t whole, frac_hi, frac_lo;
    uint32_t shift, mask;

    /* only for range buckets over u32 or i32 keys (has_range32_rule, kind == RANGE) */
    static Range32Digit make(const pb_bucket &b, uint32_t shift, uint32_t mask) {
        return {(uint32_t)b.min_bits,
                b.bins - 1,
                (uint32_t)b.scale_whole,
                (uint32_t)(b.scale_frac >> 32),
                (uint32_t)b.scale_frac,
                shift,
                mask};
    }
    template <class T> __device__ __forceinline__ uint32_t operator()(T key) const {
        const uint32_t bin = min(pb_range32((uint32_t)key - lo, whole, frac_hi, frac_lo), last_bin);
        return (bin >> shift) & mask;
    }
};

template <class T> constexpr bool has_range32_rule() {
    return std::is_integral<T>::value && sizeof(T) == 4;
}

/* Calls f(Digit{}) with the fastest rule type that is exact for key type T and bucket b;
 * Digit::make(b, shift, mask) then gives one pass's rule. */
template <class T, class F> auto with_digit_type(const pb_bucket &b, F &&f) {
    if constexpr (has_range32_rule<T>()) {
        if (b.kind == PB_BUCKET_RANGE) return f(Range32Digit{});
    }
    return f(GenericDigit{});
}

} // namespace pb_ms
