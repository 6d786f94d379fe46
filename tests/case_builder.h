/* Builds cases by axis name for tests. */
#ifndef PB_TEST_CASE_BUILDER_H
#define PB_TEST_CASE_BUILDER_H

#include "primbench.h"

/* Every axis at its first value (INT: min, CHOICE: the first choice). */
void case_init(struct pb_case *c, const struct pb_primitive *p, uint64_t seed);
void case_set_int(struct pb_case *c, const char *axis, int64_t value);
/* Aborts the test program when the choice does not exist: a typo in a test. */
void case_set_choice(struct pb_case *c, const char *axis, const char *choice);

#endif
