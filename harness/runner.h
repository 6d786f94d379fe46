/* The pipeline: config -> cases -> input -> reference -> every backend -> rows. */
#ifndef PB_RUNNER_H
#define PB_RUNNER_H

#include <stdbool.h>

#include "config.h"

struct pb_run_options {
    bool force;    /* overwrite an existing output */
    bool progress; /* a progress line on stderr */
    int device;    /* GPU ordinal */
    int argc;      /* the command line, for the metadata */
    char **argv;
};

/* Runs the experiment, writing cfg->output and its .meta.json. Returns 0 when every row
 * is ok or skipped, 1 when some row is wrong or failed, 2 when the run could not start
 * (message on stderr). */
int pb_experiment_run(const struct pb_config *cfg, const struct pb_run_options *opt);

#endif
