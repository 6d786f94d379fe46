/* bench merge OUT SHARD... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "results_merge.h"

static const char usage[] =
    "usage: bench merge [--force] OUT.csv SHARD.csv...\n"
    "\n"
    "Joins the outputs of `bench run --shard I/N` (or of a Slurm job array) into OUT, in the\n"
    "sweep's order, and writes OUT.meta.json: the first shard's metadata without its shard,\n"
    "with every input listed under merged_from. Refused (exit 2, one line naming the file)\n"
    "when the shards were run from different configs (config_hash), with different\n"
    "--profile or format, when two files are the same shard or hold the same row, or when\n"
    "a file is cut or not a primbench output. A missing shard is only reported: the merged\n"
    "output can be completed with `bench run --resume --output OUT CONFIG`.\n"
    "\n"
    "  --force    overwrite an existing OUT\n";

int pb_cmd_merge(int argc, char **argv) {
    if (pb_wants_help(argc, argv, usage)) return 0;
    bool force = false;
    const char *out = NULL;
    const char **shards = calloc((size_t)argc + 1, sizeof *shards);
    int nshards = 0;
    if (!shards) return 2;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--force") == 0) {
            force = true;
        } else if (argv[i][0] == '-') {
            free(shards);
            return pb_usage_error(usage, "unknown option '%s'", argv[i]);
        } else if (!out) {
            out = argv[i];
        } else {
            shards[nshards++] = argv[i];
        }
    }
    if (!out || nshards == 0) {
        free(shards);
        return pb_usage_error(usage, "%s", "an output and at least one shard are needed");
    }
    for (int i = 0; i < nshards; i++) {
        if (strcmp(shards[i], out) == 0) {
            free(shards);
            fprintf(stderr, "bench: merge: %s: the output is also a shard\n", out);
            return 2;
        }
    }
    char err[1024] = "", warning[1024] = "";
    int rc =
        pb_merge(out, shards, nshards, force, argc, argv, err, sizeof err, warning, sizeof warning);
    free(shards);
    if (rc != 0) {
        fprintf(stderr, "bench: merge: %s\n", err);
        return rc;
    }
    if (warning[0]) fprintf(stderr, "bench: merge: shards %s\n", warning);
    fprintf(stderr, "bench: merge: wrote %s and %s.meta.json from %d files\n", out, out, nshards);
    return 0;
}
