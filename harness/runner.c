/* The one-way pipeline of DESIGN.md. Nothing here knows what a primitive computes or
 * how a backend works: it only moves data between them and writes what happened.
 *
 * A sweep stops early, keeping every row it finished, on SIGINT or SIGTERM (checked
 * between repetitions and rows), on a GPU row past the time limit (its kernel may be
 * hung, and nothing more can safely be asked of the device), and on a GPU context that
 * an error poisoned and a device reset could not bring back. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "device.h"
#include "interrupt.h"
#include "measure.h"
#include "meta.h"
#include "nvtx.h"
#include "report.h"
#include "results.h"
#include "resume.h"
#include "runner.h"
#include "sweep.h"

#define GIB 1073741824.0

/* Why the sweep ended before its last case. */
enum stop_reason {
    STOP_NONE,
    STOP_SIGNAL,   /* SIGINT or SIGTERM */
    STOP_GPU_HUNG, /* a GPU row ran past the time limit */
    STOP_GPU_LOST  /* a poisoned context could not be recreated */
};

/* What the loop carries from case to case. */
struct experiment {
    const struct pb_config *cfg;
    const struct pb_run_options *opt;
    const struct pb_primitive *prim;
    struct pb_device_info dev;
    bool want_gpu; /* the GPU is there and some GPU backend is selected */
    struct pb_gpu_timer timer;
    struct pb_input input;
    const struct pb_case *input_case; /* the case input was made for, NULL if none */
    char input_error[PB_REASON_LEN];
    char gpu_skip[PB_REASON_LEN]; /* GPU rows of this input are skipped: device memory */
    void *reference;              /* the current case's reference result */
    double *samples_ms;
    FILE *out;
    struct pb_resume done; /* --resume: the rows the output already holds */
    struct pb_row *rows;   /* this run's rows, for the summary */
    size_t nrows;
    enum stop_reason stop;
    char stop_message[512];
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
static size_t case_device_bytes(const struct experiment *x, const struct pb_case *c) {
    if (x->prim->device_bytes) return x->prim->device_bytes(c);
    enum pb_dtype t = PB_U32;
    for (int i = 0; i < c->naxes; i++)
        if (strcmp(c->axes[i].name, "dtype") == 0) pb_dtype_parse(pb_case_choice(c, "dtype"), &t);
    for (int i = 0; i < c->naxes; i++)
        if (strcmp(c->axes[i].name, "n") == 0)
            return (size_t)pb_case_int(c, "n") * pb_dtype_size(t);
    return 0;
}

/* Whether a row of case c fits in the free device memory; when not, why says so. */
static bool memory_fits(const struct experiment *x, const struct pb_case *c, char *why,
                        size_t why_len) {
    size_t free_bytes = 0, total = 0;
    if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) {
        cudaGetLastError();
        return true; /* unknown: let the allocation itself decide */
    }
    return pb_device_memory_fits(case_device_bytes(x, c), free_bytes, input_device_bytes(&x->input),
                                 why, why_len);
}

/* After a cudaErrorMemoryAllocation: the "needs X GiB, Y GiB free" reason, or, when the
 * estimate says it should have fit, what the allocation reported and what is free. */
static void memory_reason(const struct experiment *x, const struct pb_case *c, const char *detail,
                          char *why, size_t why_len) {
    if (!memory_fits(x, c, why, why_len)) return;
    size_t free_bytes = 0, total = 0;
    cudaMemGetInfo(&free_bytes, &total);
    snprintf(why, why_len, "needs %.2f GiB or more (%.200s), %.2f GiB free",
             case_device_bytes(x, c) / GIB, detail,
             (free_bytes + input_device_bytes(&x->input)) / GIB);
}

static void drop_input(struct experiment *x) {
    if (x->input_case) x->prim->free_input(&x->input);
    x->input_case = NULL;
}

/* Makes the case's input unless the previous case had the same one (with a device copy
 * where one is wanted). The device copy is left out, and the case's GPU rows skipped,
 * when the case would not fit in device memory or its allocation runs out of it. */
