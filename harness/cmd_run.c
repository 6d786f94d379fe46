/* bench run CONFIG */
#define _GNU_SOURCE /* program_invocation_name: the binary as typed, for the resume hint */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "config.h"
#include "runner.h"

static const char usage[] =
    "usage: bench run [--force | --resume] [--output PATH] [--format csv|json] [--device N]\n"
    "                 [--devices all|N,N,...] [--shard I/N] [--time-limit S] [--profile]\n"
    "                 [--no-progress] [--plugin LIB.so]... CONFIG\n"
    "\n"
    "Runs every selected backend on every case of CONFIG's sweep, verifies each output\n"
    "against the primitive's reference, and writes the config's output CSV (default\n"
    "results/NAME.csv) row by row, with NAME.csv.meta.json beside it. GPU backends are\n"
    "skipped, with the reason, where there is no GPU or too little free device memory.\n"
    "\n"
    "  --force          overwrite an existing output file, and run a sweep over 1000000 cases\n"
    "  --resume         continue an existing output written by the same config: rows it\n"
    "                   holds are skipped, new rows appended (exit 2 if the config differs)\n"
    "  --output PATH    write to PATH instead of the config's output\n"
    "  --format FMT     csv (default) or json: JSON Lines, one object per row, the same\n"
    "                   fields; the config's output gets .jsonl for .csv\n"
    "  --device N       the GPU to use (default 0)\n"
    "  --devices LIST   spread the cases over several GPUs, one host thread each: 'all' or\n"
    "                   ordinals such as 0,1; rows are written as they finish, then sorted\n"
    "                   into sweep order, so the output equals a one-GPU run's. CPU rows run\n"
    "                   one at a time, alone on the host. 'all' without a GPU, or a config\n"
    "                   without GPU backends, runs as one worker\n"
    "  --shard I/N      run only the I-th of N disjoint parts of the sweep (0 <= I < N;\n"
    "                   input groups dealt round-robin); join the parts with bench merge.\n"
    "                   Without it, SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN and\n"
    "                   SLURM_ARRAY_TASK_COUNT give the shard when set\n"
    "  --time-limit S   seconds per backend row (default 600); a GPU row past it is marked\n"
    "                   timeout and the sweep stops (its kernel may be hung); a CPU row\n"
    "                   stops repeating, and is timeout when no repetition finished in time\n"
    "  --profile        for Nsight: one warm-up, then one repetition between\n"
    "                   cudaProfilerStart/Stop, no L2 flush, no batching; rows get reps=1\n"
    "  --no-progress    no progress line on stderr (it is shown only on a terminal anyway)\n"
    "  --plugin LIB.so  load the backends of a plugin library (repeatable; README, Plugins);\n"
    "                   the config may then name them\n"
    "\n"
    "SIGINT (Ctrl-C) or SIGTERM stops the sweep between repetitions: complete rows are kept,\n"
    "the command to resume is printed, and the exit code is 130 or 143. A second Ctrl-C\n"
    "ends the process at once.\n";

/* The config's "x.csv" becomes "x.jsonl" for --format json. Returns 0 or -1 (memory). */
static int jsonl_output(struct pb_config *cfg) {
    size_t len = strlen(cfg->output);
    if (len < 4 || strcmp(cfg->output + len - 4, ".csv") != 0) return 0;
    char *path = malloc(len + 3);
    if (!path) return -1;
    memcpy(path, cfg->output, len - 4);
    strcpy(path + len - 4, ".jsonl");
    free(cfg->output);
    cfg->output = path;
    return 0;
}

/* "all" or a comma-separated list of distinct ordinals. Returns 0, or -1 (bad list). */
static int parse_devices(const char *text, struct pb_run_options *opt) {
    if (strcmp(text, "all") == 0) {
        opt->devices_all = true;
        return 0;
    }
    opt->ndevices = 0;
    const char *p = text;
    for (;;) {
        char *end = NULL;
        if (*p < '0' || *p > '9') return -1;
        errno = 0;
        long d = strtol(p, &end, 10);
        if (errno || d > 1024 || opt->ndevices == PB_MAX_DEVICES) return -1;
        for (int i = 0; i < opt->ndevices; i++)
            if (opt->devices[i] == d) return -1;
        opt->devices[opt->ndevices++] = (int)d;
        if (*end == '\0') return 0;
        if (*end != ',') return -1;
        p = end + 1;
    }
}

/* CUDA keeps a sticky error (an illegal address) for the life of the process, so when a
 * device reset cannot give a working context the run goes on in a fresh process: this
 * command again with --resume (the finished rows are on disk), at most
 * PB_MAX_FRESH_PROCESSES times in a chain. The worst exit status travels along. */
#define PB_MAX_FRESH_PROCESSES 16

static int worst_status(int status) {
    const char *carried = getenv("PB_FRESH_PROCESS_STATUS");
    int earlier = carried ? atoi(carried) : 0;
    return earlier > status ? earlier : status;
}

static void continue_in_fresh_process(const struct pb_run_options *opt, int status) {
    const char *depth_text = getenv("PB_FRESH_PROCESS");
    int depth = depth_text ? atoi(depth_text) : 0;
    if (depth >= PB_MAX_FRESH_PROCESSES || opt->argc < 1) return;
    char **argv = calloc((size_t)opt->argc + 3, sizeof *argv);
    if (!argv) return;
    int n = 0;
    argv[n++] = (char *)(opt->program ? opt->program : "bench");
    argv[n++] = opt->argv[0];
    argv[n++] = "--resume";
    for (int i = 1; i < opt->argc; i++)
        if (strcmp(opt->argv[i], "--force") != 0 && strcmp(opt->argv[i], "--resume") != 0)
            argv[n++] = opt->argv[i];
    argv[n] = NULL;
    char text[16];
    snprintf(text, sizeof text, "%d", depth + 1);
    setenv("PB_FRESH_PROCESS", text, 1);
    snprintf(text, sizeof text, "%d", worst_status(status));
    setenv("PB_FRESH_PROCESS_STATUS", text, 1);
    fprintf(stderr, "bench: continuing in a fresh process (a new CUDA context) with --resume\n");
    fflush(NULL);
    execv("/proc/self/exe", argv);
    fprintf(stderr, "bench: could not start a fresh process: %s\n", strerror(errno));
    free(argv);
}

