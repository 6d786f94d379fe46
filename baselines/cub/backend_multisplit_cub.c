/* multisplit/cub-sort: registration of the CUB radix-sort baseline (multisplit_cub.cu). */
#include "multisplit_gpu.h"

static const struct pb_multisplit_gpu_impl cub_sort_impl = {
    .plan = pb_multisplit_cub_plan,
    .launch = pb_multisplit_cub_launch,
};

static int cub_sort_prepare(struct pb_run *r) {
    return pb_multisplit_gpu_prepare(r, &cub_sort_impl);
}

const struct pb_backend pb_backend_multisplit_cub_sort = {
    .primitive = "multisplit",
    .name = "multisplit/cub-sort",
    .summary =
        "CUB DeviceRadixSort of bin ids carrying the keys (stable), histogram and scan for offsets",
    .target = PB_TARGET_GPU,
    .supports = pb_multisplit_supports,
    .prepare = cub_sort_prepare,
    .poison = pb_multisplit_gpu_poison,
    .run = pb_multisplit_gpu_run,
    .collect = pb_multisplit_gpu_collect,
    .release = pb_multisplit_gpu_release,
};
