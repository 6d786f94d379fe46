/* The one way a backend turns a CUDA error into its row's reason. */
#include <stdio.h>

#include "primbench.h"

int pb_run_cuda_failed(struct pb_run *r, cudaError_t err, const char *what) {
    if (err == cudaSuccess) return 0;
    snprintf(r->err, sizeof r->err, "%s: %s", what, cudaGetErrorString(err));
    return -1;
}
