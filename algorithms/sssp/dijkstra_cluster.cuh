/* dijkstra-butterfly's on-chip kernel: the whole Dijkstra loop in one thread-block cluster
 * of C blocks of 1024 threads (C = 1: one block), the tentative distances in the blocks'
 * shared memory, all steps in one launch.
 *
 * Ownership: vertices in chunks of 1024; chunk c belongs to block c % C, whose thread t
 * owns vertex t of each of its chunks, keeps which are settled in a register mask and
 * scans their distances. With C a power of two, the owner and the place of a vertex are
 * shifts and masks.
 *
 * A step: every thread scans its unsettled vertices, every warp butterflies to its
 * minimum and sends it with the vertex's arc range (from the block's row offsets in
 * shared memory when they fit) to every block's inbox (distributed shared memory); one
 * cluster barrier; every warp reduces the inbox (C x 32 candidates) to u, so nobody
 * waits on row[u] after the argmin. Each thread loads all its arcs of u into registers,
 * then does their atomicMin on the owner block's shared memory, writing pred[v] = u when
 * it lowers; a cluster barrier ends the step. Two barriers a step, whatever C. (C = 1
 * measured slower than dijkstra_butterfly.cu's one-block kernel, which serves graphs up
 * to 16384 vertices; it runs only when PB_SSSP_CLUSTER=1 asks for it.)
 *
 * The inbox needs no second buffer: it is read between the first and second barrier of
 * a step and written before the first, so the second barrier keeps a step's writes off
 * the previous step's reads. (Prefetching the runner-up candidate's arcs into L2 was
 * tried: 7 to 16% slower on the H200.) */
#pragma once

#include <cooperative_groups.h>

#include "butterfly.cuh"
#include "sssp_device.cuh"

