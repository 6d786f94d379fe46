/* sssp/dijkstra-cub: the same Dijkstra loop as dijkstra-butterfly, each step's minimum by
 * CUB's DeviceReduce::ArgMin over a key per vertex (its tentative distance while
 * unsettled, all ones once settled), then a kernel that settles the minimum and relaxes
 * its arcs. Steps are captured into a CUDA graph of kStepsPerGraph steps in prepare, so a
 * run is n / kStepsPerGraph graph launches and no host round trip per step; steps after
 * the last reachable vertex see a key at or past infinity and do nothing. */
#include <cub/device/device_reduce.cuh>
#include <stdlib.h>

#include "sssp_device.cuh"

namespace {

constexpr int kThreads = 256;
constexpr uint32_t kStepsPerGraph = 256;
constexpr uint32_t kSettledKey = 0xFFFFFFFFu;

template <class Dist>
__global__ void init_kernel(uint32_t n, uint32_t source, uint32_t *dist, uint32_t *pred,
                            uint32_t *key) {
    for (uint32_t v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) {
        dist[v] = key[v] = v == source ? 0u : Dist::kInf;
        pred[v] = SSSP_NO_PRED;
    }
}

template <class Dist>
__global__ void __launch_bounds__(kThreads)
    relax_kernel(pb_sssp_device_graph g, const uint32_t *min_key, const int64_t *min_index,
                 uint32_t *dist, uint32_t *pred, uint32_t *key) {
    const uint32_t du = *min_key;
    if (du >= Dist::kInf) return; /* everything reachable is settled */
    const uint32_t u = (uint32_t)*min_index;
    if (blockIdx.x == 0 && threadIdx.x == 0) key[u] = kSettledKey;
    const uint32_t begin = g.row[u], end = g.row[u + 1];
    for (uint32_t e = begin + blockIdx.x * kThreads + threadIdx.x; e < end;
         e += gridDim.x * kThreads) {
        uint32_t v = g.col[e], nd = Dist::add(du, g.w[e]);
        if (nd < dist[v] && nd < atomicMin(&dist[v], nd)) {
            pred[v] = u;
            atomicMin(&key[v], nd);
        }
    }
}

} // namespace

struct pb_sssp_cub_state {
    pb_sssp_device_graph g;
    bool is_float;
    pb_sssp_gpu_out out;
    uint32_t *key, *min_key;
    int64_t *min_index;
    void *temp;
    size_t temp_bytes;
    int relax_grid;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
};

template <class Dist> static cudaError_t record_steps(pb_sssp_cub_state *s, cudaStream_t stream) {
    for (uint32_t i = 0; i < kStepsPerGraph; i++) {
        cudaError_t e = cub::DeviceReduce::ArgMin(s->temp, s->temp_bytes, s->key, s->min_key,
                                                  s->min_index, (int64_t)s->g.n, stream);
        if (e != cudaSuccess) return e;
        relax_kernel<Dist><<<s->relax_grid, kThreads, 0, stream>>>(
            s->g, s->min_key, s->min_index, s->out.dist, s->out.pred, s->key);
    }
    return cudaGetLastError();
}

extern "C" void pb_sssp_cub_destroy(struct pb_sssp_cub_state *s) {
    if (!s) return;
    if (s->exec) cudaGraphExecDestroy(s->exec);
    if (s->graph) cudaGraphDestroy(s->graph);
    cudaFree(s->key);
    cudaFree(s->min_key);
    cudaFree(s->min_index);
    cudaFree(s->temp);
    free(s);
}

extern "C" int pb_sssp_cub_create(const struct pb_sssp_device_graph *g, uint32_t max_degree,
                                  bool is_float, struct pb_sssp_gpu_out out, cudaStream_t stream,
                                  struct pb_sssp_cub_state **state) {
    pb_sssp_cub_state *s = (pb_sssp_cub_state *)calloc(1, sizeof *s);
    *state = s;
    if (!s) return (int)cudaErrorMemoryAllocation;
    s->g = *g;
    s->is_float = is_float;
    s->out = out;
    int device = 0, sms = 0;
    cudaError_t e = cudaGetDevice(&device);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    /* Enough blocks for the largest out-degree, at most a few per SM. */
    uint32_t blocks = (max_degree + kThreads - 1) / kThreads;
    s->relax_grid = (int)(blocks < 1 ? 1 : blocks > (uint32_t)sms * 4 ? (uint32_t)sms * 4 : blocks);
    if (e == cudaSuccess) e = cudaMalloc(&s->key, (size_t)g->n * 4);
    if (e == cudaSuccess) e = cudaMalloc(&s->min_key, 256);
    if (e == cudaSuccess) e = cudaMalloc(&s->min_index, 256);
    if (e == cudaSuccess)
        e = cub::DeviceReduce::ArgMin(nullptr, s->temp_bytes, s->key, s->min_key, s->min_index,
                                      (int64_t)g->n, stream);
    if (e == cudaSuccess) e = cudaMalloc(&s->temp, s->temp_bytes < 16 ? 16 : s->temp_bytes);
    if (e != cudaSuccess) return (int)e;
    /* Captured on a stream of its own: the caller's may be the legacy default stream,
     * which cannot be captured. The graph then runs on any stream. */
    cudaStream_t capture;
    e = cudaStreamCreateWithFlags(&capture, cudaStreamNonBlocking);
    if (e != cudaSuccess) return (int)e;
    e = cudaStreamBeginCapture(capture, cudaStreamCaptureModeThreadLocal);
    cudaError_t recorded = e;
    if (e == cudaSuccess) {
        recorded = is_float ? record_steps<pb_sssp::FloatDist>(s, capture)
                            : record_steps<pb_sssp::IntDist>(s, capture);
        e = cudaStreamEndCapture(capture, &s->graph);
    }
    cudaStreamDestroy(capture);
    if (recorded != cudaSuccess) return (int)recorded;
    if (e == cudaSuccess) e = cudaGraphInstantiate(&s->exec, s->graph, 0);
    return (int)e;
}

extern "C" int pb_sssp_cub_launch(struct pb_sssp_cub_state *s, uint32_t source,
                                  cudaStream_t stream) {
    const uint32_t n = s->g.n;
    int blocks = (int)((n + kThreads - 1) / kThreads);
    blocks = blocks > 1024 ? 1024 : blocks;
    if (s->is_float)
        init_kernel<pb_sssp::FloatDist>
            <<<blocks, kThreads, 0, stream>>>(n, source, s->out.dist, s->out.pred, s->key);
    else
        init_kernel<pb_sssp::IntDist>
            <<<blocks, kThreads, 0, stream>>>(n, source, s->out.dist, s->out.pred, s->key);
    cudaError_t e = cudaGetLastError();
    for (uint32_t done = 0; e == cudaSuccess && done < n; done += kStepsPerGraph)
        e = cudaGraphLaunch(s->exec, stream);
    return (int)e;
}
