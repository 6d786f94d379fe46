/* bench run CONFIG */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "config.h"
#include "runner.h"

static const char usage[] =
    "usage: bench run [--force] [--output PATH] [--device N] [--no-progress] CONFIG\n"
    "\n"
    "Runs every selected backend on every case of CONFIG's sweep, verifies each output\n"
    "against the primitive's reference, and writes the config's output CSV (default\n"
    "results/NAME.csv) row by row, with NAME.csv.meta.json beside it. GPU backends are\n"
    "skipped, with the reason, where there is no GPU.\n"
    "\n"
    "  --force        overwrite an existing output file\n"
    "  --output PATH  write the CSV to PATH instead of the config's output\n"
    "  --device N     the GPU to use (default 0)\n"
    "  --no-progress  no progress line on stderr (it is shown only on a terminal anyway)\n";

int pb_cmd_run(int argc, char **argv) {
    if (pb_wants_help(argc, argv, usage)) return 0;
    struct pb_run_options opt = {.progress = isatty(STDERR_FILENO), .argc = argc, .argv = argv};
    const char *path = NULL, *output = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--force") == 0) {
            opt.force = true;
        } else if (strcmp(argv[i], "--no-progress") == 0) {
            opt.progress = false;
        } else if (strcmp(argv[i], "--output") == 0) {
            if (i + 1 >= argc) return pb_usage_error(usage, "%s needs a value", "--output");
            output = argv[++i];
        } else if (strcmp(argv[i], "--device") == 0) {
            char *end = NULL;
            if (i + 1 >= argc) return pb_usage_error(usage, "%s needs a value", "--device");
            long d = strtol(argv[++i], &end, 10);
            if (*end || d < 0 || d > 1024)
                return pb_usage_error(usage, "--device: '%s' is not a device number", argv[i]);
            opt.device = (int)d;
        } else if (argv[i][0] == '-') {
            return pb_usage_error(usage, "unknown option '%s'", argv[i]);
        } else if (path) {
            return pb_usage_error(usage, "one config at a time ('%s' is extra)", argv[i]);
        } else {
            path = argv[i];
        }
    }
    if (!path) return pb_usage_error(usage, "%s", "no config given");
    struct pb_config cfg;
    char *errors = NULL;
    if (pb_config_load(path, &cfg, &errors) != 0) {
        fputs(errors ? errors : "bench: out of memory while reading the config\n", stderr);
        free(errors);
        return 2;
    }
    if (output) {
        char *copy = strdup(output);
        if (!copy) return 2;
        free(cfg.output);
        cfg.output = copy;
    }
    int status = pb_experiment_run(&cfg, &opt);
    pb_config_free(&cfg);
    return status;
}
