/* The timed loop, as DESIGN.md "Measuring honestly" says: only the backend's run()
 * sits between the events; reset and the L2 flush happen before the first event. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>

#include <cuda_profiler_api.h>

#include "gpu_timing.h"
#include "interrupt.h"
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

/* Waits until the stream's work is done or the deadline passes (*expired). Polling, not
 * cudaStreamSynchronize: a hung kernel would hold a synchronizing host forever. The
 * sleep grows to 100 us, so a long batch costs little host time and a short one little
 * latency; the events' intervals do not depend on when the host notices. */
static cudaError_t wait_stream(cudaStream_t stream, double deadline_s, bool *expired) {
    long sleep_ns = 1000;
    *expired = false;
    for (;;) {
        cudaError_t e = cudaStreamQuery(stream);
        if (e != cudaErrorNotReady) return e;
        if (pb_monotonic_s() > deadline_s) {
            *expired = true;
            return cudaErrorNotReady;
        }
        struct timespec ts = {0, sleep_ns};
        nanosleep(&ts, NULL);
        if (sleep_ns < 100000) sleep_ns *= 2;
    }
}

static int timed_out(struct pb_run *r, const struct pb_measure_plan *plan, const char *what) {
    snprintf(r->err, sizeof r->err, "%s did not finish within the time limit of %g s", what,
             plan->time_limit_s);
    return PB_MEASURE_TIMEOUT;
}

/* Waits for the stream; PB_MEASURE_OK, FAILED (CUDA error in r->err) or TIMEOUT. */
static int wait_gpu(struct pb_run *r, const struct pb_measure_plan *plan, cudaStream_t stream,
                    const char *what) {
    bool expired;
    cudaError_t e = wait_stream(stream, plan->deadline_s, &expired);
    if (expired) return timed_out(r, plan, what);
    return cuda_check(r, e, what) ? PB_MEASURE_FAILED : PB_MEASURE_OK;
}

static int untimed_run(const struct pb_backend *b, struct pb_run *r) {
    if (b->reset && b->reset(r) != 0) return -1;
    return b->run(r);
}

/* A blocked batch whose enqueuing outlasted the blocker: the backend's run() waits on the
 * host or enqueues a great deal; the row goes on one repetition at a time, unblocked. */
#define GPU_BATCH_UNBLOCK 100

/* Enqueues `count` repetitions (behind the blocker when `blocked`), releases it, and reads
 * the events. */
