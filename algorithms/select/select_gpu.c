/* Shared lifecycle of the GPU select backends. */
#include <stdio.h>
#include <stdlib.h>

#include "select_gpu.h"

struct gpu_state {
    const struct pb_select_gpu_impl *impl;
    struct pb_select_case s;
    struct pb_select_params params; /* of one call: batch 1 for a row loop */
    void *out;                      /* keys, then (with_index) indices: the host layout */
    uint32_t *out_index;
    void *scratch;
    size_t scratch_bytes;
};

int pb_select_gpu_prepare(struct pb_run *r, const struct pb_select_gpu_impl *impl) {
    struct gpu_state *st = calloc(1, sizeof *st);
    if (!st) return pb_run_cuda_failed(r, cudaErrorMemoryAllocation, "host state");
    r->state = st;
    st->impl = impl;
    pb_select_case_of(r->c, &st->s);
    st->params = (struct pb_select_params){.dtype = (int)st->s.dtype,
                                           .n = st->s.n,
                                           .batch = impl->rowloop ? 1 : st->s.batch,
                                           .k = st->s.k,
                                           .largest = st->s.largest,
                                           .sorted = st->s.sorted,
                                           .method = impl->method};
    if (pb_run_cuda_failed(r, cudaMalloc(&st->out, pb_select_output_bytes(&st->s)),
                           "cudaMalloc output"))
        return -1;
    if (st->s.with_index)
        st->out_index = (uint32_t *)((char *)st->out + pb_select_index_offset(&st->s));
    if (pb_run_cuda_failed(r, (cudaError_t)impl->scratch_bytes(&st->params, &st->scratch_bytes),
                           "scratch size"))
        return -1;
    return pb_run_cuda_failed(r,
                              cudaMalloc(&st->scratch, st->scratch_bytes ? st->scratch_bytes : 1),
                              "cudaMalloc scratch");
}

int pb_select_gpu_poison(struct pb_run *r) {
    struct gpu_state *st = r->state;
    return pb_run_poison_device(r, st->out, pb_select_output_bytes(&st->s), "output");
}

int pb_select_gpu_run(struct pb_run *r) {
    struct gpu_state *st = r->state;
    const struct pb_select_case *s = &st->s;
    uint32_t calls = st->impl->rowloop ? s->batch : 1;
    size_t ks = pb_dtype_size(s->dtype);
    for (uint32_t row = 0; row < calls; row++) {
        const char *keys = (const char *)r->in->device + (size_t)row * s->n * ks;
        char *out_keys = (char *)st->out + (size_t)row * s->k * ks;
        uint32_t *out_index = st->out_index ? st->out_index + (size_t)row * s->k : NULL;
        cudaError_t e = (cudaError_t)st->impl->launch(&st->params, keys, out_keys, out_index,
                                                      st->scratch, st->scratch_bytes, r->stream);
        if (pb_run_cuda_failed(r, e, "launch")) return -1;
    }
    return 0;
}

int pb_select_gpu_collect(struct pb_run *r) {
    struct gpu_state *st = r->state;
    cudaError_t e = cudaMemcpyAsync(r->out, st->out, pb_select_output_bytes(&st->s),
                                    cudaMemcpyDeviceToHost, r->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(r->stream);
    return pb_run_cuda_failed(r, e, "collect");
}

void pb_select_gpu_release(struct pb_run *r) {
    struct gpu_state *st = r->state;
    if (!st) return;
    if (st->out) cudaFree(st->out);
    if (st->scratch) cudaFree(st->scratch);
    free(st);
    r->state = NULL;
}
