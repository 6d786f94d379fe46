#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case_builder.h"

static int axis_of(const struct pb_case *c, const char *axis) {
    for (int i = 0; i < c->naxes; i++)
        if (strcmp(c->axes[i].name, axis) == 0) return i;
    fprintf(stderr, "test bug: no axis %s\n", axis);
    abort();
}

void case_init(struct pb_case *c, const struct pb_primitive *p, uint64_t seed) {
    memset(c, 0, sizeof *c);
    c->axes = p->axes;
    c->naxes = p->naxes;
    c->seed = seed;
    for (int i = 0; i < p->naxes; i++)
        c->value[i] = p->axes[i].kind == PB_AXIS_INT ? p->axes[i].min : 0;
}

void case_set_int(struct pb_case *c, const char *axis, int64_t value) {
    c->value[axis_of(c, axis)] = value;
}

void case_set_choice(struct pb_case *c, const char *axis, const char *choice) {
    int a = axis_of(c, axis);
    for (int i = 0; c->axes[a].choices[i]; i++) {
        if (strcmp(c->axes[a].choices[i], choice) == 0) {
            c->value[a] = i;
            return;
        }
    }
    fprintf(stderr, "test bug: axis %s has no choice %s\n", axis, choice);
    abort();
}
