/* Sweep expansion: counts and order of cross products, zip groups, ranges, defaults. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config.h"
#include "sweep.h"

/* Axis indices of the reduce primitive. */
enum { AX_N, AX_DTYPE, AX_DISTRIBUTION, AX_OP };

/* The expected values of one case; NULL names are not checked. */
struct expected {
    int64_t n;
    const char *dtype, *distribution, *op;
};

static void parse(const char *text, struct pb_config *cfg) {
    char *errors = NULL;
    int rc = pb_config_parse("configs/sweep.json", text, strlen(text), cfg, &errors);
    if (rc != 0) {
        print_error("%s", errors);
    }
    assert_int_equal(rc, 0);
}

static const char *choice(const struct pb_case *c, int axis) {
    return c->axes[axis].choices[c->value[axis]];
}

static void assert_case(const struct pb_case *c, const struct expected *e) {
    assert_int_equal(c->value[AX_N], e->n);
    if (e->dtype) {
        assert_string_equal(choice(c, AX_DTYPE), e->dtype);
    }
    if (e->distribution) {
        assert_string_equal(choice(c, AX_DISTRIBUTION), e->distribution);
    }
    if (e->op) {
        assert_string_equal(choice(c, AX_OP), e->op);
    }
}

/* Expands text and checks every case, in order. */
static void expect_cases(const char *text, const struct expected *cases, size_t count) {
    struct pb_config cfg;
    parse(text, &cfg);
    assert_int_equal(pb_sweep_count(&cfg), count);
    struct pb_sweep sweep;
    assert_int_equal(pb_sweep_expand(&cfg, &sweep), 0);
    assert_int_equal(sweep.count, count);
    for (size_t i = 0; i < count; i++) {
        assert_case(&sweep.cases[i], &cases[i]);
    }
    pb_sweep_free(&sweep);
    assert_null(sweep.cases);
    assert_int_equal(sweep.count, 0);
    pb_config_free(&cfg);
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void test_defaults_make_one_case(void **state) {
    (void)state;
    struct pb_config cfg;
    parse("{\"primitive\": \"reduce\", \"seed\": 77}", &cfg);
    struct pb_sweep sweep;
    assert_int_equal(pb_sweep_expand(&cfg, &sweep), 0);
    assert_int_equal(sweep.count, 1);
    const struct pb_case *c = &sweep.cases[0];
    assert_ptr_equal(c->axes, cfg.primitive->axes);
    assert_int_equal(c->naxes, cfg.primitive->naxes);
    assert_int_equal(c->naxes, 4);
    assert_int_equal(c->seed, 77);
    assert_case(c, &(struct expected){1048576, "u32", "uniform", "sum"});
    pb_sweep_free(&sweep);
    pb_config_free(&cfg);
}

static void test_cross_product_first_axis_outermost(void **state) {
    (void)state;
    /* Written in the config in another order: the primitive's order decides. */
    const struct expected cases[] = {
        {1, "u32", "uniform", "sum"}, {1, "u32", "uniform", "max"}, {1, "f32", "uniform", "sum"},
        {1, "f32", "uniform", "max"}, {2, "u32", "uniform", "sum"}, {2, "u32", "uniform", "max"},
        {2, "f32", "uniform", "sum"}, {2, "f32", "uniform", "max"},
    };
    expect_cases("{\"primitive\": \"reduce\", \"sweep\": {\"op\": [\"sum\", \"max\"], "
                 "\"dtype\": [\"u32\", \"f32\"], \"n\": [1, 2]}}",
                 cases, COUNT(cases));
}

static void test_all_choices_count(void **state) {
    (void)state;
    struct pb_config cfg;
    parse("{\"primitive\": \"reduce\", \"sweep\": {\"n\": [1, 2, 3], \"dtype\": \"all\", "
          "\"distribution\": \"all\", \"op\": \"all\"}}",
          &cfg);
    assert_int_equal(pb_sweep_count(&cfg), 3 * 6 * 11 * 4);
    struct pb_sweep sweep;
    assert_int_equal(pb_sweep_expand(&cfg, &sweep), 0);
    assert_int_equal(sweep.count, 3 * 6 * 11 * 4);
    /* The last axis turns fastest, the first slowest. */
    assert_case(&sweep.cases[0], &(struct expected){1, "u32", "uniform", "sum"});
    assert_case(&sweep.cases[3], &(struct expected){1, "u32", "uniform", "argmin"});
    assert_case(&sweep.cases[4], &(struct expected){1, "u32", "normal", "sum"});
    assert_case(&sweep.cases[44], &(struct expected){1, "i32", "uniform", "sum"});
    assert_case(&sweep.cases[264], &(struct expected){2, "u32", "uniform", "sum"});
    assert_case(&sweep.cases[786], &(struct expected){3, "f64", "skewed", "max"});
    assert_case(&sweep.cases[791], &(struct expected){3, "f64", "signed-zeros", "argmin"});
    pb_sweep_free(&sweep);
    pb_config_free(&cfg);
}

static void test_zip_with_first_axis(void **state) {
    (void)state;
    const struct expected cases[] = {
        {1, "u32", NULL, "sum"}, {1, "u32", NULL, "min"}, {2, "i32", NULL, "sum"},
        {2, "i32", NULL, "min"}, {3, "f32", NULL, "sum"}, {3, "f32", NULL, "min"},
    };
    expect_cases("{\"primitive\": \"reduce\", \"sweep\": {\"n\": [1, 2, 3], "
                 "\"dtype\": [\"u32\", \"i32\", \"f32\"], \"op\": [\"sum\", \"min\"]}, "
                 "\"zip\": [[\"n\", \"dtype\"]]}",
                 cases, COUNT(cases));
}

static void test_zip_group_sits_at_its_first_axis(void **state) {
    (void)state;
    /* {n, op} contains the first axis, so it is outermost even though op is last. */
    const struct expected cases[] = {
        {10, "u32", "sorted", "min"},
        {10, "u32", "reverse", "min"},
        {20, "u32", "sorted", "max"},
        {20, "u32", "reverse", "max"},
    };
    expect_cases("{\"primitive\": \"reduce\", \"sweep\": {\"n\": [10, 20], "
                 "\"op\": [\"min\", \"max\"], \"distribution\": [\"sorted\", \"reverse\"]}, "
                 "\"zip\": [[\"op\", \"n\"]]}",
                 cases, COUNT(cases));
}

static void test_zip_of_inner_axes(void **state) {
    (void)state;
    const struct expected cases[] = {
        {1, "u32", "zipf", "max"},
        {1, "u32", "sorted", "argmin"},
        {2, "u32", "zipf", "max"},
        {2, "u32", "sorted", "argmin"},
    };
    expect_cases("{\"primitive\": \"reduce\", \"sweep\": {\"n\": [1, 2], "
                 "\"distribution\": [\"zipf\", \"sorted\"], \"op\": [\"max\", \"argmin\"]}, "
                 "\"zip\": [[\"distribution\", \"op\"]]}",
                 cases, COUNT(cases));
}

static void test_two_zip_groups(void **state) {
    (void)state;
    const struct expected cases[] = {
        {1, "u32", "zipf", "max"},
        {1, "u32", "sorted", "min"},
        {2, "f64", "zipf", "max"},
        {2, "f64", "sorted", "min"},
    };
    expect_cases("{\"primitive\": \"reduce\", \"sweep\": {\"n\": [1, 2], "
                 "\"dtype\": [\"u32\", \"f64\"], \"distribution\": [\"zipf\", \"sorted\"], "
                 "\"op\": [\"max\", \"min\"]}, "
                 "\"zip\": [[\"distribution\", \"op\"], [\"dtype\", \"n\"]]}",
                 cases, COUNT(cases));
}

static void test_pow2_range(void **state) {
    (void)state;
    const struct expected cases[] = {
        {1, "u32", NULL, NULL}, {2, "u32", NULL, NULL},  {4, "u32", NULL, NULL},
        {8, "u32", NULL, NULL}, {16, "u32", NULL, NULL},
    };
    expect_cases("{\"primitive\": \"reduce\", \"sweep\": "
                 "{\"n\": {\"from\": 1, \"to\": 31, \"scale\": \"pow2\"}}}",
                 cases, COUNT(cases));
}

static void test_pow2_range_to_axis_maximum(void **state) {
    (void)state;
    struct pb_config cfg;
    parse("{\"primitive\": \"reduce\", \"sweep\": "
          "{\"n\": {\"from\": 1, \"to\": 17179869184, \"scale\": \"pow2\"}}}",
          &cfg);
    struct pb_sweep sweep;
    assert_int_equal(pb_sweep_expand(&cfg, &sweep), 0);
    assert_int_equal(sweep.count, 35);
    for (size_t i = 0; i < sweep.count; i++) {
        assert_int_equal(sweep.cases[i].value[AX_N], (int64_t)1 << i);
    }
    pb_sweep_free(&sweep);
    pb_config_free(&cfg);
}

static void test_linear_range_with_defaults(void **state) {
    (void)state;
    const struct expected cases[] = {
        {5, "i64", "uniform", "sum"},  {5, "i64", "uniform", "argmin"},
        {10, "i64", "uniform", "sum"}, {10, "i64", "uniform", "argmin"},
        {15, "i64", "uniform", "sum"}, {15, "i64", "uniform", "argmin"},
    };
    expect_cases("{\"primitive\": \"reduce\", \"sweep\": "
                 "{\"n\": {\"from\": 5, \"to\": 19, \"scale\": \"linear\", \"step\": 5}, "
                 "\"dtype\": \"i64\", \"op\": [\"sum\", \"argmin\"]}}",
                 cases, COUNT(cases));
}

static void test_every_case_carries_the_seed(void **state) {
    (void)state;
    struct pb_config cfg;
    parse("{\"primitive\": \"reduce\", \"seed\": \"18446744073709551557\", "
          "\"sweep\": {\"n\": [1, 2], \"op\": \"all\"}}",
          &cfg);
    struct pb_sweep sweep;
    assert_int_equal(pb_sweep_expand(&cfg, &sweep), 0);
    assert_int_equal(sweep.count, 8);
    for (size_t i = 0; i < sweep.count; i++) {
        assert_true(sweep.cases[i].seed == 18446744073709551557ULL);
    }
    pb_sweep_free(&sweep);
    pb_config_free(&cfg);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_make_one_case),
        cmocka_unit_test(test_cross_product_first_axis_outermost),
        cmocka_unit_test(test_all_choices_count),
        cmocka_unit_test(test_zip_with_first_axis),
        cmocka_unit_test(test_zip_group_sits_at_its_first_axis),
        cmocka_unit_test(test_zip_of_inner_axes),
        cmocka_unit_test(test_two_zip_groups),
        cmocka_unit_test(test_pow2_range),
        cmocka_unit_test(test_pow2_range_to_axis_maximum),
        cmocka_unit_test(test_linear_range_with_defaults),
        cmocka_unit_test(test_every_case_carries_the_seed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
