/* Every GPU select backend against the CPU reference: k = 1, k = n, n = 1, all keys equal,
 * many ties at the k-th value, the types' extreme values, negative numbers, -0.0 and +0.0,
 * NaN, n not a multiple of any tile, batched rows, both orders, indices, sorted output,
 * and inputs that make select/radix's sampled guess fail (its fallback path). */
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
#include "select_cases.h"
#include "select_inputs.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* PB_TEST_SMALL (under compute-sanitizer): fewer and smaller cases, the same edges. */
static bool small;

enum { SEED = 11 };
#define make_case(c, ...) select_case(c, SEED, __VA_ARGS__)
#define check(...)        select_check(PB_TARGET_GPU, SEED, __VA_ARGS__)

/* Every GPU backend on a hand-made input of `rows` rows of n keys. */
static void check_on_keys(const struct pb_case *c, enum pb_dtype t, uint64_t total,
                          const void *host, const char *what) {
    struct pb_input in = {.n = total, .dtype = t, .host = (void *)host};
    size_t bytes = total * pb_dtype_size(t);
    assert_int_equal(cudaMalloc(&in.device, bytes), cudaSuccess);
    assert_int_equal(cudaMemcpy(in.device, host, bytes, cudaMemcpyHostToDevice), cudaSuccess);
    char why[600] = "";
    if (check_all_backends_on_input(PB_TARGET_GPU, "select", c, &in, why, sizeof why) != 0)
        fail_msg("%s: %s", what, why);
    cudaFree(in.device);
}

static void degenerate(void **state) {
    (void)state;
    check(1, 1, "u32", "sparse", 1, "fixed", "min", "unordered", "yes"); /* n = 1 */
    check(1, 1, "f64", "sparse", 1, "whole", "max", "sorted", "yes");
    check(5000, 1, "u32", "sparse", 1, "fixed", "min", "unordered", "yes"); /* k = 1 */
    check(5000, 1, "i64", "sparse", 1, "fixed", "max", "unordered", "yes");
    check(5001, 1, "u32", "sparse", 1, "whole", "min", "unordered", "yes"); /* k = n */
    check(100003, 1, "f32", "normal", 1, "whole", "max", "sorted", "yes");
    check(4096, 1, "u16", "sparse", 1, "half", "min", "sorted", "yes"); /* the whole sample */
    check(4097, 1, "u32", "sparse", 2048, "fixed", "min", "unordered", "yes");
}

static void ties(void **state) {
    (void)state;
    const int64_t n = small ? 30011 : 1000003;
    check(n, 1, "u32", "all-equal", 1000, "fixed", "min", "unordered", "yes");
    check(n, 1, "f32", "all-equal", 1, "half", "max", "sorted", "yes");
    check(n, 1, "u32", "dense", 1024, "fixed", "min", "unordered", "yes"); /* keys mod 300 */
    check(n, 1, "i16", "dense", 1, "half", "max", "unordered", "yes");
    check(n, 1, "u64", "dense", 65536, "fixed", "min", "sorted", "yes");
    check(n, 1, "u8", "sparse", 1, "half", "min", "unordered", "yes"); /* 256 values */
    check(n, 1, "i8", "normal", 777, "fixed", "max", "unordered", "yes");
}

/* Every type and order, with and without indices, unordered and sorted. */
static void types_and_orders(void **state) {
    (void)state;
    const char *const dtypes[] = {"u8",  "u16", "u32", "u64", "i8",
                                  "i16", "i32", "i64", "f32", "f64"};
    const int64_t ks[] = {1, 32, 1024, 65536};
    const int64_t n = small ? 20011 : 300007;
    for (size_t t = 0; t < COUNT(dtypes); t++)
        for (size_t k = 0; k < (small ? 2 : COUNT(ks)); k++) {
            check(n, 1, dtypes[t], "sparse", ks[k], "fixed", "min", "unordered", "no");
            check(n, 1, dtypes[t], "normal", ks[k], "fixed", "max", "sorted", "yes");
        }
    check(n, 1, "u32", "sorted", 1, "half", "min", "unordered", "yes");
    check(n, 1, "f64", "sorted", 1000, "fixed", "max", "unordered", "yes");
}

