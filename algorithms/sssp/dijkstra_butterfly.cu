/* sssp/dijkstra-butterfly: seed 004's Dijkstra, each step's minimum found with the
 * reduction primitive's XOR butterfly (butterfly.cuh), all steps in one launch.
 *
 * Up to 16384 vertices: one block of 1024 threads, distances in its shared memory
 * (dijkstra_block_kernel); on graphs with enough arcs it runs as a cooperative grid whose
 * other blocks relax its wide steps (wide_step.cuh). Larger graphs whose distances fit the shared
 * memory of a thread-block cluster (up to 16 blocks; 2^16 vertices take 4): the on-chip kernel of
 * dijkstra_cluster.cuh. Either: two barriers a step, no global traffic but the step's arcs.
 *
 * Larger graphs (or PB_SSSP_BLOCK_MAX_VERTICES): the same loop in a cooperative grid,
 * distances in global memory, each block's minimum to a partial, grid.sync(), every warp
 * butterflies the partials, the grid relaxes u's arcs, grid.sync().
 *
 * Predecessors: only u's arcs are relaxed in a step, so whoever lowers dist[v] writes
 * pred[v] = u, and every writer in a step writes the same value. A settled vertex is
 * never lowered (dist[u] + w >= dist[u] >= dist[v]), so relaxations need no settled test. */
#include <algorithm>

#include <cooperative_groups.h>

#include "butterfly.cuh"
#include "warp_scan.cuh"
#include "dijkstra_cluster.cuh"
#include "sssp_device.cuh"
#include "wide_step.cuh"

