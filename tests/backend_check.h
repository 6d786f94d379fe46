/* Runs one backend on one case as the harness would (prepare, run, poison, run again,
 * collect) and verifies its output against the primitive's reference. */
#ifndef PB_TEST_BACKEND_CHECK_H
#define PB_TEST_BACKEND_CHECK_H

#include <stdbool.h>

#include "primbench.h"

/* 0 when the backend's output verifies; otherwise 1 with the verifier's or the
 * backend's message in why. */
int check_backend_on_input(const struct pb_backend *b, const struct pb_case *c,
                           const struct pb_input *in, char *why, size_t why_len);
/* The same on the primitive's own input for the case (on the device too for GPU backends). */
int check_backend(const struct pb_backend *b, const struct pb_case *c, char *why, size_t why_len);
/* Whether b is one of primitive's backends for target that tests check: every one, or
 * only those that PB_TEST_BACKEND names (a comma-separated list), so that a sanitizer run
 * can be split into a job per backend. */
bool backend_under_test(const struct pb_backend *b, const char *primitive, enum pb_target target);
/* check_backend for every backend under test that supports the case; the first failure's
 * message, after the backend's name, in why. */
int check_all_backends(enum pb_target target, const char *primitive, const struct pb_case *c,
                       char *why, size_t why_len);
/* The same with check_backend_on_input, on one input made by the test. */
int check_all_backends_on_input(enum pb_target target, const char *primitive,
                                const struct pb_case *c, const struct pb_input *in, char *why,
                                size_t why_len);

#endif
