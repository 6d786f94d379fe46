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
    if (!failed) memset(out, PB_POISON_BYTE, bytes);
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

bool backend_under_test(const struct pb_backend *b, const char *primitive, enum pb_target target) {
    if (strcmp(b->primitive, primitive) != 0 || b->target != target) return false;
    const char *only = getenv("PB_TEST_BACKEND");
    if (!only || !*only) return true;
    size_t len = strlen(b->name);
    for (const char *at = only; *at;) {
        const char *end = strchr(at, ',');
        size_t n = end ? (size_t)(end - at) : strlen(at);
        if (n == len && strncmp(at, b->name, len) == 0) return true;
        at += n + (end != NULL);
    }
    return false;
}

/* True when PB_TEST_BACKEND holds a name that no backend has (a typo would pass every
 * test while checking nothing); why then says which. */
static bool unknown_backend_named(char *why, size_t why_len) {
    const char *only = getenv("PB_TEST_BACKEND");
    for (const char *at = only ? only : ""; *at;) {
        const char *end = strchr(at, ',');
        int n = end ? (int)(end - at) : (int)strlen(at);
        bool known = false;
        for (int i = 0; i < pb_registry_backend_count() && !known; i++) {
            const char *name = pb_registry_backend_at(i)->name;
            known = (int)strlen(name) == n && strncmp(name, at, (size_t)n) == 0;
        }
        if (!known) {
            snprintf(why, why_len, "PB_TEST_BACKEND: no backend is named '%.*s'", n, at);
            return true;
        }
        at += n + (end != NULL);
    }
    return false;
}

/* Every backend under test that supports c, through check (one of the two below). */
static int check_each(enum pb_target target, const char *primitive, const struct pb_case *c,
                      const struct pb_input *in, char *why, size_t why_len) {
    if (unknown_backend_named(why, why_len)) return 1;
    for (int i = 0; i < pb_registry_backend_count(); i++) {
        const struct pb_backend *b = pb_registry_backend_at(i);
        char reason[256];
        if (!backend_under_test(b, primitive, target) || !b->supports(c, reason, sizeof reason))
            continue;
        char one[512] = "";
        int failed = in ? check_backend_on_input(b, c, in, one, sizeof one)
                        : check_backend(b, c, one, sizeof one);
        if (failed) {
            snprintf(why, why_len, "%s: %s", b->name, one);
            return 1;
        }
    }
    return 0;
}

int check_all_backends(enum pb_target target, const char *primitive, const struct pb_case *c,
                       char *why, size_t why_len) {
    return check_each(target, primitive, c, NULL, why, why_len);
}

int check_all_backends_on_input(enum pb_target target, const char *primitive,
                                const struct pb_case *c, const struct pb_input *in, char *why,
                                size_t why_len) {
    return check_each(target, primitive, c, in, why, why_len);
}
