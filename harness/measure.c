/* The timed loop, as DESIGN.md "Measuring honestly" says: only the backend's run()
 * sits between the events; reset and the L2 flush happen before the first event. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu_timing.h"
#include "measure.h"
#include "nvtx.h"

#define GPU_BATCH 32
/* Enqueuing one batch takes well under a millisecond; a blocker still waiting after
 * this long means the host stalled (a backend that synchronizes inside run()). */
#define BLOCKER_TIMEOUT_NS 500000000ull

static int cuda_check(struct pb_run *r, cudaError_t err, const char *what) {
    if (err == cudaSuccess) return 0;
    snprintf(r->err, sizeof r->err, "%s: %s", what, cudaGetErrorString(err));
    return -1;
}

int pb_gpu_timer_init(struct pb_gpu_timer *t, const struct pb_device_info *dev, char *err,
                      size_t err_len) {
    memset(t, 0, sizeof *t);
    t->batch = GPU_BATCH;
    /* Twice the L2, as a write of that much evicts every line the last run left. */
    t->flush_bytes = 2 * (size_t)dev->l2_bytes;
    cudaError_t e = cudaStreamCreateWithFlags(&t->stream, cudaStreamNonBlocking);
    if (e == cudaSuccess && t->flush_bytes) e = cudaMalloc(&t->flush_buffer, t->flush_bytes);
    if (e == cudaSuccess)
        e = cudaHostAlloc((void **)&t->release_flag, 2 * sizeof(int), cudaHostAllocMapped);
    t->start = calloc(GPU_BATCH, sizeof *t->start);
    t->stop = calloc(GPU_BATCH, sizeof *t->stop);
    if (!t->start || !t->stop) e = cudaErrorMemoryAllocation;
    if (e == cudaSuccess) e = cudaEventCreate(&t->batch_start);
    for (int i = 0; e == cudaSuccess && i < GPU_BATCH; i++) {
        e = cudaEventCreate(&t->start[i]);
        if (e == cudaSuccess) e = cudaEventCreate(&t->stop[i]);
    }
    if (e != cudaSuccess) {
        snprintf(err, err_len, "GPU timer setup: %s", cudaGetErrorString(e));
        pb_gpu_timer_free(t);
        return -1;
    }
    t->timed_out = (int *)t->release_flag + 1;
    return 0;
}

void pb_gpu_timer_free(struct pb_gpu_timer *t) {
    for (int i = 0; i < t->batch; i++) {
        if (t->start && t->start[i]) cudaEventDestroy(t->start[i]);
        if (t->stop && t->stop[i]) cudaEventDestroy(t->stop[i]);
    }
    if (t->batch_start) cudaEventDestroy(t->batch_start);
    free(t->start);
    free(t->stop);
    if (t->flush_buffer) cudaFree(t->flush_buffer);
    if (t->release_flag) cudaFreeHost((void *)t->release_flag);
    if (t->stream) cudaStreamDestroy(t->stream);
    memset(t, 0, sizeof *t);
}

static int untimed_run(const struct pb_backend *b, struct pb_run *r) {
    if (b->reset && b->reset(r) != 0) return -1;
    return b->run(r);
}

