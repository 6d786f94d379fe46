/* The select tests' cases: every axis given, checked on every backend of one target. */
#ifndef PB_TEST_SELECT_CASES_H
#define PB_TEST_SELECT_CASES_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "backend_check.h"
#include "case_builder.h"
#include "registry.h"

static inline void select_case(struct pb_case *c, uint64_t seed, int64_t n, int64_t batch,
                               const char *dtype, const char *dist, int64_t k, const char *rule,
                               const char *order, const char *output, const char *index) {
    case_init(c, pb_registry_find_primitive("select"), seed);
    case_set_int(c, "n", n);
    case_set_int(c, "batch", batch);
    case_set_choice(c, "dtype", dtype);
    case_set_choice(c, "distribution", dist);
    case_set_int(c, "k", k);
    case_set_choice(c, "k_rule", rule);
    case_set_choice(c, "order", order);
    case_set_choice(c, "output", output);
    case_set_choice(c, "with_index", index);
}

/* Every `target` backend against the reference; the test fails naming the case. */
static inline void select_check(enum pb_target target, uint64_t seed, int64_t n, int64_t batch,
                                const char *dtype, const char *dist, int64_t k, const char *rule,
                                const char *order, const char *output, const char *index) {
    struct pb_case c;
    select_case(&c, seed, n, batch, dtype, dist, k, rule, order, output, index);
    char why[600] = "";
    if (check_all_backends(target, "select", &c, why, sizeof why) != 0)
        fail_msg("n=%lld batch=%lld %s %s k=%lld %s %s %s index=%s: %s", (long long)n,
                 (long long)batch, dtype, dist, (long long)k, rule, order, output, index, why);
}

#endif
