/* Every GPU multisplit backend against the CPU reference on the edge cases: n = 1,
 * bins = 1, bins > n, every key in one bin, keys at the type's min and max, n not a
 * multiple of any tile, stability with duplicate keys carrying distinct values (every
 * case with values checks it: the value is the key's input index). multisplit/auto runs
 * every case with its passes fused and unfused (PB_MULTISPLIT_FUSED), each with passes of
 * few digits ranked by per-thread counters (the default) and by lane masks
 * (PB_MULTISPLIT_RANK=masks), the counters' tiles of 24 and 32 keys a thread on every
 * size (PB_MULTISPLIT_COUNTER_ITEMS; by default 16 up to 2^20 keys, 32 above), and the
 * tiles sorted by both digits and the two passes from one count wherever they can be
 * (PB_MULTISPLIT_TILE_ROUNDS=1, PB_MULTISPLIT_SHARED_COUNT=1; by default from 2^26 keys,
 * and from 2^23 keys and more by the bin count); splitter buckets over 4-byte keys alone
 * split their bin ids, and in two settings (PB_MULTISPLIT_BIN_IDS=0) evaluate the
 * splitters in the passes. */
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
#include "registry.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* PB_TEST_SMALL (under compute-sanitizer, which slows kernels 10-100x): fewer and smaller
 * cases, the same edges. */
static bool small;

static void check(int64_t n, const char *dtype, const char *dist, const char *values,
                  const char *bucket, int64_t bins) {
    struct pb_case c;
    case_init(&c, pb_registry_find_primitive("multisplit"), 9);
    case_set_int(&c, "n", n);
    case_set_choice(&c, "dtype", dtype);
    case_set_choice(&c, "distribution", dist);
    case_set_choice(&c, "values", values);
    case_set_choice(&c, "bucket", bucket);
    case_set_int(&c, "bins", bins);
    char why[600] = "";
    if (check_all_backends(PB_TARGET_GPU, "multisplit", &c, why, sizeof why) != 0)
        fail_msg("n=%lld %s %s values=%s %s bins=%lld: %s", (long long)n, dtype, dist, values,
                 bucket, (long long)bins, why);
}

static void small_and_degenerate(void **state) {
    (void)state;
    check(1, "u32", "uniform", "u32", "range", 256);
    check(1, "u64", "uniform", "none", "range", 1);
    check(1000, "u32", "uniform", "u32", "range", 1);     /* one bin */
    check(100, "i32", "uniform", "u32", "range", 65536);  /* bins > n */
    check(5000, "u32", "all-equal", "u32", "range", 361); /* every key in one bin */
    check(5000, "f32", "all-equal", "u32", "modulo", 12288);
    check(33, "u32", "uniform", "u32", "range", 7);
}

/* Uniform keys span the type: its min and max are in the input, in the first and last bins. */
static void every_type_bucket_and_bin_count(void **state) {
    (void)state;
    const char *const dtypes[] = {"u32", "i32", "u64", "f32"};
    const int64_t bins[] = {2, 361, 4096, 65536, 40, 256, 1000, 12288, 32769};
    const int64_t sizes[] = {8191, 100003};
    for (size_t t = 0; t < COUNT(dtypes); t++)
        for (size_t b = 0; b < (small ? 4 : COUNT(bins)); b++)
            for (size_t s = 0; s < (small ? 1 : COUNT(sizes)); s++) {
                check(sizes[s], dtypes[t], "uniform", "u32", "range", bins[b]);
                check(sizes[s], dtypes[t], "uniform", "none", "modulo", bins[b]);
                check(sizes[s], dtypes[t], "normal", "u32", "splitters", bins[b]);
                /* keys alone: 4-byte keys split their bin ids (backend_auto.c) */
                if (s == 0) check(sizes[s], dtypes[t], "uniform", "none", "splitters", bins[b]);
            }
}