namespace pb_sssp {
namespace {

constexpr uint32_t kPreferredCluster = 4;
constexpr int kGridThreads = 256;
constexpr int kGridWarps = kGridThreads / 32;

constexpr int kBlockThreads = 1024;
constexpr int kBlockWarps = kBlockThreads / 32;
constexpr int kBlockArcBatch = 4; /* arcs a thread loads before any of their atomics */
/* One block up to 16 distances a thread: past it the cluster's 4 blocks split the
 * distances (grid of 32768: 100 against 119 ms on the H200); the cluster's C = 1 measured
 * slower than this kernel (2.06 against 1.25 ms on a 1024-vertex grid). */
constexpr int kBlockMaxOwned = 16;
constexpr uint32_t kBlockMaxVertices = kBlockMaxOwned * kBlockThreads;
/* How far ahead of u (in vertex ids) a vertex tied with u has its arcs prefetched. */
constexpr uint32_t kPrefetchWindow = 64;

/* Asks the L2 to fetch [p, p + bytes) (widened to 16-byte bounds) without waiting. */
__device__ __forceinline__ void prefetch_l2(const void *p, uint32_t bytes) {
    const uintptr_t begin = (uintptr_t)p & ~(uintptr_t)15;
    const uintptr_t end = ((uintptr_t)p + bytes + 15) & ~(uintptr_t)15;
    if (end > begin)
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(begin),
                     "r"((uint32_t)(end - begin))
                     : "memory");
}

/* The one-block kernel: thread t owns vertices t, t + 1024, ..., their settled bits in a
 * register mask, and keeps in a register the least key (distance, vertex) of its unsettled
 * vertices, so a step scans nothing:
 * - whoever lowers dist[v] also lowers lowered[owner of v] to v's new key, and the owner
 *   folds that slot into its minimum at the next step (the end-of-step barrier orders it);
 * - the block butterfly of the minima gives u (every warp finishes it: one barrier);
 * - every thread whose minimum ties with u's distance settles that vertex in this step,
 *   as u's owner does: no relaxation can bring a vertex below the least distance, so all
 *   of them are final. Dense graphs with integer weights settle hundreds of vertices at
 *   each distance; their arcs are relaxed together, the warps taking turns over them
 *   (settled_list.cuh), or by the whole grid when they are wide.arcs or more (random
 *   16384 at 25% went from 20.7 to 1.0 ms on the H200). one_per_step keeps the seed's
 *   step, u alone;
 * - a settling thread alone rescans its vertices, while the others relax.
 * With u alone and ties left (one_per_step), a thread whose minimum is tied with u and a
 * few ids past it prefetches that vertex's arcs into L2, and u's arcs come from L2, not
 * HBM. The row offsets sit in shared memory beside the distances when they fit.
 * Predecessors: several vertices relax in a step, so a lowering also lowers the key
 * (distance << 32 | u) of v in pred_key; the least key holds a tight u settled before v.
 * Up to 1024 arcs, one a thread; past that kBlockArcBatch a thread at once (dense graphs
 * of 2^14 vertices at 25% went from 70 to 58 ms on the H200 with the batch). */
/* The one-block kernel's parameters. */
struct BlockArgs {
    pb_sssp_device_graph g;
    uint32_t source, rows_shared, prefetch_window, one_per_step;
    unsigned long long *pred_key;
    uint32_t *dist_out, *pred_out;
    WideArgs wide; /* wide.control set: launched as a cooperative grid, wide steps on */
};

template <class Dist>
__global__ void __launch_bounds__(kBlockThreads, 1) dijkstra_block_kernel(BlockArgs a) {
    const pb_sssp_device_graph &g = a.g;
    const WideArgs &wide = a.wide;
    if (blockIdx.x != 0) return wide_worker<Dist>(g, wide);
    const uint32_t source = a.source, rows_shared = a.rows_shared;
    const uint32_t prefetch_window = a.prefetch_window, one_per_step = a.one_per_step;
    unsigned long long *pred_key = a.pred_key;
    extern __shared__ uint32_t shared_words[];
    __shared__ unsigned long long warp_min[2][kBlockWarps];
    __shared__ unsigned long long lowered[kBlockThreads];
    __shared__ SettledList list;
    const uint32_t n = g.n, tid = threadIdx.x, lane = tid % 32;
    uint32_t *sdist = shared_words;
    const uint32_t *srow = shared_words + n;
    auto row = [&](uint32_t v) { return rows_shared ? srow[v] : __ldg(&g.row[v]); };
    for (uint32_t v = tid; v < n; v += kBlockThreads) {
        sdist[v] = v == source ? 0u : Dist::kInf;
        pred_key[v] = MinKeyOp::identity();
    }
    if (rows_shared)
        for (uint32_t v = tid; v <= n; v += kBlockThreads) shared_words[n + v] = __ldg(&g.row[v]);
    lowered[tid] = MinKeyOp::identity();
    if (tid < 2) list.fill[tid] = 0;
    __syncthreads();
    const uint32_t owned = (n + kBlockThreads - 1) / kBlockThreads;
    uint32_t settled = 0;
    /* the least key of this thread's unsettled vertices */
    auto own_min = [&]() {
        unsigned long long m = MinKeyOp::identity();
#pragma unroll
        for (uint32_t k = 0; k < (uint32_t)kBlockMaxOwned; k++) {
            const uint32_t v = k * kBlockThreads + tid;
            if (k < owned && v < n && !((settled >> k) & 1u)) {
                const unsigned long long key = (unsigned long long)sdist[v] << 32 | v;
                m = key < m ? key : m;
            }
        }
        return m;
    };
    /* tail() names the arc's tail, asked for only when the arc lowers dist[v] */
    auto relax_if_lower = [&](uint32_t du, uint32_t v, uint32_t w, auto tail) {
        const uint32_t nd = Dist::add(du, w);
        if (nd < sdist[v] && nd < atomicMin(&sdist[v], nd)) {
            atomicMin(&pred_key[v], (unsigned long long)nd << 32 | tail());
            atomicMin(&lowered[v % kBlockThreads], (unsigned long long)nd << 32 | v);
        }
    };
    auto relax = [&](uint32_t u, uint32_t du, uint32_t v, uint32_t w) {
        relax_if_lower(du, v, w, [u] { return u; });
    };
    unsigned long long mine = own_min();
    uint32_t prefetched = SSSP_NO_PRED, generation = 0; /* wide steps so far */
    for (uint32_t step = 0; step < n; step++) {
        if (tid == 0) list.fill[(step + 1) & 1] = 0; /* last read in the step before */
        const unsigned long long low = lowered[tid];
        if (low != MinKeyOp::identity()) {
            lowered[tid] = MinKeyOp::identity();
            mine = low < mine ? low : mine;
        }
        const unsigned long long best =
            pb_butterfly::block_butterfly_all<MinKeyOp, kBlockWarps>(mine, warp_min[step & 1]);
        const uint32_t u = (uint32_t)best, du = (uint32_t)(best >> 32);
        if (best == MinKeyOp::identity() || du >= Dist::kInf) break; /* the same in all threads */
        const bool tied = !one_per_step && (uint32_t)(mine >> 32) == du;
        __syncwarp(); /* whole warps at each barrier: PTX's bar.sync and bar.red are .aligned */
        if (!one_per_step && __syncthreads_count(tied) > 1) {
            const uint32_t x = (uint32_t)mine, begin = tied ? row(x) : 0;
            const uint32_t arcs = tied ? row(x + 1) - begin : 0;
            const unsigned ties = __ballot_sync(0xffffffffu, tied);
            uint32_t warp_arcs;
            const uint32_t before = pb::warp_exclusive_sum(arcs, &warp_arcs);
            unsigned long long base = 0;
            if (ties && lane == 0)
                base = atomicAdd(&list.fill[step & 1],
                                 (unsigned long long)__popc(ties) << 32 | warp_arcs);
            if (ties) base = __shfl_sync(0xffffffffu, base, 0);
            if (tied) {
                const uint32_t j = (uint32_t)(base >> 32) + __popc(ties & ((1u << lane) - 1));
                list.vertex[j] = x;
                list.row[j] = begin;
                list.offset[j] = (uint32_t)base + before;
                settled |= 1u << (x / kBlockThreads);
            }
            __syncwarp();
            __syncthreads();
            const unsigned long long fill = list.fill[step & 1];
            const uint32_t count = (uint32_t)(fill >> 32), total = (uint32_t)fill;
            if (total >= wide.arcs) { /* the whole grid relaxes it */
                wide_step_from_block0(wide, list, sdist, n, du, count, total, ++generation);
                mine = own_min();
                continue; /* the next step's butterfly barrier orders the stores */
            }
            if (tied) {
                mine = own_min();
                if (prefetch_window) { /* HBM streams them all; the block reads L2 */
                    prefetch_l2(g.col + begin, arcs * 4);
                    prefetch_l2(g.w + begin, arcs * 4);
                }
            }
            relax_list(list, count, total, g, tid / 32 * kListChunk, kBlockWarps * kListChunk,
                       total,
                       [&](uint32_t v, uint32_t w, auto tail) { relax_if_lower(du, v, w, tail); });
            __syncwarp();
            __syncthreads();
            continue;
        }
        const uint32_t begin = row(u), end = row(u + 1);
        if (u % kBlockThreads == tid) {
            settled |= 1u << (u / kBlockThreads);
            mine = own_min();
        } else if ((uint32_t)(mine >> 32) == du && (uint32_t)mine - u <= prefetch_window &&
                   (uint32_t)mine != prefetched) {
            prefetched = (uint32_t)mine; /* tied with u, a few ids on: settled soon */
            const uint32_t b = row(prefetched), e = row(prefetched + 1);
            prefetch_l2(g.col + b, (e - b) * 4);
            prefetch_l2(g.w + b, (e - b) * 4);
        }
        if (end - begin <= kBlockThreads) { /* an arc a thread at most: no batch */
            if (begin + tid < end)
                relax(u, du, __ldg(&g.col[begin + tid]), __ldg(&g.w[begin + tid]));
            __syncwarp();
            __syncthreads();
            continue;
        }
        for (uint32_t e0 = begin + tid; e0 < end; e0 += kBlockArcBatch * kBlockThreads) {
            uint32_t col[kBlockArcBatch], w[kBlockArcBatch];
#pragma unroll
            for (int b = 0; b < kBlockArcBatch; b++)
                if (e0 + b * kBlockThreads < end) {
                    col[b] = __ldg(&g.col[e0 + b * kBlockThreads]);
                    w[b] = __ldg(&g.w[e0 + b * kBlockThreads]);
                }
#pragma unroll
            for (int b = 0; b < kBlockArcBatch; b++)
                if (e0 + b * kBlockThreads < end) relax(u, du, col[b], w[b]);
        }
        __syncwarp();
        __syncthreads();
    }
    if (wide.control && tid == 0) store_release(&wide.control->generation, kWideQuit);
    __syncwarp();
    __syncthreads();
    for (uint32_t v = tid; v < n; v += kBlockThreads) {
        a.dist_out[v] = sdist[v];
        a.pred_out[v] = (uint32_t)__ldcg(&pred_key[v]); /* SSSP_NO_PRED where never lowered */
    }
}

/* scratch: settled bitmap (n/32 words), then two rows of per-block partials. */
template <class Dist>
__global__ void __launch_bounds__(kGridThreads)
    dijkstra_grid_kernel(pb_sssp_device_graph g, uint32_t source, uint32_t *settled,
                         unsigned long long *partials, uint32_t *dist, uint32_t *pred) {
    cg::grid_group grid = cg::this_grid();
    __shared__ unsigned long long warp_min[kGridWarps];
    const uint32_t n = g.n, threads = gridDim.x * kGridThreads;
    const uint32_t gtid = blockIdx.x * kGridThreads + threadIdx.x, lane = threadIdx.x % 32;
    for (uint32_t v = gtid; v < n; v += threads) {
        dist[v] = v == source ? 0u : Dist::kInf;
        pred[v] = SSSP_NO_PRED;
    }
    for (uint32_t i = gtid; i < (n + 31) / 32; i += threads) settled[i] = 0;
    grid.sync();
    for (uint32_t step = 0; step < n; step++) {
        unsigned long long best = MinKeyOp::identity();
        for (uint32_t v = gtid; v < n; v += threads) {
            if ((__ldcg(&settled[v / 32]) >> (v % 32)) & 1u) continue;
            unsigned long long key = (unsigned long long)__ldcg(&dist[v]) << 32 | v;
            best = key < best ? key : best;
        }
        best = pb_butterfly::block_butterfly<MinKeyOp, kGridWarps>(best, warp_min);
        unsigned long long *row = partials + (step & 1) * gridDim.x;
        if (threadIdx.x == 0) row[blockIdx.x] = best;
        grid.sync();
        best = MinKeyOp::identity();
        for (uint32_t b = lane; b < gridDim.x; b += 32) {
            unsigned long long p = __ldcg(&row[b]);
            best = p < best ? p : best;
        }
        best = pb_butterfly::warp_butterfly<MinKeyOp>(best);
        const uint32_t u = (uint32_t)best, du = (uint32_t)(best >> 32);
        if (best == MinKeyOp::identity() || du >= Dist::kInf) break; /* the same everywhere */
        if (gtid == 0) settled[u / 32] |= 1u << (u % 32);
        const uint32_t begin = __ldg(&g.row[u]), end = __ldg(&g.row[u + 1]);
        for (uint32_t e = begin + gtid; e < end; e += threads) {
            uint32_t v = __ldg(&g.col[e]), nd = Dist::add(du, __ldg(&g.w[e]));
            if (nd < __ldcg(&dist[v]) && nd < atomicMin(&dist[v], nd)) pred[v] = u;
        }
        grid.sync();
    }
}

/* Where the wide one-block kernel's scratch holds what (byte offsets), past the
 * predecessor keys; end: the bytes in all. */
struct WideScratch {
    size_t control, dist, list, end;
};
inline WideScratch wide_scratch(uint32_t n) {
    WideScratch at;
    at.control = ((size_t)n * 8 + 127) / 128 * 128;
    at.dist = at.control + sizeof(WideControl);
    at.list = at.dist + ((size_t)n * 4 + 127) / 128 * 128;
    at.end = at.list + 3 * (size_t)kListCapacity * 4;
    return at;
}

/* f.template operator()<Dist, C>() for a cluster size known at run time. */
template <class Dist, class F> int with_cluster(uint32_t c, F &&f) {
    switch (c) {
    case 1:
        return f.template operator()<Dist, 1>();
    case 2:
        return f.template operator()<Dist, 2>();
    case 4:
        return f.template operator()<Dist, 4>();
    case 8:
        return f.template operator()<Dist, 8>();
    case 16:
        return f.template operator()<Dist, 16>();
    }
    return (int)cudaErrorInvalidClusterSize;
}

/* One cluster of C blocks; C = 1 is an ordinary launch. attrs must outlive the config. */
template <int C>
cudaLaunchConfig_t cluster_config(size_t shared_bytes, cudaStream_t stream,
                                  cudaLaunchAttribute *attrs) {
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(C);
    config.blockDim = dim3(kClusterThreads);
    config.dynamicSmemBytes = shared_bytes;
    config.stream = stream;
    attrs[0].id = cudaLaunchAttributeClusterDimension;
    attrs[0].val.clusterDim.x = C;
    attrs[0].val.clusterDim.y = 1;
    attrs[0].val.clusterDim.z = 1;
    config.attrs = attrs;
    config.numAttrs = C > 1 ? 1 : 0;
    return config;
}

/* The dynamic shared memory a block of kernel can have: the opt-in limit less its static
 * shared memory. */
template <class Kernel> cudaError_t dynamic_room(Kernel kernel, size_t optin, size_t *room) {
    cudaFuncAttributes attr;
    const cudaError_t e = cudaFuncGetAttributes(&attr, kernel);
    *room = e == cudaSuccess && optin > attr.sharedSizeBytes ? optin - attr.sharedSizeBytes : 0;
    return e;
}

/* Plans the cluster kernel with C blocks: cudaSuccess, or cudaErrorInvalidClusterSize
 * when C blocks cannot hold n distances (shared memory, the settled masks) or such a
 * cluster cannot be resident, or another error. The row offsets go to shared memory
 * when they fit beside the distances. */
struct FitCluster {
    uint32_t n;
    const struct pb_sssp_butterfly_knobs *knobs;
    size_t optin;
    struct pb_sssp_butterfly_plan *plan;
    template <class Dist, int C> int operator()() const {
        const uint32_t chunks = (n + kChunk - 1) / kChunk;
        if (chunks > (uint32_t)kMaxChunksPerBlock * C) return (int)cudaErrorInvalidClusterSize;
        uint32_t dist_words = 0, row_words = 0; /* the most any block needs */
        for (uint32_t r = 0; r < (uint32_t)C && r < chunks; r++) {
            uint32_t owned = (chunks - r + C - 1) / C, last = (owned - 1) * C + r;
            uint32_t size = n - last * kChunk < (uint32_t)kChunk ? n - last * kChunk : kChunk;
            dist_words = std::max(dist_words, (owned - 1) * kChunk + size);
            row_words = std::max(row_words, (owned - 1) * kRowStride + size + 1);
        }
        auto kernel = dijkstra_cluster_kernel<Dist, C>;
        size_t room;
        cudaError_t e = dynamic_room(kernel, optin, &room);
        if (e != cudaSuccess) return (int)e;
        const size_t dist_bytes = (size_t)dist_words * 4, row_bytes = (size_t)row_words * 4;
        if (dist_bytes > room) return (int)cudaErrorInvalidClusterSize;
        const bool rows_shared = !knobs->rows_global && dist_bytes + row_bytes <= room;
        const size_t bytes = dist_bytes + (rows_shared ? row_bytes : 0);
        e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
        if (e != cudaSuccess) return (int)e;
        int resident = 0;
        if (C > 8) /* 16 is past the portable 8: where it is refused, no such cluster */
            e = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
        if (e == cudaSuccess && C == 1) {
            e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, kClusterThreads,
                                                              bytes);
        } else if (e == cudaSuccess) {
            cudaLaunchAttribute attrs[1];
            cudaLaunchConfig_t config = cluster_config<C>(bytes, 0, attrs);
            e = cudaOccupancyMaxActiveClusters(&resident, kernel, &config);
        }
        if (e != cudaSuccess || resident < 1) {
            (void)cudaGetLastError(); /* not sticky, but the launch must not report it */
            return (int)cudaErrorInvalidClusterSize;
        }
        *plan = {};
        plan->cluster = C;
        plan->rows_shared = rows_shared;
        plan->dist_words = dist_words;
        plan->shared_bytes = bytes;
        return (int)cudaSuccess;
    }
};

