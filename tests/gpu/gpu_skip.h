/* GPU tests skip (exit 77, Meson's code for a skipped test) where there is no GPU; tests
 * that run either way ask have_gpu() which outcome a GPU row should have. Include after
 * <cmocka.h>. */
#ifndef PB_TEST_GPU_SKIP_H
#define PB_TEST_GPU_SKIP_H

#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include <stdbool.h>

static inline bool have_gpu(void) {
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

static inline void skip_without_gpu(void) {
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        printf("skipped: no CUDA device (%s)\n",
               err != cudaSuccess ? cudaGetErrorString(err) : "0 devices");
        exit(77);
    }
}

/* A GPU test's first call: skip without a GPU; PB_TEST_FILTER (a cmocka pattern, '*'
 * allowed) runs only the matching tests, so that a sanitizer run can split a long program
 * into jobs. */
static inline void gpu_test_start(void) {
    skip_without_gpu();
    const char *only = getenv("PB_TEST_FILTER");
    if (only && *only) cmocka_set_test_filter(only);
}

#endif