/* Duplicates everywhere: stability shows in the values. */
static void skewed_and_duplicates(void **state) {
    (void)state;
    check(small ? 30011 : 300007, "u32", "skewed", "u32", "range", 256);
    check(small ? 30011 : 300007, "i32", "few-unique", "u32", "modulo", 1000);
    check(small ? 30011 : 300007, "u32", "zipf", "u32", "range", 12288);
    check(small ? 30011 : 300007, "f32", "binomial", "u32", "range", 5000);
    check(small ? 30011 : 300007, "u64", "sorted", "u32", "range", 64);
    check(small ? 30011 : 300007, "u32", "reverse", "u32", "range", 65536);
    /* 51 counter rows (one pass of 100 digits), keys alone: under PB_TEST_SMALL too, for the
     * sanitizers */
    check(small ? 30011 : 300007, "i32", "skewed", "none", "range", 100);
}

static void large_inputs(void **state) {
    (void)state;
    check((1 << 24) + 17, "u32", "uniform", "u32", "range", 361);
    check((1 << 24) + 17, "u32", "binomial", "none", "range", 65536);
    check((1 << 24) + 17, "u32", "uniform", "u32", "range", 40);
    check((1 << 24) + 17, "f32", "uniform", "none", "range", 1024);
    /* multisplit/auto's wide tiles: one pass of 300 digits (16-bit digits), and two of 256
     * (65536 bins above); with values (32 keys a thread, one block an SM) one pass of 300
     * and two of 256; one pass of 100 digits with values over few distinct keys
     * (stability; the counters' 65 rows by default, wide tiles under masks) */
    check((1 << 22) + 5, "u32", "uniform", "none", "range", 300);
    check((1 << 22) + 5, "u32", "few-unique", "u32", "range", 100);
    check((1 << 22) + 5, "i32", "uniform", "u32", "range", 300);
    check((1 << 22) + 5, "f32", "uniform", "u32", "range", 65536);
    /* the counters' wide tiles, keys alone: one pass of 40 digits, most keys in one */
    check((1 << 22) + 5, "u32", "skewed", "none", "range", 40);
    /* 33 counter rows: one pass of 64 digits with values, of 66 (the most) over signed
     * keys mostly in one bin, two of 64; at 2^20 keys, 16 keys a thread */
    check((1 << 22) + 5, "u32", "uniform", "u32", "range", 64);
    check((1 << 22) + 5, "i32", "skewed", "none", "range", 66);
    check((1 << 22) + 5, "u32", "uniform", "none", "range", 4096);
    check(1 << 20, "u32", "binomial", "u32", "range", 50);
    /* 65 counter rows: one pass of 128 digits with values, of 130 (the most) over signed
     * keys mostly in one bin, two of 128 (64 x 128); at 2^20 keys, 16 keys a thread */
    check((1 << 22) + 5, "u32", "uniform", "u32", "range", 128);
    check((1 << 22) + 5, "i32", "skewed", "none", "range", 130);
    check((1 << 22) + 5, "u32", "uniform", "none", "range", 8192);
    check(1 << 20, "u32", "binomial", "u32", "range", 128);
    /* 51 counter rows (keys alone): one pass of 102 digits (the most) over signed keys mostly
     * in one bin, two of 64 x 94 (6000 bins); 100 bins with values take 65 rows; at 2^20
     * keys, 16 keys a thread */
    check((1 << 22) + 5, "i32", "skewed", "none", "range", 102);
    check((1 << 22) + 5, "u32", "uniform", "u32", "range", 100);
    check((1 << 22) + 5, "u32", "uniform", "none", "range", 6000);
    check(1 << 20, "u32", "binomial", "u32", "range", 100);
    /* 41 counter rows: one pass of 82 digits (the most) over signed keys mostly in one bin,
     * two of 64 x 79 with values, 80 bins at 2^20 keys (16 keys a thread) */
    check((1 << 22) + 5, "i32", "skewed", "none", "range", 82);
    check((1 << 22) + 5, "u32", "uniform", "u32", "range", 5000);
    check(1 << 20, "u32", "binomial", "none", "range", 80);
    /* just past the counters' 130 digits (lane masks): one pass of 131 over signed keys, of
     * 256 over keys mostly in one bin, two of 256 (65536 bins), 200 bins at 2^20 keys */
    check((1 << 22) + 5, "i32", "uniform", "none", "range", 131);
    check((1 << 22) + 5, "u32", "skewed", "none", "range", 256);
    check((1 << 22) + 5, "u32", "binomial", "none", "range", 65536);
    check(1 << 20, "u32", "uniform", "none", "range", 200);
    /* two passes from one count of the whole bin (slice_two_pass.cuh, under
     * PB_MULTISPLIT_SHARED_COUNT=1 at this size): the second pass's
     * slices start inside blocks of the first one's output, one block holding most keys or
     * all of them; values, 64-bit keys, bin counts that are no power of two, the most bins */
    check((1 << 22) + 5, "u32", "skewed", "u32", "range", 1000);
    check((1 << 22) + 5, "u32", "all-equal", "none", "range", 2048);
    check((1 << 22) + 5, "u64", "uniform", "u32", "modulo", 3000);
    check((1 << 22) + 5, "i32", "zipf", "none", "splitters", 12288);
    check((1 << 22) + 5, "u32", "skewed", "u32", "range", 2000);
    /* one pass sorting each tile by both digits (slice_tile_rounds.cuh, keys alone; every
     * bin count it can take under PB_MULTISPLIT_TILE_ROUNDS=1): the fewest and the most
     * bins and one past them, both counter row counts, most keys in one bin or all of
     * them, signed keys; the 300-bin case above takes it too */
    check((1 << 22) + 5, "u32", "uniform", "none", "range", 1024);
    check((1 << 22) + 5, "u32", "all-equal", "none", "range", 43);
    check((1 << 22) + 5, "i32", "uniform", "none", "range", 1344);
    check((1 << 22) + 5, "u32", "uniform", "none", "range", 1345);
    check((1 << 22) + 5, "u32", "skewed", "none", "range", 256);
    check((1 << 22) + 5, "i32", "binomial", "none", "range", 361);
}

