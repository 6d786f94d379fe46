/* The one-way pipeline of DESIGN.md. Nothing here knows what a primitive computes or
 * how a backend works: it only moves data between them and writes what happened.
 *
 * A sweep stops early, keeping every row it finished, on SIGINT or SIGTERM (checked
 * between repetitions and rows), on a GPU row past the time limit (its kernel may be
 * hung, and nothing more can safely be asked of the device), and on a GPU context that
 * an error poisoned and a device reset could not bring back.
 *
 * --devices: one worker thread per GPU, each with its own device state (timer, stream,
 * flush buffer, input, reference); they take input groups (adjacent cases sharing one
 * input) from a shared counter, so a case's rows all run on one device. Rows are written
 * and flushed the moment they finish, in the order they finish, so an interruption or a
 * crash loses no finished row; at the end of a run with more than one worker the output
 * is rewritten in sweep order (a temporary file renamed into place), so it holds the
 * same rows in the same order as a single-device run. Host work is gated: a CPU row runs
 * alone (no other row, input or reference on the host meanwhile), since other threads'
 * host work would disturb its time; GPU rows, inputs and references run concurrently. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "device.h"
#include "interrupt.h"
#include "measure.h"
#include "meta.h"
#include "nvtx.h"
#include "report.h"
#include "results.h"
#include "resume.h"
#include "row_order.h"
#include "runner.h"
#include "shard.h"
#include "sweep.h"

#define GIB 1073741824.0

/* Why the sweep ended before its last case. */
enum stop_reason {
    STOP_NONE,
    STOP_SIGNAL,   /* SIGINT or SIGTERM */
    STOP_GPU_HUNG, /* a GPU row ran past the time limit */
    STOP_GPU_LOST  /* a poisoned context could not be recreated */
};

/* Host work of several threads: CPU rows exclusive, everything else shared, writers
 * first (a waiting CPU row holds new shared work back, so it is not starved). */
struct host_gate {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int sharing;    /* threads in shared host work */
    bool exclusive; /* a CPU row is running */
    int exclusive_waiting;
};

static void gate_init(struct host_gate *g) {
    pthread_mutex_init(&g->lock, NULL);
    pthread_cond_init(&g->changed, NULL);
    g->sharing = 0;
    g->exclusive = false;
    g->exclusive_waiting = 0;
}

static void gate_destroy(struct host_gate *g) {
    pthread_mutex_destroy(&g->lock);
    pthread_cond_destroy(&g->changed);
}

static void gate_enter(struct host_gate *g, bool exclusive) {
    pthread_mutex_lock(&g->lock);
    if (exclusive) {
        g->exclusive_waiting++;
        while (g->exclusive || g->sharing) pthread_cond_wait(&g->changed, &g->lock);
        g->exclusive_waiting--;
        g->exclusive = true;
    } else {
        while (g->exclusive || g->exclusive_waiting) pthread_cond_wait(&g->changed, &g->lock);
        g->sharing++;
    }
    pthread_mutex_unlock(&g->lock);
}

static void gate_leave(struct host_gate *g, bool exclusive) {
    pthread_mutex_lock(&g->lock);
    if (exclusive)
        g->exclusive = false;
    else
        g->sharing--;
    pthread_cond_broadcast(&g->changed);
    pthread_mutex_unlock(&g->lock);
}

/* What the workers share. Fields below `lock` change during the run: only under it. */
struct experiment {
    const struct pb_config *cfg; /* a suite's cases each run under their part's config */
    const struct pb_run_options *opt;
    struct pb_columns columns; /* the output's axis columns */
    const struct pb_sweep *sweep;
    const size_t *row_start;   /* each case's first row position, and the row count last */
    const size_t *group_start; /* the first case of each input group, and the count last */
    size_t ngroups;
    struct pb_shard shard;
    struct pb_resume done; /* --resume: the rows the output already holds (read-only) */
    struct host_gate gate;
    pthread_mutex_t lock;
    size_t next_group;
    FILE *out;
    struct pb_row *rows; /* this run's rows by sweep position, for the summary */
    bool *filled;
    size_t nrows;
    size_t cases_started;
    size_t cases_total; /* in this shard */
    enum stop_reason stop;
    char stop_message[512];
};

/* One device's thread and what it carries from case to case. */
struct worker {
    struct experiment *x;
    const struct pb_config *part;          /* the current case's config (a suite's part) */
    const struct pb_primitive *prim;       /* the current case's primitive */
    const struct pb_primitive *input_prim; /* the primitive that made input */
    struct pb_device_info dev;
    bool want_gpu; /* the GPU is there and some GPU backend is selected */
    struct pb_gpu_timer timer;
    struct pb_input input;
    const struct pb_case *input_case; /* the case input was made for, NULL if none */
    char input_error[PB_REASON_LEN];
    char gpu_skip[PB_REASON_LEN]; /* GPU rows of this input are skipped: device memory */
    void *reference;              /* the current case's reference result */
    double *samples_ms;
    bool hung; /* a GPU row of this worker timed out: leave its device alone */
    pthread_t thread;
};

static bool output_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* mkdir -p of the output's folder. */
static int make_parent_dirs(const char *path) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(dir, 0777) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return 0;
}

