/* The select primitive on the CPU: the order-preserving bit transforms, select/cpu against
 * the reference on the edge cases, and the verifier catching wrong answers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend_check.h"
#include "case_builder.h"
#include "registry.h"
#include "select.h"
#include "select_cases.h"
#include "select_inputs.h"
#include "select_order.h"

static uint64_t of_f32(float x, int largest) { return pb_order_key(PB_F32, &x, 0, largest); }
static uint64_t of_f64(double x) { return pb_order_key(PB_F64, &x, 0, 0); }

static void float_order(void **state) {
    (void)state;
    const float ascending[] = {-INFINITY, -3.5f, -1e-40f, -0.0f, 0.0f, 1e-40f, 2.0f, INFINITY};
    for (size_t i = 1; i < sizeof ascending / sizeof ascending[0]; i++) {
        assert_true(of_f32(ascending[i - 1], 0) < of_f32(ascending[i], 0));
        assert_true(of_f32(ascending[i - 1], 1) > of_f32(ascending[i], 1));
    }
    uint32_t nan_bits[] = {0x7fc00000u, 0xffc00001u, 0x7f800001u};
    for (int i = 0; i < 3; i++) {
        float nan;
        memcpy(&nan, &nan_bits[i], 4);
        assert_int_equal(of_f32(nan, 0), 0xffffffffu); /* after every number, one value */
        assert_true(of_f32(INFINITY, 0) < of_f32(nan, 0));
        assert_int_equal(of_f32(nan, 1), 0); /* order max: first */
    }
    assert_true(of_f64(-0.0) < of_f64(0.0));
    assert_true(of_f64(-1e300) < of_f64(-1.0) && of_f64(1.0) < of_f64(1e300));
    assert_true(of_f64(INFINITY) < of_f64(NAN));
}

static void integer_order(void **state) {
    (void)state;
    int8_t i8[] = {-128, -1, 0, 1, 127};
    int64_t i64[] = {INT64_MIN, -1, 0, 1, INT64_MAX};
    uint16_t u16[] = {0, 1, 0x7fff, 0x8000, 0xffff};
    for (int i = 1; i < 5; i++) {
        assert_true(pb_order_key(PB_I8, i8, i - 1, 0) < pb_order_key(PB_I8, i8, i, 0));
        assert_true(pb_order_key(PB_I64, i64, i - 1, 0) < pb_order_key(PB_I64, i64, i, 0));
        assert_true(pb_order_key(PB_U16, u16, i - 1, 0) < pb_order_key(PB_U16, u16, i, 0));
        assert_true(pb_order_key(PB_I8, i8, i - 1, 1) > pb_order_key(PB_I8, i8, i, 1));
    }
    assert_int_equal(pb_order_key(PB_U16, u16, 0, 1), 0xffff); /* complement in 16 bits */
    assert_int_equal(pb_order_key(PB_I8, i8, 4, 0), 0xff);
}

enum { SEED = 5 };
#define make_case(c, ...) select_case(c, SEED, __VA_ARGS__)
#define check_cpu(...)    select_check(PB_TARGET_CPU, SEED, __VA_ARGS__)

static void cpu_select_edges(void **state) {
    (void)state;
    check_cpu(1, 1, "u32", "sparse", 1, "fixed", "min", "unordered", "yes");
    check_cpu(1000, 1, "i32", "sparse", 1, "fixed", "max", "unordered", "yes");
    check_cpu(1000, 1, "u64", "sparse", 1, "whole", "min", "sorted", "yes");
    check_cpu(5000, 1, "f32", "all-equal", 100, "fixed", "min", "unordered", "yes");
    check_cpu(30000, 1, "u16", "dense", 1000, "fixed", "max", "sorted", "yes");
    check_cpu(30000, 1, "i8", "sparse", 10, "half", "min", "unordered", "yes");
    check_cpu(100000, 1, "f64", "normal", 5000, "fixed", "max", "sorted", "no");
    check_cpu(100000, 1, "i64", "sorted", 300, "fixed", "min", "unordered", "yes");
    check_cpu(1000, 37, "u8", "sparse", 32, "fixed", "min", "sorted", "yes");
    check_cpu(1000, 37, "f32", "dense", 32, "fixed", "max", "unordered", "no");
}

/* Hand-made input: special values of every type. */
static void cpu_select_specials(void **state) {
    (void)state;
    const char *const dtypes[] = {"u8",  "u16", "u32", "u64", "i8",
                                  "i16", "i32", "i64", "f32", "f64"};
    const struct pb_backend *cpu = pb_registry_find_backend("select/cpu");
    for (int t = 0; t < 10; t++)
        for (int largest = 0; largest < 2; largest++) {
            struct pb_case c;
            make_case(&c, 3001, 2, dtypes[t], "sparse", 700, "fixed", largest ? "max" : "min",
                      "sorted", "yes");
            struct pb_input in = {.n = 6002};
            pb_dtype_parse(dtypes[t], &in.dtype);
            in.host = malloc(6002 * 8);
            fill_specials(in.dtype, 6002, 3, in.host);
            char why[600] = "";
            int failed = check_backend_on_input(cpu, &c, &in, why, sizeof why);
            free(in.host);
            if (failed) fail_msg("%s %s: %s", dtypes[t], largest ? "max" : "min", why);
        }
}

