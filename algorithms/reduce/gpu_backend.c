/* Shared lifecycle of the GPU reduction backends. */
#include <stdio.h>
#include <stdlib.h>

#include "gpu_backend.h"

struct gpu_state {
    const struct pb_reduce_gpu_impl *impl;
    enum pb_reduce_op op;
    struct pb_reduce_gpu_plan plan;
    void *d_scratch;
    void *d_result;
};

int pb_reduce_gpu_prepare(struct pb_run *r, const struct pb_reduce_gpu_impl *impl) {
    struct gpu_state *s = calloc(1, sizeof *s);
    if (!s) return pb_run_cuda_failed(r, cudaErrorMemoryAllocation, "host state");
    r->state = s;
    s->impl = impl;
    s->op = pb_reduce_case_op(r->c);
    if (pb_run_cuda_failed(r, (cudaError_t)impl->plan(s->op, r->in->dtype, r->in->n, &s->plan),
                           "plan"))
        return -1;
    if (pb_run_cuda_failed(r, cudaMalloc(&s->d_result, PB_REDUCE_DEVICE_RESULT_BYTES),
                           "cudaMalloc result"))
        return -1;
    if (s->plan.scratch_bytes > 0) {
        if (pb_run_cuda_failed(r, cudaMalloc(&s->d_scratch, s->plan.scratch_bytes),
                               "cudaMalloc scratch"))
            return -1;
        /* The butterfly's ticket must start at zero; the kernel re-arms it itself. */
        if (pb_run_cuda_failed(r, cudaMemset(s->d_scratch, 0, s->plan.scratch_bytes),
                               "cudaMemset scratch"))
            return -1;
    }
    return 0;
}

int pb_reduce_gpu_poison(struct pb_run *r) {
    struct gpu_state *s = r->state;
    /* a result no reduction of our inputs produces by accident */
    return pb_run_poison_device(r, s->d_result, PB_REDUCE_DEVICE_RESULT_BYTES, "result");
}

int pb_reduce_gpu_run(struct pb_run *r) {
    struct gpu_state *s = r->state;
    int err = s->impl->launch(s->op, r->in->dtype, r->in->device, r->in->n, &s->plan, s->d_scratch,
                              s->d_result, r->stream);
    return pb_run_cuda_failed(r, (cudaError_t)err, "launch");
}

int pb_reduce_gpu_collect(struct pb_run *r) {
    struct gpu_state *s = r->state;
    unsigned char raw[PB_REDUCE_DEVICE_RESULT_BYTES];
    if (pb_run_cuda_failed(
            r, cudaMemcpyAsync(raw, s->d_result, sizeof raw, cudaMemcpyDeviceToHost, r->stream),
            "copy result"))
        return -1;
    if (pb_run_cuda_failed(r, cudaStreamSynchronize(r->stream), "synchronize")) return -1;
    pb_reduce_decode(s->op, r->in->dtype, raw, r->out);
    return 0;
}

void pb_reduce_gpu_release(struct pb_run *r) {
    struct gpu_state *s = r->state;
    if (!s) return;
    cudaFree(s->d_scratch);
    cudaFree(s->d_result);
    free(s);
    r->state = NULL;
}
