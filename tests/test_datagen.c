/* Input generation on the host: determinism, ranges and the shape of every distribution. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <omp.h>

#include "datagen.h"

static const uint64_t SEED = 12345;

static void *generate(enum pb_dtype t, enum pb_dist d, uint64_t n, uint64_t seed, uint64_t stream,
                      uint64_t unique) {
    void *buf = malloc(n ? n * pb_dtype_size(t) : 1);
    assert_non_null(buf);
    struct pb_gen_spec s = {
        .dtype = t, .dist = d, .n = n, .seed = seed, .stream = stream, .unique = unique};
    pb_generate_host(&s, buf);
    return buf;
}

/* Element i as a double; exact for every integer type up to 2^53. */
static double element_double(const void *buf, enum pb_dtype t, uint64_t i) {
    switch (t) {
    case PB_U8:
        return ((const uint8_t *)buf)[i];
    case PB_U16:
        return ((const uint16_t *)buf)[i];
    case PB_U32:
        return ((const uint32_t *)buf)[i];
    case PB_U64:
        return (double)((const uint64_t *)buf)[i];
    case PB_I8:
        return ((const int8_t *)buf)[i];
    case PB_I16:
        return ((const int16_t *)buf)[i];
    case PB_I32:
        return ((const int32_t *)buf)[i];
    case PB_I64:
        return (double)((const int64_t *)buf)[i];
    case PB_F32:
        return ((const float *)buf)[i];
    default:
        return ((const double *)buf)[i];
    }
}

/* Orders elements i and j exactly (64-bit integers do not fit a double): -1, 0 or 1. */
static int element_compare(const void *buf, enum pb_dtype t, uint64_t i, uint64_t j) {
    if (t == PB_U64) {
        uint64_t a = ((const uint64_t *)buf)[i], b = ((const uint64_t *)buf)[j];
        return (a > b) - (a < b);
    }
    if (t == PB_I64) {
        int64_t a = ((const int64_t *)buf)[i], b = ((const int64_t *)buf)[j];
        return (a > b) - (a < b);
    }
    double a = element_double(buf, t, i), b = element_double(buf, t, j);
    return (a > b) - (a < b);
}

static double type_min(enum pb_dtype t) {
    switch (t) {
    case PB_I8:
        return INT8_MIN;
    case PB_I16:
        return INT16_MIN;
    case PB_I32:
        return INT32_MIN;
    case PB_I64:
        return (double)INT64_MIN;
    case PB_F32:
    case PB_F64:
        return -1.0;
    default:
        return 0.0;
    }
}

static double type_max(enum pb_dtype t) {
    switch (t) {
    case PB_U8:
        return UINT8_MAX;
    case PB_U16:
        return UINT16_MAX;
    case PB_U32:
        return UINT32_MAX;
    case PB_U64:
        return (double)UINT64_MAX;
    case PB_I8:
        return INT8_MAX;
    case PB_I16:
        return INT16_MAX;
    case PB_I32:
        return INT32_MAX;
    case PB_I64:
        return (double)INT64_MAX;
    default:
        return 1.0;
    }
}

struct moments {
    double mean, sd;
};

/* Sums deviations from near, a guess at the mean: summing 2^20 values near 2^63 directly
 * would lose more to rounding than the tolerances allow. */
static struct moments moments_of(const void *buf, enum pb_dtype t, uint64_t n, double near) {
    double sum = 0, sum_sq = 0;
    for (uint64_t i = 0; i < n; i++) {
        sum += element_double(buf, t, i) - near;
    }
    double mean = near + sum / (double)n;
    for (uint64_t i = 0; i < n; i++) {
        double d = element_double(buf, t, i) - mean;
        sum_sq += d * d;
    }
    return (struct moments){mean, sqrt(sum_sq / (double)(n - 1))};
}