/* The cluster: the one the knob names, else the smallest whose blocks hold the distances
 * and the row offsets, else the smallest that holds the distances. Otherwise, or above
 * block_max_vertices, the cooperative grid. */
struct Planner {
    uint32_t n, max_degree;
    const struct pb_sssp_butterfly_knobs *knobs;
    struct pb_sssp_butterfly_plan *plan;
    /* The one-block kernel as a cooperative grid of one block an SM, for wide steps:
     * when a step can have wide_arcs arcs (a list holds up to kListCapacity vertices of at
     * most max_degree arcs; grids and road graphs cannot, and keep their SMs free) and
     * ties are settled together. Scratch: the predecessor keys, the handshake, the
     * distances, the list. */
    template <class Kernel> int plan_wide(Kernel kernel, int device, int sms) const {
        const uint32_t arcs = knobs->wide_arcs ? knobs->wide_arcs : kWideArcs;
        int cooperative = 0, per_sm = 0;
        const uint64_t most = (uint64_t)std::min(n, (uint32_t)kListCapacity) * max_degree;
        if (knobs->one_per_step || most < arcs || sms < 2) return (int)cudaSuccess;
        cudaError_t e = cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device);
        if (e == cudaSuccess)
            e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kBlockThreads,
                                                              plan->shared_bytes);
        if (e != cudaSuccess) return (int)e;
        if (!cooperative || per_sm < 1) return (int)cudaSuccess; /* one block it is */
        plan->wide_grid = sms;
        plan->wide_arcs = arcs;
        plan->scratch_bytes = wide_scratch(n).end;
        return (int)cudaSuccess;
    }
    template <class Dist> int operator()() const {
        int device = 0, optin = 0, sms = 0, per_sm = 0;
        cudaError_t e = cudaGetDevice(&device);
        if (e == cudaSuccess)
            e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
        if (e == cudaSuccess)
            e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        if (e != cudaSuccess) return (int)e;
        *plan = {};
        if (knobs->block_max_vertices == 0 || n <= knobs->block_max_vertices) {
            if (knobs->cluster)
                return with_cluster<Dist>(knobs->cluster,
                                          FitCluster{n, knobs, (size_t)optin, plan});
            if (n <= kBlockMaxVertices) {
                auto kernel = dijkstra_block_kernel<Dist>;
                size_t room;
                e = dynamic_room(kernel, (size_t)optin, &room);
                if (e != cudaSuccess) return (int)e;
                const size_t dist_bytes = (size_t)n * 4, row_bytes = ((size_t)n + 1) * 4;
                if (dist_bytes <= room) {
                    plan->single_block = 1;
                    plan->rows_shared = !knobs->rows_global && dist_bytes + row_bytes <= room;
                    plan->shared_bytes = dist_bytes + (plan->rows_shared ? row_bytes : 0);
                    plan->prefetch_window = knobs->no_prefetch ? 0 : kPrefetchWindow;
                    plan->one_per_step = knobs->one_per_step;
                    plan->scratch_bytes = (size_t)n * 8; /* the predecessor keys */
                    e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             (int)plan->shared_bytes);
                    return e == cudaSuccess ? plan_wide(kernel, device, sms) : (int)e;
                }
            }
            /* Four blocks were the fastest cluster on the H200 (grid of 32768: 100 ms
             * against 116 with 2; at 2^14 vertices 8 and 16 paid more for the cluster
             * barrier than they saved): start there, or at the fewest blocks that give
             * each a chunk; larger if needed to fit, smaller last. */
            uint32_t first = 1;
            while (first < kPreferredCluster && (uint64_t)first * kChunk < n) first *= 2;
            struct pb_sssp_butterfly_plan fit, fallback = {};
            for (uint32_t i = 0, c = first; i < 5; i++, c = c == 16 ? 1 : c * 2) {
                int err = with_cluster<Dist>(c, FitCluster{n, knobs, (size_t)optin, &fit});
                if (err == cudaSuccess && fit.rows_shared) {
                    *plan = fit;
                    return (int)cudaSuccess;
                }
                if (err == cudaSuccess && !fallback.cluster) fallback = fit;
                if (err != cudaSuccess && err != cudaErrorInvalidClusterSize) return err;
            }
            if (fallback.cluster) {
                *plan = fallback;
                return (int)cudaSuccess;
            }
        }
        int cooperative = 0;
        e = cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device);
        if (e == cudaSuccess && !cooperative) e = cudaErrorNotSupported;
        if (e == cudaSuccess)
            e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, dijkstra_grid_kernel<Dist>,
                                                              kGridThreads, 0);
        if (e != cudaSuccess) return (int)e;
        if (per_sm < 1) return (int)cudaErrorCooperativeLaunchTooLarge;
        plan->grid = sms * per_sm;
        plan->scratch_bytes = 256 + ((size_t)n + 31) / 32 * 4 + 2 * (size_t)plan->grid * 8;
        return (int)cudaSuccess;
    }
};

