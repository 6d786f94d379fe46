/* The bench subcommands. Each returns the process exit code: 0 ok, 1 a failed check,
 * 2 bad usage or input. */
#ifndef PB_COMMANDS_H
#define PB_COMMANDS_H

#include <stdbool.h>

int pb_cmd_run(int argc, char **argv);
int pb_cmd_list(int argc, char **argv);
int pb_cmd_info(int argc, char **argv);
int pb_cmd_validate(int argc, char **argv);
int pb_cmd_compare(int argc, char **argv);
int pb_cmd_report(int argc, char **argv);
int pb_cmd_plot(int argc, char **argv);
int pb_cmd_merge(int argc, char **argv);
/* The seed's k-way merge files (cmd_kway.c, in the core library so tests can call them). */
int pb_cmd_kway_merge(int argc, char **argv);
int pb_cmd_kway_gen(int argc, char **argv);

/* True (and usage printed to stdout) when argv holds -h or --help. */
bool pb_wants_help(int argc, char **argv, const char *usage);
/* Prints a usage error and returns 2. */
int pb_usage_error(const char *usage, const char *fmt, const char *arg);

#endif
