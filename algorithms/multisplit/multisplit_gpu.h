/* What every GPU multisplit backend shares: output buffers, poisoning, collecting. A
 * backend supplies plan (scratch size) and launch. */
#ifndef PB_MULTISPLIT_GPU_H
#define PB_MULTISPLIT_GPU_H

#include "multisplit.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pb_multisplit_args {
    const void *keys;
    const uint32_t *values; /* NULL for keys only */
    uint64_t n;
    struct pb_bucket bucket;
    void *out_keys;
    uint32_t *out_values; /* NULL for keys only */
    uint32_t *offsets;    /* bins entries: where each bin starts */
    void *scratch;
    size_t scratch_bytes;
};

struct pb_multisplit_gpu_impl {
    /* Scratch the launch needs (args' pointers may be NULL). Returns a cudaError_t. */
    int (*plan)(const struct pb_multisplit_args *a, size_t *scratch_bytes);
    int (*launch)(const struct pb_multisplit_args *a, cudaStream_t stream);
};

int pb_multisplit_gpu_prepare(struct pb_run *r, const struct pb_multisplit_gpu_impl *impl);
int pb_multisplit_gpu_poison(struct pb_run *r);
int pb_multisplit_gpu_run(struct pb_run *r);
int pb_multisplit_gpu_collect(struct pb_run *r);
void pb_multisplit_gpu_release(struct pb_run *r);

/* The kernels' entry points (multisplit_*.cu). */
int pb_multisplit_slice_plan(const struct pb_multisplit_args *a, size_t *scratch_bytes);
int pb_multisplit_slice_launch(const struct pb_multisplit_args *a, cudaStream_t stream);
int pb_multisplit_bpw_plan(const struct pb_multisplit_args *a, size_t *scratch_bytes);
int pb_multisplit_bpw_launch(const struct pb_multisplit_args *a, cudaStream_t stream);
int pb_multisplit_large_plan(const struct pb_multisplit_args *a, size_t *scratch_bytes);
int pb_multisplit_large_launch(const struct pb_multisplit_args *a, cudaStream_t stream);
int pb_multisplit_cub_plan(const struct pb_multisplit_args *a, size_t *scratch_bytes);
int pb_multisplit_cub_launch(const struct pb_multisplit_args *a, cudaStream_t stream);
/* bins[i]: key i's bin (bin_ids.cu); with index, index[i] = i. */
int pb_multisplit_bin_ids(const struct pb_multisplit_args *a, uint32_t *bins, uint32_t *index,
                          cudaStream_t stream);
/* Whether bpw's 32-slot buffers for every bin fit the device's shared memory per block;
 * when not, the bytes they would need. */
bool pb_multisplit_bpw_fits(int dtype, bool pairs, uint32_t bins, size_t *needed,
                            size_t *available);
/* multisplit/auto splits large inputs of keys alone in one pass up to this many bins
 * (slice_scatter.cu's kSinglePassMaxBins), in two above. */
#define PB_MULTISPLIT_ONE_PASS_MAX_BINS 384u
/* The seed's direct method takes at most this many bins. */
#define PB_MULTISPLIT_LARGE_MAX_BINS 12288

#ifdef __cplusplus
}
#endif

#endif