namespace pb_sssp {

namespace cg = cooperative_groups;

constexpr int kClusterThreads = 1024;
constexpr int kClusterWarps = kClusterThreads / 32;
constexpr int kChunk = kClusterThreads; /* vertices per chunk: one per thread */
constexpr int kRowStride = kChunk + 1;  /* row offsets of a chunk: its vertices' + 1 */
constexpr int kMaxChunksPerBlock = 64;  /* bits of the settled mask */

/* A warp's minimum and its vertex's arcs, as the inbox holds it. */
struct alignas(16) Candidate {
    unsigned long long key; /* MinKeyOp's (distance << 32 | vertex) */
    uint32_t begin, end;
};

struct ClusterArgs {
    pb_sssp_device_graph g;
    uint32_t source;
    uint32_t *dist, *pred;
    uint32_t dist_words;  /* dynamic shared memory: dist_words distances, then row offsets */
    uint32_t rows_shared; /* 1: the row offsets are in shared memory */
};

template <int C> struct Owner {
    static_assert(C == 1 || C == 2 || C == 4 || C == 8 || C == 16, "C is a power of two <= 16");
    static constexpr int kLog = C == 1 ? 0 : C == 2 ? 1 : C == 4 ? 2 : C == 8 ? 3 : 4;
    __device__ static uint32_t block(uint32_t v) { return (v >> 10) & (C - 1); }
    __device__ static uint32_t chunk(uint32_t v) { return v >> (10 + kLog); } /* block-local */
    __device__ static uint32_t dist_at(uint32_t v) { return chunk(v) << 10 | (v & 1023); }
    __device__ static uint32_t row_at(uint32_t v) { return chunk(v) * kRowStride + (v & 1023); }
    __device__ static uint32_t vertex(uint32_t rank, uint32_t chunk, uint32_t j) {
        return ((chunk * C + rank) << 10) + j;
    }
};

template <int C> __device__ __forceinline__ void cluster_barrier() {
    if constexpr (C == 1)
        __syncthreads();
    else
        cg::this_cluster().sync(); /* release/acquire: orders the DSMEM stores and atomics */
}

/* Distributed shared memory by its 32-bit shared::cluster address (mapa), so the stores
 * and atomics are the shared-window forms, not generic ones. */
__device__ __forceinline__ uint32_t dsmem_address(const void *local, uint32_t rank) {
    uint32_t remote;
    asm("mapa.shared::cluster.u32 %0, %1, %2;"
        : "=r"(remote)
        : "r"((uint32_t)__cvta_generic_to_shared(local)), "r"(rank));
    return remote;
}

/* atomicMin on the distance at index i of block rank's shared memory. */
template <int C>
__device__ __forceinline__ uint32_t atomic_min_at(uint32_t *sdist, uint32_t rank, uint32_t i,
                                                  uint32_t value) {
    if constexpr (C == 1) {
        return atomicMin(&sdist[i], value);
    } else {
        uint32_t old;
        asm volatile("atom.shared::cluster.min.u32 %0, [%1], %2;"
                     : "=r"(old)
                     : "r"(dsmem_address(sdist + i, rank)), "r"(value)
                     : "memory");
        return old;
    }
}

/* Stores a candidate into block rank's inbox slot, 16 bytes at once. */
template <int C>
__device__ __forceinline__ void send(Candidate *slot, uint32_t rank, const Candidate &c) {
    if constexpr (C == 1) {
        *slot = c;
    } else {
        asm volatile(
            "st.shared::cluster.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(dsmem_address(slot, rank)),
            "r"((uint32_t)c.key), "r"((uint32_t)(c.key >> 32)), "r"(c.begin), "r"(c.end)
            : "memory");
    }
}

/* The least of the warp lanes' candidates, with its arc range, in every lane. */
__device__ __forceinline__ void warp_pick(unsigned long long key, uint32_t begin, uint32_t end,
                                          unsigned long long &best, uint32_t &best_begin,
                                          uint32_t &best_end) {
    best = pb_butterfly::warp_butterfly<MinKeyOp>(key);
    /* keys are unique (the vertex is in them) unless none is left: ask the lane that has it */
    const int from = __ffs(__ballot_sync(0xffffffffu, key == best)) - 1;
    best_begin = __shfl_sync(0xffffffffu, begin, from);
    best_end = __shfl_sync(0xffffffffu, end, from);
}

template <class Dist, int C>
__global__ void __launch_bounds__(kClusterThreads, 1) dijkstra_cluster_kernel(ClusterArgs a) {
    using O = Owner<C>;
    /* arcs a thread has in flight: 8 for 1024 threads, fewer (registers) for more threads */
    constexpr int kArcBatch = C >= 4 ? 2 : 8 / C;
    extern __shared__ uint32_t shared_words[];
    __shared__ Candidate inbox[C * kClusterWarps]; /* [sender block][sender warp] */
    uint32_t *sdist = shared_words, *srow = shared_words + a.dist_words;
    const pb_sssp_device_graph &g = a.g;
    const uint32_t n = g.n, tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const uint32_t rank = C == 1 ? 0 : cg::this_cluster().block_rank();
    const uint32_t chunks = (n + kChunk - 1) / kChunk;
    const uint32_t owned = chunks > rank ? (chunks - rank + C - 1) / C : 0;
    for (uint32_t k = 0; k < owned; k++) {
        uint32_t v = O::vertex(rank, k, tid);
        if (v < n) {
            sdist[k * kChunk + tid] = v == a.source ? 0u : Dist::kInf;
            a.pred[v] = SSSP_NO_PRED;
        }
    }
    if (a.rows_shared)
        for (uint32_t i = tid; i < owned * kRowStride; i += kClusterThreads) {
            uint32_t k = i / kRowStride, v = O::vertex(rank, k, i - k * kRowStride);
            if (v <= n) srow[i] = __ldg(&g.row[v]);
        }
    cluster_barrier<C>(); /* every block's shared memory is ready before anyone writes it */

    const uint32_t me = rank * kClusterThreads + tid, threads = C * kClusterThreads;
    unsigned long long settled = 0;
    for (uint32_t step = 0; step < n; step++) {
        unsigned long long best = MinKeyOp::identity();
        for (uint32_t k = 0; k < owned; k++) {
            uint32_t v = O::vertex(rank, k, tid);
            if (v < n && !((settled >> k) & 1ull)) {
                unsigned long long key = (unsigned long long)sdist[k * kChunk + tid] << 32 | v;
                best = key < best ? key : best;
            }
        }
        best = pb_butterfly::warp_butterfly<MinKeyOp>(best);
        if (lane < C) { /* lane d sends the warp's candidate to block d */
            Candidate c = {best, 0, 0};
            if (best != MinKeyOp::identity()) {
                const uint32_t v = (uint32_t)best; /* a vertex of this block */
                if (a.rows_shared) {
                    c.begin = srow[O::row_at(v)];
                    c.end = srow[O::row_at(v) + 1];
                } else {
                    c.begin = __ldg(&g.row[v]);
                    c.end = __ldg(&g.row[v + 1]);
                }
            }
            send<C>(&inbox[rank * kClusterWarps + warp], lane, c);
        }
        cluster_barrier<C>();

        Candidate mine = inbox[lane];
#pragma unroll 4
        for (int b = 1; b < C; b++) {
            Candidate c = inbox[b * kClusterWarps + lane];
            if (c.key < mine.key) mine = c;
        }
        uint32_t begin, end;
        warp_pick(mine.key, mine.begin, mine.end, best, begin, end);
        const uint32_t u = (uint32_t)best, du = (uint32_t)(best >> 32);
        if (best == MinKeyOp::identity() || du >= Dist::kInf) break; /* the same everywhere */
        if (O::block(u) == rank && (u & 1023) == tid) settled |= 1ull << O::chunk(u);

        /* All of a thread's arcs (up to kArcBatch) in flight at once, then their atomics. */
        const uint32_t degree = end - begin;
        uint32_t off = me, col[kArcBatch], w[kArcBatch];
#pragma unroll
        for (int b = 0; b < kArcBatch; b++)
            if (off + b * threads < degree) {
                col[b] = __ldg(&g.col[begin + off + b * threads]);
                w[b] = __ldg(&g.w[begin + off + b * threads]);
            }
        for (;;) {
            uint32_t old[kArcBatch]; /* w[b] becomes the new distance */
#pragma unroll
            for (int b = 0; b < kArcBatch; b++)
                if (off + b * threads < degree) {
                    w[b] = Dist::add(du, w[b]);
                    old[b] = atomic_min_at<C>(sdist, O::block(col[b]), O::dist_at(col[b]), w[b]);
                }
#pragma unroll
            for (int b = 0; b < kArcBatch; b++)
                if (off + b * threads < degree && w[b] < old[b]) a.pred[col[b]] = u;
            off += kArcBatch * threads;
            if (off >= degree) break;
#pragma unroll
            for (int b = 0; b < kArcBatch; b++)
                if (off + b * threads < degree) {
                    col[b] = __ldg(&g.col[begin + off + b * threads]);
                    w[b] = __ldg(&g.w[begin + off + b * threads]);
                }
        }
        cluster_barrier<C>();
    }
    /* The loop ends after a barrier at the latest; this one keeps every block (and its
     * shared memory) alive until no block can address it, as DSMEM requires. */
    cluster_barrier<C>();
    for (uint32_t k = 0; k < owned; k++) {
        uint32_t v = O::vertex(rank, k, tid);
        if (v < n) a.dist[v] = sdist[k * kChunk + tid];
    }
}

} // namespace pb_sssp
