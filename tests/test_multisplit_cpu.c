/* The multisplit primitive on the CPU: bucket functions, the reference counting sort,
 * the CPU backend, and the verifier. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend_check.h"
#include "bucket_rules.h"
#include "case_builder.h"
#include "registry.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const struct pb_primitive *multisplit(void) {
    return pb_registry_find_primitive("multisplit");
}

static struct pb_bucket range_bucket(enum pb_dtype t, const void *keys, uint64_t n, uint32_t bins) {
    struct pb_key_range r;
    struct pb_bucket b;
    pb_key_range_of(t, keys, n, &r);
    pb_bucket_make(PB_BUCKET_RANGE, t, bins, &r, &b);
    return b;
}

/* Equal-width bins: with 0..999 over 10 bins, each bin takes exactly 100 keys, in order. */
static void range_bins_are_equal_width(void **state) {
    (void)state;
    uint32_t keys[1000];
    for (int i = 0; i < 1000; i++) keys[i] = 5000 + i;
    struct pb_bucket b = range_bucket(PB_U32, keys, 1000, 10);
    for (int i = 0; i < 1000; i++) assert_int_equal(pb_bucket_u32(&b, keys[i]), i / 100);
}

/* The range's ends: the minimum in bin 0, the maximum in the last bin, for every type,
 * including negative, full-range 64-bit, and float keys. */
static void range_ends(void **state) {
    (void)state;
    int32_t i32[] = {-2147483647 - 1, -5, 0, 2147483647};
    uint64_t u64[] = {0, 1ull << 63, UINT64_MAX};
    float f32[] = {-1.0f, 0.5f, 3.0f};
    for (uint32_t bins = 1; bins <= 65536; bins *= 7) {
        struct pb_bucket b = range_bucket(PB_I32, i32, 4, bins);
        assert_int_equal(pb_bucket_i32(&b, i32[0]), 0);
        assert_int_equal(pb_bucket_i32(&b, i32[3]), bins - 1 - (bins > 1 ? 0 : 0));
        assert_true(pb_bucket_i32(&b, -5) <= pb_bucket_i32(&b, 0));
        b = range_bucket(PB_U64, u64, 3, bins);
        assert_int_equal(pb_bucket_u64(&b, 0), 0);
        assert_int_equal(pb_bucket_u64(&b, UINT64_MAX), bins - 1);
        assert_int_equal(pb_bucket_u64(&b, 1ull << 63), bins / 2);
        b = range_bucket(PB_F32, f32, 3, bins);
        assert_int_equal(pb_bucket_f32(&b, -1.0f), 0);
        assert_int_equal(pb_bucket_f32(&b, 3.0f), bins - 1);
        assert_int_equal(pb_bucket_f32(&b, 0.5f), (uint32_t)(1.5 / 4.0 * bins));
    }
}

/* More bins than distinct values: each value its own bin, in order, none past the end. */
static void more_bins_than_values(void **state) {
    (void)state;
    uint32_t keys[] = {7, 8, 9, 10};
    struct pb_bucket b = range_bucket(PB_U32, keys, 4, 1000);
    uint32_t last = 0;
    for (int i = 0; i < 4; i++) {
        uint32_t bin = pb_bucket_u32(&b, keys[i]);
        assert_true(bin < 1000);
        assert_true(i == 0 || bin > last);
        last = bin;
    }
    assert_int_equal(pb_bucket_u32(&b, 7), 0);
    assert_int_equal(pb_bucket_u32(&b, 10), 750);
    /* all keys equal: everything in bin 0 */
    uint32_t same[] = {3, 3, 3};
    b = range_bucket(PB_U32, same, 3, 5);
    assert_int_equal(pb_bucket_u32(&b, 3), 0);
}

/* The kernels' two-multiply form of range buckets over 32-bit keys gives the general
 * 64.64 rule's bin for every key in [min, max]: both ends, the first key of a bin and the
 * last of the one before (where dropping a carry would show), and pseudo-random keys, over
 * ranges from one value to all 2^32, with fewer and more bins than values. */
