/* --shard I/N: the I-th of N disjoint parts of a sweep, for job arrays across nodes.
 * The unit of the partition is the input group (a run of adjacent cases that share one
 * input), so a shard never makes an input that another shard makes too, and groups are
 * dealt round-robin (group g to shard g % N) so that every shard gets small and large
 * cases alike. Indices are 0-based: --shard 0/4 .. --shard 3/4. */
#ifndef PB_SHARD_H
#define PB_SHARD_H

#include <stdbool.h>
#include <stddef.h>

#include "sweep.h"

struct pb_shard {
    int index, count;   /* 0 <= index < count; count 0: the whole sweep */
    const char *source; /* "option" or "slurm"; NULL when unsharded */
};

/* Parses "I/N" (0 <= I < N <= 100000). Returns 0, or -1 with err. */
int pb_shard_parse(const char *text, struct pb_shard *s, char *err, size_t err_len);

/* From a Slurm job array: index SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN (MIN 0 when
 * unset), count SLURM_ARRAY_TASK_COUNT. Returns 1 when both variables are set and valid,
 * 0 when they are not set (s untouched), -1 with err when they are set but unusable
 * (not numbers, or a stepped --array such as 0-6:2 whose ids exceed the count). */
int pb_shard_from_env(struct pb_shard *s, char *err, size_t err_len);

/* The input group of every case (group[i] for case i, 0, 1, ...). Returns the count. */
size_t pb_sweep_input_groups(const struct pb_sweep *sw, size_t *group);

/* Whether shard s runs input group g (always, when unsharded). */
bool pb_shard_owns(const struct pb_shard *s, size_t g);

#endif
