/* Every GPU sort backend against the CPU reference: every segment length from 1 to 130
 * and a few past 1000 (each with a shorter last segment), sorted, reverse and all-equal
 * keys, every key type with values and descending, floats with zeros of both signs, and
 * one whole array (the global network and CUB's radix sort). */
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
#include "sort.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* PB_TEST_SMALL (under compute-sanitizer, which slows kernels 10-100x): fewer and smaller
 * cases, the same edges. */
static bool small;

static void make_case(struct pb_case *c, int64_t n, int64_t segment, const char *dtype,
                      const char *dist, const char *values, const char *order) {
    case_init(c, pb_registry_find_primitive("sort"), 11);
    case_set_int(c, "n", n);
    case_set_int(c, "segment", segment);
    case_set_choice(c, "dtype", dtype);
    case_set_choice(c, "distribution", dist);
    case_set_choice(c, "values", values);
    case_set_choice(c, "order", order);
}

static void check(int64_t n, int64_t segment, const char *dtype, const char *dist,
                  const char *values, const char *order) {
    struct pb_case c;
    make_case(&c, n, segment, dtype, dist, values, order);
    char why[600] = "";
    if (check_all_backends(PB_TARGET_GPU, "sort", &c, why, sizeof why) != 0)
        fail_msg("n=%lld segment=%lld %s %s values=%s %s: %s", (long long)n, (long long)segment,
                 dtype, dist, values, order, why);
}

/* Seven whole segments and a shorter eighth, at every length the register and shared-memory
 * networks take. */
static void every_short_length(void **state) {
    (void)state;
    for (int64_t len = 1; len <= 130; len += small ? 13 : 1) {
        check(len * 7 + len / 2 + 1, len, "u32", "uniform", len % 2 ? "u32" : "none", "ascending");
        if (len % 5 == 0 || len <= 33)
            check(len * 3 + 1, len, "f32", "uniform", "u32", "descending");
    }
}

/* Four-byte keys without values at 33..130 keys go to the pruned thread-per-segment
 * network: every length (each rounding to a different pruned network), in more than one
 * block of 128 segments with a short last one, each key type and both orders. */
static void keys_only_middle_lengths(void **state) {
    (void)state;
    const char *dtypes[] = {"u32", "i32", "f32"};
    for (int64_t len = 31; len <= 130; len += small ? 11 : 1) {
        const char *dtype = dtypes[len % 3];
        const char *order = len % 2 ? "descending" : "ascending";
        check(len * (small ? 129 : 300) + len / 2 + 1, len, dtype, "uniform", "none", order);
    }
    check(100 * 130, 100, "u32", "all-equal", "none", "ascending");
    check(64 * 130 + 7, 64, "u32", "reverse", "none", "ascending");
}

static void long_lengths(void **state) {
    (void)state;
    const int64_t lengths[] = {1000, 1023, 2048, 4095, 4096};
    for (size_t i = small ? 4 : 0; i < COUNT(lengths); i++) { /* small: 4096 (racecheck) */
        int64_t len = lengths[i];
        /* small: one case, a whole segment and a short one (racecheck pays for every one
         * of the transposition sort's 4096 phases; the other two cases' types and orders
         * are checked at shorter lengths) */
        check(len * (small ? 1 : 5) + 17, len, "u32", "uniform", "u32", "ascending");
        if (small) continue;
        check(len * 2 + 1, len, "i32", "uniform", "none", "descending");
        check(len * 2, len, "u64", "uniform", "u32", "ascending");
    }
}

static void distributions(void **state) {
    (void)state;
    const char *const dists[] = {"sorted", "reverse", "all-equal", "few-unique"};
    const int64_t lengths[] = {2, 3, 17, 32, 100, 1024, 4096};
    for (size_t d = 0; d < COUNT(dists); d++)
        for (size_t l = 0; l < COUNT(lengths); l++) {
            if (small && lengths[l] == 4096) continue; /* long_lengths has it */
            check(lengths[l] * (small ? 2 : 9) + 5, lengths[l], "u32", dists[d], "u32",
                  "ascending");
            check(lengths[l] * (small ? 1 : 4) + 3, lengths[l], "f64", dists[d], "u32",
                  "descending");
        }
}

