/* Expands a config's axes into the list of cases: the cross product of the axes,
 * except that the axes of one zip group advance together. Cases are ordered with
 * the primitive's first axis outermost and its last axis innermost, so cases that
 * share an input are adjacent. */
#ifndef PB_SWEEP_H
#define PB_SWEEP_H

#include <stddef.h>

#include "config.h"

struct pb_sweep {
    size_t count;
    struct pb_case *cases;
};

/* Number of cases the config expands to (without allocating). */
size_t pb_sweep_count(const struct pb_config *cfg);
int pb_sweep_expand(const struct pb_config *cfg, struct pb_sweep *out);
void pb_sweep_free(struct pb_sweep *s);

#endif
