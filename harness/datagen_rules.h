/* The per-element rule of input generation, shared by the CPU (datagen.c) and the GPU
 * (datagen_gpu.cu). Element i is a pure function of (rule, i), where the rule holds
 * constants precomputed once per spec on the host by pb_gen_prepare.
 *
 * CPU and GPU must agree bit for bit, so the rule uses only integer operations, IEEE
 * conversions and single double multiplies whose result feeds no addition (there is no
 * a * b + c anywhere, so FMA contraction cannot change a result on either side), and no
 * libm call: log, exp and friends differ between the two. floor is exact everywhere.
 *
 * Hashing: a splitmix64 counter. key = mix(seed + mix(stream + golden)) is a bijection
 * of seed for a fixed stream and of stream for a fixed seed, so changing either changes
 * every element's hashes. Hash lane L (0 or 1) of element i is mix(key + (2i + L + 1) *
 * golden): splitmix64's own output sequence, walked two steps per element.
 *
 * Integers (value bits are two's complement, truncated to the type's width on store;
 * lo..hi is the type's range, span = hi - lo):
 *   uniform      lo + (h0 >> (64 - bits)): every value of the type equally likely.
 *   normal       S = the sum of the eight 16-bit chunks of h0 and h1 (Irwin-Hall,
 *                mean 262140, sd 65536 * sqrt(2/3)); t = (S - 262140) * scale, with
 *                scale = sd / sd(S) and sd = span / 8; value = lo + mid + floor(t)
 *                with mid = ceil(span / 2), clamped into [lo, hi]. span is odd for every
 *                type and floor(t) is symmetric about -1/2, so the mean is lo + span / 2.
 *   binomial     as normal with sd = sqrt(span) / 2.
 *   zipf         K = the type's value bits (unsigned: bits, signed: bits - 1). Class
 *                k = floor((h0 >> 32) * K / 2^32), uniform on 0..K-1; rank = 1 when
 *                k = 0, else 2^k + (h1 >> (64 - k)), uniform on [2^k, 2^(k+1)). So
 *                P(rank) ~ 1 / (K * rank), and rank runs over 1..2^K - 1: the value
 *                is the rank itself, always within the type.
 *   sorted       lo + floor(i * step) with step = (span + 1) / n in double, clamped to hi.
 *   reverse      sorted(n - 1 - i).
 *   nearly-sorted  sorted(i), except when h0 % 100 == 0: sorted(j) with j =
 *                floor(h1 * n / 2^64), a uniformly random index.
 *   few-unique   base + floor(h0 * u / 2^64) with u = min(unique, span + 1) (0 taken as
 *                1): exactly u values, 0..u-1 when they fit below hi, else shifted down
 *                to end at hi (i8 with 200: -72..127). A multiply-high instead of a
 *                modulo: uniform all the same, and no 64-bit division per element.
 *   all-equal    42.
 *   skewed       lo + mid when h0 % 10 != 0 (90% of keys), else uniform from h1.
 *
 * Floats (f64 computed in double; f32 is the double result rounded to float):
 *   uniform      (int64)(h0 >> (64 - m)) - 2^(m-1), times 2^-(m-1), with m = 53 (f64)
 *                or 24 (f32): exact, uniform on [-1, 1) in steps of 2^-(m-1).
 *   normal       t as for integers with sd = 1 (no mid, no floor).
 *   binomial     t with sd = sqrt(2) / 2: the integer rule with range [-1, 1).
 *   zipf         the rank, with K = 53 (f64) or 24 (f32) so every rank is exact.
 *   sorted       (i - (n - i)) * (1 / n) = 2i/n - 1, clamped into [-1, 1).
 *   reverse, nearly-sorted: as for integers.
 *   few-unique   floor(h0 * unique / 2^64) as a value (f32 collapses above 2^24 values).
 *   all-equal    42.0.
 *   skewed       0.25 when h0 % 10 != 0, else uniform from h1.
 */
#ifndef PB_DATAGEN_RULES_H
#define PB_DATAGEN_RULES_H

#include <math.h>
#include <stdint.h>

#include "datagen.h"

#ifdef __CUDACC__
#define PB_HOST_DEVICE __host__ __device__
#else
#define PB_HOST_DEVICE
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define PB_GOLDEN_GAMMA 0x9e3779b97f4a7c15ull
/* Irwin-Hall of eight 16-bit chunks: mean 8 * 65535 / 2. */
#define PB_CHUNK_SUM_MEAN 262140

