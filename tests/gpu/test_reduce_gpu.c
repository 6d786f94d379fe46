/* Every GPU reduction backend against the reference on the edge cases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "case_builder.h"
#include "gpu_skip.h"
#include "backend_check.h"
#include "reduce.h"
#include "registry.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *const dtypes[] = {"u32", "i32", "u64", "i64", "f32", "f64"};
static const char *const ops[] = {"sum", "min", "max", "argmin"};

static const struct pb_primitive *reduce(void) { return pb_registry_find_primitive("reduce"); }

static void check_all_gpu_backends(int64_t n, const char *dtype, const char *dist, const char *op) {
    struct pb_case c;
    case_init(&c, reduce(), 11);
    case_set_int(&c, "n", n);
    case_set_choice(&c, "dtype", dtype);
    case_set_choice(&c, "distribution", dist);
    case_set_choice(&c, "op", op);
    char why[600] = "";
    if (check_all_backends(PB_TARGET_GPU, "reduce", &c, why, sizeof why) != 0)
        fail_msg("n=%lld %s %s %s: %s", (long long)n, dtype, dist, op, why);
}

/* Sizes below, at and past every block and vector width, and not multiples of any. */
static void odd_sizes_every_type_and_op(void **state) {
    (void)state;
    const int64_t sizes[] = {1, 2, 3, 31, 33, 255, 1023, 4097, 1000003, (1 << 22) + 5};
    const char *const dists[] = {"uniform", "few-unique", "all-equal", "reverse"};
    for (size_t s = 0; s < COUNT(sizes); s++)
        for (size_t t = 0; t < COUNT(dtypes); t++)
            for (size_t o = 0; o < COUNT(ops); o++)
                for (size_t d = 0; d < COUNT(dists); d++)
                    check_all_gpu_backends(sizes[s], dtypes[t], dists[d], ops[o]);
}

/* Past 2^30 elements: indices and sizes beyond 32-bit element counts of bytes. */
static void beyond_two_to_the_thirty(void **state) {
    (void)state;
    const int64_t n = (1ll << 30) + 3;
    for (size_t o = 0; o < COUNT(ops); o++) check_all_gpu_backends(n, "u32", "uniform", ops[o]);
    check_all_gpu_backends(n, "f32", "reverse", "argmin");
}

/* Hand-made: negative keys, and the minimum tied at indices 1 and 3 (first must win),
 * and a minimum in the last position past the vector body. */
static void negative_values_and_argmin_ties(void **state) {
    (void)state;
    const int64_t n = 1027; /* not a multiple of the 4-key vector: last 3 keys in the tail */
    int32_t keys[1027];
    for (int64_t i = 0; i < n; i++) keys[i] = (int32_t)(i % 7) - 3;
    keys[1] = keys[3] = -100;
    int32_t last_min[1027];
    memcpy(last_min, keys, sizeof keys);
    last_min[1] = last_min[3] = 0;
    last_min[n - 1] = -100;
    int32_t *inputs[] = {keys, last_min};
    struct pb_case c;
    case_init(&c, reduce(), 1);
    case_set_int(&c, "n", n);
    case_set_choice(&c, "dtype", "i32");
    for (size_t k = 0; k < COUNT(inputs); k++) {
        struct pb_input in = {.n = (uint64_t)n, .dtype = PB_I32, .host = inputs[k]};
        assert_int_equal(cudaMalloc(&in.device, sizeof keys), cudaSuccess);
        assert_int_equal(cudaMemcpy(in.device, inputs[k], sizeof keys, cudaMemcpyHostToDevice),
                         cudaSuccess);
        for (size_t o = 0; o < COUNT(ops); o++) {
            case_set_choice(&c, "op", ops[o]);
            char why[600] = "";
            if (check_all_backends_on_input(PB_TARGET_GPU, "reduce", &c, &in, why, sizeof why))
                fail_msg("input %zu %s: %s", k, ops[o], why);
        }
        cudaFree(in.device);
    }
}

int main(void) {
    gpu_test_start();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(odd_sizes_every_type_and_op),
        cmocka_unit_test(negative_values_and_argmin_ties),
        cmocka_unit_test(beyond_two_to_the_thirty),
    };
    /* PB_TEST_SMALL (set under compute-sanitizer, which slows kernels 10-100x) leaves
     * out the 2^30-key case; everything else runs. */
    size_t count = getenv("PB_TEST_SMALL") ? 2 : 3;
    return _cmocka_run_group_tests("reduce_gpu", tests, count, NULL, NULL);
}
