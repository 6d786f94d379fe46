/* cp.async (sm_80 and later): global to shared memory without passing through registers,
 * so that a thread issues all of its copies before waiting on any.
 *
 * kPrefetch (0, 128 or 256): the L2 prefetch size a copy asks for (PTX
 * .level::prefetch_size), 0 for none. Its default, PB_L2_PREFETCH, is 0; A/B builds set it
 * with -DPB_L2_PREFETCH=N. */
#pragma once

#ifndef PB_L2_PREFETCH
#define PB_L2_PREFETCH 0
#endif

namespace pb {

/* 16 bytes, both addresses 16-byte aligned; bypasses L1. */
template <int kPrefetch = PB_L2_PREFETCH>
__device__ __forceinline__ void copy16_async(void *smem, const void *gmem) {
    const unsigned to = (unsigned)__cvta_generic_to_shared(smem);
    if constexpr (kPrefetch == 256)
        asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;\n" ::"r"(to), "l"(gmem)
                     : "memory");
    else if constexpr (kPrefetch == 128)
        asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;\n" ::"r"(to), "l"(gmem)
                     : "memory");
    else
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(to), "l"(gmem) : "memory");
}
/* One element of Bytes (4 or 8), naturally aligned. */
template <int Bytes, int kPrefetch = PB_L2_PREFETCH>
__device__ __forceinline__ void copy_async(void *smem, const void *gmem) {
    static_assert(Bytes == 4 || Bytes == 8, "cp.async.ca copies 4, 8 or 16 bytes");
    const unsigned to = (unsigned)__cvta_generic_to_shared(smem);
    if constexpr (kPrefetch == 256)
        asm volatile("cp.async.ca.shared.global.L2::256B [%0], [%1], %2;\n" ::"r"(to), "l"(gmem),
                     "n"(Bytes)
                     : "memory");
    else if constexpr (kPrefetch == 128)
        asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], %2;\n" ::"r"(to), "l"(gmem),
                     "n"(Bytes)
                     : "memory");
    else
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
