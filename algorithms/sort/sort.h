/* The sort primitive (seed 003): every segment of the input sorted on its own, with
 * optional u32 values travelling with their keys. What its backends share. */
#ifndef PB_SORT_H
#define PB_SORT_H

#include <stdint.h>

#include "primbench.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The longest segment the per-segment GPU networks take (one block's shared memory). */
#define PB_SORT_MAX_NETWORK 4096

/* The input of a sort case: keys (host, device) from the harness; values are each key's
 * input index (u32), so pairing and permutation are visible in the output. */
struct pb_sort_extra {
    bool pairs;
    uint32_t *host_values;
    uint32_t *device_values;
};

/* The case's shape: n keys cut into segments of `length` (the last one may be shorter;
 * the axis' segment = 0 means one segment of n). */
struct pb_sort_shape {
    uint64_t n;
    uint64_t length; /* of every segment but maybe the last */
    uint64_t count;  /* number of segments */
    enum pb_dtype dtype;
    bool pairs;
    bool descending;
};
void pb_sort_case_shape(const struct pb_case *c, struct pb_sort_shape *s);
bool pb_sort_supports(const struct pb_case *c, char *why, size_t why_len);

/* The host output: [keys: n x key size][values: n x u32, pairs only]. */
size_t pb_sort_values_offset(const struct pb_sort_shape *s);

/* The order every backend sorts by: a key's bits mapped to an unsigned integer whose
 * order is the keys' (integers by value; floats by value with -0.0 before +0.0, NaN-free;
 * descending: the bits inverted). */
uint64_t pb_sort_ordered_bits(enum pb_dtype t, bool descending, const void *keys, uint64_t i);
/* Sorts one run of keys in place, with values (or NULL), in that order: insertion sort
 * for short runs, an LSD radix sort otherwise (baselines/cpu/sort_cpu_core.c). scratch
 * holds pb_sort_cpu_scratch_bytes(count). */
size_t pb_sort_cpu_scratch_bytes(uint64_t count);
void pb_sort_cpu_run(enum pb_dtype t, bool descending, void *keys, uint32_t *values, uint64_t count,
                     void *scratch);

/* Fills values[i] = i on the device (sort_gpu_util.cu). Returns a cudaError_t. */
int pb_sort_fill_index(uint32_t *d_values, uint64_t n, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
