/* bench: the command line. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "plugin.h"
#include "suggest.h"

static const char usage[] =
    "usage: bench COMMAND [OPTIONS]\n"
    "\n"
    "Benchmarks GPU parallel primitives against CPU and CUB baselines, verifying every output.\n"
    "\n"
    "commands:\n"
    "  run CONFIG       run an experiment, write CSV + metadata, print a summary\n"
    "  validate [--force] CONFIG  check a config without running it\n"
    "  list             primitives, backends, their axes and valid ranges\n"
    "  info             devices and the copy-probe bandwidth bound\n"
    "  compare A B      compare two result CSVs row by row; exit 1 on a slowdown\n"
    "  report CSV       a paper-style markdown table of one metric\n"
    "  plot CSV         gnuplot figures of throughput against an axis\n"
    "  merge OUT SHARD...  join the outputs of bench run --shard into one\n"
    "  kway-merge K SIZES ELEMENTS RESULTS  merge the seed's k-way merge files on the GPU\n"
    "  kway-gen K MAX_N SIZES ELEMENTS      write k sorted lists in that format\n"
    "\n"
    "run, validate and list take --plugin LIB.so (repeatable): backends built outside the tree.\n"
    "`bench COMMAND --help` describes each. Exit codes: 0 ok, 1 a failed check, 2 bad usage or "
    "input.\n";

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    bool plugins; /* takes --plugin LIB.so: backends of the library join the registry */
} commands[] = {
    {"run", pb_cmd_run, true},
    {"validate", pb_cmd_validate, true},
    {"list", pb_cmd_list, true},
    {"info", pb_cmd_info, false},
    {"compare", pb_cmd_compare, false},
    {"report", pb_cmd_report, false},
    {"plot", pb_cmd_plot, false},
    {"merge", pb_cmd_merge, false},
    {"kway-merge", pb_cmd_kway_merge, false},
    {"kway-gen", pb_cmd_kway_gen, false},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

int main(int argc, char **argv) {
    if (argc < 2) return pb_usage_error(usage, "%s", "no command given");
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "help") == 0) {
        fputs(usage, stdout);
        return 0;
    }
    for (size_t i = 0; i < NCOMMANDS; i++) {
        if (strcmp(argv[1], commands[i].name) != 0) continue;
        if (!commands[i].plugins) return commands[i].run(argc - 1, argv + 1);
        /* Plugins load before the command reads its config; the command skips the pairs. */
        struct pb_plugins plugins = {0};
        char err[1024];
        if (pb_plugin_load_args(&plugins, argc - 1, argv + 1, err, sizeof err) != 0) {
            fprintf(stderr, "bench: %s\n", err);
            pb_plugin_unload_all(&plugins);
            return 2;
        }
        int status = commands[i].run(argc - 1, argv + 1);
        pb_plugin_unload_all(&plugins);
        return status;
    }
    const char *names[NCOMMANDS];
    for (size_t i = 0; i < NCOMMANDS; i++) names[i] = commands[i].name;
    const char *close = pb_suggest(argv[1], names, NCOMMANDS);
    fprintf(stderr, "bench: unknown command '%s'%s%s%s\n", argv[1], close ? " (did you mean '" : "",
            close ? close : "", close ? "'?)" : "");
    fputs(usage, stderr);
    return 2;
}
