/* Radix select on the GPU: the k smallest (or largest) keys of each of `batch` rows of n
 * keys, exactly k per row (ties at the k-th value cut), with their indices in the row.
 * The seed's two call shapes: pb_radix_select allocates its own scratch; the detailed
 * pb_radix_select_detail takes caller-owned scratch of pb_radix_select_scratch_bytes
 * bytes and allocates nothing (what the benchmark times). */
#ifndef PB_RADIX_SELECT_H
#define PB_RADIX_SELECT_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

enum pb_select_method {
    /* Sample, then one filtering pass over the keys; a multi-pass fallback if the sample
     * misled. 11-bit digits. */
    PB_SELECT_SAMPLED,
    /* The fallback alone: fused histogram-and-filter passes of 11-bit digits. */
    PB_SELECT_MULTIPASS,
    /* The seed's: 8-bit digits from the most significant, histogram, find the digit that
     * holds the k-th key, relocate its candidates with atomics, repeat. */
    PB_SELECT_RADIX8
};

struct pb_select_params {
    int dtype;      /* enum pb_dtype: u8 .. f64 */
    uint64_t n;     /* keys per row, 1 .. 2^32 - 1 */
    uint32_t batch; /* rows, laid out one after the other */
    uint64_t k;     /* 1 .. n */
    int largest;    /* nonzero: the k largest (floats: NaN counts as the largest) */
    int sorted;     /* nonzero: each row's results best first */
    int method;     /* enum pb_select_method */
};

/* Scratch bytes pb_radix_select_detail needs for p. Returns a cudaError_t. */
int pb_radix_select_scratch_bytes(const struct pb_select_params *p, size_t *bytes);

/* Enqueues the selection on stream: out_keys gets batch * k keys (row after row),
 * out_index (may be NULL) their indices in their rows. Returns a cudaError_t. */
int pb_radix_select_detail(const struct pb_select_params *p, const void *keys, void *out_keys,
                           uint32_t *out_index, void *scratch, size_t scratch_bytes,
                           cudaStream_t stream);

/* The simple entry: allocates scratch, selects, synchronizes, frees. */
int pb_radix_select(const struct pb_select_params *p, const void *keys, void *out_keys,
                    uint32_t *out_index);

#ifdef __cplusplus
}
#endif

#endif