bool pb_device_memory_fits(size_t needed, size_t free_bytes, size_t held_bytes, char *why,
                           size_t why_len) {
    /* Compared without adding, so that no sum can wrap. */
    if (needed <= held_bytes || needed - held_bytes <= free_bytes) return true;
    double available = (double)free_bytes + (double)held_bytes;
    snprintf(why, why_len, "needs %.2f GiB, %.2f GiB free", needed / GIB, available / GIB);
    return false;
}

static size_t input_device_bytes(const struct pb_input *in) {
    return in->device ? (size_t)in->n * pb_dtype_size(in->dtype) : 0;
}

/* The device memory a row of case c needs: the primitive's estimate, or its input alone. */
static size_t case_device_bytes(const struct worker *w, const struct pb_case *c) {
    if (w->prim->device_bytes) return w->prim->device_bytes(c);
    enum pb_dtype t = PB_U32;
    for (int i = 0; i < c->naxes; i++)
        if (strcmp(c->axes[i].name, "dtype") == 0) pb_dtype_parse(pb_case_choice(c, "dtype"), &t);
    for (int i = 0; i < c->naxes; i++)
        if (strcmp(c->axes[i].name, "n") == 0)
            return (size_t)pb_case_int(c, "n") * pb_dtype_size(t);
    return 0;
}

/* Whether a row of case c fits in the free device memory; when not, why says so. */
static bool memory_fits(const struct worker *w, const struct pb_case *c, char *why,
                        size_t why_len) {
    size_t free_bytes = 0, total = 0;
    if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) {
        cudaGetLastError();
        return true; /* unknown: let the allocation itself decide */
    }
    return pb_device_memory_fits(case_device_bytes(w, c), free_bytes, input_device_bytes(&w->input),
                                 why, why_len);
}

/* After a cudaErrorMemoryAllocation: the "needs X GiB, Y GiB free" reason, or, when the
 * estimate says it should have fit, what the allocation reported and what is free. */
static void memory_reason(const struct worker *w, const struct pb_case *c, const char *detail,
                          char *why, size_t why_len) {
    if (!memory_fits(w, c, why, why_len)) return;
    size_t free_bytes = 0, total = 0;
    cudaMemGetInfo(&free_bytes, &total);
    snprintf(why, why_len, "needs %.2f GiB or more (%.200s), %.2f GiB free",
             case_device_bytes(w, c) / GIB, detail,
             (free_bytes + input_device_bytes(&w->input)) / GIB);
}

static void drop_input(struct worker *w) {
    if (w->input_case) w->input_prim->free_input(&w->input);
    w->input_case = NULL;
}

/* Makes the case's input unless the previous case had the same one (with a device copy
 * where one is wanted). The device copy is left out, and the case's GPU rows skipped,
 * when the case would not fit in device memory or its allocation runs out of it. */
static void ensure_input(struct worker *w, const struct pb_case *c, bool want_device) {
    if (w->input_case && pb_case_same_input(w->input_case, c) &&
        (w->input.device || !want_device || w->gpu_skip[0]))
        return;
    drop_input(w);
    w->input_error[0] = '\0';
    w->gpu_skip[0] = '\0';
    if (want_device && !memory_fits(w, c, w->gpu_skip, sizeof w->gpu_skip)) want_device = false;
    pb_nvtx_push("setup: input");
    if (want_device) cudaGetLastError(); /* so that a failure below is the input's own */
    int rc = w->prim->make_input(c, want_device, &w->input, w->input_error, sizeof w->input_error);
    if (rc != 0 && want_device && cudaGetLastError() == cudaErrorMemoryAllocation) {
        /* Out of device memory: the CPU rows can still run on a host-only input. */
        w->prim->free_input(&w->input);
        memory_reason(w, c, w->input_error, w->gpu_skip, sizeof w->gpu_skip);
        w->input_error[0] = '\0';
        rc = w->prim->make_input(c, false, &w->input, w->input_error, sizeof w->input_error);
    }
    if (rc != 0 && !w->input_error[0])
        snprintf(w->input_error, sizeof w->input_error, "input generation failed");
    pb_nvtx_pop();
    if (w->input_error[0]) {
        w->prim->free_input(&w->input);
        return;
    }
    w->input_case = c;
    w->input_prim = w->prim;
}

/* After a GPU row failed: checks the context. A sticky error (illegal address, launch
 * failure, a trap) makes every later CUDA call fail the same way, so the device is reset
 * and what lived on it made again: the timer now, the input by the next ensure_input.
 * Returns 0 when the context was fine, 1 when it was recreated, -1 when it could not be
 * (stop_message says why). Only this worker's device is reset. */