static void every_type(void **state) {
    (void)state;
    const char *const dtypes[] = {"u32", "i32", "f32", "u64", "f64"};
    const int64_t lengths[] = {2, 5, 16, 32, 64, 100, 1000, 4096};
    for (size_t t = 0; t < COUNT(dtypes); t++)
        for (size_t l = 0; l < COUNT(lengths); l++)
            for (int pairs = 0; pairs < 2; pairs++)
                for (int desc = 0; desc < 2; desc++) {
                    /* small: two of the four combinations, segments up to 1000 */
                    if (small && (pairs != desc || lengths[l] == 4096)) continue;
                    check(lengths[l] * (small ? 2 : 6) + 1, lengths[l], dtypes[t], "uniform",
                          pairs ? "u32" : "none", desc ? "descending" : "ascending");
                }
}

/* Floats whose zeros have both signs (the generator makes none): a hand-made input. */
static void signed_zeros(void **state) {
    (void)state;
    const int64_t lengths[] = {3, 32, 100, 0, 4096};
    for (size_t l = 0; l < COUNT(lengths) - small; l++) /* small: long_lengths has 4096 */
        for (int pairs = 0; pairs < 2; pairs++)
            for (int desc = 0; desc < 2; desc++) {
                const uint64_t n = small ? 4103 : 20000;
                struct pb_case c;
                make_case(&c, (int64_t)n, lengths[l], "f32", "uniform", pairs ? "u32" : "none",
                          desc ? "descending" : "ascending");
                float *keys = malloc(n * sizeof *keys);
                uint32_t *values = malloc(n * sizeof *values);
                for (uint64_t i = 0; i < n; i++) {
                    uint64_t h = (i * 2654435761u) % 7;
                    keys[i] = h == 0 ? -0.0f : h == 1 ? 0.0f : (float)(int)(h % 5) - 2.0f;
                    values[i] = (uint32_t)i;
                }
                struct pb_sort_extra x = {.pairs = pairs, .host_values = values};
                struct pb_input in = {.n = n, .dtype = PB_F32, .host = keys, .extra = &x};
                assert_int_equal(cudaMalloc(&in.device, n * 4), cudaSuccess);
                assert_int_equal(cudaMemcpy(in.device, keys, n * 4, cudaMemcpyHostToDevice),
                                 cudaSuccess);
                assert_int_equal(cudaMalloc((void **)&x.device_values, n * 4), cudaSuccess);
                assert_int_equal(cudaMemcpy(x.device_values, values, n * 4, cudaMemcpyHostToDevice),
                                 cudaSuccess);
                char why[600] = "";
                if (check_all_backends_on_input(PB_TARGET_GPU, "sort", &c, &in, why, sizeof why))
                    fail_msg("segment=%lld pairs=%d desc=%d: %s", (long long)lengths[l], pairs,
                             desc, why);
                cudaFree(in.device);
                cudaFree(x.device_values);
                free(keys);
                free(values);
            }
}

/* One whole array: the global merge steps (past 4096 keys), CUB's radix sort. */
static void whole_arrays(void **state) {
    (void)state;
    const int64_t sizes[] = {1, 2, 4095, 4097, 5000, 65539, 1 << 20};
    for (size_t i = 0; i < (small ? 4 : COUNT(sizes)); i++) { /* small: up to 4097 */
        check(sizes[i], 0, "u32", "uniform", "none", "ascending");
        check(sizes[i], 0, "f64", "uniform", "u32", "descending");
        if (!small) check(sizes[i], 0, "i32", "reverse", "u32", "ascending");
    }
}

int main(void) {
    gpu_test_start();
    small = getenv("PB_TEST_SMALL") != NULL;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_short_length), cmocka_unit_test(keys_only_middle_lengths),
        cmocka_unit_test(long_lengths),       cmocka_unit_test(distributions),
        cmocka_unit_test(every_type),         cmocka_unit_test(signed_zeros),
        cmocka_unit_test(whole_arrays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
