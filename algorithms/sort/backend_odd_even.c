/* sort/odd-even: the seed's odd-even transposition sort (odd_even.cu). */
#include <stdio.h>

#include "sort_gpu.h"

static const struct pb_sort_gpu_impl odd_even_impl = {
    .plan = pb_sort_odd_even_plan,
    .launch = pb_sort_odd_even_launch,
};

/* One block holds a whole segment in shared memory, as in the seed. */
static bool odd_even_supports(const struct pb_case *c, char *why, size_t why_len) {
    if (!pb_sort_supports(c, why, why_len)) return false;
    struct pb_sort_shape s;
    pb_sort_case_shape(c, &s);
    if (s.length <= PB_SORT_MAX_NETWORK) return true;
    snprintf(why, why_len,
             "segments of %llu keys: the transposition sort keeps a segment in one block, at "
             "most %d keys",
             (unsigned long long)s.length, PB_SORT_MAX_NETWORK);
    return false;
}

static int odd_even_prepare(struct pb_run *r) { return pb_sort_gpu_prepare(r, &odd_even_impl); }

const struct pb_backend pb_backend_sort_odd_even = {
    .primitive = "sort",
    .name = "sort/odd-even",
    .summary = "seed 003: odd-even transposition sort, a block per segment, L phases in shared "
               "memory (O(L^2) work)",
    .target = PB_TARGET_GPU,
    .supports = odd_even_supports,
    .prepare = odd_even_prepare,
    .poison = pb_sort_gpu_poison,
    .run = pb_sort_gpu_run,
    .collect = pb_sort_gpu_collect,
    .release = pb_sort_gpu_release,
};
