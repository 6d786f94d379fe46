/* Wide steps of dijkstra-butterfly's one-block kernel: a step whose settled list holds
 * many arcs (dense graphs settle up to 1024 tied vertices at once) is relaxed by every
 * SM, not by block 0's one SM alone.
 *
 * The kernel then runs as a cooperative grid of one block an SM. Block 0 runs the loop
 * as before; the other blocks wait on a generation counter (acquire). For a wide step,
 * block 0 copies its distances and the step's list to global memory, publishes the step
 * (release), waits until every other block has counted itself done, and takes the
 * lowered distances back into shared memory. Every warp of the other blocks relaxes one
 * contiguous slice of the list's flattened arcs into the global distances (atomicMin at
 * the L2), and lowers the predecessor keys as block 0 does. A 16384-vertex graph at 25%
 * has 10 distinct distances and 67 million arcs, nearly all in steps of hundreds of
 * vertices: on one SM those arcs were the whole solve (3.3 G arcs/s). */
#pragma once

#include <cuda/atomic>

#include "settled_list.cuh"

namespace pb_sssp {

/* Steps with at least this many arcs go wide by default: one SM relaxes 32768 arcs in
 * about 10 us, a wide step costs a few us of handshakes and copies. */
constexpr uint32_t kWideArcs = 1u << 15;
constexpr uint32_t kWideQuit = 0xFFFFFFFFu;  /* the generation that ends the workers */
constexpr uint32_t kWideNever = 0xFFFFFFFFu; /* WideArgs::arcs of a kernel without workers */

/* The handshake, in device scratch, zeroed before each launch. */
struct alignas(128) WideControl {
    uint32_t generation; /* wide steps published so far, or kWideQuit */
    uint32_t du, count, total;
    alignas(128) uint32_t done; /* other blocks' finished shares, over all wide steps */
};

/* Where a wide step's data lives: the n distances, the list (kListCapacity entries), the
 * predecessor keys. */
struct WideArgs {
    WideControl *control; /* nullptr: the one-block kernel runs alone */
    uint32_t *dist;
    uint32_t *vertex, *row, *offset;
    unsigned long long *pred_key;
    uint32_t arcs; /* steps of at least this many arcs go wide (kWideNever: none) */
};

__device__ __forceinline__ uint32_t load_acquire(uint32_t *p) {
    return cuda::atomic_ref<uint32_t, cuda::thread_scope_device>(*p).load(
        cuda::memory_order_acquire);
}

__device__ __forceinline__ void store_release(uint32_t *p, uint32_t value) {
    cuda::atomic_ref<uint32_t, cuda::thread_scope_device>(*p).store(value,
                                                                    cuda::memory_order_release);
}

/* This block's share of a wide step: warp w of the workers' W (blocks 1 on) relaxes the
 * flattened arcs [total * w / W, total * (w + 1) / W) into the global distances. Block 0
 * waits: its share spilled the one-block kernel's registers in every step. */
template <class Dist>
__device__ void wide_share(const pb_sssp_device_graph &g, const WideArgs &a, uint32_t du,
                           const GlobalList &list, uint32_t count, uint32_t total) {
    const uint64_t warps = (uint64_t)(gridDim.x - 1) * (blockDim.x / 32);
    const uint64_t w = (uint64_t)(blockIdx.x - 1) * (blockDim.x / 32) + threadIdx.x / 32;
    const uint32_t first = (uint32_t)(total * w / warps);
    const uint32_t limit = (uint32_t)(total * (w + 1) / warps);
    relax_list(list, count, total, g, first, kListChunk, limit,
               [&](uint32_t v, uint32_t wt, auto tail) {
                   const uint32_t nd = Dist::add(du, wt);
                   if (nd < __ldcg(&a.dist[v]) && nd < atomicMin(&a.dist[v], nd))
                       atomicMin(&a.pred_key[v], (unsigned long long)nd << 32 | tail());
               });
}

/* Blocks other than 0: every wide step's share, until block 0 sends kWideQuit. */
template <class Dist> __device__ void wide_worker(const pb_sssp_device_graph &g, WideArgs a) {
    __shared__ uint32_t generation;
    for (uint32_t seen = 0;;) {
        if (threadIdx.x == 0) {
            uint32_t now;
            while ((now = load_acquire(&a.control->generation)) == seen) __nanosleep(256);
            generation = now;
        }
        __syncthreads(); /* orders the acquire before every thread's loads */
        seen = generation;
        if (seen == kWideQuit) return;
        const WideControl &c = *a.control;
        const GlobalList list = {a.vertex, a.row, a.offset};
        wide_share<Dist>(g, a, __ldcg(&c.du), list, __ldcg(&c.count), __ldcg(&c.total));
        __syncwarp();
        __syncthreads(); /* the block's atomics before its count */
        if (threadIdx.x == 0) {
            __threadfence();
            atomicAdd(&a.control->done, 1u);
        }
    }
}

/* Block 0, thread 0: publishes wide step number generation (the list and distances are
 * in global memory, and a barrier since their stores). */
__device__ __forceinline__ void wide_publish(const WideArgs &a, uint32_t generation, uint32_t du,
                                             uint32_t count, uint32_t total) {
    a.control->du = du;
    a.control->count = count;
    a.control->total = total;
    __threadfence();
    store_release(&a.control->generation, generation);
}

/* Block 0, every thread: wide step number generation, from the list and distances in its
 * shared memory; the lowered distances are back in sdist when it returns (each thread
 * merges its own vertices, v % blockDim.x). Not inlined: in the kernel's loop its
 * addresses spilled registers in every step. */
__device__ __noinline__ void wide_step_from_block0(const WideArgs &a, const SettledList &list,
                                                   uint32_t *sdist, uint32_t n, uint32_t du,
                                                   uint32_t count, uint32_t total,
                                                   uint32_t generation) {
    for (uint32_t i = threadIdx.x; i < count; i += blockDim.x) {
        a.vertex[i] = list.vertex[i];
        a.row[i] = list.row[i];
        a.offset[i] = list.offset[i];
    }
    for (uint32_t v = threadIdx.x; v < n; v += blockDim.x) a.dist[v] = sdist[v];
    __syncthreads();
    if (threadIdx.x == 0) {
        wide_publish(a, generation, du, count, total);
        const uint32_t expected = generation * (gridDim.x - 1);
        while (load_acquire(&a.control->done) < expected) __nanosleep(64);
    }
    __syncthreads(); /* orders thread 0's acquire before every thread's loads */
    for (uint32_t v = threadIdx.x; v < n; v += blockDim.x)
        sdist[v] = min(sdist[v], __ldcg(&a.dist[v]));
}

} // namespace pb_sssp
