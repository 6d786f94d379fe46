/* Every GPU merge backend against the CPU heap merge: k = 1 and 2, all lists empty but
 * one, lists of size 1, all keys equal (stability, with values), duplicates across lists,
 * k past the SM count times the sublists per list, floats with zeros of both signs, keys
 * from a narrow range, unequal keys closer than the value split's sample windows, every
 * key type with and without values, and list sizes of every kind. Five times: merge/path
 * by pairwise rounds, by multiway passes, by radix sort, by the one-pass value split, then
 * by the grouped split (a multiway pass of groups of lists, then the value split over the
 * groups; both splits keys alone of every type, with values as by size) (PB_MERGE_MODE),
 * which it picks by size. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend_check.h"
#include "case_builder.h"
#include "gpu_skip.h"
#include "merge_inputs.h"
#include "registry.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* PB_TEST_SMALL (under compute-sanitizer): fewer and smaller cases, the same edges. */
static bool small;

static void check(int64_t k, int64_t n, const char *sizes, const char *dtype, const char *dist,
                  const char *values) {
    struct pb_case c;
    case_init(&c, pb_registry_find_primitive("merge"), 13);
    case_set_int(&c, "k", k);
    case_set_int(&c, "n", n);
    case_set_choice(&c, "sizes", sizes);
    case_set_choice(&c, "dtype", dtype);
    case_set_choice(&c, "distribution", dist);
    case_set_choice(&c, "values", values);
    char why[600] = "";
    if (check_all_backends(PB_TARGET_GPU, "merge", &c, why, sizeof why) != 0)
        fail_msg("k=%lld n=%lld sizes=%s %s %s values=%s: %s", (long long)k, (long long)n, sizes,
                 dtype, dist, values, why);
}

/* Every GPU backend on a hand-made input. */
static void check_input(enum pb_dtype t, const void *keys, const uint64_t *sizes, uint32_t k,
                        bool pairs, const char *what) {
    struct pb_case c;
    struct pb_input in;
    assert_int_equal(merge_input_from(&c, &in, t, keys, sizes, k, pairs, true), 0);
    char why[600] = "";
    if (check_all_backends_on_input(PB_TARGET_GPU, "merge", &c, &in, why, sizeof why) != 0)
        fail_msg("%s, k=%u pairs=%d: %s", what, k, pairs, why);
    merge_input_free(&in);
}

static void one_and_two_lists(void **state) {
    (void)state;
    const int64_t ns[] = {1, 2, 7, 4096, 100003, 1 << 20};
    for (size_t i = 0; i < (small ? 4 : COUNT(ns)); i++) {
        check(1, ns[i], "equal", "u32", "uniform", "u32");
        check(2, ns[i] + 1, "uniform", "u32", "uniform", "none");
        check(2, ns[i] + 1, "zipf", "f64", "normal", "u32");
    }
}

static void all_empty_but_one(void **state) {
    (void)state;
    const uint32_t ks[] = {2, 3, 64, 1000};
    const uint64_t lens[] = {1, 5, 5000};
    for (size_t a = 0; a < (small ? 3 : COUNT(ks)); a++)
        for (size_t b = 0; b < COUNT(lens); b++) {
            uint32_t k = ks[a];
            uint64_t *sizes = calloc(k, sizeof *sizes);
            uint32_t *keys = malloc(lens[b] * sizeof *keys);
            for (uint64_t i = 0; i < lens[b]; i++) keys[i] = (uint32_t)(i / 3);
            for (uint32_t which = 0; which < k; which += k / 2 ? k / 2 : 1) {
                memset(sizes, 0, k * sizeof *sizes);
                sizes[which] = lens[b];
                check_input(PB_U32, keys, sizes, k, true, "all lists empty but one");
                sizes[which] = 0;
                sizes[k - 1] = lens[b];
                check_input(PB_U32, keys, sizes, k, false, "only the last list has keys");
            }
            free(sizes);
            free(keys);
        }
}

static void lists_of_one(void **state) {
    (void)state;
    const int64_t ks[] = {3, 100, 1024, 5000, 70000};
    /* (small: many_lists has more lists than the SMs times the sublists) */
    for (size_t i = 0; i < (small ? 2 : COUNT(ks)); i++) {
        check(ks[i], ks[i], "equal", "u32", "uniform", "u32");
        check(ks[i], ks[i], "equal", "f64", "few-unique", "u32");
    }
}

