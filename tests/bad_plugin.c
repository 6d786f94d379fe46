/* Plugins the harness must refuse, one per build: BAD_NO_ENTRY exports no
 * pb_plugin_register, BAD_UNKNOWN_PRIMITIVE gives a backend of a primitive that does not
 * exist, BAD_DUPLICATE one whose name a built-in backend has. */
#include <stdio.h>

#include "primbench.h"

static bool any_case(const struct pb_case *c, char *why, size_t why_len) {
    (void)c;
    (void)why;
    (void)why_len;
    return true;
}

static int never_run(struct pb_run *r) {
    snprintf(r->err, sizeof r->err, "a refused plugin's backend ran");
    return -1;
}

#if defined(BAD_UNKNOWN_PRIMITIVE)
static const struct pb_backend bad = {.primitive = "no-such-primitive",
                                      .name = "no-such-primitive/x",
                                      .summary = "names a primitive the harness lacks",
                                      .target = PB_TARGET_CPU,
                                      .supports = any_case,
                                      .run = never_run};
#else
static const struct pb_backend bad = {.primitive = "reduce",
                                      .name = "reduce/butterfly",
                                      .summary = "takes a built-in backend's name",
                                      .target = PB_TARGET_CPU,
                                      .supports = any_case,
                                      .run = never_run};
#endif

static const struct pb_backend *const list[] = {&bad};

#if defined(BAD_NO_ENTRY)
/* Exported under another name than the one the harness looks for. */
int pb_plugin_registre(int abi, const struct pb_backend *const **backends, int *count);
int pb_plugin_registre(int abi, const struct pb_backend *const **backends, int *count) {
#else
int pb_plugin_register(int abi, const struct pb_backend *const **backends, int *count);
int pb_plugin_register(int abi, const struct pb_backend *const **backends, int *count) {
#endif
    (void)abi;
    *backends = list;
    *count = 1;
    return 0;
}
