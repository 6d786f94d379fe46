#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_check.h"
#include "registry.h"

int check_backend_on_input(const struct pb_backend *b, const struct pb_case *c,
                           const struct pb_input *in, char *why, size_t why_len) {
    const struct pb_primitive *p = pb_registry_find_primitive(b->primitive);
    size_t bytes = p->output_bytes(c);
    void *ref = calloc(1, bytes), *out = malloc(bytes);
    struct pb_run r = {.c = c, .in = in, .stream = 0, .out = out};
    int failed = !ref || !out || p->reference(c, in, ref) != 0;
    if (failed) snprintf(r.err, sizeof r.err, "no memory for the reference");
    if (!failed) memset(out, 0xA5, bytes);
    if (!failed && b->prepare) failed = b->prepare(&r) != 0;
    /* Two runs, poisoned before the second: it proves a launch leaves the backend ready
     * for the next one, and that the second run writes its answer itself. */
    if (!failed) failed = (b->reset && b->reset(&r) != 0) || b->run(&r) != 0;
    if (!failed && b->poison) failed = b->poison(&r) != 0;
    if (!failed) failed = (b->reset && b->reset(&r) != 0) || b->run(&r) != 0;
    if (!failed && b->collect) failed = b->collect(&r) != 0;
    if (!failed && b->target == PB_TARGET_GPU) {
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess) {
            snprintf(r.err, sizeof r.err, "%s", cudaGetErrorString(e));
            failed = 1;
        }
    }
    int result = 1;
    if (failed)
        snprintf(why, why_len, "%s failed: %s", b->name, r.err);
    else
        result = p->verify(c, in, ref, out, why, why_len);
    if (b->release) b->release(&r);
    free(ref);
    free(out);
    return result;
}

int check_backend(const struct pb_backend *b, const struct pb_case *c, char *why, size_t why_len) {
    const struct pb_primitive *p = pb_registry_find_primitive(b->primitive);
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

int check_all_backends(enum pb_target target, const char *primitive, const struct pb_case *c,
                       char *why, size_t why_len) {
    for (int i = 0; i < pb_registry_backend_count(); i++) {
        const struct pb_backend *b = pb_registry_backend_at(i);
        char reason[256];
        if (strcmp(b->primitive, primitive) != 0 || b->target != target) continue;
        if (!b->supports(c, reason, sizeof reason)) continue;
        char one[512] = "";
        if (check_backend(b, c, one, sizeof one) != 0) {
            snprintf(why, why_len, "%s: %s", b->name, one);
            return 1;
        }
    }
    return 0;
}