static int qsort_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Distinct values among n elements, compared by their bit patterns. */
static uint64_t count_distinct(const void *buf, enum pb_dtype t, uint64_t n) {
    size_t size = pb_dtype_size(t);
    uint64_t *keys = calloc(n, sizeof *keys);
    assert_non_null(keys);
    for (uint64_t i = 0; i < n; i++) {
        memcpy(&keys[i], (const char *)buf + i * size, size);
    }
    qsort(keys, n, sizeof *keys, qsort_u64);
    uint64_t distinct = n ? 1 : 0;
    for (uint64_t i = 1; i < n; i++) {
        distinct += keys[i] != keys[i - 1];
    }
    free(keys);
    return distinct;
}

static bool depends_on_hash(enum pb_dist d) {
    return d != PB_DIST_SORTED && d != PB_DIST_REVERSE && d != PB_DIST_ALL_EQUAL;
}

/* ---- names ------------------------------------------------------------------ */

static void test_dist_names_round_trip(void **state) {
    (void)state;
    for (int d = 0; d < PB_DIST_COUNT; d++) {
        enum pb_dist parsed = PB_DIST_COUNT;
        assert_non_null(pb_dist_names[d]);
        assert_int_equal(pb_dist_parse(pb_dist_names[d], &parsed), 0);
        assert_int_equal(parsed, d);
    }
    assert_null(pb_dist_names[PB_DIST_COUNT]);
    enum pb_dist parsed = PB_DIST_UNIFORM;
    assert_int_equal(pb_dist_parse("nearly_sorted", &parsed), -1);
    assert_int_equal(pb_dist_parse("", &parsed), -1);
    assert_int_equal(pb_dist_parse("Uniform", &parsed), -1);
    assert_int_equal(pb_dist_parse("few-unique", &parsed), 0);
    assert_int_equal(parsed, PB_DIST_FEW_UNIQUE);
}

/* ---- determinism ---------------------------------------------------------------- */

static void test_same_spec_same_bytes(void **state) {
    (void)state;
    const uint64_t n = 200003;
    for (int t = 0; t < PB_DTYPE_COUNT; t++) {
        for (int d = 0; d < PB_DIST_COUNT; d++) {
            void *a = generate(t, d, n, SEED, 7, 64);
            void *b = generate(t, d, n, SEED, 7, 64);
            assert_memory_equal(a, b, n * pb_dtype_size(t));
            free(a);
            free(b);
        }
    }
}

static void test_thread_count_does_not_matter(void **state) {
    (void)state;
    const uint64_t n = 300001;
    int threads = omp_get_max_threads();
    for (int t = 0; t < PB_DTYPE_COUNT; t++) {
        void *many = generate(t, PB_DIST_NORMAL, n, SEED, 3, 0);
        omp_set_num_threads(1);
        void *one = generate(t, PB_DIST_NORMAL, n, SEED, 3, 0);
        omp_set_num_threads(threads > 1 ? threads : 3);
        void *other = generate(t, PB_DIST_NORMAL, n, SEED, 3, 0);
        omp_set_num_threads(threads);
        assert_memory_equal(many, one, n * pb_dtype_size(t));
        assert_memory_equal(many, other, n * pb_dtype_size(t));
        free(many);
        free(one);
        free(other);
    }
}

static void test_seed_and_stream_change_output(void **state) {
    (void)state;
    const uint64_t n = 4096;
    for (int t = 0; t < PB_DTYPE_COUNT; t++) {
        for (int d = 0; d < PB_DIST_COUNT; d++) {
            if (!depends_on_hash(d)) {
                continue;
            }
            size_t bytes = n * pb_dtype_size(t);
            void *base = generate(t, d, n, SEED, 7, 64);
            void *other_seed = generate(t, d, n, SEED + 1, 7, 64);
            void *other_stream = generate(t, d, n, SEED, 8, 64);
            assert_memory_not_equal(base, other_seed, bytes);
            assert_memory_not_equal(base, other_stream, bytes);
            assert_memory_not_equal(other_seed, other_stream, bytes);
            free(base);
            free(other_seed);
            free(other_stream);
        }
    }
}

