/* GPU-side helpers for honest timing: an L2 flush and a stream blocker. */
#ifndef PB_GPU_TIMING_H
#define PB_GPU_TIMING_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Holds `stream` until *release_flag (host-mapped memory) becomes non-zero, or until
 * timeout_ns of GPU time have passed; then writes 1 to *timed_out when it gave up.
 * Enqueuing a batch of repetitions behind it keeps host launch gaps out of the
 * events' intervals, as NVBench's blocking kernel does. Returns a cudaError_t value. */
int pb_gpu_block_stream(cudaStream_t stream, const volatile int *release_flag, int *timed_out,
                        unsigned long long timeout_ns);

#ifdef __cplusplus
}
#endif

#endif
