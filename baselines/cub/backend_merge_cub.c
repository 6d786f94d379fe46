/* merge/cub-sort and merge/cub-merge-tree: registration of the CUB baselines
 * (merge_cub.cu). */
#include "merge_gpu.h"

static const struct pb_merge_gpu_impl sort_impl = {
    .plan = pb_merge_cub_sort_plan,
    .launch = pb_merge_cub_sort_launch,
};

static const struct pb_merge_gpu_impl tree_impl = {
    .plan = pb_merge_cub_tree_plan,
    .launch = pb_merge_cub_tree_launch,
};

static int sort_prepare(struct pb_run *r) { return pb_merge_gpu_prepare(r, &sort_impl); }
static int tree_prepare(struct pb_run *r) { return pb_merge_gpu_prepare(r, &tree_impl); }

const struct pb_backend pb_backend_merge_cub_sort = {
    .primitive = "merge",
    .name = "merge/cub-sort",
    .summary = "CUB DeviceRadixSort of the concatenated lists (stable)",
    .target = PB_TARGET_GPU,
    .supports = pb_merge_gpu_supports,
    .prepare = sort_prepare,
    .poison = pb_merge_gpu_poison,
    .run = pb_merge_gpu_run,
    .collect = pb_merge_gpu_collect,
    .release = pb_merge_gpu_release,
};

const struct pb_backend pb_backend_merge_cub_merge_tree = {
    .primitive = "merge",
    .name = "merge/cub-merge-tree",
    .summary = "ceil(log2 k) rounds of CUB DeviceMerge over neighbouring lists",
    .target = PB_TARGET_GPU,
    .supports = pb_merge_gpu_supports,
    .prepare = tree_prepare,
    .poison = pb_merge_gpu_poison,
    .run = pb_merge_gpu_run,
    .collect = pb_merge_gpu_collect,
    .release = pb_merge_gpu_release,
};
