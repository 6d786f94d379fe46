/* Runs one reduction backend on one case, as the harness would, and verifies it. */
#ifndef PB_TEST_REDUCE_CHECK_H
#define PB_TEST_REDUCE_CHECK_H

#include "reduce.h"

/* 0 when the backend's output verifies; otherwise 1 with the verifier's or backend's
 * message in why. The input is made by the primitive (on the device too when want_device). */
int check_backend_on_input(const struct pb_backend *b, const struct pb_case *c,
                           const struct pb_input *in, char *why, size_t why_len);
int check_backend(const struct pb_backend *b, const struct pb_case *c, char *why, size_t why_len);

#endif
