/* cp.async (sm_80 and later): global to shared memory without passing through registers,
 * so that a thread issues all of its copies before waiting on any. */
#pragma once

namespace pb {

/* 16 bytes, both addresses 16-byte aligned; bypasses L1. */
__device__ __forceinline__ void copy16_async(void *smem, const void *gmem) {
    const unsigned to = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(to), "l"(gmem) : "memory");
}
/* One element of Bytes (4 or 8), naturally aligned. */
template <int Bytes> __device__ __forceinline__ void copy_async(void *smem, const void *gmem) {
    static_assert(Bytes == 4 || Bytes == 8, "cp.async.ca copies 4, 8 or 16 bytes");
    const unsigned to = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(to), "l"(gmem), "n"(Bytes)
                 : "memory");
}
__device__ __forceinline__ void commit_async() {
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}
__device__ __forceinline__ void wait_async_all() {
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
}

} // namespace pb
