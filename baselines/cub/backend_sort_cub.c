/* sort/cub-segmented and sort/cub-radix: registration of the CUB baselines (sort_cub.cu). */
#include <stdio.h>

#include "sort_gpu.h"

static const struct pb_sort_gpu_impl segmented_impl = {
    .plan = pb_sort_cub_segmented_plan,
    .setup = pb_sort_cub_segmented_setup,
    .launch = pb_sort_cub_segmented_launch,
};

static const struct pb_sort_gpu_impl radix_impl = {
    .plan = pb_sort_cub_radix_plan,
    .launch = pb_sort_cub_radix_launch,
};

static int segmented_prepare(struct pb_run *r) { return pb_sort_gpu_prepare(r, &segmented_impl); }
static int radix_prepare(struct pb_run *r) { return pb_sort_gpu_prepare(r, &radix_impl); }

static bool radix_supports(const struct pb_case *c, char *why, size_t why_len) {
    if (!pb_sort_supports(c, why, why_len)) return false;
    struct pb_sort_shape s;
    pb_sort_case_shape(c, &s);
    if (s.count == 1) return true;
    snprintf(why, why_len, "%llu segments: DeviceRadixSort sorts one whole array (segment 0)",
             (unsigned long long)s.count);
    return false;
}

const struct pb_backend pb_backend_sort_cub_segmented = {
    .primitive = "sort",
    .name = "sort/cub-segmented",
    .summary = "CUB DeviceSegmentedSort",
    .target = PB_TARGET_GPU,
    .supports = pb_sort_supports,
    .prepare = segmented_prepare,
    .poison = pb_sort_gpu_poison,
    .run = pb_sort_gpu_run,
    .collect = pb_sort_gpu_collect,
    .release = pb_sort_gpu_release,
};

const struct pb_backend pb_backend_sort_cub_radix = {
    .primitive = "sort",
    .name = "sort/cub-radix",
    .summary = "CUB DeviceRadixSort of one whole array",
    .target = PB_TARGET_GPU,
    .supports = radix_supports,
    .prepare = radix_prepare,
    .poison = pb_sort_gpu_poison,
    .run = pb_sort_gpu_run,
    .collect = pb_sort_gpu_collect,
    .release = pb_sort_gpu_release,
};
