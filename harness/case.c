/* Reading a case's axis values by name. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "primbench.h"

static int axis_index(const struct pb_case *c, const char *axis) {
    for (int i = 0; i < c->naxes; i++)
        if (strcmp(c->axes[i].name, axis) == 0) return i;
    /* A primitive asking for an axis it did not declare is a programming error. */
    fprintf(stderr, "primbench: internal error: no axis '%s' in this case\n", axis);
    abort();
}

int64_t pb_case_int(const struct pb_case *c, const char *axis) {
    return c->value[axis_index(c, axis)];
}

const char *pb_case_choice(const struct pb_case *c, const char *axis) {
    int i = axis_index(c, axis);
    return c->axes[i].choices[c->value[i]];
}

void pb_case_describe(const struct pb_case *c, char *buf, size_t len) {
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < c->naxes && used < len; i++) {
        const struct pb_axis *a = &c->axes[i];
        int w = a->kind == PB_AXIS_INT ? snprintf(buf + used, len - used, "%s%s=%" PRId64,
                                                  i ? " " : "", a->name, c->value[i])
                                       : snprintf(buf + used, len - used, "%s%s=%s", i ? " " : "",
                                                  a->name, a->choices[c->value[i]]);
        if (w < 0) break;
        used += (size_t)w;
    }
}

uint64_t pb_case_input_stream(const struct pb_case *c) {
    /* FNV-1a over the names and values of the axes that shape the input: cases that
     * differ only in, say, op share their input; any other difference changes it. */
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < c->naxes; i++) {
        if (!c->axes[i].shapes_input) continue;
        for (const char *p = c->axes[i].name; *p; p++)
            h = (h ^ (unsigned char)*p) * 1099511628211ull;
        uint64_t v = (uint64_t)c->value[i];
        for (int b = 0; b < 8; b++) h = (h ^ ((v >> (8 * b)) & 0xff)) * 1099511628211ull;
    }
    return h;
}

bool pb_case_same_input(const struct pb_case *a, const struct pb_case *b) {
    if (!a || !b || a->axes != b->axes || a->seed != b->seed) return false;
    for (int i = 0; i < a->naxes; i++)
        if (a->axes[i].shapes_input && a->value[i] != b->value[i]) return false;
    return true;
}
