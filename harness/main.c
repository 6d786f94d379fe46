/* bench: the command line. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
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
    "\n"
    "`bench COMMAND --help` describes each. Exit codes: 0 ok, 1 a failed check, 2 bad usage or "
    "input.\n";

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} commands[] = {
    {"run", pb_cmd_run},
    {"validate", pb_cmd_validate},
    {"list", pb_cmd_list},
    {"info", pb_cmd_info},
    {"compare", pb_cmd_compare},
    {"report", pb_cmd_report},
    {"plot", pb_cmd_plot},
    {"merge", pb_cmd_merge},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

bool pb_wants_help(int argc, char **argv, const char *text) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(text, stdout);
            return true;
        }
    }
    return false;
}

int pb_usage_error(const char *text, const char *fmt, const char *arg) {
    fputs("bench: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\n", stderr);
    fputs(text, stderr);
    return 2;
}

int main(int argc, char **argv) {
    if (argc < 2) return pb_usage_error(usage, "%s", "no command given");
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "help") == 0) {
        fputs(usage, stdout);
        return 0;
    }
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(argv[1], commands[i].name) == 0) return commands[i].run(argc - 1, argv + 1);
    const char *names[NCOMMANDS];
    for (size_t i = 0; i < NCOMMANDS; i++) names[i] = commands[i].name;
    const char *close = pb_suggest(argv[1], names, NCOMMANDS);
    fprintf(stderr, "bench: unknown command '%s'%s%s%s\n", argv[1], close ? " (did you mean '" : "",
            close ? close : "", close ? "'?)" : "");
    fputs(usage, stderr);
    return 2;
}
