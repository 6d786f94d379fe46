/* The reduction primitive on the CPU: reference, CPU backend and verifier. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "case_builder.h"
#include "backend_check.h"
#include "reduce.h"
#include "registry.h"

static const char *const dtypes[] = {"u32", "i32", "u64", "i64", "f32", "f64"};
static const char *const ops[] = {"sum", "min", "max", "argmin"};
static const char *const dists[] = {"uniform", "normal",     "sorted",
                                    "reverse", "few-unique", "all-equal"};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const struct pb_primitive *reduce(void) { return pb_registry_find_primitive("reduce"); }

static void cpu_backend_matches_reference_everywhere(void **state) {
    (void)state;
    const struct pb_backend *cpu = pb_registry_find_backend("reduce/cpu");
    assert_non_null(cpu);
    const int64_t sizes[] = {1, 2, 4095, 4097, 100003};
    for (size_t s = 0; s < COUNT(sizes); s++)
        for (size_t t = 0; t < COUNT(dtypes); t++)
            for (size_t d = 0; d < COUNT(dists); d++)
                for (size_t o = 0; o < COUNT(ops); o++) {
                    struct pb_case c;
                    case_init(&c, reduce(), 7);
                    case_set_int(&c, "n", sizes[s]);
                    case_set_choice(&c, "dtype", dtypes[t]);
                    case_set_choice(&c, "distribution", dists[d]);
                    case_set_choice(&c, "op", ops[o]);
                    char why[256] = "";
                    if (check_backend(cpu, &c, why, sizeof why) != 0)
                        fail_msg("n=%lld %s %s %s: %s", (long long)sizes[s], dtypes[t], dists[d],
                                 ops[o], why);
                }
}

/* A hand-made input with known answers: ties for the minimum at 1 and 3. */
static void known_answers_on_a_small_input(void **state) {
    (void)state;
    int32_t keys[] = {5, -3, 7, -3, 6};
    struct pb_input in = {.n = 5, .dtype = PB_I32, .host = keys};
    struct pb_reduce_result ref;
    struct pb_case c;
    case_init(&c, reduce(), 1);
    case_set_int(&c, "n", 5);
    case_set_choice(&c, "dtype", "i32");
    const struct {
        const char *op;
        int64_t value, index;
    } expected[] = {{"sum", 12, 0}, {"min", -3, 0}, {"max", 7, 0}, {"argmin", -3, 1}};
    for (size_t i = 0; i < COUNT(expected); i++) {
        case_set_choice(&c, "op", expected[i].op);
        assert_int_equal(reduce()->reference(&c, &in, &ref), 0);
        assert_int_equal(ref.as_int, expected[i].value);
        assert_int_equal(ref.index, expected[i].index);
        char why[256];
        assert_int_equal(check_backend_on_input(pb_registry_find_backend("reduce/cpu"), &c, &in,
                                                why, sizeof why),
                         0);
    }
}

/* Integer sums are 64-bit and wrap: 2^32 - 1 twice does not overflow a u32 result. */
static void integer_sums_are_64_bit(void **state) {
    (void)state;
    uint32_t keys[] = {UINT32_MAX, UINT32_MAX};
    struct pb_input in = {.n = 2, .dtype = PB_U32, .host = keys};
    struct pb_case c;
    case_init(&c, reduce(), 1);
    case_set_int(&c, "n", 2);
    case_set_choice(&c, "dtype", "u32");
    case_set_choice(&c, "op", "sum");
    struct pb_reduce_result ref;
    reduce()->reference(&c, &in, &ref);
    assert_int_equal((uint64_t)ref.as_int, 2ull * UINT32_MAX);
}

/* The verifier rejects answers that are off in value or in index. */
static void verifier_rejects_wrong_answers(void **state) {
    (void)state;
    struct pb_case c;
    case_init(&c, reduce(), 3);
    case_set_int(&c, "n", 1000);
    case_set_choice(&c, "dtype", "f32");
    case_set_choice(&c, "distribution", "few-unique");
    struct pb_input in;
    char why[256];
    assert_int_equal(reduce()->make_input(&c, false, &in, why, sizeof why), 0);
    const char *const checked[] = {"sum", "min", "argmin"};
    for (size_t i = 0; i < COUNT(checked); i++) {
        case_set_choice(&c, "op", checked[i]);
        struct pb_reduce_result ref, out;
        reduce()->reference(&c, &in, &ref);
        out = ref;
        assert_int_equal(reduce()->verify(&c, &in, &ref, &out, why, sizeof why), 0);
        if (strcmp(checked[i], "argmin") == 0)
            out.index += 1;
        else
            out.as_float +=
                strcmp(checked[i], "sum") == 0 ? 1.0 : 0.5; /* one missing/extra key's worth */
        why[0] = '\0';
        assert_int_equal(reduce()->verify(&c, &in, &ref, &out, why, sizeof why), 1);
        assert_true(strlen(why) > 0);
    }
    reduce()->free_input(&in);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cpu_backend_matches_reference_everywhere),
        cmocka_unit_test(known_answers_on_a_small_input),
        cmocka_unit_test(integer_sums_are_64_bit),
        cmocka_unit_test(verifier_rejects_wrong_answers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
