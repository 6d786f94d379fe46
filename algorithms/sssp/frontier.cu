/* sssp/frontier: near-far (Davidson et al., "Work-efficient parallel GPU methods for
 * single-source shortest paths", 2014) in one cooperative kernel.
 *
 * Each vertex holds (distance << 32 | predecessor) in one 64-bit word, lowered only by a
 * compare-and-swap that strictly lowers the distance; so a predecessor is always the
 * vertex whose relaxation gave the final distance, and the predecessors form a tree even
 * with zero-weight cycles. The near queue holds vertices below the threshold; an
 * iteration relaxes their arcs (a warp takes 32 vertices and walks their arcs together,
 * so high-degree vertices spread over the lanes), pushing improved vertices to the next
 * near queue or, at or past the threshold, to the far queue. When the near queue is
 * empty the threshold moves to the least far distance plus delta and the far queue is
 * split. Stamps keep a vertex at most once in a queue (near: per iteration; far: per
 * phase), so queues of n suffice. One grid.sync() per iteration. */
#include <cooperative_groups.h>
#include <string.h>

#include "sssp_device.cuh"
#include "warp_scan.cuh"

namespace cg = cooperative_groups;

namespace pb_sssp {
namespace {

constexpr int kThreads = 256;

struct Scratch {
    unsigned long long *packed; /* n */
    uint32_t *near_stamp;       /* n */
    uint32_t *far_stamp;        /* n */
    uint32_t *near_queue[2];    /* n each */
    uint32_t *far_queue[2];     /* n each */
    uint32_t *counters;         /* near_count[3], far_count[2], far_min */
};

constexpr int kNearCount = 0, kFarCount = 3, kFarMin = 5, kCounters = 8;

/* By selection, not by a run-time index into the parameter (which would copy the struct
 * to local memory). */
__device__ __forceinline__ uint32_t *near_queue(const Scratch &s, uint32_t i) {
    return i & 1 ? s.near_queue[1] : s.near_queue[0];
}
__device__ __forceinline__ uint32_t *far_queue(const Scratch &s, uint32_t i) {
    return i & 1 ? s.far_queue[1] : s.far_queue[0];
}

__device__ void push(uint32_t *queue, uint32_t *count, uint32_t v) {
    cg::coalesced_group active = cg::coalesced_threads();
    uint32_t base = 0;
    if (active.thread_rank() == 0) base = atomicAdd(count, active.size());
    base = active.shfl(base, 0);
    queue[base + active.thread_rank()] = v;
}

template <class Dist>
__device__ void relax(const Scratch &s, uint32_t v, uint32_t nd, uint32_t u, uint32_t threshold,
                      uint32_t iter, uint32_t phase, uint32_t *next_near, uint32_t *next_count,
                      uint32_t *far, uint32_t *far_count) {
    unsigned long long cur = __ldcg(&s.packed[v]);
    bool improved = false;
    while (nd < (uint32_t)(cur >> 32)) {
        unsigned long long want = (unsigned long long)nd << 32 | u;
        unsigned long long old = atomicCAS(&s.packed[v], cur, want);
        if (old == cur) {
            improved = true;
            break;
        }
        cur = old;
    }
    if (!improved) return;
    if (nd < threshold) {
        if (atomicExch(&s.near_stamp[v], iter + 1) != iter + 1) push(next_near, next_count, v);
    } else {
        if (atomicExch(&s.far_stamp[v], phase) != phase) push(far, far_count, v);
    }
}

template <class Dist>
__global__ void __launch_bounds__(kThreads)
    near_far_kernel(pb_sssp_device_graph g, uint32_t source, uint32_t delta, Scratch s,
                    uint32_t *dist_out, uint32_t *pred_out) {
    cg::grid_group grid = cg::this_grid();
    const uint32_t n = g.n, threads = gridDim.x * kThreads;
    const uint32_t gtid = blockIdx.x * kThreads + threadIdx.x, lane = threadIdx.x % 32;
    const uint32_t warps = threads / 32, gwarp = gtid / 32;
    uint32_t *counters = s.counters;
    for (uint32_t v = gtid; v < n; v += threads) {
        s.packed[v] = (unsigned long long)(v == source ? 0u : Dist::kInf) << 32 | SSSP_NO_PRED;
        s.near_stamp[v] = v == source ? 1u : 0u;
        s.far_stamp[v] = 0;
    }
    if (gtid == 0) {
        for (int i = 0; i < kCounters; i++) counters[i] = 0;
        counters[kFarMin] = Dist::kInf;
        counters[kNearCount + 1] = 1;
        near_queue(s, 1)[0] = source;
    }
    grid.sync();
    uint32_t iter = 1, phase = 1, far_side = 0;
    uint32_t threshold = Dist::add(0u, delta);
    for (;;) {
        /* Iteration iter reads near_queue[iter % 2] (count iter % 3) and fills the other. */
        for (;;) {
            const uint32_t count = __ldcg(&counters[kNearCount + iter % 3]);
            if (count == 0) break;
            const uint32_t *queue = near_queue(s, iter);
            uint32_t *next = near_queue(s, iter + 1);
            uint32_t *next_count = &counters[kNearCount + (iter + 1) % 3];
            if (gtid == 0) counters[kNearCount + (iter + 2) % 3] = 0; /* read last iteration */
            for (uint32_t base = gwarp * 32; base < count; base += warps * 32) {
                const uint32_t i = base + lane;
                uint32_t u = 0, du = 0, begin = 0, degree = 0;
                if (i < count) {
                    u = __ldcg(&queue[i]);
                    du = (uint32_t)(__ldcg(&s.packed[u]) >> 32);
                    begin = __ldg(&g.row[u]);
                    degree = __ldg(&g.row[u + 1]) - begin;
                }
                uint32_t total;
                const uint32_t offset = pb::warp_exclusive_sum(degree, &total);
                for (uint32_t k0 = 0; k0 < total; k0 += 32) {
                    const uint32_t k = k0 + lane;
                    uint32_t owner = 0; /* the last lane whose offset <= k */
#pragma unroll
                    for (int step = 16; step > 0; step >>= 1) {
                        uint32_t at = __shfl_sync(0xffffffffu, offset, owner + step);
                        if (at <= k) owner += step;
                    }
                    const uint32_t o_begin = __shfl_sync(0xffffffffu, begin, owner);
                    const uint32_t o_offset = __shfl_sync(0xffffffffu, offset, owner);
                    const uint32_t o_du = __shfl_sync(0xffffffffu, du, owner);
                    const uint32_t o_u = __shfl_sync(0xffffffffu, u, owner);
                    if (k < total) {
                        const uint32_t e = o_begin + (k - o_offset);
                        relax<Dist>(s, __ldg(&g.col[e]), Dist::add(o_du, __ldg(&g.w[e])), o_u,
                                    threshold, iter, phase, next, next_count,
                                    far_queue(s, far_side), &counters[kFarCount + far_side]);
                    }
                }
            }
            iter++;
            grid.sync();
        }
        /* Phase end: the least far distance at or past the threshold. */
        const uint32_t far_count = __ldcg(&counters[kFarCount + far_side]);
        const uint32_t *far = far_queue(s, far_side);
        for (uint32_t i = gtid; i < far_count; i += threads) {
            uint32_t d = (uint32_t)(__ldcg(&s.packed[__ldcg(&far[i])]) >> 32);
            if (d >= threshold) atomicMin(&counters[kFarMin], d);
        }
        grid.sync();
        const uint32_t least = __ldcg(&counters[kFarMin]);
        if (least >= Dist::kInf) break; /* the same in every thread */
        const uint32_t old_threshold = threshold;
        threshold = Dist::add(least, delta);
        if (threshold <= least) threshold = Dist::kInf; /* delta lost to rounding */
        phase++;
        uint32_t *near = near_queue(s, iter), *near_count = &counters[kNearCount + iter % 3];
        uint32_t *kept = far_queue(s, far_side ^ 1),
                 *kept_count = &counters[kFarCount + (far_side ^ 1)];
        for (uint32_t i = gtid; i < far_count; i += threads) {
            uint32_t v = __ldcg(&far[i]);
            uint32_t d = (uint32_t)(__ldcg(&s.packed[v]) >> 32);
            if (d < old_threshold) continue; /* lowered since, and handled as near */
            if (d < threshold) {
                if (atomicExch(&s.near_stamp[v], iter) != iter) push(near, near_count, v);
            } else if (atomicExch(&s.far_stamp[v], phase) != phase) {
                push(kept, kept_count, v);
            }
        }
        grid.sync();
        if (gtid == 0) {
            counters[kFarCount + far_side] = 0;
            counters[kFarMin] = Dist::kInf;
        }
        far_side ^= 1;
        grid.sync();
    }
    for (uint32_t v = gtid; v < n; v += threads) {
        unsigned long long p = __ldcg(&s.packed[v]);
        dist_out[v] = (uint32_t)(p >> 32);
        pred_out[v] = (uint32_t)p;
    }
}

struct Launcher {
    const pb_sssp_device_graph *g;
    uint32_t source;
    const struct pb_sssp_frontier_plan *plan;
    void *scratch;
    pb_sssp_gpu_out out;
    cudaStream_t stream;
    template <class Dist> int operator()() const {
        const size_t n = g->n;
        char *p = (char *)scratch;
        Scratch s;
        s.packed = (unsigned long long *)p;
        p += n * 8;
        s.counters = (uint32_t *)p;
        p += 256;
        s.near_stamp = (uint32_t *)p;
        p += n * 4;
        s.far_stamp = (uint32_t *)p;
        p += n * 4;
        for (int i = 0; i < 2; i++) {
            s.near_queue[i] = (uint32_t *)p;
            p += n * 4;
            s.far_queue[i] = (uint32_t *)p;
            p += n * 4;
        }
        pb_sssp_device_graph graph = *g;
        uint32_t src = source, delta = plan->delta;
        uint32_t *dist = out.dist, *pred = out.pred;
        void *args[] = {&graph, &src, &delta, &s, &dist, &pred};
        return (int)cudaLaunchCooperativeKernel((const void *)near_far_kernel<Dist>, plan->grid,
                                                kThreads, args, 0, stream);
    }
};

} // namespace
} // namespace pb_sssp