/* Equal keys everywhere: only the tie order (list, then position) decides the output. */
static void equal_keys_and_duplicates(void **state) {
    (void)state;
    const int64_t ks[] = {2, 7, 64, 1000, 4096};
    for (size_t i = 0; i < (small ? 3 : COUNT(ks)); i++) {
        const int64_t n = small ? 20000 : 200000;
        check(ks[i], n, "uniform", "u32", "all-equal", "u32");
        check(ks[i], n, "uniform", "u32", "all-equal", "none");
        check(ks[i], n, "zipf", "i32", "few-unique", "u32");
        check(ks[i], n, "empty", "f32", "few-unique", "u32");
        check(ks[i], n - n / 4 + 1, "uniform", "u64", "skewed", "u32");
        /* a run of zeros an eighth of the input long, cut at tile edges, keys alone (the
         * value split's walk moves such runs as one, session 46) */
        check(ks[i], n, "uniform", "i32", "signed-zeros", "none");
        check(ks[i], n + 3, "uniform", "u64", "signed-zeros", "none");
    }
}

/* More lists than the SM count times any sublist count a backend cuts each list into. */
static void many_lists(void **state) {
    (void)state;
    /* (small: still more lists than 132 SMs x 4 sublists) */
    check(small ? 600 : 300000, small ? 6000 : 1 << 21, "uniform", "u32", "uniform", "u32");
    check(small ? 600 : 300000, small ? 6000 : 1 << 21, "empty", "f64", "uniform", "none");
    if (!small) check(1 << 20, 1 << 20, "zipf", "u32", "uniform", "none");
}

static void every_type_and_size_kind(void **state) {
    (void)state;
    const char *const dtypes[] = {"u32", "i32", "f32", "u64", "f64"};
    const char *const kinds[] = {"uniform", "equal", "zipf", "empty"};
    const int64_t ks[] = {3, 16, 257, 4096};
    for (size_t t = 0; t < COUNT(dtypes); t++)
        for (size_t s = 0; s < COUNT(kinds); s++)
            for (size_t i = 0; i < COUNT(ks); i += small ? 2 : 1) {
                if (small && (t + s) % 2) continue; /* each type with two size kinds */
                int64_t n = small ? 3001 : 1000003;
                check(ks[i], n, kinds[s], dtypes[t], "uniform", (i + s) % 2 ? "u32" : "none");
            }
}

/* Lists longer than a block of the value split's bounds kernel (8192 keys), so that a block
 * of one list's keys finds its rows by searching them (and its first or last block the rows
 * at the list's ends), beside blocks that span lists and walk: few lists, keys spread, few
 * distinct (equal keys cut between tiles) or normal. */
static void long_lists(void **state) {
    (void)state;
    const char *const dists[] = {"uniform", "few-unique", "normal"};
    const int64_t ks[] = {2, 5, 24};
    for (size_t d = 0; d < COUNT(dists); d++)
        for (size_t i = 0; i < COUNT(ks); i++)
            check(ks[i], small ? 50021 : 400009, i % 2 ? "zipf" : "uniform", d % 2 ? "i32" : "u32",
                  dists[d], "none");
}

/* The list counts where a multiway pass's tiles start to be bucketed (8: three rounds of
 * 8-byte keys or of values) or one pass takes up to 64 lists (48, 64), every key type. */
static void bucketed_pass_shapes(void **state) {
    (void)state;
    const char *const dtypes[] = {"u32", "i32", "f32", "u64", "f64"};
    const int64_t ks[] = {8, 48, 64};
    for (size_t t = 0; t < COUNT(dtypes); t++)
        for (size_t i = 0; i < COUNT(ks); i++)
            check(ks[i], small ? 20011 : 400009, "uniform", dtypes[t], "uniform",
                  (t + i) % 2 ? "u32" : "none");
}

/* k list sizes, each `per` (free them). */
static uint64_t *equal_sizes(uint32_t k, uint64_t per) {
    uint64_t *sizes = malloc(k * sizeof *sizes);
    for (uint32_t l = 0; l < k; l++) sizes[l] = per;
    return sizes;
}

/* Floats whose zeros have both signs (the generator makes none): -0.0 and +0.0 are equal
 * keys, so they keep list order (the value split's tiles write their zeros' bits again:
 * write_zero_signs). */
