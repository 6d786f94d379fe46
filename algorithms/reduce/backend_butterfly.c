/* reduce/butterfly: registration of the butterfly kernel (butterfly.cu). */
#include "gpu_backend.h"

static const struct pb_reduce_gpu_impl butterfly_impl = {
    .plan = pb_reduce_butterfly_plan,
    .launch = pb_reduce_butterfly_launch,
};

static int butterfly_prepare(struct pb_run *r) { return pb_reduce_gpu_prepare(r, &butterfly_impl); }

const struct pb_backend pb_backend_reduce_butterfly = {
    .primitive = "reduce",
    .name = "reduce/butterfly",
    .summary =
        "seed 004: XOR-shuffle butterfly in warps, then blocks, last block combines; one launch",
    .target = PB_TARGET_GPU,
    .supports = pb_reduce_supports,
    .prepare = butterfly_prepare,
    .poison = pb_reduce_gpu_poison,
    .run = pb_reduce_gpu_run,
    .collect = pb_reduce_gpu_collect,
    .release = pb_reduce_gpu_release,
};