/* Enqueues `count` repetitions behind the blocker, releases it, and reads the events. */
static int gpu_batch(const struct pb_backend *b, struct pb_run *r,
                     const struct pb_measure_plan *plan, struct pb_gpu_timer *t, int first_rep,
                     int count, double *samples_ms, double *between_ms) {
    *t->release_flag = 0;
    *t->timed_out = 0;
    int *d_flag = NULL, *d_timed_out = NULL;
    if (cuda_check(r, cudaHostGetDevicePointer((void **)&d_flag, (void *)t->release_flag, 0),
                   "flag") ||
        cuda_check(r, cudaHostGetDevicePointer((void **)&d_timed_out, t->timed_out, 0), "flag"))
        return -1;
    if (cuda_check(
            r, (cudaError_t)pb_gpu_block_stream(t->stream, d_flag, d_timed_out, BLOCKER_TIMEOUT_NS),
            "stream blocker"))
        return -1;
    int failed = cuda_check(r, cudaEventRecord(t->batch_start, t->stream), "event");
    for (int i = 0; i < count && !failed; i++) {
        bool last = first_rep + i == plan->reps - 1;
        pb_nvtx_push("rep %d", first_rep + i);
        if (b->reset && b->reset(r) != 0) failed = 1;
        if (!failed && last && b->poison && b->poison(r) != 0) failed = 1;
        if (!failed && plan->cold && t->flush_buffer)
            failed =
                cuda_check(r, cudaMemsetAsync(t->flush_buffer, i & 0xff, t->flush_bytes, t->stream),
                           "L2 flush");
        if (!failed) failed = cuda_check(r, cudaEventRecord(t->start[i], t->stream), "event");
        if (!failed && b->run(r) != 0) failed = 1;
        if (!failed) failed = cuda_check(r, cudaEventRecord(t->stop[i], t->stream), "event");
        pb_nvtx_pop();
    }
    __atomic_store_n((int *)t->release_flag, 1, __ATOMIC_SEQ_CST);
    cudaError_t sync = cudaStreamSynchronize(t->stream);
    if (failed) return -1;
    if (cuda_check(r, sync, "run")) return -1;
    if (*t->timed_out) {
        snprintf(r->err, sizeof r->err, "enqueuing a batch of %d repetitions took over %.1f s",
                 count, BLOCKER_TIMEOUT_NS / 1e9);
        return -1;
    }
    double timed_ms = 0;
    for (int i = 0; i < count; i++) {
        float ms = 0;
        if (cuda_check(r, cudaEventElapsedTime(&ms, t->start[i], t->stop[i]), "event time"))
            return -1;
        samples_ms[i] = ms;
        timed_ms += ms;
    }
    /* The batch's span on the GPU less its timed intervals: what each repetition costs
     * besides the timed run (reset, poison, L2 flush, gaps between commands). */
    float span_ms = 0;
    if (cuda_check(r, cudaEventElapsedTime(&span_ms, t->batch_start, t->stop[count - 1]),
                   "event time"))
        return -1;
    *between_ms += span_ms - timed_ms;
    return 0;
}

int pb_measure_gpu(const struct pb_backend *b, struct pb_run *r, const struct pb_measure_plan *plan,
                   struct pb_gpu_timer *t, double *samples_ms, int *count,
                   double *between_reps_us) {
    *count = 0;
    double between_ms = 0;
    r->stream = t->stream;
    pb_nvtx_push("warm-up");
    int failed = 0;
    for (int w = 0; w < plan->warmup && !failed; w++) failed = untimed_run(b, r);
    if (!failed) failed = cuda_check(r, cudaStreamSynchronize(t->stream), "warm-up");
    pb_nvtx_pop();
    if (failed) return -1;
    while (*count < plan->reps) {
        int batch = plan->reps - *count < t->batch ? plan->reps - *count : t->batch;
        if (gpu_batch(b, r, plan, t, *count, batch, samples_ms + *count, &between_ms) != 0)
            return -1;
        *count += batch;
    }
    *between_reps_us = *count ? between_ms * 1e3 / *count : 0;
    return 0;
}

double pb_monotonic_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int pb_measure_cpu(const struct pb_backend *b, struct pb_run *r, const struct pb_measure_plan *plan,
                   double *samples_ms, int *count) {
    *count = 0;
    double begin = pb_monotonic_s();
    pb_nvtx_push("warm-up");
    /* Warm-up within a quarter of the budget: one run of a large case can take seconds. */
    for (int w = 0; w < plan->warmup; w++) {
        if (untimed_run(b, r) != 0) {
            pb_nvtx_pop();
            return -1;
        }
        if (pb_monotonic_s() - begin > plan->cpu_budget_s / 4) break;
    }
    pb_nvtx_pop();
    begin = pb_monotonic_s();
    while (*count < plan->reps) {
        pb_nvtx_push("rep %d", *count);
        /* Any repetition may be the last one under the budget: poison before each. */
        int failed = b->reset ? b->reset(r) : 0;
        if (!failed && b->poison) failed = b->poison(r);
        double t0 = pb_monotonic_s();
        if (!failed) failed = b->run(r);
        double t1 = pb_monotonic_s();
        pb_nvtx_pop();
        if (failed) return -1;
        samples_ms[(*count)++] = (t1 - t0) * 1e3;
        if (t1 - begin > plan->cpu_budget_s) break;
    }
    return 0;
}
