/* The shortest-paths primitive (seed 004's Dijkstra): what its backends share.
 *
 * Distances and weights are 32-bit words: unsigned integers, or the bits of
 * non-negative floats (whose order as unsigned integers is their order as floats).
 * The unreachable distance is SSSP_INF_INT (all ones) or the bits of +infinity. */
#ifndef PB_SSSP_H
#define PB_SSSP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "primbench.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SSSP_INF_INT   0xFFFFFFFFu
#define SSSP_INF_FLOAT 0x7F800000u
#define SSSP_NO_PRED   0xFFFFFFFFu

/* A directed graph in CSR form on the host: out-arcs of u are row[u] .. row[u+1]-1. */
struct pb_sssp_graph {
    uint32_t n;    /* vertices */
    uint32_t m;    /* arcs */
    uint32_t *row; /* n + 1 offsets */
    uint32_t *col; /* m heads */
    uint32_t *w;   /* m weights (float bits when is_float) */
    bool is_float;
    uint32_t max_w; /* the largest weight (as bits) */
};

/* The same graph on the device. */
struct pb_sssp_device_graph {
    uint32_t n, m;
    const uint32_t *row, *col, *w;
};

/* What make_input builds: in->host points at graph, in->extra at this. */
struct pb_sssp_input {
    struct pb_sssp_graph graph;
    struct pb_sssp_device_graph device; /* row == NULL without a device copy */
};

/* The output (and reference) layout: n distances, then n predecessors (SSSP_NO_PRED for
 * the source and unreachable vertices). */
static inline uint32_t *pb_sssp_out_dist(void *out) { return (uint32_t *)out; }
static inline uint32_t *pb_sssp_out_pred(void *out, uint32_t n) { return (uint32_t *)out + n; }

static inline uint32_t pb_sssp_inf(bool is_float) {
    return is_float ? SSSP_INF_FLOAT : SSSP_INF_INT;
}

void pb_sssp_graph_free(struct pb_sssp_graph *g);
/* Builds CSR from arc lists (stable: each vertex's arcs keep their order); takes
 * ownership of nothing. Returns 0, or -1 with err set (out of memory). */
int pb_sssp_graph_from_arcs(uint32_t n, uint32_t m, const uint32_t *src, const uint32_t *dst,
                            const uint32_t *w, bool is_float, struct pb_sssp_graph *g, char *err,
                            size_t err_len);
/* Integer weights to float weights (exact below 2^24), in place. */
void pb_sssp_graph_to_float(struct pb_sssp_graph *g);
/* The most out-arcs of any vertex. */
uint32_t pb_sssp_max_degree(const struct pb_sssp_graph *g);

/* ---- DIMACS .gr files (9th DIMACS Implementation Challenge) ----------------- */
/* Reads `c` comments, one `p sp V E` header, then E lines `a u v w` (1-based ids, integer
 * weights 0 .. 2^32-2). Errors are one line: "FILE:LINE: what is wrong". name is how
 * the file is named in messages. */
int pb_gr_read_stream(FILE *f, const char *name, struct pb_sssp_graph *g, char *err,
                      size_t err_len);
int pb_gr_read(const char *path, struct pb_sssp_graph *g, char *err, size_t err_len);
/* The vertex count of a .gr file's header, without reading its arcs; 0 when unreadable. */
uint32_t pb_gr_peek_vertices(const char *path);
/* Finds a data file: $PB_DATA_DIR, then ../shared/data (from the working directory), then
 * the source tree's ../shared/data and shared/data. Returns 0 with path set, or -1 with
 * err naming where it looked. */
int pb_sssp_find_data(const char *file, char *path, size_t path_len, char *err, size_t err_len);

/* ---- generators (deterministic in seed) ------------------------------------- */
enum pb_sssp_family { SSSP_ROME99, SSSP_GRID, SSSP_RANDOM, SSSP_RMAT, SSSP_COMPLETE };
/* Integer weights 1..1000 (then converted when is_float). n vertices; density in per
 * mille (random only). */
int pb_sssp_generate(enum pb_sssp_family family, uint32_t n, uint32_t density_permille,
                     uint64_t seed, struct pb_sssp_graph *g, char *err, size_t err_len);
/* Arc count a generator makes (estimate for rmat's duplicates: exact, all are kept). */
uint64_t pb_sssp_generated_arcs(enum pb_sssp_family family, uint64_t n, uint32_t density_permille);
#define SSSP_RMAT_EDGE_FACTOR 16

/* ---- the primitive ------------------------------------------------------------ */
/* An input made from a graph (tests build their own); takes ownership of *g. */
int pb_sssp_input_from_graph(struct pb_sssp_graph *g, bool want_device, struct pb_input *in,
                             char *err, size_t err_len);
uint32_t pb_sssp_case_source(const struct pb_case *c, uint32_t n);
/* Checks out (distances and predecessors) against the reference distances: equal
 * distances, every predecessor an existing tight arc, predecessors leading back to the
 * source. 0 when right, else 1 with the first problem in why. */
int pb_sssp_check(const struct pb_sssp_graph *g, uint32_t source, const uint32_t *ref_dist,
                  const uint32_t *dist, const uint32_t *pred, char *why, size_t why_len);

