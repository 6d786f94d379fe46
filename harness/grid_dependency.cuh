/* Programmatic dependent launch (sm_90): a kernel launched with
 * cudaLaunchAttributeProgrammaticStreamSerialization may start while the kernel before it
 * on the stream is still finishing, so its launch and its first loads overlap that
 * kernel's end. It must wait (wait_for_prior_grid) before it reads anything that kernel
 * writes; launched without the attribute, the wait returns at once. */
#pragma once

#include <cuda_runtime.h>

namespace pb {

/* Blocks until the previous kernel on the stream has finished and its writes are visible. */
__device__ __forceinline__ void wait_for_prior_grid() {
    asm volatile("griddepcontrol.wait;\n" ::: "memory");
}

/* The launch attribute that lets a kernel overlap the end of the one before it. */
inline cudaLaunchAttribute overlap_prior_grid() {
    cudaLaunchAttribute a{};
    a.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    a.val.programmaticStreamSerializationAllowed = 1;
    return a;
}

} // namespace pb