static void signed_zeros(void **state) {
    (void)state;
    const uint32_t k = 37;
    const uint64_t per = small ? 50 : 3000;
    uint64_t *sizes = equal_sizes(k, per);
    float *f = malloc(k * per * sizeof *f);
    double *d = malloc(k * per * sizeof *d);
    for (uint32_t l = 0; l < k; l++) {
        for (uint64_t i = 0; i < per; i++) {
            /* Each list: negatives, then zeros of mixed sign, then positives. */
            int64_t v = (int64_t)(i * 5 / per) - 2;
            bool negative_zero = v == 0 && (i + l) % 2;
            f[l * per + i] = negative_zero ? -0.0f : (float)v;
            d[l * per + i] = negative_zero ? -0.0 : (double)v;
        }
    }
    for (int pairs = 0; pairs < 2; pairs++) {
        check_input(PB_F32, f, sizes, k, pairs, "f32 with -0.0 and +0.0");
        check_input(PB_F64, d, sizes, k, pairs, "f64 with -0.0 and +0.0");
    }
    /* Distinct keys but for a few zeros of mixed sign (lists 0 to 7, one each): a tile
     * spreads over its buckets and is bucketed, with the zeros sharing one bucket, where
     * keys alone are sorted by value and only their tile order keeps -0.0 and +0.0 in list
     * order. */
    for (uint32_t l = 0; l < k; l++)
        for (uint64_t i = 0; i < per; i++) {
            const int64_t v = (int64_t)i - (int64_t)(per / 2);
            const double x = v == 0 && l < 8 ? (l % 2 ? -0.0 : 0.0) : (double)v + l / 64.0;
            f[l * per + i] = (float)x;
            d[l * per + i] = x;
        }
    for (int pairs = 0; pairs < 2; pairs++) {
        check_input(PB_F32, f, sizes, k, pairs, "distinct f32 with a few -0.0 and +0.0");
        check_input(PB_F64, d, sizes, k, pairs, "distinct f64 with a few -0.0 and +0.0");
    }
    free(f);
    free(d);
    free(sizes);
}

/* Keys from a range narrower than a tile's buckets, each value in every list: a bucketed tile
 * takes a bucket a value, with many equal keys in each (keys alone, and with values, whose
 * ties keep list order). */
static void narrow_range_keys(void **state) {
    (void)state;
    const uint32_t k = 40;
    const uint64_t per = small ? 300 : 5000, n = k * per;
    uint32_t *keys = malloc(n * sizeof *keys);
    for (uint64_t at = 0; at < n; at++) keys[at] = (uint32_t)(1000 + at % per * 3000 / per);
    uint64_t *sizes = equal_sizes(k, per);
    for (int pairs = 0; pairs < 2; pairs++)
        check_input(PB_U32, keys, sizes, k, pairs, "u32 from a narrow range");
    free(keys);
    free(sizes);
}

/* Hundreds of copies of values far apart (a bucket over a tile's range each, not a bucket a
 * value): the value split's threads whose buckets hold that many take the marked walk, which
 * skips runs in order; list 0 adds one key just above every other value, which lands among
 * its copies and has them inserted below it. u32 and u64 (the same values times 2^33). */
static void many_copies_far_apart(void **state) {
    (void)state;
    const uint32_t k = 40, values = 400, copies = small ? 4 : 12;
    uint64_t *sizes = equal_sizes(k, values * copies);
    sizes[0] += values / 2;
    const uint64_t n = (uint64_t)k * values * copies + values / 2;
    uint32_t *keys = malloc(n * sizeof *keys);
    uint64_t *wide = malloc(n * sizeof *wide);
    uint64_t at = 0;
    for (uint32_t l = 0; l < k; l++)
        for (uint32_t j = 0; j < values; j++) {
            for (uint32_t c = 0; c < copies; c++) keys[at++] = j * 100003u;
            if (l == 0 && j % 2 == 0) keys[at++] = j * 100003u + 1;
        }
    for (uint64_t i = 0; i < n; i++) wide[i] = (uint64_t)keys[i] << 33;
    for (int pairs = 0; pairs < 2; pairs++) {
        check_input(PB_U32, keys, sizes, k, pairs, "u32, hundreds of copies of values far apart");
        check_input(PB_U64, wide, sizes, k, pairs, "u64, hundreds of copies of values far apart");
    }
    free(keys);
    free(wide);
    free(sizes);
}