static int recover_gpu(struct worker *w, char *stop_message, size_t stop_len) {
    cudaGetLastError(); /* a non-sticky error is cleared by this; a sticky one is not */
    cudaError_t sticky = cudaDeviceSynchronize();
    if (sticky == cudaSuccess) sticky = cudaGetLastError();
    if (sticky == cudaSuccess) return 0;
    pb_gpu_timer_free(&w->timer);
    drop_input(w); /* its device copy dies with the context */
    cudaError_t e = cudaDeviceReset();
    if (e == cudaSuccess) e = cudaSetDevice(w->dev.ordinal);
    if (e == cudaSuccess) e = cudaFree(NULL); /* makes the new context now */
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    char err[256] = "";
    if (e != cudaSuccess)
        snprintf(err, sizeof err, "%s", cudaGetErrorString(e));
    else if (pb_gpu_timer_init(&w->timer, &w->dev, err, sizeof err) != 0)
        e = cudaErrorUnknown;
    if (e != cudaSuccess) {
        snprintf(stop_message, stop_len,
                 "the GPU context was poisoned (%s) and could not be recreated: %s",
                 cudaGetErrorString(sticky), err);
        return -1;
    }
    fprintf(stderr, "bench: %s poisoned the GPU context; the device was reset\n",
            cudaGetErrorString(sticky));
    return 1;
}

/* How a row ended. */
enum row_end {
    ROW_DONE,      /* complete: write it */
    ROW_ABANDONED, /* interrupted: not written */
    ROW_HUNG       /* a GPU row past the time limit: write it, touch the GPU no more */
};

static enum row_end measure_backend(struct worker *w, const struct pb_case *c,
                                    const struct pb_backend *b, const char *range,
                                    struct pb_row *row) {
    const struct pb_config *cfg = w->part;
    const struct pb_run_options *opt = w->x->opt;
    bool gpu = b->target == PB_TARGET_GPU;
    if (gpu && !memory_fits(w, c, row->reason, sizeof row->reason)) {
        row->status = PB_STATUS_SKIPPED;
        return ROW_DONE;
    }
    struct pb_run r = {.c = c, .in = &w->input};
    r.out = calloc(1, w->prim->output_bytes(c));
    double limit = opt->time_limit_s;
    struct pb_measure_plan plan = {
        .reps = opt->profile ? 1 : cfg->reps,
        .warmup = opt->profile ? 1 : cfg->warmup,
        .cold = cfg->cold && !opt->profile,
        .cpu_budget_s = cfg->cpu_budget_s,
        .deadline_s = pb_monotonic_s() + limit,
        .time_limit_s = limit,
        .profile = opt->profile,
        .range = range,
    };
    int count = 0;
    int rc = r.out ? PB_MEASURE_OK : PB_MEASURE_FAILED;
    if (gpu) cudaGetLastError(); /* so that a failure in prepare is prepare's own */
    if (rc == PB_MEASURE_OK && b->prepare && b->prepare(&r) != 0) {
        rc = PB_MEASURE_FAILED;
        if (gpu && cudaGetLastError() == cudaErrorMemoryAllocation) {
            row->status = PB_STATUS_SKIPPED;
            memory_reason(w, c, r.err[0] ? r.err : "prepare", row->reason, sizeof row->reason);
            if (b->release) b->release(&r);
            free(r.out);
            return ROW_DONE;
        }
    }
    if (rc == PB_MEASURE_OK)
        rc = gpu ? pb_measure_gpu(b, &r, &plan, &w->timer, w->samples_ms, &count,
                                  &row->between_reps_us)
                 : pb_measure_cpu(b, &r, &plan, w->samples_ms, &count);
    if (rc == PB_MEASURE_TIMEOUT && gpu) {
        /* The stream still holds the work: release() would free memory a running kernel
         * uses, and cudaFree waits for the device. Leave everything as it is. */
        row->status = PB_STATUS_TIMEOUT;
        snprintf(row->reason, sizeof row->reason, "%s", r.err);
        return ROW_HUNG;
    }
    enum row_end end = rc == PB_MEASURE_INTERRUPTED ? ROW_ABANDONED : ROW_DONE;
    if (rc == PB_MEASURE_OK && b->collect && b->collect(&r) != 0) rc = PB_MEASURE_FAILED;
    if (rc == PB_MEASURE_TIMEOUT) {
        row->status = PB_STATUS_TIMEOUT;
        snprintf(row->reason, sizeof row->reason, "%s", r.err);
    } else if (rc != PB_MEASURE_OK) {
        row->status = PB_STATUS_ERROR;
        snprintf(row->reason, sizeof row->reason, "%s", r.err[0] ? r.err : "backend failed");
    } else if (cfg->verify) {
        pb_nvtx_push("verify");
        int wrong =
            w->prim->verify(c, &w->input, w->reference, r.out, row->reason, sizeof row->reason);
        pb_nvtx_pop();
        row->status = wrong ? PB_STATUS_WRONG : PB_STATUS_OK;
    } else {
        row->status = PB_STATUS_OK;
        snprintf(row->reason, sizeof row->reason, "not verified (config: verify false)");
    }
    /* Only a verified (or unverified by request) output gets a time; results.c writes
     * none for any other status either. */
    if (row->status == PB_STATUS_OK) pb_summarize(w->samples_ms, count, &row->time_ms);
    if (b->release) b->release(&r);
    free(r.out);
    return end;
}

static int write_row(struct experiment *x, const struct pb_row *row) {
    return x->opt->format == PB_FORMAT_JSON ? pb_results_write_json_row(x->out, row)
                                            : pb_results_write_row(x->out, row);
}

