/* Timing one backend on one case: warm-up, then repetitions, each timed alone. */
#ifndef PB_MEASURE_H
#define PB_MEASURE_H

#include "device.h"
#include "primbench.h"

struct pb_measure_plan {
    int reps;            /* repetitions wanted */
    int warmup;          /* untimed runs first */
    bool cold;           /* flush the L2 before every GPU repetition */
    double cpu_budget_s; /* CPU backends stop early past this much wall time */
    double deadline_s;   /* pb_monotonic_s() past which the row times out */
    double time_limit_s; /* what the deadline came from, for the message */
    /* --profile: the GPU repetition runs alone (no blocker, no L2 flush) between
     * cudaProfilerStart and cudaProfilerStop, inside an NVTX range named `range`, so a
     * profiler filtering on that name sees exactly the case's kernels. */
    bool profile;
    const char *range;
};

/* What pb_measure_gpu and pb_measure_cpu return. */
enum pb_measure_result {
    PB_MEASURE_OK = 0,
    PB_MEASURE_FAILED = -1,      /* the backend or CUDA failed: r->err says how */
    PB_MEASURE_INTERRUPTED = -2, /* SIGINT or SIGTERM: stopped between repetitions */
    PB_MEASURE_TIMEOUT = -3      /* past plan->deadline_s: r->err says so */
};

/* What GPU timing reuses from case to case: a stream, events, the flush buffer and the
 * blocker's flag. */
struct pb_gpu_timer {
    cudaStream_t stream;
    cudaEvent_t *start, *stop;
    cudaEvent_t batch_start; /* before a batch's first repetition */
    int batch;               /* repetitions enqueued behind one blocker */
    void *flush_buffer;
    size_t flush_bytes;
    volatile int *release_flag; /* host-mapped */
    int *timed_out;             /* host-mapped */
};

/* Seconds on CLOCK_MONOTONIC. */
double pb_monotonic_s(void);

int pb_gpu_timer_init(struct pb_gpu_timer *t, const struct pb_device_info *dev, char *err,
                      size_t err_len);
void pb_gpu_timer_free(struct pb_gpu_timer *t);

/* Both fill samples_ms[0..*count) (capacity plan->reps) and return PB_MEASURE_OK, or
 * another pb_measure_result. Outputs are poisoned before the last repetition, whose
 * output is left for collect(). The GPU one also reports the mean GPU time per
 * repetition spent outside the timed interval (NAN under --profile).
 *
 * GPU: the host never blocks in cudaStreamSynchronize; it polls cudaStreamQuery against
 * the deadline, since a hung kernel cannot be interrupted. On PB_MEASURE_TIMEOUT the
 * stream still holds the unfinished work, so the caller must not issue any further CUDA
 * call that waits for it (release, free, synchronize).
 *
 * CPU: a repetition cannot be preempted either. Warm-up and repetitions stop at the
 * deadline; a repetition counts only if it ended before it, and when none did the
 * result is PB_MEASURE_TIMEOUT. */
int pb_measure_gpu(const struct pb_backend *b, struct pb_run *r, const struct pb_measure_plan *plan,
                   struct pb_gpu_timer *t, double *samples_ms, int *count, double *between_reps_us);
int pb_measure_cpu(const struct pb_backend *b, struct pb_run *r, const struct pb_measure_plan *plan,
                   double *samples_ms, int *count);

#endif
