/* Shared lifecycle of the GPU sort backends. */
#include <stdio.h>
#include <stdlib.h>

#include "sort_gpu.h"

struct gpu_state {
    const struct pb_sort_gpu_impl *impl;
    struct pb_sort_args args;
    struct pb_sort_shape shape;
};

int pb_sort_gpu_prepare(struct pb_run *r, const struct pb_sort_gpu_impl *impl) {
    struct gpu_state *s = calloc(1, sizeof *s);
    if (!s) return pb_run_cuda_failed(r, cudaErrorMemoryAllocation, "host state");
    r->state = s;
    s->impl = impl;
    const struct pb_sort_extra *x = r->in->extra;
    struct pb_sort_args *a = &s->args;
    pb_sort_case_shape(r->c, &s->shape);
    size_t ks = pb_dtype_size(s->shape.dtype);
    a->keys = r->in->device;
    a->values = x->pairs ? x->device_values : NULL;
    a->n = s->shape.n;
    a->length = s->shape.length;
    a->count = s->shape.count;
    a->dtype = (int)s->shape.dtype;
    a->descending = s->shape.descending;
    if (pb_run_cuda_failed(r, cudaMalloc(&a->out_keys, a->n * ks), "cudaMalloc keys")) return -1;
    if (x->pairs &&
        pb_run_cuda_failed(r, cudaMalloc((void **)&a->out_values, a->n * sizeof(uint32_t)),
                           "cudaMalloc values"))
        return -1;
    if (pb_run_cuda_failed(r, (cudaError_t)impl->plan(a, &a->scratch_bytes), "plan")) return -1;
    if (a->scratch_bytes &&
        pb_run_cuda_failed(r, cudaMalloc(&a->scratch, a->scratch_bytes), "cudaMalloc scratch"))
        return -1;
    if (impl->setup) {
        if (pb_run_cuda_failed(r, (cudaError_t)impl->setup(a, r->stream), "setup") ||
            pb_run_cuda_failed(r, cudaStreamSynchronize(r->stream), "setup"))
            return -1;
    }
    return 0;
}

int pb_sort_gpu_poison(struct pb_run *r) {
    struct gpu_state *s = r->state;
    struct pb_sort_args *a = &s->args;
    size_t ks = pb_dtype_size(s->shape.dtype);
    return pb_run_poison_device(r, a->out_keys, a->n * ks, "keys") ||
           pb_run_poison_device(r, a->out_values, a->n * 4, "values");
}

int pb_sort_gpu_run(struct pb_run *r) {
    struct gpu_state *s = r->state;
    return pb_run_cuda_failed(r, (cudaError_t)s->impl->launch(&s->args, r->stream), "launch");
}

int pb_sort_gpu_collect(struct pb_run *r) {
    struct gpu_state *s = r->state;
    struct pb_sort_args *a = &s->args;
    char *out = r->out;
    size_t ks = pb_dtype_size(s->shape.dtype);
    cudaError_t e = cudaMemcpyAsync(out, a->out_keys, a->n * ks, cudaMemcpyDeviceToHost, r->stream);
    if (e == cudaSuccess && a->out_values)
        e = cudaMemcpyAsync(out + pb_sort_values_offset(&s->shape), a->out_values, a->n * 4,
                            cudaMemcpyDeviceToHost, r->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(r->stream);
    return pb_run_cuda_failed(r, e, "collect");
}

void pb_sort_gpu_release(struct pb_run *r) {
    struct gpu_state *s = r->state;
    if (!s) return;
    cudaFree(s->args.out_keys);
    cudaFree(s->args.out_values);
    cudaFree(s->args.scratch);
    free(s);
    r->state = NULL;
}