static void range32_equals_the_general_rule(void **state) {
    (void)state;
    const uint32_t bins[] = {1, 2, 3, 40, 361, 4096, 12288, 65535, 65536};
    const uint64_t widths[] = {
        1, 2, 39, 40, 41, 1000, 65536, 65537, 1u << 20, 4000000000u, (1ull << 32) - 1, 1ull << 32};
    uint64_t state_bits = 0x9e3779b97f4a7c15ull;
    for (size_t w = 0; w < COUNT(widths); w++)
        for (size_t k = 0; k < COUNT(bins); k++)
            for (int signedness = 0; signedness < 2; signedness++) {
                const uint64_t width = widths[w]; /* max - min + 1 */
                const uint32_t lo = signedness ? (uint32_t)(-(int64_t)(width / 2))
                                               : (uint32_t)((1ull << 32) - width) / 3;
                uint32_t ends[2] = {lo, (uint32_t)(lo + width - 1)};
                struct pb_bucket b;
                if (signedness) {
                    int32_t ends_i32[2] = {(int32_t)ends[0], (int32_t)ends[1]};
                    b = range_bucket(PB_I32, ends_i32, 2, bins[k]);
                } else {
                    b = range_bucket(PB_U32, ends, 2, bins[k]);
                }
                for (int i = 0; i < 3000; i++) {
                    state_bits = state_bits * 6364136223846793005ull + 1442695040888963407ull;
                    const uint64_t r = state_bits >> 16;
                    /* bin j starts at d = ceil(j * width / bins) */
                    const uint64_t j = 1 + r % bins[k];
                    const uint64_t start = (j * width + bins[k] - 1) / bins[k];
                    uint64_t d64 = i < 2        ? i * (width - 1)
                                   : i % 3 == 0 ? r % width
                                   : i % 3 == 1 ? start
                                                : start - 1;
                    if (d64 >= width) d64 = width - 1;
                    const uint32_t d = (uint32_t)d64, key = lo + d;
                    const uint32_t general =
                        signedness ? pb_bucket_i32(&b, (int32_t)key) : pb_bucket_u32(&b, key);
                    assert_int_equal(pb_bucket_range32(&b, d), general);
                }
            }
}

static void modulo_uses_the_key_bits(void **state) {
    (void)state;
    struct pb_key_range unused = {0};
    struct pb_bucket b;
    pb_bucket_make(PB_BUCKET_MODULO, PB_I32, 100, &unused, &b);
    assert_int_equal(pb_bucket_i32(&b, 1234), 34);
    assert_int_equal(pb_bucket_i32(&b, -1), 4294967295u % 100);
    pb_bucket_make(PB_BUCKET_MODULO, PB_F32, 1000, &unused, &b);
    float one = 1.0f;
    uint32_t bits;
    memcpy(&bits, &one, 4);
    assert_int_equal(pb_bucket_f32(&b, 1.0f), bits % 1000);
}

/* Splitters are sample quantiles: a key's bin counts the splitters <= it, so equal keys
 * share a bin, bins are monotone in the key, and a sorted sample of 0..999 cut into 10 bins
 * puts splitter i at 100 * (i + 1). */
static void splitters_are_sample_quantiles(void **state) {
    (void)state;
    int32_t keys[1000];
    for (int i = 0; i < 1000; i++) keys[i] = (i * 7919) % 1000 - 500; /* a permutation */
    int32_t sample[1000];
    struct pb_key_range unused = {0};
    struct pb_bucket b;
    pb_bucket_make(PB_BUCKET_SPLITTERS, PB_I32, 10, &unused, &b);
    b.samples = pb_splitter_sample(PB_I32, keys, 1000, sample);
    b.sample = sample;
    assert_int_equal(b.samples, 1000);
    for (int i = 1; i < 1000; i++) assert_true(sample[i - 1] < sample[i]);
    assert_int_equal(pb_bucket_i32(&b, -500), 0);
    assert_int_equal(pb_bucket_i32(&b, -401), 0);
    assert_int_equal(pb_bucket_i32(&b, -400), 1); /* splitter 0 is sample[100] = -400 */
    assert_int_equal(pb_bucket_i32(&b, 399), 8);
    assert_int_equal(pb_bucket_i32(&b, 400), 9);
    assert_int_equal(pb_bucket_i32(&b, INT32_MIN), 0);
    assert_int_equal(pb_bucket_i32(&b, INT32_MAX), 9);
    uint32_t last = 0;
    for (int k = -600; k < 600; k++) {
        uint32_t bin = pb_bucket_i32(&b, k);
        assert_true(bin >= last && bin < 10);
        last = bin;
    }
    /* one bin: every key in it, whatever the sample */
    pb_bucket_make(PB_BUCKET_SPLITTERS, PB_I32, 1, &unused, &b);
    b.samples = 1000;
    b.sample = sample;
    assert_int_equal(pb_bucket_i32(&b, INT32_MAX), 0);
}

/* Keys of every type from 64 random bits; shape 0 uniform, 1 five values, 2 nine in ten
 * equal, 3 uniform with the type's extremes (and negative zero for floats) among them. */
