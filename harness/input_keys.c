#include "input_keys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

static double gib(size_t bytes) { return (double)bytes / 1073741824.0; }

int pb_input_keys_host(struct pb_input *in, const struct pb_gen_spec *spec, char *err,
                       size_t err_len) {
    size_t bytes = spec->n * pb_dtype_size(spec->dtype);
    memset(in, 0, sizeof *in);
    in->n = spec->n;
    in->dtype = spec->dtype;
    in->host = malloc(bytes ? bytes : 1);
    if (!in->host) {
        snprintf(err, err_len, "cannot allocate %.2f GiB of host memory for the input", gib(bytes));
        return -1;
    }
    pb_generate_host(spec, in->host);
    return 0;
}

int pb_input_keys_device(struct pb_input *in, const struct pb_gen_spec *spec) {
    cudaError_t e = cudaMalloc(&in->device, spec->n * pb_dtype_size(spec->dtype));
    if (e == cudaSuccess) e = (cudaError_t)pb_generate_device(spec, in->device, 0);
    return (int)e;
}

int pb_input_device_ready(int cuda_error, const struct pb_input *in, char *err, size_t err_len) {
    cudaError_t e = (cudaError_t)cuda_error;
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e == cudaSuccess) return 0;
    snprintf(err, err_len, "device input of %.2f GiB: %s", gib(in->n * pb_dtype_size(in->dtype)),
             cudaGetErrorString(e));
    return -1;
}

uint32_t *pb_index_values(uint64_t n) {
    uint32_t *values = malloc(n ? n * sizeof *values : 1);
    for (uint64_t i = 0; values && i < n; i++) values[i] = (uint32_t)i;
    return values;
}

void pb_input_keys_free(struct pb_input *in) {
    free(in->host);
    if (in->device) cudaFree(in->device);
    memset(in, 0, sizeof *in);
}