static void ensure_input(struct experiment *x, const struct pb_case *c, bool want_device) {
    if (x->input_case && pb_case_same_input(x->input_case, c) &&
        (x->input.device || !want_device || x->gpu_skip[0]))
        return;
    drop_input(x);
    x->input_error[0] = '\0';
    x->gpu_skip[0] = '\0';
    if (want_device && !memory_fits(x, c, x->gpu_skip, sizeof x->gpu_skip)) want_device = false;
    pb_nvtx_push("setup: input");
    if (want_device) cudaGetLastError(); /* so that a failure below is the input's own */
    int rc = x->prim->make_input(c, want_device, &x->input, x->input_error, sizeof x->input_error);
    if (rc != 0 && want_device && cudaGetLastError() == cudaErrorMemoryAllocation) {
        /* Out of device memory: the CPU rows can still run on a host-only input. */
        x->prim->free_input(&x->input);
        memory_reason(x, c, x->input_error, x->gpu_skip, sizeof x->gpu_skip);
        x->input_error[0] = '\0';
        rc = x->prim->make_input(c, false, &x->input, x->input_error, sizeof x->input_error);
    }
    if (rc != 0 && !x->input_error[0])
        snprintf(x->input_error, sizeof x->input_error, "input generation failed");
    pb_nvtx_pop();
    if (x->input_error[0]) {
        x->prim->free_input(&x->input);
        return;
    }
    x->input_case = c;
}

/* After a GPU row failed: checks the context. A sticky error (illegal address, launch
 * failure, a trap) makes every later CUDA call fail the same way, so the device is reset
 * and what lived on it made again: the timer now, the input by the next ensure_input.
 * Returns 0 when the context was fine, 1 when it was recreated, -1 when it could not be
 * (stop_message says why). */
static int recover_gpu(struct experiment *x) {
    cudaGetLastError(); /* a non-sticky error is cleared by this; a sticky one is not */
    cudaError_t sticky = cudaDeviceSynchronize();
    if (sticky == cudaSuccess) sticky = cudaGetLastError();
    if (sticky == cudaSuccess) return 0;
    pb_gpu_timer_free(&x->timer);
    drop_input(x); /* its device copy dies with the context */
    cudaError_t e = cudaDeviceReset();
    if (e == cudaSuccess) e = cudaSetDevice(x->dev.ordinal);
    if (e == cudaSuccess) e = cudaFree(NULL); /* makes the new context now */
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    char err[256] = "";
    if (e != cudaSuccess)
        snprintf(err, sizeof err, "%s", cudaGetErrorString(e));
    else if (pb_gpu_timer_init(&x->timer, &x->dev, err, sizeof err) != 0)
        e = cudaErrorUnknown;
    if (e != cudaSuccess) {
        snprintf(x->stop_message, sizeof x->stop_message,
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

static enum row_end measure_backend(struct experiment *x, const struct pb_case *c,
                                    const struct pb_backend *b, const char *range,
                                    struct pb_row *row) {
    const struct pb_config *cfg = x->cfg;
    const struct pb_run_options *opt = x->opt;
    bool gpu = b->target == PB_TARGET_GPU;
    if (gpu && !memory_fits(x, c, row->reason, sizeof row->reason)) {
        row->status = PB_STATUS_SKIPPED;
        return ROW_DONE;
    }
    struct pb_run r = {.c = c, .in = &x->input};
    r.out = calloc(1, x->prim->output_bytes(c));
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
            memory_reason(x, c, r.err[0] ? r.err : "prepare", row->reason, sizeof row->reason);
            if (b->release) b->release(&r);
            free(r.out);
            return ROW_DONE;
        }
    }
    if (rc == PB_MEASURE_OK)
        rc = gpu ? pb_measure_gpu(b, &r, &plan, &x->timer, x->samples_ms, &count,
                                  &row->between_reps_us)
                 : pb_measure_cpu(b, &r, &plan, x->samples_ms, &count);
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
            x->prim->verify(c, &x->input, x->reference, r.out, row->reason, sizeof row->reason);
        pb_nvtx_pop();
        row->status = wrong ? PB_STATUS_WRONG : PB_STATUS_OK;
    } else {
        row->status = PB_STATUS_OK;
        snprintf(row->reason, sizeof row->reason, "not verified (config: verify false)");
    }
    /* Only a verified (or unverified by request) output gets a time; results.c writes
     * none for any other status either. */
    if (row->status == PB_STATUS_OK) pb_summarize(x->samples_ms, count, &row->time_ms);
    if (b->release) b->release(&r);
    free(r.out);
    return end;
}

static int write_row(struct experiment *x, const struct pb_row *row) {
    return x->opt->format == PB_FORMAT_JSON ? pb_results_write_json_row(x->out, row)
                                            : pb_results_write_row(x->out, row);
}

/* Stops the sweep when a signal came. */
static bool interrupted(struct experiment *x) {
    if (x->stop == STOP_NONE && pb_interrupt_pending()) x->stop = STOP_SIGNAL;
    return x->stop == STOP_SIGNAL;
}