/* The documented hash: key = mix(seed + mix(stream + golden)), lane L of element i is
 * mix(key + (2i + L + 1) * golden), and u64 uniform is lane 0 itself. Computed here
 * independently, so that a change to the rule (and to every generated input) is caught. */
static uint64_t reference_mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void test_uniform_follows_documented_hash(void **state) {
    (void)state;
    const uint64_t golden = 0x9e3779b97f4a7c15ull, stream = 99, n = 1000;
    uint64_t *u64 = generate(PB_U64, PB_DIST_UNIFORM, n, SEED, stream, 0);
    uint32_t *u32 = generate(PB_U32, PB_DIST_UNIFORM, n, SEED, stream, 0);
    int8_t *i8 = generate(PB_I8, PB_DIST_UNIFORM, n, SEED, stream, 0);
    uint64_t key = reference_mix(SEED + reference_mix(stream + golden));
    for (uint64_t i = 0; i < n; i++) {
        uint64_t h0 = reference_mix(key + (2 * i + 1) * golden);
        assert_int_equal(u64[i], h0);
        assert_int_equal(u32[i], h0 >> 32);
        assert_int_equal(i8[i], (int)(h0 >> 56) - 128);
    }
    free(u64);
    free(u32);
    free(i8);
}

/* ---- ranges --------------------------------------------------------------------- */

static void test_every_type_and_distribution_in_range(void **state) {
    (void)state;
    const uint64_t n = 100003, unique = 37;
    for (int t = 0; t < PB_DTYPE_COUNT; t++) {
        bool is_float = pb_dtype_is_float(t);
        for (int d = 0; d < PB_DIST_COUNT; d++) {
            void *buf = generate(t, d, n, SEED, 1, unique);
            for (uint64_t i = 0; i < n; i++) {
                double v = element_double(buf, t, i);
                assert_true(isfinite(v));
                switch (d) {
                case PB_DIST_UNIFORM:
                case PB_DIST_SORTED:
                case PB_DIST_REVERSE:
                case PB_DIST_NEARLY_SORTED:
                    assert_true(v >= type_min(t));
                    assert_true(is_float ? v < 1.0 : v <= type_max(t));
                    break;
                case PB_DIST_NORMAL:
                case PB_DIST_BINOMIAL:
                    /* Irwin-Hall of 8 reaches at most sqrt(24) ~ 4.9 sd from the mean. */
                    if (is_float) {
                        assert_true(fabs(v) <= 4.9);
                    } else {
                        assert_true(v >= type_min(t) && v <= type_max(t));
                    }
                    break;
                case PB_DIST_ZIPF:
                    assert_true(v >= 1.0 && v == floor(v));
                    assert_true(v <= (t == PB_F32 ? 0x1p24 : t == PB_F64 ? 0x1p53 : type_max(t)));
                    break;
                case PB_DIST_FEW_UNIQUE:
                    assert_true(v >= 0.0 && v < (double)unique && v == floor(v));
                    break;
                case PB_DIST_SKEWED:
                case PB_DIST_SIGNED_ZEROS:
                    assert_true(v >= type_min(t));
                    assert_true(is_float ? v < 1.0 : v <= type_max(t));
                    break;
                default:
                    assert_true(v == 42.0);
                }
            }
            free(buf);
        }
    }
}

static void test_n_zero_and_one(void **state) {
    (void)state;
    for (int t = 0; t < PB_DTYPE_COUNT; t++) {
        for (int d = 0; d < PB_DIST_COUNT; d++) {
            struct pb_gen_spec empty = {.dtype = t, .dist = d, .n = 0, .seed = SEED, .unique = 4};
            pb_generate_host(&empty, NULL); /* must not touch out */

            void *one = generate(t, d, 1, SEED, 0, 4);
            double v = element_double(one, t, 0);
            if (d == PB_DIST_SORTED || d == PB_DIST_REVERSE) {
                assert_true(v == type_min(t)); /* the start of the range */
            } else if (d == PB_DIST_ALL_EQUAL) {
                assert_true(v == 42.0);
            } else if (d == PB_DIST_FEW_UNIQUE) {
                assert_true(v >= 0 && v < 4);
            }
            void *again = generate(t, d, 1, SEED, 0, 4);
            assert_memory_equal(one, again, pb_dtype_size(t));
            free(one);
            free(again);
        }
    }
}

