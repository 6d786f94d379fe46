/* Hand-made k-way merge inputs for the tests: lists of given sizes and keys, laid out as
 * the merge primitive lays out its own (algorithms/merge/merge.h), with a case whose
 * shape matches (sizes = equal over the same n), so the primitive's reference, verifier
 * and output size apply. */
#ifndef PB_TEST_MERGE_INPUTS_H
#define PB_TEST_MERGE_INPUTS_H

#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "case_builder.h"
#include "merge.h"
#include "registry.h"

/* keys: the concatenated lists (each sorted), sizes: k list sizes. Returns 0, or -1 when
 * memory (host or device) runs out. in is freed by the primitive's free_input. */
static inline int merge_input_from(struct pb_case *c, struct pb_input *in, enum pb_dtype t,
                                   const void *keys, const uint64_t *sizes, uint32_t k, bool pairs,
                                   bool device) {
    uint64_t n = 0;
    for (uint32_t i = 0; i < k; i++) n += sizes[i];
    case_init(c, pb_registry_find_primitive("merge"), 5);
    case_set_int(c, "k", k);
    case_set_int(c, "n", n ? (int64_t)n : 1);
    case_set_choice(c, "sizes", "equal");
    case_set_choice(c, "dtype", pb_dtype_name(t));
    case_set_choice(c, "values", pairs ? "u32" : "none");
    memset(in, 0, sizeof *in);
    struct pb_merge_extra *x = calloc(1, sizeof *x);
    size_t ks = pb_dtype_size(t);
    in->extra = x;
    in->n = n;
    in->dtype = t;
    in->host = malloc(n * ks + 1);
    if (!x || !in->host) return -1;
    memcpy(in->host, keys, n * ks);
    x->shape = (struct pb_merge_shape){.n = n, .k = k, .dtype = t, .pairs = pairs};
    x->shape.offsets = malloc(((size_t)k + 1) * sizeof(uint64_t));
    if (!x->shape.offsets) return -1;
    x->shape.offsets[0] = 0;
    for (uint32_t i = 0; i < k; i++) x->shape.offsets[i + 1] = x->shape.offsets[i] + sizes[i];
    if (pairs) {
        x->host_values = malloc(n * sizeof(uint32_t) + 4);
        if (!x->host_values) return -1;
        for (uint64_t i = 0; i < n; i++) x->host_values[i] = (uint32_t)i;
    }
    if (!device) return 0;
    size_t ob = ((size_t)k + 1) * sizeof(uint64_t);
    if (cudaMalloc(&in->device, n * ks + 1) != cudaSuccess ||
        cudaMemcpy(in->device, keys, n * ks, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMalloc((void **)&x->device_offsets, ob) != cudaSuccess ||
        cudaMemcpy(x->device_offsets, x->shape.offsets, ob, cudaMemcpyHostToDevice) != cudaSuccess)
        return -1;
    if (pairs && (cudaMalloc((void **)&x->device_values, n * 4 + 4) != cudaSuccess ||
                  cudaMemcpy(x->device_values, x->host_values, n * 4, cudaMemcpyHostToDevice) !=
                      cudaSuccess))
        return -1;
    return 0;
}

static inline void merge_input_free(struct pb_input *in) {
    pb_registry_find_primitive("merge")->free_input(in);
}

#endif