static void fill_keys(enum pb_dtype t, int shape, void *keys, uint32_t n) {
    uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(shape + 1);
    for (uint32_t i = 0; i < n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t bits = x ^ (x >> 29);
        if (shape == 1) bits %= 5;
        if (shape == 2 && bits % 10 != 0) bits = 12345;
        int extreme = shape == 3 && i % 1000 < 3 ? (int)(i % 1000) : -1;
        switch (t) {
        case PB_U32:
            ((uint32_t *)keys)[i] = extreme == 0 ? 0 : extreme > 0 ? UINT32_MAX : (uint32_t)bits;
            break;
        case PB_I32:
            ((int32_t *)keys)[i] = extreme == 0  ? INT32_MIN
                                   : extreme > 0 ? INT32_MAX
                                                 : (int32_t)(uint32_t)bits;
            break;
        case PB_U64:
            ((uint64_t *)keys)[i] = extreme == 0 ? 0 : extreme > 0 ? UINT64_MAX : bits;
            break;
        default: {
            float f = shape == 1 || shape == 2
                          ? (float)bits
                          : (float)((double)(bits >> 11) / 9007199254740992.0 * 2e6 - 1e6);
            ((float *)keys)[i] = extreme == 0   ? -3.4e38f
                                 : extreme == 1 ? -0.0f
                                 : extreme == 2 ? 3.4e38f
                                                : f;
        }
        }
    }
}

/* A splitter bucket's cell index gives every key the bin the plain search gives, for
 * every key type, key shape and bin count; and on uniform keys it answers most keys
 * without a search (their cell holds no splitter), which is what it is for. */
static void splitter_cells_give_the_searched_bin(void **state) {
    (void)state;
    enum { N = 20000 };
    const enum pb_dtype types[] = {PB_U32, PB_I32, PB_U64, PB_F32};
    const uint32_t bin_counts[] = {1, 2, 7, 72, 1000, 5000, 65536};
    uint64_t *keys = malloc(N * sizeof *keys), *sample = malloc(N * sizeof *sample);
    assert_non_null(keys);
    assert_non_null(sample);
    for (size_t t = 0; t < COUNT(types); t++)
        for (int shape = 0; shape < 4; shape++) {
            fill_keys(types[t], shape, keys, N);
            struct pb_key_range r;
            pb_key_range_of(types[t], keys, N, &r);
            for (size_t k = 0; k < COUNT(bin_counts); k++) {
                struct pb_bucket plain, indexed;
                pb_bucket_make(PB_BUCKET_SPLITTERS, types[t], bin_counts[k], &r, &plain);
                plain.samples = pb_splitter_sample(types[t], keys, N, sample);
                plain.sample = sample;
                /* one cell (the knob's plain search), an odd count, the default */
                const uint32_t cells_per_bin[] = {0, 3, 6, 9, 12, PB_SPLITTER_CELLS_PER_BIN};
                for (size_t c = 0; c < COUNT(cells_per_bin); c++) {
                    const uint32_t per_bin = cells_per_bin[c];
                    indexed = plain;
                    uint32_t *other = pb_splitter_cells_new(&indexed, &r, per_bin);
                    assert_non_null(other);
                    assert_true(indexed.cells >= 1 && indexed.cells <= 16384);
                    if (per_bin == 0) assert_int_equal(indexed.cells, 1);
                    for (uint32_t i = 0; i < N; i++) {
                        uint32_t want = pb_bucket_at(&plain, keys, i),
                                 got = pb_bucket_at(&indexed, keys, i);
                        if (want != got)
                            fail_msg("type %zu shape %d bins %u cells %u key %u: bin %u, the "
                                     "search gives %u",
                                     t, shape, bin_counts[k], indexed.cells, i, got, want);
                    }
                    free(other);
                }
                indexed = plain;
                uint32_t *table = pb_splitter_cells_new(&indexed, &r, PB_SPLITTER_CELLS_PER_BIN);
                assert_non_null(table);
                assert_ptr_equal(indexed.cell_splitters, table);
                uint32_t fewest = bin_counts[k] < 16384 ? bin_counts[k] : 16384;
                assert_true(indexed.cells >= fewest && indexed.cells <= 16384);
                uint32_t answered = 0;
                for (uint32_t i = 0; i < N; i++) {
                    uint32_t cell =
                        types[t] == PB_U32   ? pb_splitter_cell_u32(&indexed, ((uint32_t *)keys)[i])
                        : types[t] == PB_I32 ? pb_splitter_cell_i32(&indexed, ((int32_t *)keys)[i])
                        : types[t] == PB_U64 ? pb_splitter_cell_u64(&indexed, keys[i])
                                             : pb_splitter_cell_f32(&indexed, ((float *)keys)[i]);
                    answered += table[cell] >> 16 == 0;
                }
                if (shape == 0 && bin_counts[k] <= 1000) assert_true(answered > N / 2);
                free(table);
            }
        }
    free(keys);
    free(sample);
}

