/* select/radix-rowloop: select/radix called once per row (the batched launch's comparison). */
#include "select_gpu.h"

static const struct pb_select_gpu_impl radix_rowloop_impl = {
    .method = PB_SELECT_SAMPLED,
    .rowloop = true,
    .scratch_bytes = pb_radix_select_scratch_bytes,
    .launch = pb_radix_select_detail,
};

static int radix_rowloop_prepare(struct pb_run *r) { return pb_select_gpu_prepare(r, &radix_rowloop_impl); }

const struct pb_backend pb_backend_select_radix_rowloop = {
    .primitive = "select",
    .name = "select/radix-rowloop",
    .summary = "select/radix called once per row (the batched launch's comparison)",
    .target = PB_TARGET_GPU,
    .supports = pb_select_supports,
    .prepare = radix_rowloop_prepare,
    .poison = pb_select_gpu_poison,
    .run = pb_select_gpu_run,
    .collect = pb_select_gpu_collect,
    .release = pb_select_gpu_release,
};