/* Whether the sweep is to stop: a signal came, or some worker stopped it. */
static bool stopping(struct experiment *x) {
    pthread_mutex_lock(&x->lock);
    if (x->stop == STOP_NONE && pb_interrupt_pending()) x->stop = STOP_SIGNAL;
    bool stop = x->stop != STOP_NONE;
    pthread_mutex_unlock(&x->lock);
    return stop;
}

/* Stops the sweep for every worker; the first reason given is the one reported. */
static void stop_sweep(struct experiment *x, enum stop_reason why, const char *message) {
    pthread_mutex_lock(&x->lock);
    if (x->stop == STOP_NONE) {
        x->stop = why;
        if (message) snprintf(x->stop_message, sizeof x->stop_message, "%s", message);
    }
    pthread_mutex_unlock(&x->lock);
}

/* Writes a finished row (flushed at once) and keeps it for the summary. */
static void record_row(struct experiment *x, size_t pos, const struct pb_row *row) {
    pthread_mutex_lock(&x->lock);
    if (write_row(x, row) != 0)
        fprintf(stderr, "bench: %s: write failed: %s\n", x->cfg->output, strerror(errno));
    x->rows[pos] = *row;
    x->filled[pos] = true;
    x->nrows++;
    pthread_mutex_unlock(&x->lock);
}

static void show_progress(struct experiment *x, const struct worker *w, const char *backend,
                          const char *described) {
    pthread_mutex_lock(&x->lock);
    if (w->dev.available && x->opt->ndevices > 1)
        fprintf(stderr, "\r\033[K[%zu/%zu] gpu %d: %s %s", x->cases_started, x->cases_total,
                w->dev.ordinal, backend, described);
    else
        fprintf(stderr, "\r\033[K[%zu/%zu] %s %s", x->cases_started, x->cases_total, backend,
                described);
    pthread_mutex_unlock(&x->lock);
}

static void run_case(struct worker *w, size_t case_index) {
    struct experiment *x = w->x;
    const struct pb_config *cfg = pb_config_part(x->cfg, pb_sweep_part(x->sweep, case_index));
    const struct pb_run_options *opt = x->opt;
    const struct pb_case *c = &x->sweep->cases[case_index];
    w->part = cfg;
    w->prim = cfg->primitive;
    char described[512];
    pb_case_describe(c, described, sizeof described);
    /* Which backends still need a row of this case (all but those --resume found). A
     * config may list any number of backends, plugins' included. */
    bool pending[cfg->nbackends > 0 ? cfg->nbackends : 1];
    bool needs_input = false, wants_device = false;
    int npending = 0;
    for (int i = 0; i < cfg->nbackends; i++) {
        char why[PB_REASON_LEN];
        const struct pb_backend *b = cfg->backends[i];
        pending[i] = !pb_resume_has(&x->done, c, b->name);
        npending += pending[i];
        bool runs = pending[i] && b->supports(c, why, sizeof why);
        needs_input |= runs && (b->target == PB_TARGET_CPU || w->want_gpu);
        wants_device |= runs && b->target == PB_TARGET_GPU && w->want_gpu;
    }
    pthread_mutex_lock(&x->lock);
    x->cases_started++;
    pthread_mutex_unlock(&x->lock);
    if (!npending) return; /* resumed: every row of this case is in the output already */
    double setup_start = pb_monotonic_s();
    gate_enter(&x->gate, false);
    if (needs_input) ensure_input(w, c, wants_device);
    bool have_reference = false;
    free(w->reference);
    w->reference = NULL;
    if (needs_input && !w->input_error[0] && cfg->verify) {
        pb_nvtx_push("setup: reference");
        w->reference = calloc(1, w->prim->output_bytes(c));
        have_reference = w->reference && w->prim->reference(c, &w->input, w->reference) == 0;
        pb_nvtx_pop();
    }
    gate_leave(&x->gate, false);
    double setup_ms = (pb_monotonic_s() - setup_start) * 1e3;
    for (int i = 0; i < cfg->nbackends; i++) {
        const struct pb_backend *b = cfg->backends[i];
        if (!pending[i]) continue;
        if (stopping(x)) break;
        bool gpu = b->target == PB_TARGET_GPU;
        struct pb_row row;
        memset(&row, 0, sizeof row);
        row.c = c;
        row.backend = b;
        row.columns = &x->columns;
        row.device = !gpu ? -1 : w->want_gpu ? w->dev.ordinal : -2;
        row.between_reps_us = NAN;
        w->prim->work(c, &row.elements, &row.bytes);
        row.bound_gbytes_per_s = gpu ? w->dev.copy_probe_gbytes_per_s : 0;
        row.setup_ms = setup_ms;
        /* A CPU row runs alone on the host; the wait for that is not the row's time. */
        bool exclusive = !gpu;
        gate_enter(&x->gate, exclusive);
        double row_start = pb_monotonic_s();
        if (opt->progress) show_progress(x, w, b->name, described);
        /* After a device reset the input must be made again (same seed, same keys). */
        if (needs_input && !w->input_case && !w->input_error[0]) ensure_input(w, c, wants_device);
        enum row_end end = ROW_DONE;
        if (!b->supports(c, row.reason, sizeof row.reason)) {
            row.status = PB_STATUS_SKIPPED;
        } else if (gpu && !w->want_gpu) {
            row.status = PB_STATUS_SKIPPED;
            snprintf(row.reason, sizeof row.reason, "%s", w->dev.unavailable_reason);
        } else if (w->input_error[0]) {
            row.status = PB_STATUS_ERROR;
            snprintf(row.reason, sizeof row.reason, "%s", w->input_error);
        } else if (gpu && w->gpu_skip[0]) {
            row.status = PB_STATUS_SKIPPED;
            snprintf(row.reason, sizeof row.reason, "%s", w->gpu_skip);
        } else if (cfg->verify && !have_reference) {
            row.status = PB_STATUS_ERROR;
            snprintf(row.reason, sizeof row.reason, "the reference could not be computed");
        } else {
            char range[600];
            snprintf(range, sizeof range, "%s %s", b->name, described);
            /* "reduce:butterfly n=...": ncu's --nvtx-include reads '/' as nesting, so the
             * backend's slash would make the range impossible to select. */
            for (char *p = range; *p && *p != ' '; p++)
                if (*p == '/') *p = ':';
            /* --profile on a GPU row: the measurement opens the case's range around the
             * profiled repetition alone, so the warm-up stays outside it. */
            bool range_here = !(opt->profile && gpu);
            if (range_here) pb_nvtx_push("%s", range);
            end = measure_backend(w, c, b, range, &row);
            if (range_here) pb_nvtx_pop();
        }
        row.wall_ms = (pb_monotonic_s() - row_start) * 1e3;
        gate_leave(&x->gate, exclusive);
        if (end == ROW_ABANDONED) {
            stop_sweep(x, STOP_SIGNAL, NULL); /* the row in progress is dropped, not written */
            break;
        }
        record_row(x, x->row_start[case_index] + (size_t)i, &row);
        char message[512];
        if (end == ROW_HUNG) {
            w->hung = true;
            snprintf(message, sizeof message,
                     "%.60s %.200s: %.200s; the GPU may be hung, so the sweep stops here", b->name,
                     described, row.reason);
            stop_sweep(x, STOP_GPU_HUNG, message);
            break;
        }
        if (gpu && w->want_gpu && row.status == PB_STATUS_ERROR &&
            recover_gpu(w, message, sizeof message) < 0) {
            stop_sweep(x, STOP_GPU_LOST, message);
            break;
        }
    }
}

