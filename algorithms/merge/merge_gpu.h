/* The GPU merge backends' entry points and what their lifecycle shares (merge_gpu.c). */
#ifndef PB_MERGE_GPU_H
#define PB_MERGE_GPU_H

#include "merge.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One merge on the device. All pointers are device pointers. */
struct pb_merge_args {
    const void *keys;             /* the concatenated lists, n keys of dtype */
    const uint32_t *values;       /* n values, or NULL for keys only */
    const uint64_t *offsets;      /* k + 1: list i is keys[offsets[i] .. offsets[i + 1]) */
    const uint64_t *host_offsets; /* the same on the host (plan, setup and launch read it) */
    uint64_t n;
    uint32_t k;
    int dtype; /* enum pb_dtype: PB_U32, PB_I32, PB_F32, PB_U64 or PB_F64 */
    void *out_keys;
    uint32_t *out_values; /* NULL for keys only */
    void *scratch;        /* scratch_bytes as plan said, 256-byte aligned */
    size_t scratch_bytes;
    int sm_count; /* of the current device */
};

/* A GPU merge backend: plan (scratch bytes; the args' device pointers may be NULL), an
 * optional untimed setup after the scratch exists, and the timed launch, all asynchronous
 * on stream. Each returns a cudaError_t. */
struct pb_merge_gpu_impl {
    int (*plan)(const struct pb_merge_args *a, size_t *scratch_bytes);
    int (*setup)(const struct pb_merge_args *a, cudaStream_t stream);
    int (*launch)(const struct pb_merge_args *a, cudaStream_t stream);
};

bool pb_merge_gpu_supports(const struct pb_case *c, char *why, size_t why_len);
int pb_merge_gpu_prepare(struct pb_run *r, const struct pb_merge_gpu_impl *impl);
int pb_merge_gpu_poison(struct pb_run *r);
int pb_merge_gpu_run(struct pb_run *r);
int pb_merge_gpu_collect(struct pb_run *r);
void pb_merge_gpu_release(struct pb_run *r);

/* merge/path (merge_path.cu): ceil(log2 k) rounds of pairwise merges with exact
 * merge-path tiles, or (k >= 3, many keys) one or two multiway passes with sampled
 * splitters; tiles merged in shared memory either way. */
int pb_merge_path_plan(const struct pb_merge_args *a, size_t *scratch_bytes);
int pb_merge_path_launch(const struct pb_merge_args *a, cudaStream_t stream);
/* merge/bitonic-splitters (bitonic_splitters.cu): the seed's method. */
int pb_merge_bitonic_plan(const struct pb_merge_args *a, size_t *scratch_bytes);
int pb_merge_bitonic_launch(const struct pb_merge_args *a, cudaStream_t stream);
/* merge/cub-sort and merge/cub-merge-tree (baselines/cub/merge_cub.cu). */
int pb_merge_cub_sort_plan(const struct pb_merge_args *a, size_t *scratch_bytes);
int pb_merge_cub_sort_launch(const struct pb_merge_args *a, cudaStream_t stream);
int pb_merge_cub_tree_plan(const struct pb_merge_args *a, size_t *scratch_bytes);
int pb_merge_cub_tree_launch(const struct pb_merge_args *a, cudaStream_t stream);

/* Merges host lists on the current device with merge/path, for `bench kway-merge`:
 * uploads, merges, downloads into keys_out (and values_out when values). 0, or -1 with the
 * reason in err. *gpu_ms (may be NULL) receives the merge's device time. */
int pb_merge_on_gpu(enum pb_dtype t, const void *keys, const uint32_t *values,
                    const uint64_t *offsets, uint32_t k, void *keys_out, uint32_t *values_out,
                    double *gpu_ms, char *err, size_t err_len);

#ifdef __cplusplus
}
#endif

#endif