/* ---- shapes ---------------------------------------------------------------------- */

/* Chi-square of counts in nbuckets equal buckets; 255 degrees of freedom have mean 255
 * and sd 22.6, so 370 (5 sd) fails only a broken generator. */
static double chi_square(const uint64_t *counts, int nbuckets, uint64_t n) {
    double expected = (double)n / nbuckets, chi = 0;
    for (int b = 0; b < nbuckets; b++) {
        double diff = (double)counts[b] - expected;
        chi += diff * diff / expected;
    }
    return chi;
}

static void test_uniform_shape(void **state) {
    (void)state;
    const uint64_t n = 1 << 20;
    for (int t = 0; t < PB_DTYPE_COUNT; t++) {
        void *buf = generate(t, PB_DIST_UNIFORM, n, SEED, 0, 0);
        double lo = type_min(t), hi = pb_dtype_is_float(t) ? 1.0 : type_max(t) + 1.0;
        uint64_t counts[256] = {0};
        for (uint64_t i = 0; i < n; i++) {
            double where = (element_double(buf, t, i) - lo) / (hi - lo);
            int b = (int)(where * 256);
            counts[b < 256 ? b : 255]++;
        }
        assert_true(chi_square(counts, 256, n) < 370.0);
        double centre = (lo + hi - (pb_dtype_is_float(t) ? 0 : 1)) / 2;
        struct moments m = moments_of(buf, t, n, centre);
        /* sd of the mean of n uniforms: range / sqrt(12 n); allow 5 of them. */
        assert_true(fabs(m.mean - centre) < 5 * (hi - lo) / sqrt(12.0 * n));
        assert_true(fabs(m.sd / ((hi - lo) / sqrt(12.0)) - 1.0) < 0.01);
        free(buf);
    }
}

static void test_normal_shape(void **state) {
    (void)state;
    const uint64_t n = 1 << 20;
    for (int t = 0; t < PB_DTYPE_COUNT; t++) {
        void *buf = generate(t, PB_DIST_NORMAL, n, SEED, 5, 0);
        bool is_float = pb_dtype_is_float(t);
        double span = type_max(t) - type_min(t);
        double centre = is_float ? 0.0 : type_min(t) + span / 2;
        double sd = is_float ? 1.0 : span / 8;
        struct moments m = moments_of(buf, t, n, centre);
        assert_true(fabs(m.mean - centre) < 5 * sd / sqrt((double)n) + 0.5);
        assert_true(fabs(m.sd / sd - 1.0) < 0.01);
        uint64_t within = 0;
        for (uint64_t i = 0; i < n; i++) {
            within += fabs(element_double(buf, t, i) - centre) < sd;
        }
        /* Irwin-Hall of 8 puts 67.6% within one sd (a true normal: 68.3%). */
        double fraction = (double)within / n;
        if (t != PB_U8 && t != PB_I8) { /* 8 bits: sd is 32 integer steps, too coarse */
            assert_true(fraction > 0.670 && fraction < 0.683);
        }
        free(buf);
    }
}