static void run_case(struct experiment *x, const struct pb_case *c, size_t index, size_t total) {
    const struct pb_config *cfg = x->cfg;
    const struct pb_run_options *opt = x->opt;
    char described[512];
    pb_case_describe(c, described, sizeof described);
    bool todo[64] = {false}, needs_input = false, wants_device = false;
    int ntodo = 0;
    for (int i = 0; i < cfg->nbackends && i < 64; i++) {
        char why[PB_REASON_LEN];
        const struct pb_backend *b = cfg->backends[i];
        todo[i] = !pb_resume_has(&x->done, c, b->name);
        ntodo += todo[i];
        bool runs = todo[i] && b->supports(c, why, sizeof why);
        needs_input |= runs && (b->target == PB_TARGET_CPU || x->want_gpu);
        wants_device |= runs && b->target == PB_TARGET_GPU && x->want_gpu;
    }
    if (!ntodo) return; /* resumed: every row of this case is in the output already */
    double setup_start = pb_monotonic_s();
    if (needs_input) ensure_input(x, c, wants_device);
    bool have_reference = false;
    free(x->reference);
    x->reference = NULL;
    if (needs_input && !x->input_error[0] && cfg->verify) {
        pb_nvtx_push("setup: reference");
        x->reference = calloc(1, x->prim->output_bytes(c));
        have_reference = x->reference && x->prim->reference(c, &x->input, x->reference) == 0;
        pb_nvtx_pop();
    }
    double setup_ms = (pb_monotonic_s() - setup_start) * 1e3;
    for (int i = 0; i < cfg->nbackends && x->stop == STOP_NONE; i++) {
        const struct pb_backend *b = cfg->backends[i];
        if (!todo[i] || interrupted(x)) continue;
        bool gpu = b->target == PB_TARGET_GPU;
        struct pb_row *row = &x->rows[x->nrows];
        memset(row, 0, sizeof *row);
        row->c = c;
        row->backend = b;
        row->device = !gpu ? -1 : x->want_gpu ? x->dev.ordinal : -2;
        row->between_reps_us = NAN;
        x->prim->work(c, &row->elements, &row->bytes);
        row->bound_gbytes_per_s = gpu ? x->dev.copy_probe_gbytes_per_s : 0;
        row->setup_ms = setup_ms;
        double row_start = pb_monotonic_s();
        if (opt->progress)
            fprintf(stderr, "\r\033[K[%zu/%zu] %s %s", index + 1, total, b->name, described);
        /* After a device reset the input must be made again (same seed, same keys). */
        if (needs_input && !x->input_case && !x->input_error[0]) ensure_input(x, c, wants_device);
        enum row_end end = ROW_DONE;
        if (!b->supports(c, row->reason, sizeof row->reason)) {
            row->status = PB_STATUS_SKIPPED;
        } else if (gpu && !x->want_gpu) {
            row->status = PB_STATUS_SKIPPED;
            snprintf(row->reason, sizeof row->reason, "%s", x->dev.unavailable_reason);
        } else if (x->input_error[0]) {
            row->status = PB_STATUS_ERROR;
            snprintf(row->reason, sizeof row->reason, "%s", x->input_error);
        } else if (gpu && x->gpu_skip[0]) {
            row->status = PB_STATUS_SKIPPED;
            snprintf(row->reason, sizeof row->reason, "%s", x->gpu_skip);
        } else if (cfg->verify && !have_reference) {
            row->status = PB_STATUS_ERROR;
            snprintf(row->reason, sizeof row->reason, "the reference could not be computed");
        } else {
            char range[600];
            snprintf(range, sizeof range, "%s %s", b->name, described);
            /* --profile on a GPU row: the measurement opens the case's range around the
             * profiled repetition alone, so the warm-up stays outside it. */
            bool range_here = !(opt->profile && gpu);
            if (range_here) pb_nvtx_push("%s", range);
            end = measure_backend(x, c, b, range, row);
            if (range_here) pb_nvtx_pop();
        }
        if (end == ROW_ABANDONED) {
            x->stop = STOP_SIGNAL; /* the row in progress is dropped, not written */
            break;
        }
        row->wall_ms = (pb_monotonic_s() - row_start) * 1e3;
        if (write_row(x, row) != 0)
            fprintf(stderr, "bench: %s: write failed: %s\n", cfg->output, strerror(errno));
        x->nrows++;
        if (end == ROW_HUNG) {
            x->stop = STOP_GPU_HUNG;
            snprintf(x->stop_message, sizeof x->stop_message,
                     "%.60s %.200s: %.200s; the GPU may be hung, so the sweep stops here", b->name,
                     described, row->reason);
        } else if (gpu && x->want_gpu && row->status == PB_STATUS_ERROR && recover_gpu(x) < 0) {
            x->stop = STOP_GPU_LOST;
        }
    }
}

