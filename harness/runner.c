/* The one-way pipeline of DESIGN.md. Nothing here knows what a primitive computes or
 * how a backend works: it only moves data between them and writes what happened. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "device.h"
#include "measure.h"
#include "meta.h"
#include "nvtx.h"
#include "report.h"
#include "results.h"
#include "runner.h"
#include "sweep.h"

/* What the loop carries from case to case. */
struct experiment {
    const struct pb_config *cfg;
    const struct pb_primitive *prim;
    struct pb_device_info dev;
    bool want_gpu; /* the GPU is there and some GPU backend is selected */
    struct pb_gpu_timer timer;
    struct pb_input input;
    const struct pb_case *input_case; /* the case input was made for, NULL if none */
    char input_error[PB_REASON_LEN];
    void *reference; /* the current case's reference result */
    double *samples_ms;
    FILE *csv;
    struct pb_row *rows;
    size_t nrows;
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

/* Makes the case's input unless the previous case had the same one. */
static void ensure_input(struct experiment *x, const struct pb_case *c) {
    if (x->input_case && pb_case_same_input(x->input_case, c)) return;
    if (x->input_case) x->prim->free_input(&x->input);
    x->input_case = c;
    x->input_error[0] = '\0';
    pb_nvtx_push("setup: input");
    if (x->prim->make_input(c, x->want_gpu, &x->input, x->input_error, sizeof x->input_error) !=
            0 &&
        !x->input_error[0])
        snprintf(x->input_error, sizeof x->input_error, "input generation failed");
    pb_nvtx_pop();
    if (x->input_error[0]) {
        x->prim->free_input(&x->input);
        x->input_case = NULL;
    }
}

static void measure_backend(struct experiment *x, const struct pb_case *c,
                            const struct pb_backend *b, struct pb_row *row) {
    const struct pb_config *cfg = x->cfg;
    struct pb_run r = {.c = c, .in = &x->input};
    r.out = calloc(1, x->prim->output_bytes(c));
    struct pb_measure_plan plan = {cfg->reps, cfg->warmup, cfg->cold, cfg->cpu_budget_s};
    int count = 0;
    int failed = !r.out;
    if (!failed && b->prepare && b->prepare(&r) != 0) failed = 1;
    if (!failed)
        failed = b->target == PB_TARGET_GPU ? pb_measure_gpu(b, &r, &plan, &x->timer, x->samples_ms,
                                                             &count, &row->between_reps_us)
                                            : pb_measure_cpu(b, &r, &plan, x->samples_ms, &count);
    if (!failed && b->collect && b->collect(&r) != 0) failed = 1;
    if (failed) {
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
    if (row->status == PB_STATUS_OK) pb_summarize(x->samples_ms, count, &row->time_ms);
    if (b->release) b->release(&r);
    free(r.out);
    if (b->target == PB_TARGET_GPU)
        cudaGetLastError(); /* clear a non-sticky error for the next backend */
}

static void run_case(struct experiment *x, const struct pb_case *c, size_t index, size_t total,
                     bool progress) {
    const struct pb_config *cfg = x->cfg;
    char described[512];
    pb_case_describe(c, described, sizeof described);
    bool needs_input = false;
    for (int i = 0; i < cfg->nbackends; i++) {
        char why[PB_REASON_LEN];
        const struct pb_backend *b = cfg->backends[i];
        needs_input |=
            b->supports(c, why, sizeof why) && (b->target == PB_TARGET_CPU || x->want_gpu);
    }
    double setup_start = pb_monotonic_s();
    if (needs_input) ensure_input(x, c);
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
    for (int i = 0; i < cfg->nbackends; i++) {
        const struct pb_backend *b = cfg->backends[i];
        struct pb_row *row = &x->rows[x->nrows++];
        memset(row, 0, sizeof *row);
        row->c = c;
        row->backend = b;
        row->device = b->target == PB_TARGET_CPU ? -1 : x->want_gpu ? x->dev.ordinal : -2;
        row->between_reps_us = NAN;
        x->prim->work(c, &row->elements, &row->bytes);
        row->bound_gbytes_per_s = b->target == PB_TARGET_GPU ? x->dev.copy_probe_gbytes_per_s : 0;
        row->setup_ms = setup_ms;
        double row_start = pb_monotonic_s();
        if (progress)
            fprintf(stderr, "\r\033[K[%zu/%zu] %s %s", index + 1, total, b->name, described);
        if (!b->supports(c, row->reason, sizeof row->reason)) {
            row->status = PB_STATUS_SKIPPED;
        } else if (b->target == PB_TARGET_GPU && !x->want_gpu) {
            row->status = PB_STATUS_SKIPPED;
            snprintf(row->reason, sizeof row->reason, "%s", x->dev.unavailable_reason);
        } else if (x->input_error[0]) {
            row->status = PB_STATUS_ERROR;
            snprintf(row->reason, sizeof row->reason, "%s", x->input_error);
        } else if (cfg->verify && !have_reference) {
            row->status = PB_STATUS_ERROR;
            snprintf(row->reason, sizeof row->reason, "the reference could not be computed");
        } else {
            pb_nvtx_push("%s %s", b->name, described);
            measure_backend(x, c, b, row);
            pb_nvtx_pop();
        }
        row->wall_ms = (pb_monotonic_s() - row_start) * 1e3;
        if (pb_results_write_row(x->csv, row) != 0)
            fprintf(stderr, "bench: %s: write failed: %s\n", cfg->output, strerror(errno));
    }
}

static bool any_gpu_backend(const struct pb_config *cfg) {
    for (int i = 0; i < cfg->nbackends; i++)
        if (cfg->backends[i]->target == PB_TARGET_GPU) return true;
    return false;
}

int pb_experiment_run(const struct pb_config *cfg, const struct pb_run_options *opt) {
    if (output_exists(cfg->output) && !opt->force) {
        fprintf(stderr, "bench: %s: output exists; use --force to overwrite it\n", cfg->output);
        return 2;
    }
    if (make_parent_dirs(cfg->output) != 0) {
        fprintf(stderr, "bench: %s: cannot create its folder: %s\n", cfg->output, strerror(errno));
        return 2;
    }
    struct experiment x = {.cfg = cfg, .prim = cfg->primitive};
    struct pb_sweep sweep = {0};
    int status = 2;
    char err[512] = "";
    if (pb_sweep_expand(cfg, &sweep) != 0) {
        fprintf(stderr, "bench: %s: cannot expand the sweep (out of memory)\n", cfg->path);
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
    char meta_path[4200];
    snprintf(meta_path, sizeof meta_path, "%s.meta.json", cfg->output);
    x.samples_ms = calloc((size_t)cfg->reps, sizeof *x.samples_ms);
    x.rows = calloc(sweep.count * (size_t)cfg->nbackends + 1, sizeof *x.rows);
    if (!x.samples_ms || !x.rows) {
        fprintf(stderr, "bench: out of memory\n");
        goto out;
    }
    if (pb_meta_write(meta_path, cfg, &x.dev, opt->argc, opt->argv, err, sizeof err) != 0) {
        fprintf(stderr, "bench: %s\n", err);
        goto out;
    }
    x.csv = fopen(cfg->output, "w");
    if (!x.csv || pb_results_write_header(x.csv, x.prim) != 0) {
        fprintf(stderr, "bench: %s: %s\n", cfg->output, strerror(errno));
        goto out;
    }
    if (!x.dev.available && any_gpu_backend(cfg))
        fprintf(stderr, "bench: GPU backends skipped: %s\n", x.dev.unavailable_reason);
    for (size_t i = 0; i < sweep.count; i++)
        run_case(&x, &sweep.cases[i], i, sweep.count, opt->progress);
    if (opt->progress) fprintf(stderr, "\r\033[K");
    pb_report_markdown(stdout, x.prim, x.rows, x.nrows);
    status = 0;
    for (size_t i = 0; i < x.nrows; i++)
        if (x.rows[i].status == PB_STATUS_WRONG || x.rows[i].status == PB_STATUS_ERROR) status = 1;
    fprintf(stderr, "bench: wrote %s (%zu rows) and %s\n", cfg->output, x.nrows, meta_path);
out:
    if (x.csv) fclose(x.csv);
    if (x.input_case) x.prim->free_input(&x.input);
    if (x.want_gpu) pb_gpu_timer_free(&x.timer);
    free(x.reference);
    free(x.samples_ms);
    free(x.rows);
    pb_sweep_free(&sweep);
    return status;
}