/* Unequal keys closer together than the value split's sample windows tell apart (f64
 * 1 + m 2^-40, u64 2^40 + m, u32 2^20 + m, m interleaved over the lists), with one list
 * ending in a key far above them, so that a window of 32 bits spans that whole range and the
 * close keys share a few windows: the split's picks come out of order and it runs again
 * over whole samples (u32 keys keep the exact sort unless PB_SPLIT_SAMPLE_BITS says). */
static void keys_closer_than_windows(void **state) {
    (void)state;
    const uint32_t k = 64;
    const uint64_t per = small ? 1000 : 40000, n = k * per + 1;
    uint64_t *sizes = equal_sizes(k, per);
    sizes[0] += 1;
    double *f64 = malloc(n * sizeof *f64);
    uint64_t *u64 = malloc(n * sizeof *u64);
    uint32_t *u32 = malloc(n * sizeof *u32);
    uint64_t at = 0;
    for (uint32_t l = 0; l < k; l++) {
        for (uint64_t i = 0; i < per; i++, at++) {
            const uint64_t m = l + (uint64_t)k * i;
            f64[at] = 1.0 + (double)m * 0x1p-40;
            u64[at] = (1ull << 40) + m;
            u32[at] = (1u << 20) + (uint32_t)m;
        }
        if (l == 0) {
            f64[at] = 1e300;
            u64[at] = (1ull << 63) + 5;
            u32[at++] = 0xf0000000u;
        }
    }
    check_input(PB_F64, f64, sizes, k, false, "f64 keys closer than the sample windows");
    check_input(PB_U64, u64, sizes, k, false, "u64 keys closer than the sample windows");
    check_input(PB_U32, u32, sizes, k, false, "u32 keys closer than the sample windows");
    free(f64);
    free(u64);
    free(u32);
    free(sizes);
}

/* The seed's experiment, scaled down: sizes uniform in 1..max_n, doubles. */
static void seed_like(void **state) {
    (void)state;
    struct pb_case c;
    case_init(&c, pb_registry_find_primitive("merge"), 3);
    case_set_int(&c, "k", small ? 64 : 1024);
    case_set_int(&c, "max_size", small ? 500 : 20000);
    case_set_choice(&c, "sizes", "uniform");
    case_set_choice(&c, "dtype", "f64");
    char why[600] = "";
    if (check_all_backends(PB_TARGET_GPU, "merge", &c, why, sizeof why) != 0)
        fail_msg("seed-like k=1024 max_size=20000 f64: %s", why);
}

int main(void) {
    gpu_test_start();
    small = getenv("PB_TEST_SMALL") != NULL;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_and_two_lists),
        cmocka_unit_test(all_empty_but_one),
        cmocka_unit_test(lists_of_one),
        cmocka_unit_test(equal_keys_and_duplicates),
        cmocka_unit_test(many_lists),
        cmocka_unit_test(every_type_and_size_kind),
        cmocka_unit_test(signed_zeros),
        cmocka_unit_test(seed_like),
        cmocka_unit_test(bucketed_pass_shapes),
        cmocka_unit_test(narrow_range_keys),
        cmocka_unit_test(long_lists),
        cmocka_unit_test(many_copies_far_apart),
        cmocka_unit_test(keys_closer_than_windows),
    };
    const char *modes[] = {"rounds", "multiway", "sort", "split", "grouped"};
    /* PB_TEST_MERGE_MODES (e.g. "rounds,sort"): only those, so that a long run under
     * compute-sanitizer can be split into jobs */
    const char *only = getenv("PB_TEST_MERGE_MODES");
    int failed = 0, ran = 0;
    for (size_t i = 0; i < COUNT(modes); i++) {
        if (only && *only && !strstr(only, modes[i])) continue;
        ran++;
        setenv("PB_MERGE_MODE", modes[i], 1);
        print_message("merge/path by %s\n", modes[i]);
        failed += cmocka_run_group_tests(tests, NULL, NULL);
    }
    if (ran == 0) {
        print_error("PB_TEST_MERGE_MODES=%s names none of rounds, multiway, sort, split, grouped\n",
                    only);
        return 1;
    }
    return failed;
}
