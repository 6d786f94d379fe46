/* Shared lifecycle of the GPU multisplit backends. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "multisplit_gpu.h"

struct gpu_state {
    const struct pb_multisplit_gpu_impl *impl;
    struct pb_multisplit_args args;
    struct pb_multisplit_layout layout;
    uint32_t *device_cells; /* splitters: the cell index the kernels read */
};

/* Splitter buckets get a cell index (splitter_cells.c) on the device, which their kernels
 * require, made here from the host sample before the sample pointer turns to the device
 * copy. PB_MULTISPLIT_SPLITTER_CELLS=N sets the cells a bin (0: one cell, a plain binary
 * search; unset or empty: the default; for A/B runs). */
static int give_splitter_cells(struct pb_run *r, struct gpu_state *s) {
    struct pb_bucket *b = &s->args.bucket;
    if (b->kind != PB_BUCKET_SPLITTERS) return 0;
    const char *knob = getenv("PB_MULTISPLIT_SPLITTER_CELLS");
    const uint32_t per_bin =
        knob && *knob ? (uint32_t)strtoul(knob, NULL, 10) : PB_SPLITTER_CELLS_PER_BIN;
    const struct pb_multisplit_extra *x = r->in->extra;
    uint32_t *table = pb_splitter_cells_new(b, &x->range, per_bin);
    if (!table) return pb_run_cuda_failed(r, cudaErrorMemoryAllocation, "splitter cells");
    const size_t bytes = pb_splitter_cells_bytes(b);
    cudaError_t e = cudaMalloc((void **)&s->device_cells, bytes);
    if (e == cudaSuccess) e = cudaMemcpy(s->device_cells, table, bytes, cudaMemcpyHostToDevice);
    free(table);
    b->cell_splitters = s->device_cells;
    return pb_run_cuda_failed(r, e, "splitter cells");
}

int pb_multisplit_gpu_prepare(struct pb_run *r, const struct pb_multisplit_gpu_impl *impl) {
    struct gpu_state *s = calloc(1, sizeof *s);
    if (!s) return pb_run_cuda_failed(r, cudaErrorMemoryAllocation, "host state");
    r->state = s;
    s->impl = impl;
    const struct pb_multisplit_extra *x = r->in->extra;
    struct pb_multisplit_args *a = &s->args;
    size_t ks = pb_dtype_size(r->in->dtype);
    pb_multisplit_case_bucket(r->c, r->in, &a->bucket);
    if (give_splitter_cells(r, s)) return -1;
    a->bucket.sample = x->device_sample; /* kernels search the device copy */
    pb_multisplit_layout(r->in->n, a->bucket.bins, ks, x->pairs, &s->layout);
    a->keys = r->in->device;
    a->values = x->pairs ? x->device_values : NULL;
    a->n = r->in->n;
    if (pb_run_cuda_failed(r, cudaMalloc(&a->out_keys, a->n * ks), "cudaMalloc keys") ||
        pb_run_cuda_failed(r, cudaMalloc((void **)&a->offsets, a->bucket.bins * sizeof(uint32_t)),
                           "cudaMalloc offsets"))
        return -1;
    if (x->pairs &&
        pb_run_cuda_failed(r, cudaMalloc((void **)&a->out_values, a->n * sizeof(uint32_t)),
                           "cudaMalloc values"))
        return -1;
    if (pb_run_cuda_failed(r, (cudaError_t)impl->plan(a, &a->scratch_bytes), "plan")) return -1;
    if (a->scratch_bytes &&
        pb_run_cuda_failed(r, cudaMalloc(&a->scratch, a->scratch_bytes), "cudaMalloc scratch"))
        return -1;
    return 0;
}

int pb_multisplit_gpu_poison(struct pb_run *r) {
    struct gpu_state *s = r->state;
    struct pb_multisplit_args *a = &s->args;
    size_t ks = pb_dtype_size(r->in->dtype);
    return pb_run_poison_device(r, a->out_keys, a->n * ks, "keys") ||
           pb_run_poison_device(r, a->offsets, a->bucket.bins * 4, "offsets") ||
           pb_run_poison_device(r, a->out_values, a->n * 4, "values");
}

int pb_multisplit_gpu_run(struct pb_run *r) {
    struct gpu_state *s = r->state;
    return pb_run_cuda_failed(r, (cudaError_t)s->impl->launch(&s->args, r->stream), "launch");
}

int pb_multisplit_gpu_collect(struct pb_run *r) {
    struct gpu_state *s = r->state;
    struct pb_multisplit_args *a = &s->args;
    char *out = r->out;
    size_t ks = pb_dtype_size(r->in->dtype);
    cudaError_t e = cudaMemcpyAsync(out + s->layout.offsets, a->offsets, a->bucket.bins * 4,
                                    cudaMemcpyDeviceToHost, r->stream);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(out + s->layout.keys, a->out_keys, a->n * ks, cudaMemcpyDeviceToHost,
                            r->stream);
    if (e == cudaSuccess && a->out_values)
        e = cudaMemcpyAsync(out + s->layout.values, a->out_values, a->n * 4, cudaMemcpyDeviceToHost,
                            r->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(r->stream);
    return pb_run_cuda_failed(r, e, "collect");
}

void pb_multisplit_gpu_release(struct pb_run *r) {
    struct gpu_state *s = r->state;
    if (!s) return;
    cudaFree(s->args.out_keys);
    cudaFree(s->args.out_values);
    cudaFree(s->args.offsets);
    cudaFree(s->args.scratch);
    cudaFree(s->device_cells);
    free(s);
    r->state = NULL;
}
