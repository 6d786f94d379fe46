/* multisplit/bpw: the seed's buffer-per-warp method (seed_warp.cu). */
#include <stdio.h>

#include "multisplit_gpu.h"

static const struct pb_multisplit_gpu_impl bpw_impl = {
    .plan = pb_multisplit_bpw_plan,
    .launch = pb_multisplit_bpw_launch,
};

/* As the seed: only while a 32-slot buffer per bin fits in shared memory. */
static bool bpw_supports(const struct pb_case *c, char *why, size_t why_len) {
    if (!pb_multisplit_supports(c, why, why_len)) return false;
    enum pb_dtype t = PB_U32;
    pb_dtype_parse(pb_case_choice(c, "dtype"), &t);
    size_t needed, available;
    if (pb_multisplit_bpw_fits(t, pb_case_int(c, "values") != 0, (uint32_t)pb_case_int(c, "bins"),
                               &needed, &available))
        return true;
    snprintf(why, why_len, "the bins' buffers need %zu KiB of shared memory, a block has %zu KiB",
             needed / 1024, available / 1024);
    return false;
}

static int bpw_prepare(struct pb_run *r) { return pb_multisplit_gpu_prepare(r, &bpw_impl); }

const struct pb_backend pb_backend_multisplit_bpw = {
    .primitive = "multisplit",
    .name = "multisplit/bpw",
    .summary =
        "seed 001: per-warp slices, a 32-key shared-memory buffer per bin written by a whole warp",
    .target = PB_TARGET_GPU,
    .supports = bpw_supports,
    .prepare = bpw_prepare,
    .poison = pb_multisplit_gpu_poison,
    .run = pb_multisplit_gpu_run,
    .collect = pb_multisplit_gpu_collect,
    .release = pb_multisplit_gpu_release,
};
