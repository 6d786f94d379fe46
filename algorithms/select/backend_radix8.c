/* select/radix8: seed 002: 8-bit digits from the top, histogram, prefix sum to the k-th digit,
 * relocate candidates with atomics. */
#include "select_gpu.h"

static const struct pb_select_gpu_impl radix8_impl = {
    .method = PB_SELECT_RADIX8,
    .rowloop = false,
    .scratch_bytes = pb_radix_select_scratch_bytes,
    .launch = pb_radix_select_detail,
};

static int radix8_prepare(struct pb_run *r) { return pb_select_gpu_prepare(r, &radix8_impl); }

const struct pb_backend pb_backend_select_radix8 = {
    .primitive = "select",
    .name = "select/radix8",
    .summary = "seed 002: 8-bit digits from the top, histogram, prefix sum to the k-th digit, "
               "relocate candidates with atomics",
    .target = PB_TARGET_GPU,
    .supports = pb_select_supports,
    .prepare = radix8_prepare,
    .poison = pb_select_gpu_poison,
    .run = pb_select_gpu_run,
    .collect = pb_select_gpu_collect,
    .release = pb_select_gpu_release,
};
