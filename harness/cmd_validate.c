/* bench validate CONFIG */
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "config.h"
#include "sweep.h"

static const char usage[] =
    "usage: bench validate CONFIG\n"
    "\n"
    "Checks CONFIG without running it: every problem is reported, one per line, naming the\n"
    "file and the JSON path. Prints the number of cases and rows a run would produce.\n";

int pb_cmd_validate(int argc, char **argv) {
    if (pb_wants_help(argc, argv, usage)) return 0;
    if (argc != 2) return pb_usage_error(usage, "%s", "validate takes exactly one config");
    struct pb_config cfg;
    char *errors = NULL;
    if (pb_config_load(argv[1], &cfg, &errors) != 0) {
        fputs(errors ? errors : "bench: out of memory while reading the config\n", stderr);
        free(errors);
        return 2;
    }
    size_t cases = pb_sweep_count(&cfg);
    printf("%s: ok: primitive %s, %d backends, %zu cases, %zu rows, output %s\n", argv[1],
           cfg.primitive->name, cfg.nbackends, cases, cases * (size_t)cfg.nbackends, cfg.output);
    pb_config_free(&cfg);
    return 0;
}
