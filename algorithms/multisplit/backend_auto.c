/* multisplit/auto: our design (slice_scatter.cu) for every bin count.
 *
 * Splitter buckets over 4-byte keys alone above PB_MULTISPLIT_ONE_PASS_MAX_BINS bins (where
 * large inputs take two passes) first write each key's bin once (pb_multisplit_bin_ids),
 * then split those ids, carrying the keys as their values, with range buckets over
 * [0, bins) (bin = id exactly). A splitter bin is a lookup and a short search, which the
 * slice kernels would otherwise do in both counts and both scatters; the ids cost 8 more
 * bytes a key and passes that carry values. H200, 2^26 u32 keys, time against
 * PB_MULTISPLIT_BIN_IDS=0 (session 36 call 3, configs/tests/multisplit-bin-ids.json,
 * results/h200/session36-call3-*): 72 bins +25.4% (one pass), 361 -1.1% (i32 and f32 at
 * 2^24 +2.0 and +3.1%), 5000 -31.3%, 12288 -48.0%, 65536 -58.1%, zipf keys at 5000
 * -63.8% (not measured between 361 and 5000 bins, nor on small inputs). Other key sizes
 * and key-value inputs would need a second value to carry, so they evaluate splitters in
 * the passes. PB_MULTISPLIT_BIN_IDS=0 turns this off (tests and A/B runs). */
#include <stdlib.h>
#include <string.h>

#include "multisplit_gpu.h"

static bool splits_bin_ids(const struct pb_multisplit_args *a) {
    const char *knob = getenv("PB_MULTISPLIT_BIN_IDS");
    if (knob && strcmp(knob, "0") == 0) return false;
    return a->bucket.kind == PB_BUCKET_SPLITTERS && !a->values &&
           a->bucket.bins > PB_MULTISPLIT_ONE_PASS_MAX_BINS &&
           pb_dtype_size((enum pb_dtype)a->bucket.dtype) == 4;
}

/* Where the ids and the inner split's scratch lie in a's scratch. */
static size_t ids_bytes(uint64_t n) { return (n * sizeof(uint32_t) + 255) / 256 * 256; }

/* Stands for a's keys as the ids' values when a plan is made before the keys exist: a plan
 * reads only whether there are values. */
static const uint32_t keys_to_come;

/* The split of the bin ids: keys the ids, values a's keys, out_values a's out_keys. */
static struct pb_multisplit_args split_of_ids(const struct pb_multisplit_args *a) {
    struct pb_multisplit_args ids = *a;
    const struct pb_key_range every_bin = {.min_bits = 0, .max_bits = a->bucket.bins - 1};
    pb_bucket_make(PB_BUCKET_RANGE, PB_U32, a->bucket.bins, &every_bin, &ids.bucket);
    char *scratch = a->scratch;
    ids.keys = scratch;
    ids.values = a->keys ? a->keys : &keys_to_come;
    ids.out_keys = scratch ? scratch + ids_bytes(a->n) : NULL;
    ids.out_values = a->out_keys;
    ids.scratch = scratch ? scratch + 2 * ids_bytes(a->n) : NULL;
    return ids;
}

static int auto_plan(const struct pb_multisplit_args *a, size_t *scratch_bytes) {
    if (!splits_bin_ids(a)) return pb_multisplit_slice_plan(a, scratch_bytes);
    const struct pb_multisplit_args ids = split_of_ids(a);
    size_t inner = 0;
    const int e = pb_multisplit_slice_plan(&ids, &inner);
    *scratch_bytes = 2 * ids_bytes(a->n) + inner;
    return e;
}

static int auto_launch(const struct pb_multisplit_args *a, cudaStream_t stream) {
    if (!splits_bin_ids(a)) return pb_multisplit_slice_launch(a, stream);
    const struct pb_multisplit_args ids = split_of_ids(a);
    const int e = pb_multisplit_bin_ids(a, (uint32_t *)ids.keys, NULL, stream);
    return e ? e : pb_multisplit_slice_launch(&ids, stream);
}

static const struct pb_multisplit_gpu_impl slice_impl = {
    .plan = auto_plan,
    .launch = auto_launch,
};

static int auto_prepare(struct pb_run *r) { return pb_multisplit_gpu_prepare(r, &slice_impl); }

const struct pb_backend pb_backend_multisplit_auto = {
    .primitive = "multisplit",
    .name = "multisplit/auto",
    .summary = "per-slice count, scan, then per tile (16 KB; wider past 2^21 keys at 65 to 384 "
               "digits) warp ranking by lane masks or per-thread counters and coalesced runs, "
               "the next tile on its way by cp.async; two LSD passes above 384 bins (more for "
               "small inputs, 200 with values in narrow tiles); splitter buckets over 4-byte "
               "keys alone split their bin ids, found once",
    .target = PB_TARGET_GPU,
    .supports = pb_multisplit_supports,
    .prepare = auto_prepare,
    .poison = pb_multisplit_gpu_poison,
    .run = pb_multisplit_gpu_run,
    .collect = pb_multisplit_gpu_collect,
    .release = pb_multisplit_gpu_release,
};