/* The next input group of this shard that no worker has taken; false when none is left. */
static bool take_group(struct experiment *x, size_t *g) {
    pthread_mutex_lock(&x->lock);
    while (x->next_group < x->ngroups && !pb_shard_owns(&x->shard, x->next_group)) x->next_group++;
    bool got = x->next_group < x->ngroups;
    if (got) *g = x->next_group++;
    pthread_mutex_unlock(&x->lock);
    return got;
}

static void *worker_main(void *arg) {
    struct worker *w = arg;
    struct experiment *x = w->x;
    /* The current device is per thread: this worker's, for everything it does. */
    if (w->dev.available) cudaSetDevice(w->dev.ordinal);
    size_t g;
    while (!stopping(x) && take_group(x, &g))
        for (size_t i = x->group_start[g]; i < x->group_start[g + 1] && !stopping(x); i++)
            run_case(w, i);
    return NULL;
}

static bool any_gpu_backend(const struct pb_config *cfg) {
    for (int p = 0; p < pb_config_part_count(cfg); p++) {
        const struct pb_config *part = pb_config_part(cfg, p);
        for (int i = 0; i < part->nbackends; i++)
            if (part->backends[i]->target == PB_TARGET_GPU) return true;
    }
    return false;
}

/* The most repetitions any part asks for: the size of a worker's sample buffer. */
static int most_reps(const struct pb_config *cfg) {
    int reps = 1;
    for (int p = 0; p < pb_config_part_count(cfg); p++)
        if (pb_config_part(cfg, p)->reps > reps) reps = pb_config_part(cfg, p)->reps;
    return reps;
}

/* The first row position of each case (its part's backends after the rows before it),
 * and the row count after the last case; NULL when out of memory. */
static size_t *row_starts(const struct pb_config *cfg, const struct pb_sweep *sw) {
    size_t *start = calloc(sw->count + 1, sizeof *start);
    for (size_t i = 0; start && i < sw->count; i++)
        start[i + 1] = start[i] + (size_t)pb_config_part(cfg, pb_sweep_part(sw, i))->nbackends;
    return start;
}

/* A suite's summary on stdout: a table for each run of rows of one primitive (its parts in
 * order). */
static void print_summary(const struct pb_columns *cols, const struct pb_row *rows, size_t count) {
    for (size_t start = 0, end; start < count; start = end) {
        const char *name = rows[start].backend->primitive;
        for (end = start; end < count && strcmp(rows[end].backend->primitive, name) == 0;) end++;
        const struct pb_primitive *p = pb_columns_primitive(cols, name);
        if (p) pb_report_markdown(stdout, p, rows + start, end - start);
    }
}