/* Per-spec constants, made on the host once and passed by value to the kernel. */
struct pb_gen_rule {
    uint64_t key; /* hash key from seed and stream */
    uint64_t n;
    uint64_t lo;            /* ints: type minimum, two's complement */
    uint64_t span;          /* ints: max - min */
    uint64_t mid;           /* ints: ceil(span / 2), an offset from lo */
    uint64_t few_count;     /* few-unique: number of distinct values, >= 1 */
    uint64_t few_base;      /* few-unique ints: smallest value, two's complement */
    double spread_scale;    /* normal, binomial: sd / sd of the chunk sum */
    double below_mid_limit; /* ints normal: floor(t) <= -this clamps to lo */
    double above_mid_limit; /* ints normal: floor(t) >= this clamps to hi */
    double sorted_step;     /* ints: (span + 1) / n; floats: 1 / n */
    double sorted_limit;    /* ints: span + 1, as a double */
    double uniform_scale;   /* floats: 2^-(m-1) */
    int uniform_shift;      /* ints: 64 - bits; floats: 64 - m */
    int zipf_classes;       /* K */
    int dist;               /* enum pb_dist */
};

/* Fills *r from *s. Defined once (datagen.c) so that both sides use the same constants. */
void pb_gen_prepare(const struct pb_gen_spec *s, struct pb_gen_rule *r);

static inline PB_HOST_DEVICE uint64_t pb_mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline PB_HOST_DEVICE uint64_t pb_elem_hash(const struct pb_gen_rule *r, uint64_t i,
                                                   uint64_t lane) {
    return pb_mix64(r->key + (2 * i + lane + 1) * PB_GOLDEN_GAMMA);
}

/* floor(a * b / 2^64): maps a uniform hash onto [0, b) without a division. */
static inline PB_HOST_DEVICE uint64_t pb_mulhi64(uint64_t a, uint64_t b) {
#if defined(__CUDA_ARCH__)
    return __umul64hi(a, b);
#elif defined(__SIZEOF_INT128__)
    __extension__ typedef unsigned __int128 pb_u128;
    return (uint64_t)(((pb_u128)a * b) >> 64);
#else
    uint64_t a_lo = a & 0xffffffffu, a_hi = a >> 32, b_lo = b & 0xffffffffu, b_hi = b >> 32;
    uint64_t lo_lo = a_lo * b_lo, hi_lo = a_hi * b_lo, lo_hi = a_lo * b_hi;
    uint64_t cross = (lo_lo >> 32) + (hi_lo & 0xffffffffu) + lo_hi;
    return a_hi * b_hi + (hi_lo >> 32) + (cross >> 32);
#endif
}

/* The Irwin-Hall sum minus its mean: eight 16-bit chunks, added two lanes at a time. */
static inline PB_HOST_DEVICE int64_t pb_chunk_sum_centred(uint64_t h0, uint64_t h1) {
    const uint64_t lanes = 0x0000ffff0000ffffull;
    uint64_t s = (h0 & lanes) + ((h0 >> 16) & lanes) + (h1 & lanes) + ((h1 >> 16) & lanes);
    return (int64_t)((s & 0xffffffffu) + (s >> 32)) - PB_CHUNK_SUM_MEAN;
}

/* The normal deviate t = (S - mean) * scale: one rounding, the same on both sides. */
static inline PB_HOST_DEVICE double pb_spread(const struct pb_gen_rule *r, uint64_t i) {
    int64_t centred = pb_chunk_sum_centred(pb_elem_hash(r, i, 0), pb_elem_hash(r, i, 1));
    return (double)centred * r->spread_scale;
}

static inline PB_HOST_DEVICE uint64_t pb_zipf_rank(const struct pb_gen_rule *r, uint64_t i) {
    uint64_t cls = ((pb_elem_hash(r, i, 0) >> 32) * (uint64_t)r->zipf_classes) >> 32;
    if (cls == 0) {
        return 1;
    }
    return ((uint64_t)1 << cls) | (pb_elem_hash(r, i, 1) >> (64 - cls));
}

/* ---- integers: value bits, two's complement ------------------------------- */

static inline PB_HOST_DEVICE uint64_t pb_int_sorted(const struct pb_gen_rule *r, uint64_t i) {
    double x = (double)i * r->sorted_step;
    if (x >= r->sorted_limit) {
        return r->lo + r->span;
    }
    return r->lo + (uint64_t)x;
}

/* The type's whole range from a hash's top bits. */
static inline PB_HOST_DEVICE uint64_t pb_int_uniform(const struct pb_gen_rule *r, uint64_t h) {
    return r->lo + (h >> r->uniform_shift);
}

