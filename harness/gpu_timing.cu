/* The stream blocker: one thread spinning on a flag the host sets after enqueuing. */
#include <cuda_runtime.h>

#include "gpu_timing.h"

namespace {

__device__ unsigned long long global_time_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void block_stream_kernel(const volatile int *release_flag, int *timed_out,
                                    unsigned long long timeout_ns) {
    const unsigned long long start = global_time_ns();
    while (*release_flag == 0) {
        if (global_time_ns() - start > timeout_ns) {
            *timed_out = 1;
            return;
        }
        __nanosleep(1000);
    }
}

} // namespace

extern "C" int pb_gpu_block_stream(cudaStream_t stream, const volatile int *release_flag,
                                   int *timed_out, unsigned long long timeout_ns) {
    block_stream_kernel<<<1, 1, 0, stream>>>(release_flag, timed_out, timeout_ns);
    return (int)cudaGetLastError();
}