static void test_binomial_shape(void **state) {
    (void)state;
    const uint64_t n = 1 << 20;
    for (int t = 0; t < PB_DTYPE_COUNT; t++) {
        void *buf = generate(t, PB_DIST_BINOMIAL, n, SEED, 6, 0);
        bool is_float = pb_dtype_is_float(t);
        double span = is_float ? 2.0 : type_max(t) - type_min(t);
        double centre = is_float ? 0.0 : type_min(t) + span / 2;
        double sd = sqrt(span) / 2;
        struct moments m = moments_of(buf, t, n, centre);
        /* Integers add the rounding's variance of 1/12. */
        double expected_sd = is_float ? sd : sqrt(sd * sd + 1.0 / 12);
        assert_true(fabs(m.sd / expected_sd - 1.0) < 0.01);
        assert_true(fabs(m.mean - centre) < 5 * sd / sqrt((double)n) + 0.01);
        free(buf);
    }
    /* The named case: u32 spreads by sqrt(2^32 - 1) / 2, about 32768. */
    uint32_t *u32 = generate(PB_U32, PB_DIST_BINOMIAL, n, SEED, 2, 0);
    struct moments m = moments_of(u32, PB_U32, n, 0x1p31);
    assert_true(m.sd > 32768 * 0.99 && m.sd < 32768 * 1.01);
    free(u32);
}

static void test_zipf_shape(void **state) {
    (void)state;
    const uint64_t n = 1 << 21;
    uint32_t *v = generate(PB_U32, PB_DIST_ZIPF, n, SEED, 4, 0);
    /* 32 bit-length classes of equal weight: rank 1 alone takes 1/32 of the elements, 2
     * and 3 share the next 1/32, and half the elements are below 2^16. */
    uint64_t ones = 0, twos = 0, threes = 0, below_2_16 = 0, top_class = 0, near_1000 = 0;
    for (uint64_t i = 0; i < n; i++) {
        near_1000 += v[i] >= 1000 && v[i] < 1010;
        ones += v[i] == 1;
        twos += v[i] == 2;
        threes += v[i] == 3;
        below_2_16 += v[i] < (1u << 16);
        top_class += v[i] >= (1u << 31);
    }
    double class_share = (double)n / 32;
    assert_true(fabs(ones / class_share - 1.0) < 0.03);
    assert_true(fabs((twos + threes) / class_share - 1.0) < 0.03);
    assert_true(fabs((double)twos / threes - 1.0) < 0.06);
    assert_true(fabs((double)below_2_16 / n - 0.5) < 0.005);
    assert_true(fabs(top_class / class_share - 1.0) < 0.03);
    /* P ~ 1/rank within a factor of 2: ranks 1000..1009 (class [512, 1024)) each come
     * 512 times less often than rank 1, so the ten together 51.2 times less. */
    assert_true(near_1000 > 0);
    double head_ratio = (double)ones / near_1000;
    assert_true(head_ratio > 45 && head_ratio < 58);
    free(v);

    for (int t = 0; t < PB_DTYPE_COUNT; t++) {
        void *buf = generate(t, PB_DIST_ZIPF, n, SEED, 4, 0);
        uint64_t rank_one = 0;
        for (uint64_t i = 0; i < n; i++) {
            rank_one += element_double(buf, t, i) == 1.0;
        }
        int classes = t == PB_F32   ? 24
                      : t == PB_F64 ? 53
                                    : (int)pb_dtype_size(t) * 8 - (pb_dtype_is_signed(t) ? 1 : 0);
        assert_true(fabs((double)rank_one * classes / n - 1.0) < 0.05);
        free(buf);
    }
}

static void test_sorted_and_reverse(void **state) {
    (void)state;
    const uint64_t n = 100003;
    for (int t = 0; t < PB_DTYPE_COUNT; t++) {
        void *up = generate(t, PB_DIST_SORTED, n, SEED, 0, 0);
        void *down = generate(t, PB_DIST_REVERSE, n, SEED, 0, 0);
        for (uint64_t i = 1; i < n; i++) {
            assert_true(element_compare(up, t, i - 1, i) <= 0);
            assert_true(element_compare(down, t, i - 1, i) >= 0);
        }
        size_t size = pb_dtype_size(t);
        for (uint64_t i = 0; i < n; i++) {
            assert_memory_equal((char *)up + i * size, (char *)down + (n - 1 - i) * size, size);
        }
        /* Spread over the whole range: from its bottom to within one step of its top. */
        double lo = type_min(t), hi = type_max(t);
        assert_true(element_double(up, t, 0) == lo);
        assert_true(element_double(up, t, n - 1) >= hi - (hi - lo) / (double)n * 1.01 - 1.0);
        free(up);
        free(down);
    }
    /* Small types repeat each value about equally: u8 over 100003 elements. */
    uint8_t *u8 = generate(PB_U8, PB_DIST_SORTED, n, SEED, 0, 0);
    assert_int_equal(count_distinct(u8, PB_U8, n), 256);
    assert_int_equal(u8[n - 1], 255);
    free(u8);
}

