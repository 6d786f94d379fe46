/* select/radix: sampled key interval, one filtering pass over the keys, finish on the candidates;
 * multi-pass fallback. */
#include "select_gpu.h"

static const struct pb_select_gpu_impl radix_impl = {
    .method = PB_SELECT_SAMPLED,
    .rowloop = false,
    .scratch_bytes = pb_radix_select_scratch_bytes,
    .launch = pb_radix_select_detail,
};

static int radix_prepare(struct pb_run *r) { return pb_select_gpu_prepare(r, &radix_impl); }

const struct pb_backend pb_backend_select_radix = {
    .primitive = "select",
    .name = "select/radix",
    .summary = "sampled key interval, one filtering pass over the keys, finish on the candidates; "
               "multi-pass fallback",
    .target = PB_TARGET_GPU,
    .supports = pb_select_supports,
    .prepare = radix_prepare,
    .poison = pb_select_gpu_poison,
    .run = pb_select_gpu_run,
    .collect = pb_select_gpu_collect,
    .release = pb_select_gpu_release,
};
