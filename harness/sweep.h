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
    int *part; /* a suite's: the part each case comes from; NULL: every case is part 0 */
};

/* The part of the config (pb_config_part) that case i comes from. */
static inline int pb_sweep_part(const struct pb_sweep *s, size_t i) {
    return s->part ? s->part[i] : 0;
}

/* One dimension of the cross product: a crossed axis alone, or a zip group. */
struct pb_sweep_dimension {
    int axes[PB_MAX_AXES]; /* the axes that advance together, in the primitive's order */
    int naxes;
    int length; /* values each of them takes (equal within a zip group) */
    int zip;    /* the zip group, or -1 for a crossed axis */
};

/* The dimensions, ordered by their first axis in the primitive's order. Returns how many. */
int pb_sweep_dimensions(const struct pb_config *cfg, struct pb_sweep_dimension *dims);

/* Number of cases the config expands to (without allocating); a suite's: every part's. */
size_t pb_sweep_count(const struct pb_config *cfg);
/* The cases; a suite's are its parts' cases, part after part. Returns 0, or -1 (memory). */
int pb_sweep_expand(const struct pb_config *cfg, struct pb_sweep *out);
void pb_sweep_free(struct pb_sweep *s);

#endif
