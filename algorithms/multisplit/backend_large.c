/* multisplit/large: the seed's direct method (seed_warp.cu). */
#include <stdio.h>

#include "multisplit_gpu.h"

static const struct pb_multisplit_gpu_impl large_impl = {
    .plan = pb_multisplit_large_plan,
    .launch = pb_multisplit_large_launch,
};

static bool large_supports(const struct pb_case *c, char *why, size_t why_len) {
    if (!pb_multisplit_supports(c, why, why_len)) return false;
    if (pb_case_int(c, "bins") <= PB_MULTISPLIT_LARGE_MAX_BINS) return true;
    snprintf(why, why_len, "the seed's direct method takes at most %d bins",
             PB_MULTISPLIT_LARGE_MAX_BINS);
    return false;
}

static int large_prepare(struct pb_run *r) { return pb_multisplit_gpu_prepare(r, &large_impl); }

const struct pb_backend pb_backend_multisplit_large = {
    .primitive = "multisplit",
    .name = "multisplit/large",
    .summary =
        "seed 001: per-warp slices, each key written straight to its place (up to 12288 bins)",
    .target = PB_TARGET_GPU,
    .supports = large_supports,
    .prepare = large_prepare,
    .poison = pb_multisplit_gpu_poison,
    .run = pb_multisplit_gpu_run,
    .collect = pb_multisplit_gpu_collect,
    .release = pb_multisplit_gpu_release,
};