static void test_nearly_sorted(void **state) {
    (void)state;
    const uint64_t n = 1 << 20;
    for (int t = 0; t < PB_DTYPE_COUNT; t++) {
        if (pb_dtype_size(t) < 4) {
            continue; /* a narrow type repeats values, and equal neighbours are no descent */
        }
        void *near = generate(t, PB_DIST_NEARLY_SORTED, n, SEED, 9, 0);
        void *sorted = generate(t, PB_DIST_SORTED, n, SEED, 9, 0);
        uint64_t descents = 0, replaced = 0;
        size_t size = pb_dtype_size(t);
        for (uint64_t i = 0; i < n; i++) {
            descents += i > 0 && element_compare(near, t, i - 1, i) > 0;
            replaced += memcmp((char *)near + i * size, (char *)sorted + i * size, size) != 0;
        }
        /* Each replaced element breaks order at one side of it: about 1% of each. */
        assert_true(fabs((double)replaced / n - 0.01) < 0.001);
        assert_true(fabs((double)descents / n - 0.01) < 0.001);
        free(near);
        free(sorted);
    }
}

static void test_few_unique(void **state) {
    (void)state;
    const uint64_t n = 1 << 20;
    for (int t = 0; t < PB_DTYPE_COUNT; t++) {
        void *buf = generate(t, PB_DIST_FEW_UNIQUE, n, SEED, 2, 100);
        assert_int_equal(count_distinct(buf, t, n), 100);
        for (uint64_t i = 0; i < n; i++) {
            double v = element_double(buf, t, i);
            assert_true(v >= 0 && v < 100 && v == floor(v));
        }
        free(buf);
    }
    /* More values than the type has: capped at the type's count. */
    uint8_t *u8 = generate(PB_U8, PB_DIST_FEW_UNIQUE, n, SEED, 2, 1000);
    assert_int_equal(count_distinct(u8, PB_U8, n), 256);
    free(u8);
    /* Values that would pass the maximum shift down to end at it: i8 with 200 is -72..127. */
    int8_t *i8 = generate(PB_I8, PB_DIST_FEW_UNIQUE, n, SEED, 2, 200);
    assert_int_equal(count_distinct(i8, PB_I8, n), 200);
    int lowest = 127, highest = -128;
    for (uint64_t i = 0; i < n; i++) {
        lowest = i8[i] < lowest ? i8[i] : lowest;
        highest = i8[i] > highest ? i8[i] : highest;
    }
    assert_int_equal(lowest, -72);
    assert_int_equal(highest, 127);
    free(i8);
    /* unique = 1 (and 0, taken as 1) is a constant array of zeros. */
    for (uint64_t unique = 0; unique <= 1; unique++) {
        uint32_t *u32 = generate(PB_U32, PB_DIST_FEW_UNIQUE, 1000, SEED, 2, unique);
        for (int i = 0; i < 1000; i++) {
            assert_int_equal(u32[i], 0);
        }
        free(u32);
    }
    /* Each value about equally often: chi-square over 100 values, 99 dof (5 sd: 169). */
    uint64_t counts[100] = {0};
    uint16_t *u16 = generate(PB_U16, PB_DIST_FEW_UNIQUE, n, SEED, 2, 100);
    for (uint64_t i = 0; i < n; i++) {
        counts[u16[i]]++;
    }
    assert_true(chi_square(counts, 100, n) < 169.0);
    free(u16);
}

