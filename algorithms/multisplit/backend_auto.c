/* multisplit/auto: our design (chunk_sort.cu) for every bin count. */
#include "multisplit_gpu.h"

static const struct pb_multisplit_gpu_impl chunk_sort_impl = {
    .plan = pb_multisplit_chunk_sort_plan,
    .launch = pb_multisplit_chunk_sort_launch,
};

static int auto_prepare(struct pb_run *r) { return pb_multisplit_gpu_prepare(r, &chunk_sort_impl); }

const struct pb_backend pb_backend_multisplit_auto = {
    .primitive = "multisplit",
    .name = "multisplit/auto",
    .summary = "count, scan, then per 4K-key chunk a stable block sort by bin and coalesced runs; "
               "any bins",
    .target = PB_TARGET_GPU,
    .supports = pb_multisplit_supports,
    .prepare = auto_prepare,
    .poison = pb_multisplit_gpu_poison,
    .run = pb_multisplit_gpu_run,
    .collect = pb_multisplit_gpu_collect,
    .release = pb_multisplit_gpu_release,
};