static void batched(void **state) {
    (void)state;
    check(1000, 37, "u32", "sparse", 32, "fixed", "min", "unordered", "yes");
    /* (small: fewer rows, since select/radix-rowloop launches once a row) */
    check(small ? 3001 : 100000, small ? 4 : 300, "f32", "sparse", 32, "fixed", "min", "sorted",
          "yes");
    check(small ? 2999 : 9999, small ? 3 : 20, "i64", "dense", 500, "fixed", "max", "unordered",
          "yes");
    check(777, small ? 4 : 65, "u8", "all-equal", 1, "half", "min", "sorted", "yes");
    check(3, small ? 20 : 1000, "i32", "sparse", 2, "fixed", "max", "sorted", "yes");
}

/* Extremes, zero, -1, -0.0 and +0.0, infinities, NaN of both signs and denormals. */
static void special_values(void **state) {
    (void)state;
    const char *const dtypes[] = {"u8",  "u16", "u32", "u64", "i8",
                                  "i16", "i32", "i64", "f32", "f64"};
    const uint64_t n = small ? 5003 : 200003, rows = 3;
    void *keys = malloc(n * rows * 8);
    for (size_t t = 0; t < COUNT(dtypes); t++) {
        enum pb_dtype dt;
        pb_dtype_parse(dtypes[t], &dt);
        fill_specials(dt, n * rows, t + 1, keys);
        for (int largest = 0; largest < 2; largest++) {
            struct pb_case c;
            make_case(&c, (int64_t)n, 1, dtypes[t], "sparse", 1000, "fixed",
                      largest ? "max" : "min", "sorted", "yes");
            check_on_keys(&c, dt, n, keys, dtypes[t]);
            make_case(&c, (int64_t)n, (int64_t)rows, dtypes[t], "sparse", 1, "half",
                      largest ? "max" : "min", "unordered", "yes");
            check_on_keys(&c, dt, n * rows, keys, dtypes[t]);
        }
    }
    free(keys);
}

/* u32 keys built to mislead select/radix's sample, each selection checked. */
struct trap_case {
    int64_t k;
    const char *k_rule, *output, *label;
};
static void check_trap(void (*fill)(uint64_t, uint32_t *), const struct trap_case *cases,
                       size_t count) {
    const uint64_t n = small ? 200000 : 4000037;
    uint32_t *keys = malloc(n * 4);
    assert_non_null(keys);
    fill(n, keys);
    for (size_t i = 0; i < count; i++) {
        struct pb_case c;
        make_case(&c, (int64_t)n, 1, "u32", "sparse", cases[i].k, cases[i].k_rule, "min",
                  cases[i].output, "yes");
        check_on_keys(&c, PB_U32, n, keys, cases[i].label);
    }
    free(keys);
}

/* The sample sees only the largest key: the guess fails (more than k keys before its
 * interval) and select/radix restarts on the whole range; with small k the guessed
 * interval holds every key, more candidates than the buffer keeps. */
static void misleading_sample(void **state) {
    (void)state;
    const struct trap_case cases[] = {{1, "half", "unordered", "trap, k = n/2"},
                                      {100, "fixed", "sorted", "trap, k = 100"}};
    check_trap(fill_sample_trap, cases, COUNT(cases));
}

static void heavy_value(void **state) {
    (void)state;
    const struct trap_case cases[] = {
        {10, "fixed", "unordered", "heavy value, k = 10 (the guess fails)"},
        {5000, "fixed", "sorted", "heavy value, k = 5000 (the guess holds)"}};
    check_trap(fill_heavy_value_trap, cases, COUNT(cases));
}

static void large_inputs(void **state) {
    (void)state;
    if (small) return;
    check((1 << 24) + 17, 1, "u32", "sparse", 65536, "fixed", "min", "unordered", "yes");
    check((1 << 24) + 17, 1, "u32", "dense", 1024, "fixed", "min", "unordered", "yes");
    check((1 << 24) + 17, 1, "u32", "all-equal", 1024, "fixed", "max", "unordered", "yes");
    check((1 << 24) + 17, 1, "f32", "sparse", 1, "half", "max", "unordered", "yes");
    check((1 << 22) + 1, 1, "u64", "normal", 1024, "fixed", "min", "sorted", "yes");
}

int main(void) {
    gpu_test_start();
    small = getenv("PB_TEST_SMALL") != NULL;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(degenerate),       cmocka_unit_test(ties),
        cmocka_unit_test(types_and_orders), cmocka_unit_test(batched),
        cmocka_unit_test(special_values),   cmocka_unit_test(misleading_sample),
        cmocka_unit_test(heavy_value),      cmocka_unit_test(large_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
