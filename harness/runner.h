/* The pipeline: config -> cases -> input -> reference -> every backend -> rows. */
#ifndef PB_RUNNER_H
#define PB_RUNNER_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "results.h"
#include "shard.h"

/* The most GPUs one run drives (--devices). */
#define PB_MAX_DEVICES 64

struct pb_run_options {
    bool force;    /* overwrite an existing output */
    bool resume;   /* append to an existing output, skipping the rows it holds */
    bool profile;  /* one warm-up and one repetition per row, for Nsight */
    bool progress; /* a progress line on stderr */
    enum pb_format format;
    double time_limit_s; /* per backend row; 600 when 0 */
    int device;          /* GPU ordinal (--device) */
    /* --devices: one worker thread per listed GPU (devices_all: every GPU there is);
     * ndevices 0 means --device alone. */
    bool devices_all;
    int ndevices;
    int devices[PB_MAX_DEVICES];
    struct pb_shard shard; /* --shard or the Slurm array; count 0: the whole sweep */
    const char *program;   /* the bench binary as invoked, for the resume hint */
    int argc;              /* the command line from "run" on, for the metadata */
    char **argv;
    /* Set by pb_experiment_run: a GPU row hung and its work is still on the device, so
     * the process must end without the CUDA runtime's teardown, which would wait for it. */
    bool gpu_hung;
    /* Set by pb_experiment_run: a poisoned context could not be recreated in this process
     * (CUDA keeps a sticky error for the life of the process); the rows so far are on disk
     * and the run can go on in a fresh process with --resume. */
    bool gpu_lost;
};

#define PB_DEFAULT_TIME_LIMIT_S 600.0

/* Runs the experiment, writing cfg->output and its .meta.json. Returns 0 when every row
 * is ok or skipped, 1 when some row is wrong, error or timeout (or the sweep stopped on
 * a hung or lost GPU), 2 when the run could not start (message on stderr), and 128 + the
 * signal number when SIGINT or SIGTERM stopped it (130, 143): complete rows are kept and
 * the way to resume is printed. */
int pb_experiment_run(const struct pb_config *cfg, struct pb_run_options *opt);

/* Whether a row needing `needed` bytes of device memory can run: `free_bytes` as
 * cudaMemGetInfo reports it, plus `held_bytes` that the case's input already holds on
 * the device (part of `needed`, no longer free). When not, `why` gets "needs X GiB,
 * Y GiB free". Pure, so that the decision is tested without a GPU. */
bool pb_device_memory_fits(size_t needed, size_t free_bytes, size_t held_bytes, char *why,
                           size_t why_len);

#endif