static int gpu_batch(const struct pb_backend *b, struct pb_run *r,
                     const struct pb_measure_plan *plan, struct pb_gpu_timer *t, int first_rep,
                     int count, bool blocked, double *samples_ms, double *between_ms) {
    *t->release_flag = 0;
    *t->timed_out = 0;
    int *d_flag = NULL, *d_timed_out = NULL;
    if (cuda_check(r, cudaHostGetDevicePointer((void **)&d_flag, (void *)t->release_flag, 0),
                   "flag") ||
        cuda_check(r, cudaHostGetDevicePointer((void **)&d_timed_out, t->timed_out, 0), "flag"))
        return PB_MEASURE_FAILED;
    if (blocked &&
        cuda_check(
            r, (cudaError_t)pb_gpu_block_stream(t->stream, d_flag, d_timed_out, BLOCKER_TIMEOUT_NS),
            "stream blocker"))
        return PB_MEASURE_FAILED;
    int failed = cuda_check(r, cudaEventRecord(t->batch_start, t->stream), "event");
    int enqueued = 0;
    for (int i = 0; i < count && !failed && !pb_interrupt_pending(); i++, enqueued++) {
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
    int waited = wait_gpu(r, plan, t->stream, "repetitions");
    if (waited == PB_MEASURE_TIMEOUT) return waited;
    if (failed) return PB_MEASURE_FAILED;
    if (waited != PB_MEASURE_OK) return waited;
    if (enqueued < count) return PB_MEASURE_INTERRUPTED;
    if (blocked && *t->timed_out) return GPU_BATCH_UNBLOCK;
    double timed_ms = 0;
    for (int i = 0; i < count; i++) {
        float ms = 0;
        if (cuda_check(r, cudaEventElapsedTime(&ms, t->start[i], t->stop[i]), "event time"))
            return PB_MEASURE_FAILED;
        samples_ms[i] = ms;
        timed_ms += ms;
    }
    /* The batch's span on the GPU less its timed intervals: what each repetition costs
     * besides the timed run (reset, poison, L2 flush, gaps between commands). */
    float span_ms = 0;
    if (cuda_check(r, cudaEventElapsedTime(&span_ms, t->batch_start, t->stop[count - 1]),
                   "event time"))
        return PB_MEASURE_FAILED;
    *between_ms += span_ms - timed_ms;
    return PB_MEASURE_OK;
}

/* --profile: one repetition on its own, after the warm-up, so that a profiler sees the
 * case's kernels and nothing else: no blocker kernel, no L2 flush, and reset and poison
 * finished before cudaProfilerStart and outside the case's NVTX range. */
static int gpu_profiled_rep(const struct pb_backend *b, struct pb_run *r,
                            const struct pb_measure_plan *plan, struct pb_gpu_timer *t,
                            double *samples_ms) {
    if (b->reset && b->reset(r) != 0) return PB_MEASURE_FAILED;
    if (b->poison && b->poison(r) != 0) return PB_MEASURE_FAILED;
    int rc = wait_gpu(r, plan, t->stream, "reset");
    if (rc != PB_MEASURE_OK) return rc;
    if (cuda_check(r, cudaProfilerStart(), "cudaProfilerStart")) return PB_MEASURE_FAILED;
    pb_nvtx_push("%s", plan->range ? plan->range : b->name);
    pb_nvtx_push("rep 0");
    int failed = cuda_check(r, cudaEventRecord(t->start[0], t->stream), "event");
    if (!failed && b->run(r) != 0) failed = 1;
    if (!failed) failed = cuda_check(r, cudaEventRecord(t->stop[0], t->stream), "event");
    rc = wait_gpu(r, plan, t->stream, "the profiled repetition");
    pb_nvtx_pop();
    pb_nvtx_pop();
    if (rc == PB_MEASURE_TIMEOUT) return rc; /* no cudaProfilerStop: it may wait on the GPU */
    cudaError_t stop = cudaProfilerStop();
    if (failed || rc != PB_MEASURE_OK) return PB_MEASURE_FAILED;
    if (cuda_check(r, stop, "cudaProfilerStop")) return PB_MEASURE_FAILED;
    float ms = 0;
    if (cuda_check(r, cudaEventElapsedTime(&ms, t->start[0], t->stop[0]), "event time"))
        return PB_MEASURE_FAILED;
    samples_ms[0] = ms;
    return PB_MEASURE_OK;
}

int pb_measure_gpu(const struct pb_backend *b, struct pb_run *r, const struct pb_measure_plan *plan,
                   struct pb_gpu_timer *t, double *samples_ms, int *count,
                   double *between_reps_us) {
    *count = 0;
    *between_reps_us = NAN;
    double between_ms = 0;
    r->stream = t->stream;
    pb_nvtx_push("warm-up");
    int rc = PB_MEASURE_OK;
    for (int w = 0; w < plan->warmup && rc == PB_MEASURE_OK; w++) {
        if (pb_interrupt_pending())
            rc = PB_MEASURE_INTERRUPTED;
        else if (untimed_run(b, r) != 0)
            rc = PB_MEASURE_FAILED;
    }
    /* Waited for even after a failure or an interruption, so no work is left running. */
    int waited = wait_gpu(r, plan, t->stream, "warm-up");
    pb_nvtx_pop();
    if (waited == PB_MEASURE_TIMEOUT) return waited;
    if (rc == PB_MEASURE_OK) rc = waited;
    if (rc != PB_MEASURE_OK) return rc;
    if (plan->profile) {
        if (pb_interrupt_pending()) return PB_MEASURE_INTERRUPTED;
        rc = gpu_profiled_rep(b, r, plan, t, samples_ms);
        if (rc == PB_MEASURE_OK) *count = 1;
        return rc;
    }
    /* Batches behind the blocker keep host launch gaps out of the times; a backend that
     * waits on the host inside run() (or takes over BLOCKER_TIMEOUT_NS to enqueue a batch)
     * cannot be blocked, and is timed one unblocked repetition at a time instead: its
     * times then include whatever host waits its run() has, as a user would see. */
    bool blocked = true;
    while (*count < plan->reps) {
        if (pb_interrupt_pending()) return PB_MEASURE_INTERRUPTED;
        int batch = plan->reps - *count < t->batch ? plan->reps - *count : t->batch;
        if (!blocked) batch = 1;
        rc = gpu_batch(b, r, plan, t, *count, batch, blocked, samples_ms + *count, &between_ms);
        if (rc == GPU_BATCH_UNBLOCK) {
            blocked = false;
            continue;
        }
        if (rc != PB_MEASURE_OK) return rc;
        *count += batch;
    }
    *between_reps_us = *count ? between_ms * 1e3 / *count : 0;
    return PB_MEASURE_OK;
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
        if (pb_interrupt_pending()) {
            pb_nvtx_pop();
            return PB_MEASURE_INTERRUPTED;
        }
        if (untimed_run(b, r) != 0) {
            pb_nvtx_pop();
            return PB_MEASURE_FAILED;
        }
        double now = pb_monotonic_s();
        if (now > plan->deadline_s) {
            pb_nvtx_pop();
            snprintf(r->err, sizeof r->err,
                     "the warm-up ran past the time limit of %g s (a CPU run cannot be preempted)",
                     plan->time_limit_s);
            return PB_MEASURE_TIMEOUT;
        }
        if (now - begin > plan->cpu_budget_s / 4) break;
    }
    pb_nvtx_pop();
    begin = pb_monotonic_s();
    while (*count < plan->reps) {
        if (pb_interrupt_pending()) return PB_MEASURE_INTERRUPTED;
        pb_nvtx_push("rep %d", *count);
        /* Any repetition may be the last one under the budget: poison before each. */
        int failed = b->reset ? b->reset(r) : 0;
        if (!failed && b->poison) failed = b->poison(r);
        double t0 = pb_monotonic_s();
        if (!failed) failed = b->run(r);
        double t1 = pb_monotonic_s();
        pb_nvtx_pop();
        if (failed) return PB_MEASURE_FAILED;
        /* A repetition that ended past the deadline does not count: the limit bounds the
         * row's wall time, and a CPU run cannot be stopped before it ends. Its output is
         * still a complete one, which collect() and the verifier may use. */
        if (t1 > plan->deadline_s) {
            if (*count == 0) {
                snprintf(r->err, sizeof r->err,
                         "no repetition finished within the time limit of %g s (the first ended "
                         "after %.1f s; a CPU run cannot be preempted)",
                         plan->time_limit_s, t1 - (plan->deadline_s - plan->time_limit_s));
                return PB_MEASURE_TIMEOUT;
            }
            break;
        }
        samples_ms[(*count)++] = (t1 - t0) * 1e3;
        if (t1 - begin > plan->cpu_budget_s) break;
    }
    return PB_MEASURE_OK;
}