extern "C" int pb_sssp_frontier_plan(const struct pb_sssp_graph *g,
                                     struct pb_sssp_frontier_plan *plan) {
    int device = 0, sms = 0, per_sm = 0, cooperative = 0;
    cudaError_t e = cudaGetDevice(&device);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (e == cudaSuccess)
        e = cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device);
    if (e == cudaSuccess && !cooperative) e = cudaErrorNotSupported;
    if (e == cudaSuccess)
        e = g->is_float
                ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                      &per_sm, pb_sssp::near_far_kernel<pb_sssp::FloatDist>, pb_sssp::kThreads, 0)
                : cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                      &per_sm, pb_sssp::near_far_kernel<pb_sssp::IntDist>, pb_sssp::kThreads, 0);
    if (e != cudaSuccess) return (int)e;
    if (per_sm < 1) return (int)cudaErrorCooperativeLaunchTooLarge;
    plan->grid = sms * per_sm;
    /* Davidson et al.'s delta: warp width times the mean weight over the mean degree. */
    double sum = 0;
    for (uint32_t e2 = 0; e2 < g->m; e2++) {
        if (g->is_float) {
            float f;
            memcpy(&f, &g->w[e2], 4);
            sum += f;
        } else {
            sum += g->w[e2];
        }
    }
    double mean_w = g->m ? sum / g->m : 1, mean_degree = g->n ? (double)g->m / g->n : 1;
    double delta = 32.0 * mean_w / (mean_degree > 1 ? mean_degree : 1);
    if (g->is_float) {
        float f = (float)(delta > 1e-3 ? delta : 1e-3);
        memcpy(&plan->delta, &f, 4);
    } else {
        plan->delta = delta < 1 ? 1u : delta > 1e9 ? 1000000000u : (uint32_t)delta;
    }
    plan->scratch_bytes = 256 + (size_t)g->n * 8 + (size_t)g->n * 4 * 6;
    return (int)cudaSuccess;
}

extern "C" int pb_sssp_frontier_launch(const struct pb_sssp_device_graph *g, bool is_float,
                                       uint32_t source, const struct pb_sssp_frontier_plan *plan,
                                       void *scratch, struct pb_sssp_gpu_out out,
                                       cudaStream_t stream) {
    return pb_sssp::with_dist(is_float, pb_sssp::Launcher{g, source, plan, scratch, out, stream});
}