static inline PB_HOST_DEVICE uint64_t pb_int_value(const struct pb_gen_rule *r, uint64_t i) {
    switch (r->dist) {
    case PB_DIST_UNIFORM:
        return pb_int_uniform(r, pb_elem_hash(r, i, 0));
    case PB_DIST_NORMAL:
    case PB_DIST_BINOMIAL: {
        double from_mid = floor(pb_spread(r, i));
        /* Clamp before converting: out of int64 range, conversion differs by platform. */
        if (from_mid <= -r->below_mid_limit) {
            return r->lo;
        }
        if (from_mid >= r->above_mid_limit) {
            return r->lo + r->span;
        }
        return r->lo + r->mid + (uint64_t)(int64_t)from_mid;
    }
    case PB_DIST_ZIPF:
        return pb_zipf_rank(r, i);
    case PB_DIST_SORTED:
        return pb_int_sorted(r, i);
    case PB_DIST_REVERSE:
        return pb_int_sorted(r, r->n - 1 - i);
    case PB_DIST_NEARLY_SORTED:
        if (pb_elem_hash(r, i, 0) % 100 == 0) {
            return pb_int_sorted(r, pb_mulhi64(pb_elem_hash(r, i, 1), r->n));
        }
        return pb_int_sorted(r, i);
    case PB_DIST_FEW_UNIQUE:
        return r->few_base + pb_mulhi64(pb_elem_hash(r, i, 0), r->few_count);
    case PB_DIST_SKEWED:
        if (pb_elem_hash(r, i, 0) % 10 != 0) {
            return r->lo + r->mid;
        }
        return pb_int_uniform(r, pb_elem_hash(r, i, 1));
    case PB_DIST_SIGNED_ZEROS:
        if (pb_elem_hash(r, i, 0) % 8 == 0) {
            return 0;
        }
        return pb_int_uniform(r, pb_elem_hash(r, i, 1));
    default:
        return 42;
    }
}

/* ---- floats ---------------------------------------------------------------- */

static inline PB_HOST_DEVICE double pb_real_sorted(const struct pb_gen_rule *r, uint64_t i) {
    double x = (double)((int64_t)i - (int64_t)(r->n - i)) * r->sorted_step;
    if (x < -1.0) {
        return -1.0; /* n * fl(1 / n) may round just past 1 */
    }
    if (x >= 1.0) {
        return 0x1.fffffffffffffp-1;
    }
    return x;
}

/* [-1, 1) from a hash's top mantissa bits, exactly representable in the key type. */
static inline PB_HOST_DEVICE double pb_real_uniform(const struct pb_gen_rule *r, uint64_t h) {
    int64_t half = (int64_t)1 << (63 - r->uniform_shift);
    return (double)((int64_t)(h >> r->uniform_shift) - half) * r->uniform_scale;
}

static inline PB_HOST_DEVICE double pb_real_value(const struct pb_gen_rule *r, uint64_t i) {
    switch (r->dist) {
    case PB_DIST_UNIFORM:
        return pb_real_uniform(r, pb_elem_hash(r, i, 0));
    case PB_DIST_NORMAL:
    case PB_DIST_BINOMIAL:
        return pb_spread(r, i);
    case PB_DIST_ZIPF:
        return (double)pb_zipf_rank(r, i);
    case PB_DIST_SORTED:
        return pb_real_sorted(r, i);
    case PB_DIST_REVERSE:
        return pb_real_sorted(r, r->n - 1 - i);
    case PB_DIST_NEARLY_SORTED:
        if (pb_elem_hash(r, i, 0) % 100 == 0) {
            return pb_real_sorted(r, pb_mulhi64(pb_elem_hash(r, i, 1), r->n));
        }
        return pb_real_sorted(r, i);
    case PB_DIST_FEW_UNIQUE:
        return (double)pb_mulhi64(pb_elem_hash(r, i, 0), r->few_count);
    case PB_DIST_SKEWED:
        if (pb_elem_hash(r, i, 0) % 10 != 0) {
            return 0.25;
        }
        return pb_real_uniform(r, pb_elem_hash(r, i, 1));
    case PB_DIST_SIGNED_ZEROS: {
        uint64_t h = pb_elem_hash(r, i, 0);
        if (h % 8 == 0) {
            return h & 8 ? -0.0 : 0.0; /* bit 3: independent of h % 8 */
        }
        return pb_real_uniform(r, pb_elem_hash(r, i, 1));
    }
    default:
        return 42.0;
    }
}

static inline PB_HOST_DEVICE double pb_f64_value(const struct pb_gen_rule *r, uint64_t i) {
    return pb_real_value(r, i);
}

static inline PB_HOST_DEVICE float pb_f32_value(const struct pb_gen_rule *r, uint64_t i) {
    float f = (float)pb_real_value(r, i);
    /* Rounding a sorted value to float may reach 1.0f from just below it. */
    if (f >= 1.0f && (r->dist == PB_DIST_SORTED || r->dist == PB_DIST_REVERSE ||
                      r->dist == PB_DIST_NEARLY_SORTED)) {
        return 0x1.fffffep-1f;
    }
    return f;
}

#ifdef __cplusplus
}
#endif

#endif
