/* The reduction primitive: what its backends share. */
#ifndef PB_REDUCE_H
#define PB_REDUCE_H

#include <stdint.h>

#include "primbench.h"

#ifdef __cplusplus
extern "C" {
#endif

enum pb_reduce_op { PB_REDUCE_SUM, PB_REDUCE_MIN, PB_REDUCE_MAX, PB_REDUCE_ARGMIN };

/* A GPU backend writes its answer to a 16-byte device buffer: the value at byte 0 in
 * the op's result type (sums of integers: 64-bit of the same signedness, wrapping;
 * sums of floats: the float type; min, max, argmin: the key type), and for argmin the
 * index as int64 at byte 8. */
#define PB_REDUCE_DEVICE_RESULT_BYTES 16

/* The host-side answer every backend's collect produces and the verifier reads. */
struct pb_reduce_result {
    int64_t as_int;  /* integer keys: the value, widened (unsigned kept as bits) */
    double as_float; /* float keys: the value, widened */
    int64_t index;   /* argmin only */
    double abs_sum;  /* the reference's sum of |x| (float sums' tolerance) */
};

enum pb_reduce_op pb_reduce_case_op(const struct pb_case *c);
/* Decodes a device result buffer (see above) into *out. */
void pb_reduce_decode(enum pb_reduce_op op, enum pb_dtype t, const void *raw,
                      struct pb_reduce_result *out);
bool pb_reduce_dtype_supported(enum pb_dtype t);
/* Every reduction backend takes every case of the primitive's axes. */
bool pb_reduce_supports(const struct pb_case *c, char *why, size_t why_len);

/* GPU backends, behind a plain C interface. Each returns a cudaError_t value. */
struct pb_reduce_gpu_plan {
    int grid;             /* blocks per launch */
    size_t scratch_bytes; /* device scratch the launch needs */
};
int pb_reduce_butterfly_plan(enum pb_reduce_op op, enum pb_dtype t, uint64_t n,
                             struct pb_reduce_gpu_plan *plan);
int pb_reduce_butterfly_launch(enum pb_reduce_op op, enum pb_dtype t, const void *d_in, uint64_t n,
                               const struct pb_reduce_gpu_plan *plan, void *d_scratch,
                               void *d_result, cudaStream_t stream);
int pb_reduce_cub_plan(enum pb_reduce_op op, enum pb_dtype t, uint64_t n,
                       struct pb_reduce_gpu_plan *plan);
int pb_reduce_cub_launch(enum pb_reduce_op op, enum pb_dtype t, const void *d_in, uint64_t n,
                         const struct pb_reduce_gpu_plan *plan, void *d_scratch, void *d_result,
                         cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