/* Appends arg to buf as one shell word: quoted unless it is plainly safe. */
static void shell_word(char *buf, size_t len, const char *arg) {
    size_t at = strlen(buf);
    bool plain = *arg != '\0';
    for (const char *p = arg; *p; p++)
        plain &= strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%",
                        *p) != NULL;
    if (at && at + 1 < len) buf[at++] = ' ';
    buf[at] = '\0';
    if (plain) {
        snprintf(buf + at, len - at, "%s", arg);
        return;
    }
    /* Single quotes; an embedded one becomes '\'' */
    if (at + 1 < len) buf[at++] = '\'';
    for (const char *p = arg; *p && at + 5 < len; p++) {
        if (*p == '\'') {
            memcpy(buf + at, "'\\''", 4);
            at += 4;
        } else {
            buf[at++] = *p;
        }
    }
    if (at + 1 < len) buf[at++] = '\'';
    buf[at] = '\0';
}

/* The command that continues this run: the same arguments with --resume for --force. */
static void resume_command(const struct pb_run_options *opt, char *buf, size_t len) {
    buf[0] = '\0';
    shell_word(buf, len, opt->program ? opt->program : "bench");
    shell_word(buf, len, opt->argc > 0 ? opt->argv[0] : "run");
    shell_word(buf, len, "--resume");
    for (int i = 1; i < opt->argc; i++)
        if (strcmp(opt->argv[i], "--force") != 0 && strcmp(opt->argv[i], "--resume") != 0)
            shell_word(buf, len, opt->argv[i]);
}

/* Opens the output for this run: a new file (meta and header written), or the
 * existing one for --resume (a cut last row dropped, its meta told of the resume). */
static int open_output(struct experiment *x, const struct worker *workers, int nworkers,
                       const char *meta_path) {
    const struct pb_config *cfg = x->cfg;
    const struct pb_run_options *opt = x->opt;
    char err[512] = "";
    if (x->done.exists) {
        if (x->done.valid_bytes < x->done.file_bytes) {
            if (truncate(cfg->output, x->done.valid_bytes) != 0) {
                fprintf(stderr, "bench: %s: cannot drop its incomplete last row: %s\n", cfg->output,
                        strerror(errno));
                return -1;
            }
            fprintf(stderr, "bench: %s: dropped an incomplete last row\n", cfg->output);
        }
        if (pb_meta_add_resumed(meta_path, &workers[0].dev, opt->argc, opt->argv, opt->time_limit_s,
                                err, sizeof err) != 0) {
            fprintf(stderr, "bench: %s\n", err);
            return -1;
        }
        x->out = fopen(cfg->output, "a");
    } else {
        struct pb_device_info devs[PB_MAX_DEVICES];
        int ordinals[PB_MAX_DEVICES];
        for (int i = 0; i < nworkers; i++) {
            devs[i] = workers[i].dev;
            ordinals[i] = workers[i].dev.ordinal;
        }
        struct pb_meta_run run = {.profile = opt->profile,
                                  .time_limit_s = opt->time_limit_s,
                                  .format = opt->format,
                                  .shard = &x->shard,
                                  .devices = ordinals,
                                  .ndevices = workers[0].dev.available ? nworkers : 0};
        if (pb_meta_write(meta_path, cfg, devs, nworkers, opt->argc, opt->argv, err, sizeof err) !=
                0 ||
            pb_meta_add_run_options(meta_path, &run, err, sizeof err) != 0) {
            fprintf(stderr, "bench: %s\n", err);
            return -1;
        }
        x->out = fopen(cfg->output, "w");
    }
    if (!x->out) {
        fprintf(stderr, "bench: %s: %s\n", cfg->output, strerror(errno));
        return -1;
    }
    /* A buffer far larger than a row, flushed after each: a row reaches the file in one
     * write(2), so no other process ever reads half of one. */
    setvbuf(x->out, NULL, _IOFBF, 1 << 16);
    bool header = opt->format == PB_FORMAT_CSV && (!x->done.exists || x->done.needs_header);
    if (header && pb_results_write_header_columns(x->out, &x->columns) != 0) {
        fprintf(stderr, "bench: %s: %s\n", cfg->output, strerror(errno));
        return -1;
    }
    return 0;
}

/* The devices to run on: opt's list, all of them, or the one of --device. With no GPU
 * selected or none there, one worker without a GPU (GPU rows skipped, as a plain run).
 * Returns the count, or -1 (message on stderr) when a listed device does not exist. */
static int choose_devices(const struct pb_config *cfg, const struct pb_run_options *opt,
                          int *ordinals) {
    ordinals[0] = opt->device;
    if (!opt->devices_all && opt->ndevices <= 1) {
        if (opt->ndevices == 1) ordinals[0] = opt->devices[0];
        return 1;
    }
    if (!any_gpu_backend(cfg)) return 1; /* CPU rows run one at a time anyway */
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        cudaGetLastError();
        count = 0;
    }
    if (opt->devices_all) {
        if (count == 0) {
            fprintf(stderr,
                    "bench: --devices all: no CUDA device (%s); running on the host alone, GPU "
                    "rows skipped\n",
                    e != cudaSuccess ? cudaGetErrorString(e) : "none found");
            return 1;
        }
        if (count > PB_MAX_DEVICES) count = PB_MAX_DEVICES;
        for (int i = 0; i < count; i++) ordinals[i] = i;
        return count;
    }
    for (int i = 0; i < opt->ndevices; i++) {
        if (opt->devices[i] >= count) {
            fprintf(stderr, "bench: --devices: there is no device %d (%d found%s%s)\n",
                    opt->devices[i], count, e != cudaSuccess ? ": " : "",
                    e != cudaSuccess ? cudaGetErrorString(e) : "");
            return -1;
        }
        ordinals[i] = opt->devices[i];
    }
    return opt->ndevices;
}

