/* Shared lifecycle of the GPU merge backends, and the one-shot GPU merge behind
 * `bench kway-merge`. */
#include <stdio.h>
#include <stdlib.h>

#include "merge_gpu.h"

struct gpu_state {
    const struct pb_merge_gpu_impl *impl;
    struct pb_merge_args args;
    size_t key_size;
};

static int sm_count(void) {
    int device = 0, sms = 1;
    if (cudaGetDevice(&device) == cudaSuccess)
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    return sms;
}

/* Output buffers, plan and scratch for args whose inputs are set. */
static cudaError_t plan_and_allocate(const struct pb_merge_gpu_impl *impl, struct pb_merge_args *a,
                                     size_t key_size, cudaStream_t stream, const char **what) {
    *what = "cudaMalloc output";
    cudaError_t e = cudaMalloc(&a->out_keys, a->n * key_size + 1);
    if (e == cudaSuccess && a->values)
        e = cudaMalloc((void **)&a->out_values, a->n * sizeof(uint32_t) + 4);
    if (e != cudaSuccess) return e;
    *what = "plan";
    e = (cudaError_t)impl->plan(a, &a->scratch_bytes);
    if (e != cudaSuccess) return e;
    *what = "cudaMalloc scratch";
    if (a->scratch_bytes) e = cudaMalloc(&a->scratch, a->scratch_bytes);
    if (e != cudaSuccess || !impl->setup) return e;
    *what = "setup";
    e = (cudaError_t)impl->setup(a, stream);
    return e == cudaSuccess ? cudaStreamSynchronize(stream) : e;
}

static void free_args(struct pb_merge_args *a) {
    cudaFree(a->out_keys);
    cudaFree(a->out_values);
    cudaFree(a->scratch);
    a->out_keys = NULL;
    a->out_values = NULL;
    a->scratch = NULL;
}

int pb_merge_gpu_prepare(struct pb_run *r, const struct pb_merge_gpu_impl *impl) {
    struct gpu_state *s = calloc(1, sizeof *s);
    if (!s) return pb_run_cuda_failed(r, cudaErrorMemoryAllocation, "host state");
    r->state = s;
    s->impl = impl;
    const struct pb_merge_extra *x = r->in->extra;
    const struct pb_merge_shape *sh = &x->shape;
    struct pb_merge_args *a = &s->args;
    s->key_size = pb_dtype_size(sh->dtype);
    a->keys = r->in->device;
    a->values = sh->pairs ? x->device_values : NULL;
    a->offsets = x->device_offsets;
    a->host_offsets = sh->offsets;
    a->n = sh->n;
    a->k = sh->k;
    a->dtype = (int)sh->dtype;
    a->sm_count = sm_count();
    const char *what = "";
    return pb_run_cuda_failed(r, plan_and_allocate(impl, a, s->key_size, r->stream, &what), what);
}

int pb_merge_gpu_poison(struct pb_run *r) {
    struct gpu_state *s = r->state;
    struct pb_merge_args *a = &s->args;
    return pb_run_poison_device(r, a->out_keys, a->n * s->key_size, "keys") ||
           pb_run_poison_device(r, a->out_values, a->n * 4, "values");
}

int pb_merge_gpu_run(struct pb_run *r) {
    struct gpu_state *s = r->state;
    return pb_run_cuda_failed(r, (cudaError_t)s->impl->launch(&s->args, r->stream), "launch");
}

int pb_merge_gpu_collect(struct pb_run *r) {
    struct gpu_state *s = r->state;
    struct pb_merge_args *a = &s->args;
    const struct pb_merge_extra *x = r->in->extra;
    char *out = r->out;
    cudaError_t e =
        cudaMemcpyAsync(out, a->out_keys, a->n * s->key_size, cudaMemcpyDeviceToHost, r->stream);
    if (e == cudaSuccess && a->out_values)
        e = cudaMemcpyAsync(out + pb_merge_values_offset(&x->shape), a->out_values, a->n * 4,
                            cudaMemcpyDeviceToHost, r->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(r->stream);
    return pb_run_cuda_failed(r, e, "collect");
}

void pb_merge_gpu_release(struct pb_run *r) {
    struct gpu_state *s = r->state;
    if (!s) return;
    free_args(&s->args);
    free(s);
    r->state = NULL;
}

/* ---- one merge of host lists, for `bench kway-merge` --------------------------------- */

static const struct pb_merge_gpu_impl path_impl = {
    .plan = pb_merge_path_plan,
    .launch = pb_merge_path_launch,
};

int pb_merge_on_gpu(enum pb_dtype t, const void *keys, const uint32_t *values,
                    const uint64_t *offsets, uint32_t k, void *keys_out, uint32_t *values_out,
                    double *gpu_ms, char *err, size_t err_len) {
    size_t ks = pb_dtype_size(t);
    struct pb_merge_args a = {
        .host_offsets = offsets, .n = offsets[k], .k = k, .dtype = (int)t, .sm_count = sm_count()};
    void *d_keys = NULL;
    uint32_t *d_values = NULL;
    uint64_t *d_offsets = NULL;
    cudaEvent_t start = NULL, stop = NULL;
    const char *what = "cudaMalloc input";
    size_t offsets_bytes = ((size_t)k + 1) * sizeof *offsets;
    cudaError_t e = cudaMalloc(&d_keys, a.n * ks + 1);
    if (e == cudaSuccess) e = cudaMalloc((void **)&d_offsets, offsets_bytes);
    if (e == cudaSuccess && values) e = cudaMalloc((void **)&d_values, a.n * 4 + 4);
    if (e == cudaSuccess) {
        what = "upload";
        e = cudaMemcpy(d_keys, keys, a.n * ks, cudaMemcpyHostToDevice);
    }
    if (e == cudaSuccess) e = cudaMemcpy(d_offsets, offsets, offsets_bytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess && values)
        e = cudaMemcpy(d_values, values, a.n * 4, cudaMemcpyHostToDevice);
    a.keys = d_keys;
    a.values = d_values;
    a.offsets = d_offsets;
    if (e == cudaSuccess) e = plan_and_allocate(&path_impl, &a, ks, 0, &what);
    if (e == cudaSuccess) {
        what = "merge";
        e = cudaEventCreate(&start);
        if (e == cudaSuccess) e = cudaEventCreate(&stop);
        if (e == cudaSuccess) e = cudaEventRecord(start, 0);
        if (e == cudaSuccess) e = (cudaError_t)path_impl.launch(&a, 0);
        if (e == cudaSuccess) e = cudaEventRecord(stop, 0);
        if (e == cudaSuccess) e = cudaEventSynchronize(stop);
        float ms = 0;
        if (e == cudaSuccess) e = cudaEventElapsedTime(&ms, start, stop);
        if (gpu_ms) *gpu_ms = ms;
    }
    if (e == cudaSuccess) {
        what = "download";
        e = cudaMemcpy(keys_out, a.out_keys, a.n * ks, cudaMemcpyDeviceToHost);
        if (e == cudaSuccess && values_out)
            e = cudaMemcpy(values_out, a.out_values, a.n * 4, cudaMemcpyDeviceToHost);
    }
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    free_args(&a);
    cudaFree(d_keys);
    cudaFree(d_values);
    cudaFree(d_offsets);
    if (e == cudaSuccess) return 0;
    snprintf(err, err_len, "%s: %s", what, cudaGetErrorString(e));
    return -1;
}
