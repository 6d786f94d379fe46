/* Poisoning a GPU backend's output before a run (PB_POISON_BYTE). */
#include <stdio.h>

#include "primbench.h"

int pb_run_poison_device(struct pb_run *r, void *device, size_t bytes, const char *what) {
    if (!device) return 0;
    const cudaError_t e = cudaMemsetAsync(device, PB_POISON_BYTE, bytes, r->stream);
    if (e == cudaSuccess) return 0;
    char why[64]; /* formatted only for the error's reason */
    snprintf(why, sizeof why, "poison %s", what);
    return pb_run_cuda_failed(r, e, why);
}
