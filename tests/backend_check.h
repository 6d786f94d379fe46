/* Runs one backend on one case as the harness would (prepare, run, poison, run again,
 * collect) and verifies its output against the primitive's reference. */
#ifndef PB_TEST_BACKEND_CHECK_H
#define PB_TEST_BACKEND_CHECK_H

#include "primbench.h"

/* 0 when the backend's output verifies; otherwise 1 with the verifier's or the
 * backend's message in why. */
int check_backend_on_input(const struct pb_backend *b, const struct pb_case *c,
                           const struct pb_input *in, char *why, size_t why_len);
/* The same on the primitive's own input for the case (on the device too for GPU backends). */
int check_backend(const struct pb_backend *b, const struct pb_case *c, char *why, size_t why_len);
/* check_backend for every backend of the case's primitive with the given target that
 * supports the case; the first failure's message in why. */
int check_all_backends(enum pb_target target, const char *primitive, const struct pb_case *c,
                       char *why, size_t why_len);

#endif
