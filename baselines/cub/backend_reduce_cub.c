/* reduce/cub: registration of CUB DeviceReduce (reduce_cub.cu). */
#include "gpu_backend.h"

static const struct pb_reduce_gpu_impl cub_impl = {
    .plan = pb_reduce_cub_plan,
    .launch = pb_reduce_cub_launch,
};

static int cub_prepare(struct pb_run *r) { return pb_reduce_gpu_prepare(r, &cub_impl); }

const struct pb_backend pb_backend_reduce_cub = {
    .primitive = "reduce",
    .name = "reduce/cub",
    .summary = "CUB DeviceReduce::Sum / Min / Max / ArgMin from the CUDA toolkit",
    .target = PB_TARGET_GPU,
    .supports = pb_reduce_supports,
    .prepare = cub_prepare,
    .poison = pb_reduce_gpu_poison,
    .run = pb_reduce_gpu_run,
    .collect = pb_reduce_gpu_collect,
    .release = pb_reduce_gpu_release,
};
