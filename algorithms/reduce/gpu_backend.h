/* The part of a GPU reduction backend that does not depend on how it reduces:
 * scratch and result buffers, poisoning, collecting. A backend supplies plan and
 * launch functions. */
#ifndef PB_REDUCE_GPU_BACKEND_H
#define PB_REDUCE_GPU_BACKEND_H

#include "reduce.h"

struct pb_reduce_gpu_impl {
    int (*plan)(enum pb_reduce_op op, enum pb_dtype t, uint64_t n, struct pb_reduce_gpu_plan *plan);
    int (*launch)(enum pb_reduce_op op, enum pb_dtype t, const void *d_in, uint64_t n,
                  const struct pb_reduce_gpu_plan *plan, void *d_scratch, void *d_result,
                  cudaStream_t stream);
};

int pb_reduce_gpu_prepare(struct pb_run *r, const struct pb_reduce_gpu_impl *impl);
int pb_reduce_gpu_poison(struct pb_run *r);
int pb_reduce_gpu_run(struct pb_run *r);
int pb_reduce_gpu_collect(struct pb_run *r);
void pb_reduce_gpu_release(struct pb_run *r);

#endif