struct LaunchCluster {
    ClusterArgs args;
    size_t shared_bytes;
    cudaStream_t stream;
    template <class Dist, int C> int operator()() const {
        cudaLaunchAttribute attrs[1];
        cudaLaunchConfig_t config = cluster_config<C>(shared_bytes, stream, attrs);
        return (int)cudaLaunchKernelEx(&config, dijkstra_cluster_kernel<Dist, C>, args);
    }
};

struct Launcher {
    const pb_sssp_device_graph *g;
    uint32_t source;
    const struct pb_sssp_butterfly_plan *plan;
    void *scratch;
    pb_sssp_gpu_out out;
    cudaStream_t stream;
    template <class Dist> int operator()() const {
        if (plan->single_block) {
            BlockArgs args = {*g,
                              source,
                              (uint32_t)plan->rows_shared,
                              plan->prefetch_window,
                              (uint32_t)plan->one_per_step,
                              (unsigned long long *)scratch,
                              out.dist,
                              out.pred,
                              {}};
            args.wide.arcs = kWideNever;
            if (!plan->wide_grid) {
                dijkstra_block_kernel<Dist><<<1, kBlockThreads, plan->shared_bytes, stream>>>(args);
                return (int)cudaGetLastError();
            }
            const WideScratch at = wide_scratch(g->n);
            char *base = (char *)scratch;
            args.wide = {(WideControl *)(base + at.control),
                         (uint32_t *)(base + at.dist),
                         (uint32_t *)(base + at.list),
                         (uint32_t *)(base + at.list) + kListCapacity,
                         (uint32_t *)(base + at.list) + 2 * kListCapacity,
                         args.pred_key,
                         plan->wide_arcs};
            cudaError_t e = cudaMemsetAsync(args.wide.control, 0, sizeof(WideControl), stream);
            void *params[] = {&args};
            if (e == cudaSuccess)
                e = cudaLaunchCooperativeKernel((const void *)dijkstra_block_kernel<Dist>,
                                                plan->wide_grid, kBlockThreads, params,
                                                plan->shared_bytes, stream);
            return (int)e;
        }
        if (plan->cluster) {
            ClusterArgs args = {*g,       source,           out.dist,
                                out.pred, plan->dist_words, (uint32_t)plan->rows_shared};
            return with_cluster<Dist>((uint32_t)plan->cluster,
                                      LaunchCluster{args, plan->shared_bytes, stream});
        }
        pb_sssp_device_graph graph = *g;
        uint32_t src = source;
        unsigned long long *partials = (unsigned long long *)scratch;
        uint32_t *settled = (uint32_t *)((char *)scratch + 256 + 2 * (size_t)plan->grid * 8);
        uint32_t *dist = out.dist, *pred = out.pred;
        void *args[] = {&graph, &src, &settled, &partials, &dist, &pred};
        return (int)cudaLaunchCooperativeKernel((const void *)dijkstra_grid_kernel<Dist>,
                                                plan->grid, kGridThreads, args, 0, stream);
    }
};

} // namespace
} // namespace pb_sssp

extern "C" int pb_sssp_butterfly_plan(uint32_t n, uint32_t max_degree, bool is_float,
                                      const struct pb_sssp_butterfly_knobs *knobs,
                                      struct pb_sssp_butterfly_plan *plan) {
    return pb_sssp::with_dist(is_float, pb_sssp::Planner{n, max_degree, knobs, plan});
}

extern "C" int pb_sssp_butterfly_launch(const struct pb_sssp_device_graph *g, bool is_float,
                                        uint32_t source, const struct pb_sssp_butterfly_plan *plan,
                                        void *scratch, struct pb_sssp_gpu_out out,
                                        cudaStream_t stream) {
    return pb_sssp::with_dist(is_float, pb_sssp::Launcher{g, source, plan, scratch, out, stream});
}