static void set_case(struct pb_case *c, int64_t n, const char *dtype, const char *dist,
                     const char *values, const char *bucket, int64_t bins) {
    case_init(c, multisplit(), 5);
    case_set_int(c, "n", n);
    case_set_choice(c, "dtype", dtype);
    case_set_choice(c, "distribution", dist);
    case_set_choice(c, "values", values);
    case_set_choice(c, "bucket", bucket);
    case_set_int(c, "bins", bins);
}

/* The reference is a stable counting sort: checked by hand on a small input. */
static void reference_is_a_stable_counting_sort(void **state) {
    (void)state;
    uint32_t keys[] = {9, 1, 5, 1, 9, 0, 5};
    uint32_t values[] = {0, 1, 2, 3, 4, 5, 6};
    struct pb_multisplit_extra x = {.pairs = true, .host_values = values};
    pb_key_range_of(PB_U32, keys, 7, &x.range);
    struct pb_input in = {.n = 7, .dtype = PB_U32, .host = keys, .extra = &x};
    struct pb_case c;
    set_case(&c, 7, "u32", "uniform", "u32", "range", 3); /* bins of width 10/3: 0-3, 4-6, 7-9 */
    size_t bytes = multisplit()->output_bytes(&c);
    char *out = malloc(bytes);
    assert_int_equal(multisplit()->reference(&c, &in, out), 0);
    struct pb_multisplit_layout l;
    pb_multisplit_layout(7, 3, 4, true, &l);
    const uint32_t want_offsets[] = {0, 3, 5}, want_keys[] = {1, 1, 0, 5, 5, 9, 9},
                   want_values[] = {1, 3, 5, 2, 6, 0, 4};
    assert_memory_equal(out + l.offsets, want_offsets, sizeof want_offsets);
    assert_memory_equal(out + l.keys, want_keys, sizeof want_keys);
    assert_memory_equal(out + l.values, want_values, sizeof want_values);
    char why[256];
    char *wrong = malloc(bytes);
    memcpy(wrong, out, bytes);
    assert_int_equal(multisplit()->verify(&c, &in, out, wrong, why, sizeof why), 0);
    /* swapping two equal keys' values breaks stability, and the verifier says where */
    ((uint32_t *)(wrong + l.values))[0] = 3;
    ((uint32_t *)(wrong + l.values))[1] = 1;
    assert_int_equal(multisplit()->verify(&c, &in, out, wrong, why, sizeof why), 1);
    assert_non_null(strstr(why, "position 0"));
    free(out);
    free(wrong);
}

/* The CPU backend against the reference on the edge cases. */
static void cpu_backend_edge_cases(void **state) {
    (void)state;
    const struct {
        int64_t n;
        const char *dtype, *dist, *values, *bucket;
        int64_t bins;
    } cases[] = {
        {1, "u32", "uniform", "none", "range", 256},
        {1000, "u32", "uniform", "u32", "range", 1},
        {100, "u32", "uniform", "u32", "range", 65536},
        {10000, "i32", "all-equal", "u32", "range", 40},
        {10000, "f32", "skewed", "u32", "range", 361},
        {9999, "u64", "uniform", "u32", "modulo", 3000},
        {50001, "i32", "few-unique", "u32", "modulo", 100},
        {50001, "u32", "zipf", "none", "range", 12288},
        {70000, "f32", "normal", "u32", "modulo", 255},
        {70000, "u64", "sorted", "none", "range", 4096},
        {70001, "u32", "uniform", "u32", "splitters", 1000},
        {70001, "f32", "normal", "u32", "splitters", 65536},
        {3, "i32", "uniform", "none", "splitters", 7},
        {100000, "u64", "few-unique", "u32", "splitters", 300},
    };
    const struct pb_backend *cpu = pb_registry_find_backend("multisplit/cpu");
    for (size_t i = 0; i < COUNT(cases); i++) {
        struct pb_case c;
        set_case(&c, cases[i].n, cases[i].dtype, cases[i].dist, cases[i].values, cases[i].bucket,
                 cases[i].bins);
        char why[256] = "";
        if (check_backend(cpu, &c, why, sizeof why) != 0) fail_msg("case %zu: %s", i, why);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(range_bins_are_equal_width),
        cmocka_unit_test(range_ends),
        cmocka_unit_test(more_bins_than_values),
        cmocka_unit_test(range32_equals_the_general_rule),
        cmocka_unit_test(modulo_uses_the_key_bits),
        cmocka_unit_test(splitters_are_sample_quantiles),
        cmocka_unit_test(splitter_cells_give_the_searched_bin),
        cmocka_unit_test(reference_is_a_stable_counting_sort),
        cmocka_unit_test(cpu_backend_edge_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
