/* bench list: what the registry holds. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "registry.h"

static const char usage[] =
    "usage: bench list [--plugin LIB.so]...\n"
    "\n"
    "Lists every primitive with its sweep axes (valid ranges or choices, defaults) and\n"
    "every backend with its target, those of the plugins given last.\n";

static void print_axis(const struct pb_axis *a) {
    printf("    %-14s ", a->name);
    if (a->kind == PB_AXIS_INT) {
        printf("integer %" PRId64 "..%" PRId64, a->min, a->max);
    } else {
        printf("one of");
        for (int i = 0; a->choices[i]; i++) printf(" %s", a->choices[i]);
    }
    printf("  (default %s) %s\n", a->default_value ? a->default_value : "none", a->help);
}

int pb_cmd_list(int argc, char **argv) {
    if (pb_wants_help(argc, argv, usage)) return 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--plugin") == 0)
            i++; /* loaded by main before the command runs */
        else
            return pb_usage_error(usage, "unexpected argument '%s'", argv[i]);
    }
    for (int p = 0; p < pb_registry_primitive_count(); p++) {
        const struct pb_primitive *prim = pb_registry_primitive_at(p);
        printf("%s: %s\n  axes:\n", prim->name, prim->summary);
        for (int i = 0; i < prim->naxes; i++) print_axis(&prim->axes[i]);
        printf("  backends:\n");
        for (int b = 0; b < pb_registry_backend_count(); b++) {
            const struct pb_backend *be = pb_registry_backend_at(b);
            if (be->primitive == prim->name || strcmp(be->primitive, prim->name) == 0)
                printf("    %-22s %s  %s\n", be->name, be->target == PB_TARGET_GPU ? "gpu" : "cpu",
                       be->summary);
        }
    }
    return 0;
}
