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

/* cp.async of Bytes (4, 8: .ca; 16: .cg, which bypasses L1) with kPrefetch's hint; the
 * asm text must be a literal, hence one statement a hint. */
#define PB_CP_ASYNC(op, hint)                                                                      \
    asm volatile("cp.async." op ".shared.global" hint " [%0], [%1], %2;\n" ::"r"(to), "l"(gmem),   \
                 "n"(Bytes)                                                                        \
                 : "memory")
#define PB_CP_ASYNC_HINTED(op)                                                                     \
    if constexpr (kPrefetch == 256)                                                                \
        PB_CP_ASYNC(op, ".L2::256B");                                                              \
    else if constexpr (kPrefetch == 128)                                                           \
        PB_CP_ASYNC(op, ".L2::128B");                                                              \
    else                                                                                           \
        PB_CP_ASYNC(op, "")
template <int Bytes, int kPrefetch>
__device__ __forceinline__ void cp_async_hinted(void *smem, const void *gmem) {
    static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp.async copies 4, 8 or 16 bytes");
    static_assert(kPrefetch == 0 || kPrefetch == 128 || kPrefetch == 256, "L2 prefetch size");
    const unsigned to = (unsigned)__cvta_generic_to_shared(smem);
    if constexpr (Bytes == 16) { /* braces: the macro is an if-else chain */
        PB_CP_ASYNC_HINTED("cg");
    } else {
        PB_CP_ASYNC_HINTED("ca");
    }
}
#undef PB_CP_ASYNC_HINTED
#undef PB_CP_ASYNC

/* 16 bytes, both addresses 16-byte aligned; bypasses L1. */
template <int kPrefetch = PB_L2_PREFETCH>
__device__ __forceinline__ void copy16_async(void *smem, const void *gmem) {
    cp_async_hinted<16, kPrefetch>(smem, gmem);
}
/* One element of Bytes (4 or 8), naturally aligned. */
template <int Bytes, int kPrefetch = PB_L2_PREFETCH>
__device__ __forceinline__ void copy_async(void *smem, const void *gmem) {
    static_assert(Bytes == 4 || Bytes == 8, "copy16_async copies 16 bytes");
    cp_async_hinted<Bytes, kPrefetch>(smem, gmem);
}
__device__ __forceinline__ void commit_async() {
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}
__device__ __forceinline__ void wait_async_all() {
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
}
/* All but the newest kPending groups of this thread have landed. */
template <int kPending> __device__ __forceinline__ void wait_async() {
    static_assert(kPending >= 0, "a count of groups");
    asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

} // namespace pb
