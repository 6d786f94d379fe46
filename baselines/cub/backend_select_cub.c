/* select/cub-sort: registration of the CUB sort baseline (select_cub.cu). */
#include "select_gpu.h"

static const struct pb_select_gpu_impl cub_sort_impl = {
    .method = 0,
    .rowloop = false,
    .scratch_bytes = pb_select_cub_scratch_bytes,
    .launch = pb_select_cub_launch,
};

static int cub_sort_prepare(struct pb_run *r) { return pb_select_gpu_prepare(r, &cub_sort_impl); }

const struct pb_backend pb_backend_select_cub_sort = {
    .primitive = "select",
    .name = "select/cub-sort",
    .summary = "CUB radix sort of (ordered key, index) pairs, segmented when batched, then the "
               "first k of each row",
    .target = PB_TARGET_GPU,
    .supports = pb_select_supports,
    .prepare = cub_sort_prepare,
    .poison = pb_select_gpu_poison,
    .run = pb_select_gpu_run,
    .collect = pb_select_gpu_collect,
    .release = pb_select_gpu_release,
};
