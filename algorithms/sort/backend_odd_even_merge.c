/* sort/odd-even-merge: Batcher's odd-even merge sort network (odd_even_merge.cu). */
#include <stdio.h>

#include "sort_gpu.h"

static const struct pb_sort_gpu_impl oem_impl = {
    .plan = pb_sort_oem_plan,
    .launch = pb_sort_oem_launch,
};

/* Segments up to one block's 4096 keys; beyond that, one whole array with global steps. */
static bool oem_supports(const struct pb_case *c, char *why, size_t why_len) {
    if (!pb_sort_supports(c, why, why_len)) return false;
    struct pb_sort_shape s;
    pb_sort_case_shape(c, &s);
    if (s.length <= PB_SORT_MAX_NETWORK) return true;
    if (s.count == 1 && s.n <= (uint64_t)PB_SORT_OEM_MAX_ARRAY) return true;
    if (s.count == 1)
        snprintf(why, why_len, "one array of %llu keys: the global network takes at most %lld",
                 (unsigned long long)s.n, (long long)PB_SORT_OEM_MAX_ARRAY);
    else
        snprintf(why, why_len,
                 "segments of %llu keys: at most %d per segment, or one whole array (segment 0)",
                 (unsigned long long)s.length, PB_SORT_MAX_NETWORK);
    return false;
}

static int oem_prepare(struct pb_run *r) { return pb_sort_gpu_prepare(r, &oem_impl); }

const struct pb_backend pb_backend_sort_odd_even_merge = {
    .primitive = "sort",
    .name = "sort/odd-even-merge",
    .summary = "Batcher's odd-even merge network: a thread per segment in registers up to 32 "
               "keys (up to 128 four-byte keys without values, the network pruned to the "
               "length), a 4096-item tile in registers (warp shuffles, shared memory only past "
               "1024) up to 4096, global steps for one array",
    .target = PB_TARGET_GPU,
    .supports = oem_supports,
    .prepare = oem_prepare,
    .poison = pb_sort_gpu_poison,
    .run = pb_sort_gpu_run,
    .collect = pb_sort_gpu_collect,
    .release = pb_sort_gpu_release,
};
