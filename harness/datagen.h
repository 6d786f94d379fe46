/* Deterministic input generation. Element i of an input is a pure function of
 * (spec, i), computed by the same code on the CPU and the GPU (datagen_rules.h),
 * so both produce bit-identical arrays. */
#ifndef PB_DATAGEN_H
#define PB_DATAGEN_H

#include <stdint.h>

#include "primbench.h"

#ifdef __cplusplus
extern "C" {
#endif

enum pb_dist {
    PB_DIST_UNIFORM,  /* integers: the type's whole range; floats: [-1, 1) */
    PB_DIST_NORMAL,   /* centred on the range's middle (floats: 0), sd = range / 8 (floats: 1) */
    PB_DIST_BINOMIAL, /* B(range, 1/2) by its normal approximation: sd = sqrt(range) / 2 */
    PB_DIST_ZIPF,     /* heavy head: rank r with P ~ 1/r (log-uniform ranks) */
    PB_DIST_SORTED,   /* ascending over the range */
    PB_DIST_REVERSE,  /* descending */
    PB_DIST_NEARLY_SORTED, /* sorted, with about 1% of elements replaced by random ones */
    PB_DIST_FEW_UNIQUE,    /* uniform values modulo `unique` */
    PB_DIST_ALL_EQUAL,     /* one value (42), never zero */
    PB_DIST_SKEWED,        /* 90% of keys one value (ints: middle; floats: 0.25), rest uniform */
    PB_DIST_SIGNED_ZEROS,  /* 1 key in 8 zero (floats: -0.0 or +0.0, even odds), rest uniform */
    PB_DIST_COUNT
};

extern const char *const pb_dist_names[]; /* NULL-terminated, by enum pb_dist */
int pb_dist_parse(const char *name, enum pb_dist *out);

struct pb_gen_spec {
    enum pb_dtype dtype;
    enum pb_dist dist;
    uint64_t n;
    uint64_t seed;   /* the config's seed */
    uint64_t stream; /* separates inputs of different cases with one seed */
    uint64_t unique; /* PB_DIST_FEW_UNIQUE: number of distinct values (>= 1) */
};

/* Fills out[0..n) (n * pb_dtype_size(dtype) bytes) on the host, multithreaded. */
void pb_generate_host(const struct pb_gen_spec *s, void *out);
/* Fills d_out on the device, asynchronously on stream. Returns a cudaError_t value. */
int pb_generate_device(const struct pb_gen_spec *s, void *d_out, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