static void test_all_equal(void **state) {
    (void)state;
    const uint64_t n = 70001;
    for (int t = 0; t < PB_DTYPE_COUNT; t++) {
        void *buf = generate(t, PB_DIST_ALL_EQUAL, n, SEED, 0, 0);
        for (uint64_t i = 0; i < n; i++) {
            assert_true(element_double(buf, t, i) == 42.0);
        }
        free(buf);
    }
}

/* 90% of keys on one value (the middle of the range), the rest spread over it. */
static void test_skewed(void **state) {
    (void)state;
    const uint64_t n = 100000;
    for (int t = 0; t < PB_DTYPE_COUNT; t++) {
        void *buf = generate(t, PB_DIST_SKEWED, n, SEED, 0, 0);
        double hot =
            pb_dtype_is_float(t) ? 0.25 : ceil(type_min(t) + (type_max(t) - type_min(t)) / 2);
        uint64_t on_hot = 0, above = 0;
        for (uint64_t i = 0; i < n; i++) {
            double v = element_double(buf, t, i);
            on_hot += fabs(v - hot) <= (pb_dtype_is_float(t) ? 0.0 : 0.5); /* exact for floats */
            above += v > hot;
        }
        /* binomial(100000, 0.9): sd 95, so +-1000 is over 10 sd */
        if (!(on_hot > 89000 && on_hot < 91000))
            fail_msg("%s: %llu keys on %g", pb_dtype_name(t), (unsigned long long)on_hot, hot);
        assert_true(above > 2000 && above < 8000); /* the uniform 10% falls on both sides */
        free(buf);
    }
}

/* 1 key in 8 is zero; float zeros take either sign about equally often; the rest spread
 * over the uniform range, on both sides of zero where the type has them. */
static void test_signed_zeros(void **state) {
    (void)state;
    const uint64_t n = 100000;
    for (int t = 0; t < PB_DTYPE_COUNT; t++) {
        void *buf = generate(t, PB_DIST_SIGNED_ZEROS, n, SEED, 0, 0);
        uint64_t zeros = 0, negative_zeros = 0, below = 0;
        for (uint64_t i = 0; i < n; i++) {
            double v = element_double(buf, t, i);
            zeros += v == 0.0;
            negative_zeros += v == 0.0 && signbit(v);
            below += v < 0.0;
        }
        /* binomial(100000, 1/8): sd 105; 8-bit types add 1/256 of uniform zeros (about 340) */
        if (!(zeros > 11800 && zeros < 13800))
            fail_msg("%s: %llu zeros of %llu", pb_dtype_name(t), (unsigned long long)zeros,
                     (unsigned long long)n);
        if (pb_dtype_is_float(t)) {
            assert_true(negative_zeros > zeros / 2 - 600 && negative_zeros < zeros / 2 + 600);
        } else {
            assert_int_equal(negative_zeros, 0);
        }
        if (pb_dtype_is_float(t) || pb_dtype_is_signed(t))
            assert_true(below > 40000 && below < 47500); /* half of the uniform 7/8 */
        else
            assert_int_equal(below, 0);
        free(buf);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_signed_zeros),
        cmocka_unit_test(test_skewed),
        cmocka_unit_test(test_dist_names_round_trip),
        cmocka_unit_test(test_same_spec_same_bytes),
        cmocka_unit_test(test_thread_count_does_not_matter),
        cmocka_unit_test(test_seed_and_stream_change_output),
        cmocka_unit_test(test_uniform_follows_documented_hash),
        cmocka_unit_test(test_every_type_and_distribution_in_range),
        cmocka_unit_test(test_n_zero_and_one),
        cmocka_unit_test(test_uniform_shape),
        cmocka_unit_test(test_normal_shape),
        cmocka_unit_test(test_binomial_shape),
        cmocka_unit_test(test_zipf_shape),
        cmocka_unit_test(test_sorted_and_reverse),
        cmocka_unit_test(test_nearly_sorted),
        cmocka_unit_test(test_few_unique),
        cmocka_unit_test(test_all_equal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