/* A correct answer from the CPU select, then one corruption at a time. */
struct answer {
    struct pb_select_case s;
    struct pb_input in;
    void *ref, *out;
    uint32_t *index;
    char why[300];
};

static void answer_make(struct answer *a, const char *dist) {
    struct pb_case c;
    make_case(&c, 20000, 1, "u32", dist, 64, "fixed", "min", "unordered", "yes");
    pb_select_case_of(&c, &a->s);
    const struct pb_primitive *p = pb_registry_find_primitive("select");
    char err[200];
    assert_int_equal(p->make_input(&c, false, &a->in, err, sizeof err), 0);
    size_t bytes = pb_select_output_bytes(&a->s);
    a->ref = malloc(bytes);
    a->out = malloc(bytes);
    assert_int_equal(p->reference(&c, &a->in, a->ref), 0);
    const struct pb_backend *cpu = pb_registry_find_backend("select/cpu");
    struct pb_run r = {.c = &c, .in = &a->in, .out = a->out};
    assert_int_equal(cpu->prepare(&r), 0);
    assert_int_equal(cpu->run(&r), 0);
    cpu->release(&r);
    a->index = (uint32_t *)((char *)a->out + pb_select_index_offset(&a->s));
    assert_int_equal(pb_select_verify_rows(&a->s, a->in.host, a->ref, a->out, a->why, 300), 0);
}

static int answer_verify(struct answer *a) {
    return pb_select_verify_rows(&a->s, a->in.host, a->ref, a->out, a->why, sizeof a->why);
}

static void answer_free(struct answer *a) {
    free(a->in.host);
    free(a->ref);
    free(a->out);
}

static void verifier_catches_wrong_key(void **state) {
    (void)state;
    struct answer a;
    answer_make(&a, "sparse");
    uint32_t *keys = a.out;
    keys[5] = 0xffffffffu; /* not among the 64 smallest of 20000 uniform keys */
    assert_int_equal(answer_verify(&a), 1);
    answer_free(&a);
    answer_make(&a, "sparse");
    keys = a.out;
    int i = keys[0] == keys[1] ? 2 : 1; /* a better key twice, another missing */
    keys[i] = keys[0];
    a.index[i] = a.index[0];
    assert_int_equal(answer_verify(&a), 1);
    answer_free(&a);
}

static void verifier_catches_duplicate_index(void **state) {
    (void)state;
    struct answer a;
    answer_make(&a, "all-equal"); /* every key 42: only the index tells */
    a.index[3] = a.index[7];
    assert_int_equal(answer_verify(&a), 1);
    assert_non_null(strstr(a.why, "twice"));
    answer_free(&a);
}

static void verifier_catches_index_to_other_value(void **state) {
    (void)state;
    struct answer a;
    answer_make(&a, "sparse");
    const uint32_t *keys = a.in.host;
    uint32_t other = a.index[0] == 0 ? 1 : 0;
    if (keys[other] == ((uint32_t *)a.out)[0]) other += 2;
    a.index[0] = other;
    assert_int_equal(answer_verify(&a), 1);
    assert_non_null(strstr(a.why, "does not hold"));
    answer_free(&a);
    answer_make(&a, "sparse");
    a.index[0] = 20000; /* past the row */
    assert_int_equal(answer_verify(&a), 1);
    answer_free(&a);
}

static void verifier_checks_sorted_order(void **state) {
    (void)state;
    struct pb_case c;
    make_case(&c, 5000, 1, "i32", "sparse", 50, "fixed", "max", "sorted", "no");
    struct pb_select_case s;
    pb_select_case_of(&c, &s);
    const struct pb_primitive *p = pb_registry_find_primitive("select");
    struct pb_input in;
    char err[200], why[300];
    assert_int_equal(p->make_input(&c, false, &in, err, sizeof err), 0);
    void *ref = malloc(p->output_bytes(&c)), *out = malloc(p->output_bytes(&c));
    assert_int_equal(p->reference(&c, &in, ref), 0);
    const struct pb_backend *cpu = pb_registry_find_backend("select/cpu");
    struct pb_run r = {.c = &c, .in = &in, .out = out};
    assert_int_equal(cpu->prepare(&r), 0);
    assert_int_equal(cpu->run(&r), 0);
    cpu->release(&r);
    assert_int_equal(p->verify(&c, &in, ref, out, why, sizeof why), 0);
    int32_t *keys = out;
    int32_t t = keys[0]; /* the largest first: swapped, out of order */
    keys[0] = keys[1];
    keys[1] = t;
    assert_int_equal(p->verify(&c, &in, ref, out, why, sizeof why), keys[0] != keys[1]);
    free(in.host);
    free(ref);
    free(out);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(float_order),
        cmocka_unit_test(integer_order),
        cmocka_unit_test(cpu_select_edges),
        cmocka_unit_test(cpu_select_specials),
        cmocka_unit_test(verifier_catches_wrong_key),
        cmocka_unit_test(verifier_catches_duplicate_index),
        cmocka_unit_test(verifier_catches_index_to_other_value),
        cmocka_unit_test(verifier_checks_sorted_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
