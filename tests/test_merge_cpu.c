/* The k-way merge primitive on the CPU: list sizes, the heap and two-way merges against a
 * stable sort of (key, input index), the sortedness check, and both CPU backends through
 * the harness's lifecycle on generated cases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend_check.h"
#include "case_builder.h"
#include "merge.h"
#include "merge_files.h"
#include "merge_inputs.h"
#include "registry.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void sizes_add_up(void **state) {
    (void)state;
    const uint32_t ks[] = {1, 2, 3, 100, 4096};
    const uint64_t ns[] = {1, 5, 1000, 1000003};
    uint64_t *off = malloc((4096 + 1) * sizeof *off);
    for (size_t a = 0; a < COUNT(ks); a++)
        for (size_t b = 0; b < COUNT(ns); b++)
            for (int how = 0; how < PB_MERGE_SIZES_COUNT; how++) {
                uint32_t k = ks[a];
                uint64_t n = ns[b];
                assert_int_equal(pb_merge_make_offsets(how, k, n, 0, 42, off), n);
                assert_int_equal(off[0], 0);
                assert_int_equal(off[k], n);
                uint32_t empty = 0;
                for (uint32_t i = 0; i < k; i++) {
                    assert_true(off[i] <= off[i + 1]);
                    empty += off[i] == off[i + 1];
                }
                if (how == PB_MERGE_SIZES_EQUAL)
                    for (uint32_t i = 0; i < k; i++)
                        assert_true(off[i + 1] - off[i] == n / k ||
                                    off[i + 1] - off[i] == n / k + 1);
                if (how == PB_MERGE_SIZES_EMPTY && k == 4096 && n >= 1000000) {
                    assert_true(off[1] > 0);
                    assert_in_range(empty, 4096 / 5, 4096 / 3);
                }
            }
    /* The seed's generator: each size in 1..max, and the total is their sum. */
    uint64_t total = pb_merge_make_offsets(PB_MERGE_SIZES_UNIFORM, 1024, 0, 200000, 7, off);
    uint64_t top = 0, bottom = UINT64_MAX;
    for (uint32_t i = 0; i < 1024; i++) {
        uint64_t s = off[i + 1] - off[i];
        top = s > top ? s : top;
        bottom = s < bottom ? s : bottom;
    }
    assert_int_equal(total, off[1024]);
    assert_true(bottom >= 1 && top <= 200000);
    assert_in_range(total, 1024 * 80000ull, 1024 * 120000ull);
    free(off);
}

/* The expected merge: elements sorted by (key, input index), which is the stable order
 * because the input is list-major. */
struct tagged {
    double key; /* every test key converts exactly */
    uint32_t index;
};

