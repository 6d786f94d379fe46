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

/* Both fill samples_ms[0..*count) (capacity plan->reps) and return 0, or -1 with the
 * failure in r->err. Outputs are poisoned before the last repetition, whose output is
 * left for collect(). The GPU one also reports the mean GPU time per repetition spent
 * outside the timed interval. */
int pb_measure_gpu(const struct pb_backend *b, struct pb_run *r, const struct pb_measure_plan *plan,
                   struct pb_gpu_timer *t, double *samples_ms, int *count, double *between_reps_us);
int pb_measure_cpu(const struct pb_backend *b, struct pb_run *r, const struct pb_measure_plan *plan,
                   double *samples_ms, int *count);

#endif
