/* bench validate [--force] [--plugin LIB.so]... CONFIG */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "config.h"
#include "sweep.h"

static const char usage[] =
    "usage: bench validate [--force] [--plugin LIB.so]... CONFIG\n"
    "\n"
    "Checks CONFIG without running it: every problem is reported, one per line, naming the\n"
    "file and the JSON path. Prints the number of cases and rows a run would produce.\n"
    "\n"
    "  --force          accept a sweep of more than 1000000 cases, as bench run --force does\n"
    "  --plugin LIB.so  load a plugin's backends first, so the config may name them\n";

int pb_cmd_validate(int argc, char **argv) {
    if (pb_wants_help(argc, argv, usage)) return 0;
    struct pb_config_options opt = {0};
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--force") == 0) {
            opt.allow_huge_sweep = true;
        } else if (strcmp(argv[i], "--plugin") == 0) {
            i++; /* loaded by main before the command runs */
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
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
    if (pb_config_load_with(path, &opt, &cfg, &errors) != 0) {
        fputs(errors ? errors : "bench: out of memory while reading the config\n", stderr);
        free(errors);
        return 2;
    }
    if (cfg.nparts == 0) {
        size_t cases = pb_sweep_count(&cfg);
        printf("%s: ok: primitive %s, %d backends, %zu cases, %zu rows, output %s\n", path,
               cfg.primitive->name, cfg.nbackends, cases, cases * (size_t)cfg.nbackends,
               cfg.output);
    } else {
        /* A suite: the whole, then a line per part. */
        size_t cases = 0, rows = 0;
        for (int i = 0; i < cfg.nparts; i++) {
            size_t n = pb_sweep_count(&cfg.parts[i]);
            cases += n;
            rows += n * (size_t)cfg.parts[i].nbackends;
        }
        printf("%s: ok: suite of %d parts, %zu cases, %zu rows, output %s\n", path, cfg.nparts,
               cases, rows, cfg.output);
        for (int i = 0; i < cfg.nparts; i++) {
            size_t n = pb_sweep_count(&cfg.parts[i]);
            printf("  parts[%d]: primitive %s, %d backends, %zu cases, %zu rows\n", i,
                   cfg.parts[i].primitive->name, cfg.parts[i].nbackends, n,
                   n * (size_t)cfg.parts[i].nbackends);
        }
    }
    pb_config_free(&cfg);
    return 0;
}
