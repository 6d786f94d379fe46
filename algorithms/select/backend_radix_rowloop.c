/* select/radix-rowloop: select/radix called once per row (the batched launch's comparison). */
#include <stdio.h>

#include "select_gpu.h"

/* One row is select/radix itself. */
static bool rowloop_supports(const struct pb_case *c, char *why, size_t why_len) {
    if (!pb_select_supports(c, why, why_len)) return false;
    if (pb_case_int(c, "batch") > 1) return true;
    snprintf(why, why_len, "one row: the same calls as select/radix");
    return false;
}

static const struct pb_select_gpu_impl radix_rowloop_impl = {
    .method = PB_SELECT_SAMPLED,
    .rowloop = true,
    .scratch_bytes = pb_radix_select_scratch_bytes,
    .launch = pb_radix_select_detail,
};

static int radix_rowloop_prepare(struct pb_run *r) {
    return pb_select_gpu_prepare(r, &radix_rowloop_impl);
}

const struct pb_backend pb_backend_select_radix_rowloop = {
    .primitive = "select",
    .name = "select/radix-rowloop",
    .summary = "select/radix called once per row (the batched launch's comparison)",
    .target = PB_TARGET_GPU,
    .supports = rowloop_supports,
    .prepare = radix_rowloop_prepare,
    .poison = pb_select_gpu_poison,
    .run = pb_select_gpu_run,
    .collect = pb_select_gpu_collect,
    .release = pb_select_gpu_release,
};
