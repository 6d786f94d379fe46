/* select/radix-multipass: the fallback alone: fused histogram-and-filter passes of 11-bit digits,
 * candidates compacted. */
#include "select_gpu.h"

static const struct pb_select_gpu_impl radix_multipass_impl = {
    .method = PB_SELECT_MULTIPASS,
    .rowloop = false,
    .scratch_bytes = pb_radix_select_scratch_bytes,
    .launch = pb_radix_select_detail,
};

static int radix_multipass_prepare(struct pb_run *r) {
    return pb_select_gpu_prepare(r, &radix_multipass_impl);
}

const struct pb_backend pb_backend_select_radix_multipass = {
    .primitive = "select",
    .name = "select/radix-multipass",
    .summary = "the fallback alone: fused histogram-and-filter passes of 11-bit digits, candidates "
               "compacted",
    .target = PB_TARGET_GPU,
    .supports = pb_select_supports,
    .prepare = radix_multipass_prepare,
    .poison = pb_select_gpu_poison,
    .run = pb_select_gpu_run,
    .collect = pb_select_gpu_collect,
    .release = pb_select_gpu_release,
};
