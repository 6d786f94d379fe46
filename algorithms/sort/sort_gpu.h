/* What every GPU sort backend shares: output buffers, poisoning, collecting. A backend
 * supplies plan (scratch size) and launch. */
#ifndef PB_SORT_GPU_H
#define PB_SORT_GPU_H

#include "sort.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pb_sort_args {
    const void *keys;
    const uint32_t *values;    /* NULL for keys only */
    uint64_t n, length, count; /* as struct pb_sort_shape */
    int dtype;                 /* enum pb_dtype */
    bool descending;
    void *out_keys;
    uint32_t *out_values; /* NULL for keys only */
    void *scratch;
    size_t scratch_bytes;
};

struct pb_sort_gpu_impl {
    /* Scratch the launch needs (the args' pointers may be NULL). Returns a cudaError_t. */
    int (*plan)(const struct pb_sort_args *a, size_t *scratch_bytes);
    /* Untimed, once, after the scratch is allocated (offsets a baseline reads); may be
     * NULL. Returns a cudaError_t. */
    int (*setup)(const struct pb_sort_args *a, cudaStream_t stream);
    int (*launch)(const struct pb_sort_args *a, cudaStream_t stream);
};

int pb_sort_gpu_prepare(struct pb_run *r, const struct pb_sort_gpu_impl *impl);
int pb_sort_gpu_poison(struct pb_run *r);
int pb_sort_gpu_run(struct pb_run *r);
int pb_sort_gpu_collect(struct pb_run *r);
void pb_sort_gpu_release(struct pb_run *r);

/* sort/odd-even-merge takes segments up to PB_SORT_MAX_NETWORK keys, and one whole array
 * up to this many (its global merge steps need a padded copy). */
#define PB_SORT_OEM_MAX_ARRAY (1LL << 27)

/* The kernels' entry points. */
int pb_sort_odd_even_plan(const struct pb_sort_args *a, size_t *scratch_bytes);
int pb_sort_odd_even_launch(const struct pb_sort_args *a, cudaStream_t stream);
int pb_sort_oem_plan(const struct pb_sort_args *a, size_t *scratch_bytes);
int pb_sort_oem_launch(const struct pb_sort_args *a, cudaStream_t stream);
int pb_sort_cub_segmented_plan(const struct pb_sort_args *a, size_t *scratch_bytes);
int pb_sort_cub_segmented_setup(const struct pb_sort_args *a, cudaStream_t stream);
int pb_sort_cub_segmented_launch(const struct pb_sort_args *a, cudaStream_t stream);
int pb_sort_cub_radix_plan(const struct pb_sort_args *a, size_t *scratch_bytes);
int pb_sort_cub_radix_launch(const struct pb_sort_args *a, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
