/* sssp/dijkstra-butterfly: seed 004's Dijkstra, each step's minimum found with the
 * reduction primitive's XOR butterfly (butterfly.cuh), all steps in one launch.
 *
 * Small graphs (the tentative distances fit in one block's shared memory): one block of
 * 1024 threads runs the whole loop. Thread t owns vertices t, t + 1024, ...; it keeps
 * which of them are settled in a register mask and scans their distances in shared
 * memory, then the block butterfly (every warp finishes it, so one barrier) gives every
 * thread the step's vertex u. The block relaxes u's out-arcs with shared atomicMin and a
 * barrier ends the step: two barriers and no global traffic but u's arcs, so a step
 * costs a few microseconds.
 *
 * Larger graphs: the same loop in a cooperative grid, distances in global memory, each
 * block's minimum to a partial, grid.sync(), every warp butterflies the partials, the
 * grid relaxes u's arcs, grid.sync().
 *
 * Predecessors: only u's arcs are relaxed in a step, so whoever lowers dist[v] writes
 * pred[v] = u, and every writer in a step writes the same value. A settled vertex is
 * never lowered (dist[u] + w >= dist[u] >= dist[v]), so relaxations need no settled test. */
#include <cooperative_groups.h>

#include "butterfly.cuh"
#include "sssp_device.cuh"

namespace cg = cooperative_groups;

namespace pb_sssp {
namespace {

constexpr int kBlockThreads = 1024;
constexpr int kBlockWarps = kBlockThreads / 32;
constexpr int kMaxOwned = 64; /* bits of the settled mask */
constexpr int kGridThreads = 256;
constexpr int kGridWarps = kGridThreads / 32;

template <class Dist>
__global__ void __launch_bounds__(kBlockThreads, 1)
    dijkstra_block_kernel(pb_sssp_device_graph g, uint32_t source, uint32_t *dist_out,
                          uint32_t *pred_out) {
    extern __shared__ uint32_t sdist[];
    __shared__ unsigned long long warp_min[2][kBlockWarps];
    const uint32_t n = g.n, tid = threadIdx.x;
    for (uint32_t v = tid; v < n; v += kBlockThreads) {
        sdist[v] = v == source ? 0u : Dist::kInf;
        pred_out[v] = SSSP_NO_PRED;
    }
    __syncthreads();
    const uint32_t owned = (n + kBlockThreads - 1) / kBlockThreads;
    unsigned long long settled = 0;
    for (uint32_t step = 0; step < n; step++) {
        unsigned long long best = MinKeyOp::identity();
        for (uint32_t k = 0; k < owned; k++) {
            uint32_t v = k * kBlockThreads + tid;
            if (v < n && !((settled >> k) & 1ull)) {
                unsigned long long key = (unsigned long long)sdist[v] << 32 | v;
                best = key < best ? key : best;
            }
        }
        best = pb_butterfly::block_butterfly_all<MinKeyOp, kBlockWarps>(best, warp_min[step & 1]);
        const uint32_t u = (uint32_t)best, du = (uint32_t)(best >> 32);
        if (best == MinKeyOp::identity() || du >= Dist::kInf) break; /* the same in all threads */
        if (u % kBlockThreads == tid) settled |= 1ull << (u / kBlockThreads);
        const uint32_t begin = __ldg(&g.row[u]), end = __ldg(&g.row[u + 1]);
        for (uint32_t e = begin + tid; e < end; e += kBlockThreads) {
            uint32_t v = __ldg(&g.col[e]), nd = Dist::add(du, __ldg(&g.w[e]));
            if (nd < sdist[v] && nd < atomicMin(&sdist[v], nd)) pred_out[v] = u;
        }
        __syncthreads();
    }
    __syncthreads();
    for (uint32_t v = tid; v < n; v += kBlockThreads) dist_out[v] = sdist[v];
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

struct Planner {
    uint32_t n, block_max_vertices;
    struct pb_sssp_butterfly_plan *plan;
    template <class Dist> int operator()() const {
        int device = 0, optin = 0, sms = 0, per_sm = 0;
        cudaError_t e = cudaGetDevice(&device);
        if (e == cudaSuccess)
            e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
        if (e == cudaSuccess)
            e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        if (e != cudaSuccess) return (int)e;
        size_t shared = (size_t)n * 4;
        size_t static_shared = sizeof(unsigned long long) * 2 * kBlockWarps;
        *plan = {};
        if ((uint64_t)n <= (uint64_t)kMaxOwned * kBlockThreads &&
            (block_max_vertices == 0 || n <= block_max_vertices) &&
            shared + static_shared <= (size_t)optin) {
            plan->single_block = 1;
            plan->shared_bytes = shared;
            plan->grid = 1;
            return (int)cudaFuncSetAttribute(dijkstra_block_kernel<Dist>,
                                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             (int)shared);
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

struct Launcher {
    const pb_sssp_device_graph *g;
    uint32_t source;
    const struct pb_sssp_butterfly_plan *plan;
    void *scratch;
    pb_sssp_gpu_out out;
    cudaStream_t stream;
    template <class Dist> int operator()() const {
        if (plan->single_block) {
            dijkstra_block_kernel<Dist>
                <<<1, kBlockThreads, plan->shared_bytes, stream>>>(*g, source, out.dist, out.pred);
            return (int)cudaGetLastError();
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

extern "C" int pb_sssp_butterfly_plan(uint32_t n, bool is_float, uint32_t block_max_vertices,
                                      struct pb_sssp_butterfly_plan *plan) {
    return pb_sssp::with_dist(is_float, pb_sssp::Planner{n, block_max_vertices, plan});
}

extern "C" int pb_sssp_butterfly_launch(const struct pb_sssp_device_graph *g, bool is_float,
                                        uint32_t source, const struct pb_sssp_butterfly_plan *plan,
                                        void *scratch, struct pb_sssp_gpu_out out,
                                        cudaStream_t stream) {
    return pb_sssp::with_dist(is_float, pb_sssp::Launcher{g, source, plan, scratch, out, stream});
}
