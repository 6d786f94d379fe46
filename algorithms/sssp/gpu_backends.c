/* The three GPU backends of sssp: dijkstra-butterfly, dijkstra-cub, frontier. They share
 * the device outputs, poisoning and collecting; each has its own plan and launch. */
#include <stdlib.h>
#include <string.h>

#include "sssp.h"

enum gpu_kind { KIND_BUTTERFLY, KIND_CUB, KIND_FRONTIER };

struct gpu_state {
    enum gpu_kind kind;
    struct pb_sssp_gpu_out out;
    void *scratch;
    struct pb_sssp_butterfly_plan butterfly;
    struct pb_sssp_frontier_plan frontier;
    struct pb_sssp_cub_state *cub;
};

static const struct pb_sssp_input *input_of(const struct pb_run *r) { return r->in->extra; }

/* dijkstra-butterfly's knobs, for tests and measurements: PB_SSSP_BLOCK_MAX_VERTICES,
 * the vertex count above which it takes its cooperative grid path (unset or 0: when the
 * distances no longer fit in a cluster); PB_SSSP_CLUSTER, the cluster's blocks (1, 2, 4,
 * 8, 16; unset or 0: the planner's choice); PB_SSSP_ROWS_GLOBAL=1, no copy of the row
 * offsets in shared memory; PB_SSSP_NO_PREFETCH=1, no L2 prefetch of the arcs;
 * PB_SSSP_ONE_PER_STEP=1, the seed's step (u alone settled) in the one-block kernel;
 * PB_SSSP_WIDE_ARCS, the arcs from which a step of the one-block kernel goes to every SM
 * (unset or 0: 32768). */
static uint32_t env_u32(const char *name) {
    const char *text = getenv(name);
    return text ? (uint32_t)strtoul(text, NULL, 10) : 0;
}

static struct pb_sssp_butterfly_knobs butterfly_knobs(void) {
    return (struct pb_sssp_butterfly_knobs){
        .block_max_vertices = env_u32("PB_SSSP_BLOCK_MAX_VERTICES"),
        .cluster = env_u32("PB_SSSP_CLUSTER"),
        .rows_global = env_u32("PB_SSSP_ROWS_GLOBAL") != 0,
        .no_prefetch = env_u32("PB_SSSP_NO_PREFETCH") != 0,
        .one_per_step = env_u32("PB_SSSP_ONE_PER_STEP") != 0,
        .wide_arcs = env_u32("PB_SSSP_WIDE_ARCS"),
    };
}

static int gpu_prepare(struct pb_run *r, enum gpu_kind kind) {
    const struct pb_sssp_input *x = input_of(r);
    const uint32_t n = x->graph.n;
    struct gpu_state *s = calloc(1, sizeof *s);
    r->state = s;
    if (!s) return pb_run_cuda_failed(r, cudaErrorMemoryAllocation, "host state");
    s->kind = kind;
    if (pb_run_cuda_failed(r, cudaMalloc((void **)&s->out.dist, (size_t)n * 4),
                           "cudaMalloc dist") ||
        pb_run_cuda_failed(r, cudaMalloc((void **)&s->out.pred, (size_t)n * 4), "cudaMalloc pred"))
        return -1;
    size_t scratch = 0;
    switch (kind) {
    case KIND_BUTTERFLY: {
        struct pb_sssp_butterfly_knobs knobs = butterfly_knobs();
        char what[96];
        snprintf(what, sizeof what, knobs.cluster ? "plan (PB_SSSP_CLUSTER=%u)" : "plan",
                 knobs.cluster);
        if (pb_run_cuda_failed(r,
                               pb_sssp_butterfly_plan(n, pb_sssp_max_degree(&x->graph),
                                                      x->graph.is_float, &knobs, &s->butterfly),
                               what))
            return -1;
        scratch = s->butterfly.scratch_bytes;
        break;
    }
    case KIND_FRONTIER:
        if (pb_run_cuda_failed(r, pb_sssp_frontier_plan(&x->graph, &s->frontier), "plan"))
            return -1;
        scratch = s->frontier.scratch_bytes;
        break;
    case KIND_CUB:
        return pb_run_cuda_failed(r,
                                  pb_sssp_cub_create(&x->device, pb_sssp_max_degree(&x->graph),
                                                     x->graph.is_float, s->out, r->stream, &s->cub),
                                  "CUB plan and graph capture");
    }
    if (scratch && pb_run_cuda_failed(r, cudaMalloc(&s->scratch, scratch), "cudaMalloc scratch"))
        return -1;
    return 0;
}

static int butterfly_prepare(struct pb_run *r) { return gpu_prepare(r, KIND_BUTTERFLY); }
static int cub_prepare(struct pb_run *r) { return gpu_prepare(r, KIND_CUB); }
static int frontier_prepare(struct pb_run *r) { return gpu_prepare(r, KIND_FRONTIER); }