/* Opens worker w's device: properties, copy probe, timer. On the calling thread, which
 * the worker's own thread repeats with cudaSetDevice. */
static void open_worker(struct worker *w, const struct pb_config *cfg, int ordinal) {
    char err[512] = "";
    pb_device_open(ordinal, &w->dev);
    if (w->dev.available && any_gpu_backend(cfg)) {
        pb_device_probe_copy(&w->dev);
        w->want_gpu = pb_gpu_timer_init(&w->timer, &w->dev, err, sizeof err) == 0;
        if (!w->want_gpu) {
            snprintf(w->dev.unavailable_reason, sizeof w->dev.unavailable_reason, "%.200s", err);
            w->dev.available = false;
        }
    }
}

static void close_worker(struct worker *w) {
    /* After a hang, freeing device memory would wait for the hung kernel. */
    if (!w->hung) {
        if (w->dev.available) cudaSetDevice(w->dev.ordinal);
        drop_input(w);
        if (w->want_gpu) pb_gpu_timer_free(&w->timer);
    }
    free(w->reference);
    free(w->samples_ms);
}

/* The first case of each input group, and the case count after the last group. */
static size_t *group_starts(const struct pb_sweep *sw, size_t *ngroups) {
    size_t *group = calloc(sw->count + 1, sizeof *group);
    size_t *start = calloc(sw->count + 2, sizeof *start);
    if (!group || !start) {
        free(group);
        free(start);
        return NULL;
    }
    *ngroups = pb_sweep_input_groups(sw, group);
    for (size_t i = sw->count; i-- > 0;) start[group[i]] = i;
    start[*ngroups] = sw->count;
    free(group);
    return start;
}