static int by_key_then_index(const void *pa, const void *pb) {
    const struct tagged *a = pa, *b = pb;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

static double key_at(enum pb_dtype t, const void *keys, uint64_t i) {
    switch (t) {
    case PB_U32:
        return ((const uint32_t *)keys)[i];
    case PB_I32:
        return ((const int32_t *)keys)[i];
    case PB_F32:
        return ((const float *)keys)[i];
    case PB_U64:
        return (double)((const uint64_t *)keys)[i];
    default:
        return ((const double *)keys)[i];
    }
}

/* Random sorted lists with many ties across lists (keys in -3..3, zeros of both signs). */
static void *make_lists(enum pb_dtype t, uint32_t k, uint64_t *off, unsigned seed) {
    srand(seed);
    off[0] = 0;
    for (uint32_t i = 0; i < k; i++) off[i + 1] = off[i] + (rand() % 4 == 0 ? 0 : rand() % 40);
    size_t ks = pb_dtype_size(t);
    char *keys = malloc(off[k] * ks + 1);
    for (uint32_t l = 0; l < k; l++) {
        int v = -3;
        for (uint64_t i = off[l]; i < off[l + 1]; i++) {
            if (rand() % 3 == 0 && v < 3) v++;
            int u = t == PB_U32 || t == PB_U64 ? v + 3 : v;
            bool negative_zero = u == 0 && rand() % 2;
            switch (t) {
            case PB_U32:
                ((uint32_t *)keys)[i] = (uint32_t)u;
                break;
            case PB_I32:
                ((int32_t *)keys)[i] = u;
                break;
            case PB_F32:
                ((float *)keys)[i] = negative_zero ? -0.0f : (float)u * 0.5f;
                break;
            case PB_U64:
                ((uint64_t *)keys)[i] = (uint64_t)u << 40;
                break;
            default:
                ((double *)keys)[i] = negative_zero ? -0.0 : u * 0.25;
                break;
            }
        }
    }
    return keys;
}

static void merges_match_stable_sort(void **state) {
    (void)state;
    const enum pb_dtype types[] = {PB_U32, PB_I32, PB_F32, PB_U64, PB_F64};
    const uint32_t ks[] = {1, 2, 3, 8, 33, 200};
    uint64_t off[201];
    for (size_t a = 0; a < COUNT(types); a++)
        for (size_t b = 0; b < COUNT(ks); b++)
            for (unsigned seed = 1; seed <= 5; seed++) {
                enum pb_dtype t = types[a];
                uint32_t k = ks[b];
                char *keys = make_lists(t, k, off, seed * 31 + (unsigned)b);
                uint64_t n = off[k];
                size_t ks_ = pb_dtype_size(t);
                char why[200];
                struct pb_merge_lists lists = {
                    .dtype = t, .k = k, .n = n, .offsets = off, .keys = keys};
                assert_int_equal(pb_merge_check_lists(&lists, "made", why, sizeof why), 0);
                uint32_t *values = malloc(n * 4 + 4);
                struct tagged *want = malloc(n * sizeof *want + 1);
                for (uint64_t i = 0; i < n; i++) {
                    values[i] = (uint32_t)i;
                    want[i] = (struct tagged){key_at(t, keys, i), (uint32_t)i};
                }
                qsort(want, n, sizeof *want, by_key_then_index);
                for (int two_way = 0; two_way < 2; two_way++) {
                    char *out = malloc(n * ks_ + 1);
                    uint32_t *ov = malloc(n * 4 + 4);
                    int rc = (two_way ? pb_merge_cpu_2way : pb_merge_cpu_heap)(t, keys, values, off,
                                                                               k, out, ov);
                    assert_int_equal(rc, 0);
                    for (uint64_t i = 0; i < n; i++) {
                        if (ov[i] != want[i].index ||
                            memcmp(out + i * ks_, keys + (uint64_t)want[i].index * ks_, ks_) != 0)
                            fail_msg("%s %s k=%u seed=%u: position %llu holds input %u, want %u",
                                     two_way ? "2way" : "heap", pb_dtype_name(t), k, seed,
                                     (unsigned long long)i, ov[i], want[i].index);
                    }
                    free(out);
                    free(ov);
                }
                free(values);
                free(want);
                free(keys);
            }
}

static void unsorted_list_named(void **state) {
    (void)state;
    const double keys[] = {1, 2, 3, 0.5, 0.7, 0.6, 9};
    uint64_t off[] = {0, 3, 3, 7};
    struct pb_merge_lists lists = {
        .dtype = PB_F64, .k = 3, .n = 7, .offsets = off, .keys = (void *)keys};
    char why[200] = "";
    assert_int_equal(pb_merge_check_lists(&lists, "e.dat", why, sizeof why), -1);
    assert_non_null(strstr(why, "e.dat: list 2 is not sorted"));
    assert_non_null(strstr(why, "element 2 (0.6) < element 1 (0.7)"));
    lists.k = 1;
    lists.n = 3;
    assert_int_equal(pb_merge_check_lists(&lists, "e.dat", why, sizeof why), 0);
}

static void check_case(int64_t k, int64_t n, int64_t max_size, const char *sizes, const char *dtype,
                       const char *values) {
    struct pb_case c;
    case_init(&c, pb_registry_find_primitive("merge"), 9);
    case_set_int(&c, "k", k);
    case_set_int(&c, "n", n);
    case_set_int(&c, "max_size", max_size);
    case_set_choice(&c, "sizes", sizes);
    case_set_choice(&c, "dtype", dtype);
    case_set_choice(&c, "distribution", "few-unique");
    case_set_choice(&c, "values", values);
    char why[600] = "";
    if (check_all_backends(PB_TARGET_CPU, "merge", &c, why, sizeof why) != 0)
        fail_msg("k=%lld n=%lld %s %s %s: %s", (long long)k, (long long)n, sizes, dtype, values,
                 why);
}

static void cpu_backends(void **state) {
    (void)state;
    check_case(1, 1000, 0, "equal", "u32", "u32");
    check_case(2, 100001, 0, "uniform", "f64", "u32");
    check_case(100, 200000, 0, "zipf", "i32", "none");
    check_case(1000, 300000, 0, "empty", "f32", "u32");
    check_case(64, 1, 500, "uniform", "u64", "u32");
}

/* The verifier catches a swapped tie: two equal keys from different lists in the wrong
 * order show up in the values. */
static void verifier_sees_tie_order(void **state) {
    (void)state;
    const uint32_t keys[] = {1, 2, 1, 2};
    const uint64_t sizes[] = {2, 2};
    struct pb_case c;
    struct pb_input in;
    assert_int_equal(merge_input_from(&c, &in, PB_U32, keys, sizes, 2, true, false), 0);
    const struct pb_primitive *p = pb_registry_find_primitive("merge");
    size_t bytes = p->output_bytes(&c);
    assert_int_equal(bytes, 4 * 4 + 4 * 4);
    uint32_t ref[8], out[8];
    assert_int_equal(p->reference(&c, &in, ref), 0);
    const uint32_t want[8] = {1, 1, 2, 2, 0, 2, 1, 3};
    assert_memory_equal(ref, want, sizeof want);
    char why[300] = "";
    memcpy(out, ref, sizeof out);
    assert_int_equal(p->verify(&c, &in, ref, out, why, sizeof why), 0);
    out[4] = 2; /* the tie of key 1 taken from list 1 first */
    out[5] = 0;
    assert_int_equal(p->verify(&c, &in, ref, out, why, sizeof why), 1);
    assert_non_null(strstr(why, "value at output position 0"));
    merge_input_free(&in);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sizes_add_up),
        cmocka_unit_test(merges_match_stable_sort),
        cmocka_unit_test(unsorted_list_named),
        cmocka_unit_test(cpu_backends),
        cmocka_unit_test(verifier_sees_tie_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
