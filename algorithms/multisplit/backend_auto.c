/* multisplit/auto: our design (slice_scatter.cu) for every bin count. */
#include "multisplit_gpu.h"

static const struct pb_multisplit_gpu_impl slice_impl = {
    .plan = pb_multisplit_slice_plan,
    .launch = pb_multisplit_slice_launch,
};

static int auto_prepare(struct pb_run *r) { return pb_multisplit_gpu_prepare(r, &slice_impl); }

const struct pb_backend pb_backend_multisplit_auto = {
    .primitive = "multisplit",
    .name = "multisplit/auto",
    .summary = "per-slice count, scan, then per tile (16 KB; wider past 2^21 keys at 65 to 384 "
               "digits) warp ranking by lane masks or per-thread counters and coalesced runs, "
               "the next tile on its way by cp.async; two LSD passes above 384 bins (more for "
               "small inputs, 200 with values in narrow tiles)",
    .target = PB_TARGET_GPU,
    .supports = pb_multisplit_supports,
    .prepare = auto_prepare,
    .poison = pb_multisplit_gpu_poison,
    .run = pb_multisplit_gpu_run,
    .collect = pb_multisplit_gpu_collect,
    .release = pb_multisplit_gpu_release,
};