static bool any_gpu_backend(const struct pb_config *cfg) {
    for (int i = 0; i < cfg->nbackends; i++)
        if (cfg->backends[i]->target == PB_TARGET_GPU) return true;
    return false;
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
static int open_output(struct experiment *x, const char *meta_path) {
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
        if (pb_meta_add_resumed(meta_path, &x->dev, opt->argc, opt->argv, opt->time_limit_s, err,
                                sizeof err) != 0) {
            fprintf(stderr, "bench: %s\n", err);
            return -1;
        }
        x->out = fopen(cfg->output, "a");
    } else {
        if (pb_meta_write(meta_path, cfg, &x->dev, opt->argc, opt->argv, err, sizeof err) != 0 ||
            pb_meta_add_run_options(meta_path, opt->profile, opt->time_limit_s, opt->format, err,
                                    sizeof err) != 0) {
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
    if (header && pb_results_write_header(x->out, x->prim) != 0) {
        fprintf(stderr, "bench: %s: %s\n", cfg->output, strerror(errno));
        return -1;
    }
    return 0;
}

int pb_experiment_run(const struct pb_config *cfg, struct pb_run_options *opt) {
    if (opt->time_limit_s <= 0) opt->time_limit_s = PB_DEFAULT_TIME_LIMIT_S;
    opt->gpu_hung = false;
    char meta_path[4200];
    snprintf(meta_path, sizeof meta_path, "%s.meta.json", cfg->output);
    struct experiment x = {.cfg = cfg, .opt = opt, .prim = cfg->primitive};
    char err[512] = "";
    if (opt->resume) {
        if (pb_resume_load(cfg, cfg->output, meta_path, opt->format, opt->profile, &x.done, err,
                           sizeof err) != 0) {
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
    pb_device_open(opt->device, &x.dev);
    if (x.dev.available && any_gpu_backend(cfg)) {
        pb_device_probe_copy(&x.dev);
        x.want_gpu = pb_gpu_timer_init(&x.timer, &x.dev, err, sizeof err) == 0;
        if (!x.want_gpu) {
            snprintf(x.dev.unavailable_reason, sizeof x.dev.unavailable_reason, "%.200s", err);
            x.dev.available = false;
        }
    }
    struct pb_interrupt_guard guard;
    bool guarded = false;
    x.samples_ms = calloc((size_t)cfg->reps, sizeof *x.samples_ms);
    x.rows = calloc(sweep.count * (size_t)cfg->nbackends + 1, sizeof *x.rows);
    if (!x.samples_ms || !x.rows) {
        fprintf(stderr, "bench: out of memory\n");
        goto out;
    }
    if (cfg->nbackends > 64) {
        fprintf(stderr, "bench: %s: more than 64 backends selected\n", cfg->path);
        goto out;
    }
    /* From here on a signal only stops the sweep: the output is never left half made. */
    guarded = pb_interrupt_install(&guard) == 0;
    if (open_output(&x, meta_path) != 0) goto out;
    if (!x.dev.available && any_gpu_backend(cfg))
        fprintf(stderr, "bench: GPU backends skipped: %s\n", x.dev.unavailable_reason);
    for (size_t i = 0; i < sweep.count && x.stop == STOP_NONE; i++) {
        if (interrupted(&x)) break;
        run_case(&x, &sweep.cases[i], i, sweep.count);
    }
    if (opt->progress) fprintf(stderr, "\r\033[K");
    pb_report_markdown(stdout, x.prim, x.rows, x.nrows);
    fflush(stdout);
    status = x.done.any_failed ? 1 : 0;
    for (size_t i = 0; i < x.nrows; i++)
        if (x.rows[i].status == PB_STATUS_WRONG || x.rows[i].status == PB_STATUS_ERROR ||
            x.rows[i].status == PB_STATUS_TIMEOUT)
            status = 1;
    if (x.done.exists)
        fprintf(stderr, "bench: wrote %s (%zu new rows after %zu kept) and %s\n", cfg->output,
                x.nrows, x.done.count, meta_path);
    else
        fprintf(stderr, "bench: wrote %s (%zu rows) and %s\n", cfg->output, x.nrows, meta_path);
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
        }
        fprintf(stderr, "bench: to resume: %s\n", command);
    }
out:
    if (guarded) pb_interrupt_restore(&guard);
    if (x.out) fclose(x.out);
    opt->gpu_hung = x.stop == STOP_GPU_HUNG;
    /* After a hang, freeing device memory would wait for the hung kernel. */
    if (!opt->gpu_hung) {
        drop_input(&x);
        if (x.want_gpu) pb_gpu_timer_free(&x.timer);
    }
    free(x.reference);
    free(x.samples_ms);
    free(x.rows);
    pb_resume_free(&x.done);
    pb_sweep_free(&sweep);
    return status;
}
