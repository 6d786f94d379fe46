/* What every GPU select backend shares: the device outputs, scratch made in prepare,
 * poisoning and collecting. A backend supplies its scratch size and its launch, both in
 * the radix_select.h call shape. */
#ifndef PB_SELECT_GPU_H
#define PB_SELECT_GPU_H

#include "radix_select.h"
#include "select.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pb_select_gpu_impl {
    int method;   /* enum pb_select_method, passed through to the launch */
    bool rowloop; /* one call per row (batch 1 each) instead of one call for all rows */
    int (*scratch_bytes)(const struct pb_select_params *p, size_t *bytes);
    int (*launch)(const struct pb_select_params *p, const void *keys, void *out_keys,
                  uint32_t *out_index, void *scratch, size_t scratch_bytes, cudaStream_t stream);
};

int pb_select_gpu_prepare(struct pb_run *r, const struct pb_select_gpu_impl *impl);
int pb_select_gpu_poison(struct pb_run *r);
int pb_select_gpu_run(struct pb_run *r);
int pb_select_gpu_collect(struct pb_run *r);
void pb_select_gpu_release(struct pb_run *r);

/* The CUB baseline (baselines/cub/select_cub.cu): ordered keys and indices sorted by CUB
 * (segmented when batched), then the first k of each row. */
int pb_select_cub_scratch_bytes(const struct pb_select_params *p, size_t *bytes);
int pb_select_cub_launch(const struct pb_select_params *p, const void *keys, void *out_keys,
                         uint32_t *out_index, void *scratch, size_t scratch_bytes,
                         cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
