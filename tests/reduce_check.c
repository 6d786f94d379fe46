#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reduce_check.h"
#include "registry.h"

int check_backend_on_input(const struct pb_backend *b, const struct pb_case *c,
                           const struct pb_input *in, char *why, size_t why_len) {
    const struct pb_primitive *p = pb_registry_find_primitive("reduce");
    struct pb_reduce_result ref, out;
    memset(&out, 0xA5, sizeof out);
    struct pb_run r = {.c = c, .in = in, .stream = 0, .out = &out};
    int failed = p->reference(c, in, &ref) != 0;
    if (!failed) failed = b->prepare(&r) != 0;
    /* Two runs, poisoned before the second: it proves a launch leaves the backend ready
     * for the next one, and that the second run writes its answer itself. */
    if (!failed) failed = b->run(&r) != 0;
    if (!failed && b->poison) failed = b->poison(&r) != 0;
    if (!failed) failed = b->run(&r) != 0;
    if (!failed) failed = b->collect(&r) != 0;
    if (failed) {
        snprintf(why, why_len, "%s failed: %s", b->name, r.err);
        b->release(&r);
        return 1;
    }
    b->release(&r);
    return p->verify(c, in, &ref, &out, why, why_len);
}

int check_backend(const struct pb_backend *b, const struct pb_case *c, char *why, size_t why_len) {
    const struct pb_primitive *p = pb_registry_find_primitive("reduce");
    struct pb_input in;
    char err[256] = "";
    if (p->make_input(c, b->target == PB_TARGET_GPU, &in, err, sizeof err) != 0) {
        snprintf(why, why_len, "input: %s", err);
        p->free_input(&in);
        return 1;
    }
    int result = check_backend_on_input(b, c, &in, why, why_len);
    p->free_input(&in);
    return result;
}