static int gpu_poison(struct pb_run *r) {
    struct gpu_state *s = r->state;
    size_t bytes = (size_t)input_of(r)->graph.n * 4;
    return pb_run_poison_device(r, s->out.dist, bytes, "dist") ||
           pb_run_poison_device(r, s->out.pred, bytes, "pred");
}

static int gpu_run(struct pb_run *r) {
    struct gpu_state *s = r->state;
    const struct pb_sssp_input *x = input_of(r);
    uint32_t source = pb_sssp_case_source(r->c, x->graph.n);
    int err = cudaSuccess;
    switch (s->kind) {
    case KIND_BUTTERFLY:
        err = pb_sssp_butterfly_launch(&x->device, x->graph.is_float, source, &s->butterfly,
                                       s->scratch, s->out, r->stream);
        break;
    case KIND_FRONTIER:
        err = pb_sssp_frontier_launch(&x->device, x->graph.is_float, source, &s->frontier,
                                      s->scratch, s->out, r->stream);
        break;
    case KIND_CUB:
        err = pb_sssp_cub_launch(s->cub, source, r->stream);
        break;
    }
    return pb_run_cuda_failed(r, err, "launch");
}

static int gpu_collect(struct pb_run *r) {
    struct gpu_state *s = r->state;
    const uint32_t n = input_of(r)->graph.n;
    return pb_run_cuda_failed(r,
                              cudaMemcpyAsync(pb_sssp_out_dist(r->out), s->out.dist, (size_t)n * 4,
                                              cudaMemcpyDeviceToHost, r->stream),
                              "copy dist") ||
           pb_run_cuda_failed(r,
                              cudaMemcpyAsync(pb_sssp_out_pred(r->out, n), s->out.pred,
                                              (size_t)n * 4, cudaMemcpyDeviceToHost, r->stream),
                              "copy pred") ||
           pb_run_cuda_failed(r, cudaStreamSynchronize(r->stream), "synchronize");
}

static void gpu_release(struct pb_run *r) {
    struct gpu_state *s = r->state;
    if (!s) return;
    pb_sssp_cub_destroy(s->cub);
    cudaFree(s->scratch);
    cudaFree(s->out.dist);
    cudaFree(s->out.pred);
    free(s);
    r->state = NULL;
}

static bool any_case(const struct pb_case *c, char *why, size_t why_len) {
    (void)c, (void)why, (void)why_len;
    return true;
}

/* One step per vertex: past 2^16 vertices a run takes seconds (each step a grid-wide
 * synchronisation or a CUB launch) and says nothing the smaller sizes do not. */
#define STEP_LOOP_MAX_VERTICES 65536

static bool step_loop_supports(const struct pb_case *c, char *why, size_t why_len) {
    if (strcmp(pb_case_choice(c, "graph"), "rome99") == 0 ||
        pb_case_int(c, "vertices") <= STEP_LOOP_MAX_VERTICES)
        return true;
    snprintf(why, why_len, "one step per vertex: only up to %d vertices", STEP_LOOP_MAX_VERTICES);
    return false;
}

const struct pb_backend pb_backend_sssp_dijkstra_butterfly = {
    .primitive = "sssp",
    .name = "sssp/dijkstra-butterfly",
    .summary = "seed 004: Dijkstra, each step's minimum by the butterfly argmin; one block or "
               "one thread-block cluster (distances in shared memory), or a cooperative grid",
    .target = PB_TARGET_GPU,
    .supports = step_loop_supports,
    .prepare = butterfly_prepare,
    .poison = gpu_poison,
    .run = gpu_run,
    .collect = gpu_collect,
    .release = gpu_release,
};

const struct pb_backend pb_backend_sssp_dijkstra_cub = {
    .primitive = "sssp",
    .name = "sssp/dijkstra-cub",
    .summary = "Dijkstra with CUB DeviceReduce::ArgMin per step, steps in CUDA graphs",
    .target = PB_TARGET_GPU,
    .supports = step_loop_supports,
    .prepare = cub_prepare,
    .poison = gpu_poison,
    .run = gpu_run,
    .collect = gpu_collect,
    .release = gpu_release,
};

const struct pb_backend pb_backend_sssp_frontier = {
    .primitive = "sssp",
    .name = "sssp/frontier",
    .summary = "near-far frontier method (work-efficient) in one cooperative kernel",
    .target = PB_TARGET_GPU,
    .supports = any_case,
    .prepare = frontier_prepare,
    .poison = gpu_poison,
    .run = gpu_run,
    .collect = gpu_collect,
    .release = gpu_release,
};
