/* The sort primitive on the CPU: the CPU sort against qsort for every key type and both
 * orders, the order of floats (-0.0 before +0.0), the CPU backend on segment shapes, and
 * the verifier, which must catch a swapped pair, a broken pairing, a lost -0.0 and a
 * value from another segment. */
#include <math.h>
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
#include "sort.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const struct pb_primitive *sort_primitive(void) {
    return pb_registry_find_primitive("sort");
}

/* ---- qsort comparators: the primitive's order, written plainly ----------------------- */

#define CMP_INT(T)                                                                                 \
    static int cmp_##T(const void *a, const void *b) {                                             \
        T x = *(const T *)a, y = *(const T *)b;                                                    \
        return (x > y) - (x < y);                                                                  \
    }
CMP_INT(uint32_t)
CMP_INT(int32_t)
CMP_INT(uint64_t)
#define CMP_FLOAT(T)                                                                               \
    static int cmp_##T(const void *a, const void *b) {                                             \
        T x = *(const T *)a, y = *(const T *)b;                                                    \
        if (x != y) return x < y ? -1 : 1;                                                         \
        return (signbit(y) != 0) - (signbit(x) != 0); /* -0.0 first */                             \
    }
CMP_FLOAT(float)
CMP_FLOAT(double)

static int (*comparator(enum pb_dtype t))(const void *, const void *) {
    switch (t) {
    case PB_U32:
        return cmp_uint32_t;
    case PB_I32:
        return cmp_int32_t;
    case PB_U64:
        return cmp_uint64_t;
    case PB_F32:
        return cmp_float;
    default:
        return cmp_double;
    }
}

