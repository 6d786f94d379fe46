/* merge/path and merge/bitonic-splitters: registration of the GPU algorithms. */
#include <stdio.h>

#include "merge_gpu.h"

static const struct pb_merge_gpu_impl path_impl = {
    .plan = pb_merge_path_plan,
    .launch = pb_merge_path_launch,
};

static const struct pb_merge_gpu_impl bitonic_impl = {
    .plan = pb_merge_bitonic_plan,
    .launch = pb_merge_bitonic_launch,
};

static int path_prepare(struct pb_run *r) { return pb_merge_gpu_prepare(r, &path_impl); }
static int bitonic_prepare(struct pb_run *r) { return pb_merge_gpu_prepare(r, &bitonic_impl); }

/* Every GPU merge takes every case of the primitive. */
bool pb_merge_gpu_supports(const struct pb_case *c, char *why, size_t why_len) {
    (void)c;
    (void)why;
    (void)why_len;
    return true;
}

const struct pb_backend pb_backend_merge_path = {
    .primitive = "merge",
    .name = "merge/path",
    .summary = "exact co-ranking of equal output slices over the k lists, then an in-block "
               "merge of each slice's runs in shared memory",
    .target = PB_TARGET_GPU,
    .supports = pb_merge_gpu_supports,
    .prepare = path_prepare,
    .poison = pb_merge_gpu_poison,
    .run = pb_merge_gpu_run,
    .collect = pb_merge_gpu_collect,
    .release = pb_merge_gpu_release,
};

const struct pb_backend pb_backend_merge_bitonic_splitters = {
    .primitive = "merge",
    .name = "merge/bitonic-splitters",
    .summary = "the seed's: splitters by parallel binary search on random pivots, sublists "
               "merged pairwise by a bitonic network in shared memory",
    .target = PB_TARGET_GPU,
    .supports = pb_merge_gpu_supports,
    .prepare = bitonic_prepare,
    .poison = pb_merge_gpu_poison,
    .run = pb_merge_gpu_run,
    .collect = pb_merge_gpu_collect,
    .release = pb_merge_gpu_release,
};