int main(void) {
    gpu_test_start();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(small_and_degenerate),
        cmocka_unit_test(every_type_bucket_and_bin_count),
        cmocka_unit_test(skewed_and_duplicates),
        cmocka_unit_test(large_inputs),
    };
    small = getenv("PB_TEST_SMALL") != NULL;
    size_t count = small ? 3 : 4; /* and no 2^24-key cases */
    /* multisplit/auto's passes with the count and scan fused into the scatter wherever the
     * grid allows, then never (by default small inputs are fused, large ones not); ranked
     * by counters where they apply (in tiles of the default size, then of 32 and 24 keys a
     * thread), then always by lane masks; then with tiles sorted by both digits and the
     * two passes from one count wherever they apply */
    const char *settings[][6] = {{"1", "", "", "", "", ""},      {"0", "", "", "", "", ""},
                                 {"1", "", "32", "", "", "0"},   {"0", "", "24", "", "", ""},
                                 {"1", "masks", "", "", "", ""}, {"0", "masks", "", "", "", "0"},
                                 {"0", "", "", "1", "1", ""}};
    int failed = 0;
    for (size_t i = 0; i < COUNT(settings); i++) {
        setenv("PB_MULTISPLIT_FUSED", settings[i][0], 1);
        setenv("PB_MULTISPLIT_RANK", settings[i][1], 1);
        setenv("PB_MULTISPLIT_COUNTER_ITEMS", settings[i][2], 1);
        setenv("PB_MULTISPLIT_TILE_ROUNDS", settings[i][3], 1);
        setenv("PB_MULTISPLIT_SHARED_COUNT", settings[i][4], 1);
        setenv("PB_MULTISPLIT_BIN_IDS", settings[i][5], 1);
        print_message("PB_MULTISPLIT_FUSED=%s PB_MULTISPLIT_RANK=%s PB_MULTISPLIT_COUNTER_ITEMS=%s "
                      "PB_MULTISPLIT_TILE_ROUNDS=%s PB_MULTISPLIT_SHARED_COUNT=%s "
                      "PB_MULTISPLIT_BIN_IDS=%s\n",
                      settings[i][0], settings[i][1], settings[i][2], settings[i][3],
                      settings[i][4], settings[i][5]);
        failed += _cmocka_run_group_tests("multisplit_gpu", tests, count, NULL, NULL);
    }
    return failed;
}