static uint64_t next_random(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Random keys with many duplicates and, for floats, zeros of both signs. */
static void random_keys(enum pb_dtype t, void *keys, uint64_t count, uint64_t *seed) {
    for (uint64_t i = 0; i < count; i++) {
        uint64_t r = next_random(seed);
        int64_t small = (int64_t)(r % 41) - 20;
        switch (t) {
        case PB_U32:
            ((uint32_t *)keys)[i] = r & 1 ? (uint32_t)(r >> 32) : (uint32_t)(small + 20);
            break;
        case PB_I32:
            ((int32_t *)keys)[i] = r & 1 ? (int32_t)(r >> 32) : (int32_t)small;
            break;
        case PB_U64:
            ((uint64_t *)keys)[i] = r & 1 ? r : (uint64_t)(small + 20);
            break;
        case PB_F32:
            ((float *)keys)[i] = small == 0 ? (r & 2 ? -0.0f : 0.0f) : (float)small / 3.0f;
            break;
        default:
            ((double *)keys)[i] = small == 0 ? (r & 2 ? -0.0 : 0.0) : (double)small * 1e300 / 7.0;
            break;
        }
    }
}

static void cpu_sort_matches_qsort(void **state) {
    (void)state;
    const enum pb_dtype types[] = {PB_U32, PB_I32, PB_U64, PB_F32, PB_F64};
    const uint64_t counts[] = {0, 1, 2, 3, 31, 32, 33, 100, 1000, 4099, 70000};
    uint64_t seed = 88172645463325252ull;
    for (size_t t = 0; t < COUNT(types); t++)
        for (size_t c = 0; c < COUNT(counts); c++)
            for (int desc = 0; desc < 2; desc++) {
                uint64_t count = counts[c];
                size_t ks = pb_dtype_size(types[t]);
                char *keys = malloc(count * ks + 8), *original = malloc(count * ks + 8),
                     *expected = malloc(count * ks + 8);
                uint32_t *values = malloc(count * 4 + 4);
                void *scratch = malloc(pb_sort_cpu_scratch_bytes(count) + 8);
                random_keys(types[t], keys, count, &seed);
                memcpy(original, keys, count * ks);
                memcpy(expected, keys, count * ks);
                for (uint64_t i = 0; i < count; i++) values[i] = (uint32_t)i;
                qsort(expected, count, ks, comparator(types[t]));
                if (desc) /* the exact reverse */
                    for (uint64_t i = 0; i < count / 2; i++) {
                        char tmp[8];
                        memcpy(tmp, expected + i * ks, ks);
                        memcpy(expected + i * ks, expected + (count - 1 - i) * ks, ks);
                        memcpy(expected + (count - 1 - i) * ks, tmp, ks);
                    }
                pb_sort_cpu_run(types[t], desc, keys, values, count, scratch);
                if (count) assert_memory_equal(keys, expected, count * ks);
                for (uint64_t i = 0; i < count; i++) /* the pairs held */
                    assert_memory_equal(original + (uint64_t)values[i] * ks, keys + i * ks, ks);
                free(keys);
                free(original);
                free(expected);
                free(values);
                free(scratch);
            }
}

/* Spelled out: -inf < -1.5 < -0.0 < +0.0 < 1e-30 < 2, and negative integers first. */
static void order_of_floats_and_signed(void **state) {
    (void)state;
    float f[] = {2.0f, 0.0f, -1.5f, 1e-30f, -0.0f, -INFINITY};
    const float f_sorted[] = {-INFINITY, -1.5f, -0.0f, 0.0f, 1e-30f, 2.0f};
    char scratch[512];
    pb_sort_cpu_run(PB_F32, false, f, NULL, 6, scratch);
    assert_memory_equal(f, f_sorted, sizeof f);
    int32_t i[] = {5, -7, 0, INT32_MIN, INT32_MAX, -1};
    const int32_t i_desc[] = {INT32_MAX, 5, 0, -1, -7, INT32_MIN};
    pb_sort_cpu_run(PB_I32, true, i, NULL, 6, scratch);
    assert_memory_equal(i, i_desc, sizeof i);
}

/* ---- the CPU backend through the harness's path --------------------------------------- */

static void check_cpu(int64_t n, int64_t segment, const char *dtype, const char *dist,
                      const char *values, const char *order) {
    struct pb_case c;
    case_init(&c, sort_primitive(), 5);
    case_set_int(&c, "n", n);
    case_set_int(&c, "segment", segment);
    case_set_choice(&c, "dtype", dtype);
    case_set_choice(&c, "distribution", dist);
    case_set_choice(&c, "values", values);
    case_set_choice(&c, "order", order);
    char why[600] = "";
    if (check_all_backends(PB_TARGET_CPU, "sort", &c, why, sizeof why) != 0)
        fail_msg("n=%lld segment=%lld %s %s %s %s: %s", (long long)n, (long long)segment, dtype,
                 dist, values, order, why);
}

static void cpu_backend_on_shapes(void **state) {
    (void)state;
    const int64_t segments[] = {0, 1, 2, 3, 31, 32, 33, 100, 1000, 4096, 5000};
    const char *const dtypes[] = {"u32", "i32", "f32", "u64", "f64"};
    for (size_t s = 0; s < COUNT(segments); s++) {
        check_cpu(10007, segments[s], "u32", "uniform", "u32", "ascending");
        check_cpu(10007, segments[s], "f32", "reverse", "none", "descending");
    }
    for (size_t t = 0; t < COUNT(dtypes); t++) {
        check_cpu(3001, 64, dtypes[t], "uniform", "u32", "descending");
        check_cpu(3001, 7, dtypes[t], "all-equal", "u32", "ascending");
        check_cpu(3001, 0, dtypes[t], "few-unique", "none", "ascending");
    }
}

/* ---- the verifier catches wrong outputs ------------------------------------------------ */

struct fixture {
    struct pb_case c;
    struct pb_input in;
    void *ref, *out;
    size_t bytes;
};

static void fixture_make(struct fixture *f, const char *dtype, const char *dist, int64_t n,
                         int64_t segment) {
    const struct pb_primitive *p = sort_primitive();
    case_init(&f->c, p, 3);
    case_set_int(&f->c, "n", n);
    case_set_int(&f->c, "segment", segment);
    case_set_choice(&f->c, "dtype", dtype);
    case_set_choice(&f->c, "distribution", dist);
    case_set_choice(&f->c, "values", "u32");
    char err[256];
    assert_int_equal(p->make_input(&f->c, false, &f->in, err, sizeof err), 0);
    f->bytes = p->output_bytes(&f->c);
    f->ref = malloc(f->bytes);
    f->out = malloc(f->bytes);
    assert_int_equal(p->reference(&f->c, &f->in, f->ref), 0);
    memcpy(f->out, f->ref, f->bytes);
}

static int fixture_verify(struct fixture *f, char *why, size_t len) {
    return sort_primitive()->verify(&f->c, &f->in, f->ref, f->out, why, len);
}

static void fixture_free(struct fixture *f) {
    sort_primitive()->free_input(&f->in);
    free(f->ref);
    free(f->out);
}

static void verifier_catches_wrong_outputs(void **state) {
    (void)state;
    struct fixture f;
    char why[PB_REASON_LEN];
    fixture_make(&f, "u32", "uniform", 1003, 10);
    assert_int_equal(fixture_verify(&f, why, sizeof why), 0);
    uint32_t *keys = f.out, *values = (uint32_t *)((char *)f.out + 1003 * 4);

    /* a swapped pair of keys (with their values): out of order */
    uint32_t k = keys[13], v = values[13];
    keys[13] = keys[14], values[13] = values[14];
    keys[14] = k, values[14] = v;
    assert_int_equal(fixture_verify(&f, why, sizeof why), 1);
    assert_non_null(strstr(why, "not ascending"));
    memcpy(f.out, f.ref, f.bytes);

    /* a broken pairing: two values swapped, the keys in place */
    v = values[21], values[21] = values[22], values[22] = v;
    assert_int_equal(fixture_verify(&f, why, sizeof why), 1);
    assert_non_null(strstr(why, "pair was broken"));
    memcpy(f.out, f.ref, f.bytes);

    /* a value of another segment, and a value used twice */
    values[5] = values[15];
    assert_int_equal(fixture_verify(&f, why, sizeof why), 1);
    assert_non_null(strstr(why, "not an index of the segment"));
    memcpy(f.out, f.ref, f.bytes);
    values[5] = values[6];
    assert_int_equal(fixture_verify(&f, why, sizeof why), 1);
    memcpy(f.out, f.ref, f.bytes);

    /* a key replaced by a copy of its neighbour: still in order, no longer a permutation */
    keys[30] = keys[31];
    assert_int_equal(fixture_verify(&f, why, sizeof why), 1);
    memcpy(f.out, f.ref, f.bytes);

    /* the last, shorter segment (keys 1000..1002) counts too */
    keys[1002] = 0;
    assert_int_equal(fixture_verify(&f, why, sizeof why), 1);
    fixture_free(&f);
}

/* Zeros of either sign are equal in order, but a -0.0 must not turn into +0.0. */
static void verifier_on_signed_zeros(void **state) {
    (void)state;
    struct fixture f;
    char why[PB_REASON_LEN];
    fixture_make(&f, "f32", "uniform", 8, 0);
    float in[8] = {0.5f, -0.0f, 0.0f, -0.0f, -2.0f, 0.0f, 1.0f, -1.0f};
    memcpy(f.in.host, in, sizeof in);
    assert_int_equal(sort_primitive()->reference(&f.c, &f.in, f.ref), 0);
    const float sorted[8] = {-2.0f, -1.0f, -0.0f, -0.0f, 0.0f, 0.0f, 0.5f, 1.0f};
    assert_memory_equal(f.ref, sorted, sizeof sorted);
    /* CUB's order: the zeros as they came, +0.0 before -0.0 */
    const float mixed[8] = {-2.0f, -1.0f, -0.0f, 0.0f, -0.0f, 0.0f, 0.5f, 1.0f};
    const uint32_t mixed_values[8] = {4, 7, 1, 2, 3, 5, 0, 6};
    memcpy(f.out, mixed, sizeof mixed);
    memcpy((char *)f.out + 32, mixed_values, sizeof mixed_values);
    assert_int_equal(fixture_verify(&f, why, sizeof why), 0);
    /* a -0.0 lost */
    ((float *)f.out)[2] = 0.0f;
    ((uint32_t *)((char *)f.out + 32))[2] = 2;
    ((uint32_t *)((char *)f.out + 32))[3] = 1;
    assert_int_equal(fixture_verify(&f, why, sizeof why), 1);
    fixture_free(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cpu_sort_matches_qsort),
        cmocka_unit_test(order_of_floats_and_signed),
        cmocka_unit_test(cpu_backend_on_shapes),
        cmocka_unit_test(verifier_catches_wrong_outputs),
        cmocka_unit_test(verifier_on_signed_zeros),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