int pb_experiment_run(const struct pb_config *cfg, struct pb_run_options *opt) {
    if (opt->time_limit_s <= 0) opt->time_limit_s = PB_DEFAULT_TIME_LIMIT_S;
    opt->gpu_hung = false;
    opt->gpu_lost = false;
    char meta_path[4200];
    snprintf(meta_path, sizeof meta_path, "%s.meta.json", cfg->output);
    struct experiment x = {.cfg = cfg, .opt = opt, .shard = opt->shard};
    struct timespec started_at;
    clock_gettime(CLOCK_MONOTONIC, &started_at);
    if (pb_columns_from_config(cfg, &x.columns) != 0) {
        fprintf(stderr, "bench: %s: more axis columns than an output holds\n", cfg->path);
        return 2;
    }
    char err[512] = "";
    int ordinals[PB_MAX_DEVICES];
    int nworkers = choose_devices(cfg, opt, ordinals);
    if (nworkers < 0) return 2;
    if (opt->resume) {
        if (pb_resume_load(cfg, cfg->output, meta_path, opt->format, opt->profile, &opt->shard,
                           &x.done, err, sizeof err) != 0) {
            fprintf(stderr, "bench: %s\n", err);
            pb_resume_free(&x.done);
            return 2;
        }
    } else if (output_exists(cfg->output) && !opt->force) {
        fprintf(stderr,
                "bench: %s: output exists; use --force to overwrite it or --resume to "
                "continue it\n",
                cfg->output);
        return 2;
    }
    if (make_parent_dirs(cfg->output) != 0) {
        fprintf(stderr, "bench: %s: cannot create its folder: %s\n", cfg->output, strerror(errno));
        pb_resume_free(&x.done);
        return 2;
    }
    struct pb_sweep sweep = {0};
    int status = 2;
    if (pb_sweep_expand(cfg, &sweep) != 0) {
        fprintf(stderr, "bench: %s: cannot expand the sweep (out of memory)\n", cfg->path);
        pb_resume_free(&x.done);
        return 2;
    }
    x.sweep = &sweep;
    x.row_start = row_starts(cfg, &sweep);
    x.group_start = group_starts(&sweep, &x.ngroups);
    for (size_t g = 0; x.group_start && g < x.ngroups; g++)
        if (pb_shard_owns(&x.shard, g)) x.cases_total += x.group_start[g + 1] - x.group_start[g];
    gate_init(&x.gate);
    pthread_mutex_init(&x.lock, NULL);
    struct worker workers[PB_MAX_DEVICES];
    memset(workers, 0, sizeof workers);
    for (int i = 0; i < nworkers; i++) {
        workers[i].x = &x;
        open_worker(&workers[i], cfg, ordinals[i]);
        workers[i].samples_ms = calloc((size_t)most_reps(cfg), sizeof *workers[i].samples_ms);
    }
    struct pb_interrupt_guard guard;
    bool guarded = false;
    size_t positions = (x.row_start ? x.row_start[sweep.count] : 0) + 1;
    x.rows = calloc(positions, sizeof *x.rows);
    x.filled = calloc(positions, sizeof *x.filled);
    bool have_memory = x.rows && x.filled && x.group_start && x.row_start;
    for (int i = 0; i < nworkers; i++) have_memory &= workers[i].samples_ms != NULL;
    if (!have_memory) {
        fprintf(stderr, "bench: out of memory\n");
        goto out;
    }
    for (int p = 0; p < pb_config_part_count(cfg); p++) {
        if (pb_config_part(cfg, p)->nbackends > 64) {
            fprintf(stderr, "bench: %s: more than 64 backends selected\n", cfg->path);
            goto out;
        }
    }
    /* From here on a signal only stops the sweep: the output is never left half made. */
    guarded = pb_interrupt_install(&guard) == 0;
    if (open_output(&x, workers, nworkers, meta_path) != 0) goto out;
    if (!workers[0].dev.available && any_gpu_backend(cfg))
        fprintf(stderr, "bench: GPU backends skipped: %s\n", workers[0].dev.unavailable_reason);
    if (x.shard.count > 1)
        fprintf(stderr, "bench: shard %d/%d (from %s): %zu of %zu cases\n", x.shard.index,
                x.shard.count, x.shard.source, x.cases_total, sweep.count);
    if (nworkers == 1) {
        worker_main(&workers[0]);
    } else {
        int started = 0;
        for (; started < nworkers; started++)
            if (pthread_create(&workers[started].thread, NULL, worker_main, &workers[started]) != 0)
                break;
        if (started == 0) worker_main(&workers[0]); /* no threads: the devices one by one */
        for (int i = 0; i < started; i++) pthread_join(workers[i].thread, NULL);
    }
    if (opt->progress) fprintf(stderr, "\r\033[K");
    fclose(x.out);
    x.out = NULL;
    if (nworkers > 1) {
        /* Rows went out as the workers finished them: put them in sweep order. */
        struct pb_row_order order;
        if (pb_row_order_build(cfg, &sweep, &order) != 0 ||
            pb_results_file_sort(cfg->output, opt->format, &order, err, sizeof err) != 0)
            fprintf(stderr, "bench: %s: rows left in the order they finished: %s\n", cfg->output,
                    err[0] ? err : "out of memory");
        pb_row_order_free(&order);
    }
    /* The summary in sweep order. */
    struct pb_row *summary = calloc(x.nrows + 1, sizeof *summary);
    size_t nsummary = 0;
    for (size_t i = 0; summary && i < positions; i++)
        if (x.filled[i]) summary[nsummary++] = x.rows[i];
    if (cfg->nparts == 0)
        pb_report_markdown(stdout, cfg->primitive, summary, nsummary);
    else
        print_summary(&x.columns, summary, nsummary);
    fflush(stdout);
    status = x.done.any_failed ? 1 : 0;
    for (size_t i = 0; i < nsummary; i++)
        if (summary[i].status == PB_STATUS_WRONG || summary[i].status == PB_STATUS_ERROR ||
            summary[i].status == PB_STATUS_TIMEOUT)
            status = 1;
    free(summary);
    /* The wall time, so that a run spread over devices can be set against one on a single
     * device. */
    struct timespec ended_at;
    clock_gettime(CLOCK_MONOTONIC, &ended_at);
    double wall_s = (double)(ended_at.tv_sec - started_at.tv_sec) +
                    1e-9 * (double)(ended_at.tv_nsec - started_at.tv_nsec);
    char spread[32] = "";
    if (nworkers > 1) snprintf(spread, sizeof spread, " over %d devices", nworkers);
    if (x.done.exists)
        fprintf(stderr, "bench: wrote %s (%zu new rows after %zu kept, in %.1f s%s) and %s\n",
                cfg->output, x.nrows, x.done.count, wall_s, spread, meta_path);
    else
        fprintf(stderr, "bench: wrote %s (%zu rows in %.1f s%s) and %s\n", cfg->output, x.nrows,
                wall_s, spread, meta_path);
    if (x.stop != STOP_NONE) {
        char command[4096];
        resume_command(opt, command, sizeof command);
        if (x.stop == STOP_SIGNAL) {
            int sig = pb_interrupt_pending();
            fprintf(stderr,
                    "bench: interrupted by %s; %s holds only complete rows (a row in "
                    "progress is dropped)\n",
                    sig == SIGTERM ? "SIGTERM" : "SIGINT", cfg->output);
            status = 128 + sig;
        } else {
            fprintf(stderr, "bench: %s\n", x.stop_message);
            status = 1;
            opt->gpu_lost = x.stop == STOP_GPU_LOST;
        }
        fprintf(stderr, "bench: to resume: %s\n", command);
    }
out:
    if (guarded) pb_interrupt_restore(&guard);
    if (x.out) fclose(x.out);
    for (int i = 0; i < nworkers; i++) {
        opt->gpu_hung |= workers[i].hung;
        close_worker(&workers[i]);
    }
    free(x.rows);
    free(x.filled);
    free((void *)x.group_start);
    free((void *)x.row_start);
    pthread_mutex_destroy(&x.lock);
    gate_destroy(&x.gate);
    pb_resume_free(&x.done);
    pb_sweep_free(&sweep);
    return status;
}