int pb_cmd_run(int argc, char **argv) {
    if (pb_wants_help(argc, argv, usage)) return 0;
    struct pb_run_options opt = {.progress = isatty(STDERR_FILENO),
                                 .time_limit_s = PB_DEFAULT_TIME_LIMIT_S,
                                 .program = program_invocation_name,
                                 .argc = argc,
                                 .argv = argv};
    const char *path = NULL, *output = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--force") == 0) {
            opt.force = true;
        } else if (strcmp(argv[i], "--resume") == 0) {
            opt.resume = true;
        } else if (strcmp(argv[i], "--profile") == 0) {
            opt.profile = true;
        } else if (strcmp(argv[i], "--no-progress") == 0) {
            opt.progress = false;
        } else if (strcmp(argv[i], "--plugin") == 0) {
            i++; /* loaded by main before the command runs */
        } else if (strcmp(argv[i], "--output") == 0) {
            if (i + 1 >= argc) return pb_usage_error(usage, "%s needs a value", "--output");
            output = argv[++i];
        } else if (strcmp(argv[i], "--format") == 0) {
            if (i + 1 >= argc) return pb_usage_error(usage, "%s needs a value", "--format");
            const char *f = argv[++i];
            if (strcmp(f, "csv") == 0)
                opt.format = PB_FORMAT_CSV;
            else if (strcmp(f, "json") == 0)
                opt.format = PB_FORMAT_JSON;
            else
                return pb_usage_error(usage, "--format: '%s' is not csv or json", f);
        } else if (strcmp(argv[i], "--time-limit") == 0) {
            char *end = NULL;
            if (i + 1 >= argc) return pb_usage_error(usage, "%s needs a value", "--time-limit");
            errno = 0;
            double s = strtod(argv[++i], &end);
            if (end == argv[i] || *end || errno || !isfinite(s) || s <= 0)
                return pb_usage_error(usage,
                                      "--time-limit: '%s' is not a positive number of "
                                      "seconds",
                                      argv[i]);
            opt.time_limit_s = s;
        } else if (strcmp(argv[i], "--device") == 0) {
            char *end = NULL;
            if (i + 1 >= argc) return pb_usage_error(usage, "%s needs a value", "--device");
            long d = strtol(argv[++i], &end, 10);
            if (*end || d < 0 || d > 1024)
                return pb_usage_error(usage, "--device: '%s' is not a device number", argv[i]);
            opt.device = (int)d;
        } else if (strcmp(argv[i], "--devices") == 0) {
            if (i + 1 >= argc) return pb_usage_error(usage, "%s needs a value", "--devices");
            if (parse_devices(argv[++i], &opt) != 0)
                return pb_usage_error(usage,
                                      "--devices: '%s' is not 'all' or a list of distinct "
                                      "device numbers such as 0,1",
                                      argv[i]);
        } else if (strcmp(argv[i], "--shard") == 0) {
            char err[256];
            if (i + 1 >= argc) return pb_usage_error(usage, "%s needs a value", "--shard");
            if (pb_shard_parse(argv[++i], &opt.shard, err, sizeof err) != 0)
                return pb_usage_error(usage, "%s", err);
        } else if (argv[i][0] == '-') {
            return pb_usage_error(usage, "unknown option '%s'", argv[i]);
        } else if (path) {
            return pb_usage_error(usage, "one config at a time ('%s' is extra)", argv[i]);
        } else {
            path = argv[i];
        }
    }
    if (!path) return pb_usage_error(usage, "%s", "no config given");
    if (opt.shard.count == 0) {
        char err[512];
        if (pb_shard_from_env(&opt.shard, err, sizeof err) < 0) {
            fprintf(stderr, "bench: %s\n", err);
            return 2;
        }
    }
    if (opt.force && opt.resume)
        return pb_usage_error(usage, "%s",
                              "--force (start over) and --resume (continue) exclude "
                              "each other");
    struct pb_config cfg;
    char *errors = NULL;
    struct pb_config_options load = {.allow_huge_sweep = opt.force};
    if (pb_config_load_with(path, &load, &cfg, &errors) != 0) {
        fputs(errors ? errors : "bench: out of memory while reading the config\n", stderr);
        free(errors);
        return 2;
    }
    if (output) {
        char *copy = strdup(output);
        if (!copy) return 2;
        free(cfg.output);
        cfg.output = copy;
    } else if (opt.format == PB_FORMAT_JSON && jsonl_output(&cfg) != 0) {
        pb_config_free(&cfg);
        return 2;
    }
    int status = pb_experiment_run(&cfg, &opt);
    pb_config_free(&cfg);
    if (opt.gpu_lost) continue_in_fresh_process(&opt, status);
    status = worst_status(status);
    if (opt.gpu_hung) {
        /* A kernel is still running on the device: exit() would run the CUDA runtime's
         * teardown, which waits for it. The rows and metadata are already on disk. */
        fflush(NULL);
        _exit(status);
    }
    return status;
}
