/* What every command prints for -h and for bad usage (commands.h), in the core library
 * so that commands linked there (cmd_kway.c) and main.c share it. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

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