/* ---- CPU Dijkstra (baselines/cpu/sssp_cpu.c) ---------------------------------- */
/* Binary-heap Dijkstra with lazy deletion; heap has room for m + 1 entries. */
void pb_sssp_dijkstra_heap(const struct pb_sssp_graph *g, uint32_t source, uint32_t *dist,
                           uint32_t *pred, uint64_t *heap);
/* The O(V^2) Dijkstra that scans for the minimum; key has room for n entries. */
void pb_sssp_dijkstra_scan(const struct pb_sssp_graph *g, uint32_t source, uint32_t *dist,
                           uint32_t *pred, uint64_t *key);

/* ---- GPU (each returns a cudaError_t value) ------------------------------------ */
/* Outputs on the device: dist and pred, n words each. */
struct pb_sssp_gpu_out {
    uint32_t *dist, *pred;
};

/* dijkstra-butterfly: one block up to 16384 vertices, one thread-block cluster when the
 * distances fit in its blocks' shared memory, else a cooperative grid. Knobs (the backend takes
 * them from the environment): block_max_vertices (0: no limit) sends larger graphs to the grid, so
 * that it can be checked on graphs small enough for compute-sanitizer (PB_SSSP_BLOCK_MAX_VERTICES);
 * cluster forces the cluster's blocks, 1, 2, 4, 8 or 16 (0: the planner's choice;
 * PB_SSSP_CLUSTER); rows_global keeps the row offsets out of shared memory even where
 * they fit (PB_SSSP_ROWS_GLOBAL: to measure the copy and to test the other path);
 * no_prefetch turns off the one-block kernel's L2 prefetch of arcs (PB_SSSP_NO_PREFETCH);
 * one_per_step makes the one-block kernel settle u alone in a step, as the seed does, not
 * every vertex tied with it (PB_SSSP_ONE_PER_STEP); wide_arcs is the arc count from which
 * a step of the one-block kernel is relaxed by every SM (0: the default, 32768; a count
 * no step reaches, such as 4294967295: never; PB_SSSP_WIDE_ARCS). */
struct pb_sssp_butterfly_knobs {
    uint32_t block_max_vertices;
    uint32_t cluster;
    bool rows_global;
    bool no_prefetch;
    bool one_per_step;
    uint32_t wide_arcs;
};
struct pb_sssp_butterfly_plan {
    int single_block;     /* the one-block kernel (shared_bytes of distances) */
    int cluster;          /* blocks of the cluster kernel; 0: one block or the grid */
    int rows_shared;      /* the block or cluster kernel keeps the row offsets in shared memory */
    uint32_t dist_words;  /* distances in a cluster block's dynamic shared memory */
    size_t shared_bytes;  /* dynamic shared memory of the block or of a cluster block */
    int grid;             /* blocks of the cooperative kernel */
    size_t scratch_bytes; /* device scratch */
    uint32_t prefetch_window; /* the one-block kernel prefetches tied vertices this far past u */
    int one_per_step;         /* the one-block kernel settles u alone in a step */
    int wide_grid;            /* the one-block kernel's blocks for wide steps; 0: one block */
    uint32_t wide_arcs;       /* a step of at least this many arcs goes wide */
};
/* A cluster the knob forces but that cannot hold the graph or be resident:
 * cudaErrorInvalidClusterSize. */
int pb_sssp_butterfly_plan(uint32_t n, uint32_t max_degree, bool is_float,
                           const struct pb_sssp_butterfly_knobs *knobs,
                           struct pb_sssp_butterfly_plan *plan);
int pb_sssp_butterfly_launch(const struct pb_sssp_device_graph *g, bool is_float, uint32_t source,
                             const struct pb_sssp_butterfly_plan *plan, void *scratch,
                             struct pb_sssp_gpu_out out, cudaStream_t stream);

/* dijkstra-cub: argmin with CUB, steps captured in a CUDA graph; max_degree sizes the
 * relax grid (pb_sssp_max_degree of the host graph). */
struct pb_sssp_cub_state;
int pb_sssp_cub_create(const struct pb_sssp_device_graph *g, uint32_t max_degree, bool is_float,
                       struct pb_sssp_gpu_out out, cudaStream_t stream,
                       struct pb_sssp_cub_state **state);
int pb_sssp_cub_launch(struct pb_sssp_cub_state *s, uint32_t source, cudaStream_t stream);
void pb_sssp_cub_destroy(struct pb_sssp_cub_state *s);

/* frontier: near-far in one cooperative kernel. */
struct pb_sssp_frontier_plan {
    int grid;
    uint32_t delta; /* bucket width (as a distance: integer or float bits) */
    size_t scratch_bytes;
};
int pb_sssp_frontier_plan(const struct pb_sssp_graph *g, struct pb_sssp_frontier_plan *plan);
int pb_sssp_frontier_launch(const struct pb_sssp_device_graph *g, bool is_float, uint32_t source,
                            const struct pb_sssp_frontier_plan *plan, void *scratch,
                            struct pb_sssp_gpu_out out, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
