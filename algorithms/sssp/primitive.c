/* The shortest-paths primitive (seed 004): single-source shortest paths on a directed
 * graph with non-negative weights, from a DIMACS file or a generator. */
#include <stdlib.h>
#include <string.h>

#include "sssp.h"

static const char *const sssp_graphs[] = {"rome99", "grid", "random", "rmat", "complete", NULL};
static const char *const sssp_weights[] = {"int", "float", NULL};

static const struct pb_axis sssp_axes[] = {
    {.name = "graph",
     .help = "rome99 (DIMACS file, see PB_DATA_DIR), grid (2D, road-like), random (density), "
             "rmat (scale-free, 16 arcs per vertex), complete",
     .kind = PB_AXIS_CHOICE,
     .choices = sssp_graphs,
     .default_value = "grid",
     .shapes_input = true},
    {.name = "vertices",
     .help = "vertex count of a generated graph (ignored for rome99)",
     .kind = PB_AXIS_INT,
     .min = 1,
     .max = 1 << 26,
     .default_value = "65536",
     .shapes_input = true},
    {.name = "density",
     .help = "random graph: per mille of ordered vertex pairs that are arcs (ignored otherwise)",
     .kind = PB_AXIS_INT,
     .min = 1,
     .max = 1000,
     .default_value = "10",
     .shapes_input = true},
    {.name = "weights",
     .help = "int (1..1000 in generated graphs) or float (the same values as floats)",
     .kind = PB_AXIS_CHOICE,
     .choices = sssp_weights,
     .default_value = "int",
     .shapes_input = true},
    {.name = "source",
     .help = "source vertex (0-based), taken modulo the vertex count",
     .kind = PB_AXIS_INT,
     .min = 0,
     .max = 0x7FFFFFFF,
     .default_value = "0"},
};

#define ROME99_FILE "rome99.gr"

uint32_t pb_sssp_case_source(const struct pb_case *c, uint32_t n) {
    return (uint32_t)((uint64_t)pb_case_int(c, "source") % n);
}

static enum pb_sssp_family case_family(const struct pb_case *c) {
    return (enum pb_sssp_family)pb_case_int(c, "graph");
}

static bool case_float(const struct pb_case *c) {
    return strcmp(pb_case_choice(c, "weights"), "float") == 0;
}

static uint32_t case_vertices(const struct pb_case *c) {
    if (case_family(c) == SSSP_ROME99) {
        char path[4096], err[512];
        if (pb_sssp_find_data(ROME99_FILE, path, sizeof path, err, sizeof err) != 0) return 1;
        uint32_t n = pb_gr_peek_vertices(path);
        return n ? n : 1;
    }
    return (uint32_t)pb_case_int(c, "vertices");
}

static void sssp_free_input(struct pb_input *in) {
    struct pb_sssp_input *x = in->extra;
    if (x) {
        pb_sssp_graph_free(&x->graph);
        cudaFree((void *)x->device.row);
        cudaFree((void *)x->device.col);
        cudaFree((void *)x->device.w);
        free(x);
    }
    memset(in, 0, sizeof *in);
}

static int upload(const struct pb_sssp_graph *g, struct pb_sssp_device_graph *d, char *err,
                  size_t err_len) {
    void *row = NULL, *col = NULL, *w = NULL;
    size_t row_bytes = ((size_t)g->n + 1) * 4, arc_bytes = ((size_t)g->m + 1) * 4;
    cudaError_t e = cudaMalloc(&row, row_bytes);
    if (e == cudaSuccess) e = cudaMalloc(&col, arc_bytes);
    if (e == cudaSuccess) e = cudaMalloc(&w, arc_bytes);
    d->n = g->n;
    d->m = g->m;
    d->row = row;
    d->col = col;
    d->w = w;
    if (e == cudaSuccess) e = cudaMemcpy(row, g->row, row_bytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) e = cudaMemcpy(col, g->col, (size_t)g->m * 4, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) e = cudaMemcpy(w, g->w, (size_t)g->m * 4, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) {
        snprintf(err, err_len, "device graph of %.2f GiB: %s",
                 (row_bytes + 2.0 * arc_bytes) / 1073741824.0, cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

int pb_sssp_input_from_graph(struct pb_sssp_graph *g, bool want_device, struct pb_input *in,
                             char *err, size_t err_len) {
    memset(in, 0, sizeof *in);
    struct pb_sssp_input *x = calloc(1, sizeof *x);
    if (!x) {
        pb_sssp_graph_free(g);
        snprintf(err, err_len, "out of host memory");
        return -1;
    }
    x->graph = *g;
    memset(g, 0, sizeof *g);
    in->extra = x;
    in->host = &x->graph;
    in->n = x->graph.n;
    in->dtype = x->graph.is_float ? PB_F32 : PB_U32;
    if (!want_device) return 0;
    if (upload(&x->graph, &x->device, err, err_len) != 0) return -1;
    in->device = (void *)x->device.row;
    return 0;
}

static int sssp_make_input(const struct pb_case *c, bool want_device, struct pb_input *in,
                           char *err, size_t err_len) {
    struct pb_sssp_graph g;
    memset(in, 0, sizeof *in);
    int rc;
    if (case_family(c) == SSSP_ROME99) {
        char path[4096];
        rc = pb_sssp_find_data(ROME99_FILE, path, sizeof path, err, err_len);
        if (rc == 0) rc = pb_gr_read(path, &g, err, err_len);
    } else {
        rc = pb_sssp_generate(case_family(c), (uint32_t)pb_case_int(c, "vertices"),
                              (uint32_t)pb_case_int(c, "density"),
                              c->seed ^ pb_case_input_stream(c), &g, err, err_len);
    }
    if (rc != 0) return -1;
    if (case_float(c)) pb_sssp_graph_to_float(&g);
    return pb_sssp_input_from_graph(&g, want_device, in, err, err_len);
}

static size_t sssp_output_bytes(const struct pb_case *c) { return (size_t)case_vertices(c) * 8; }

static int sssp_reference(const struct pb_case *c, const struct pb_input *in, void *ref) {
    const struct pb_sssp_graph *g = in->host;
    uint64_t *heap = malloc(((size_t)g->m + 1) * sizeof *heap);
    if (!heap) return -1;
    pb_sssp_dijkstra_heap(g, pb_sssp_case_source(c, g->n), pb_sssp_out_dist(ref),
                          pb_sssp_out_pred(ref, g->n), heap);
    free(heap);
    return 0;
}

/* dist[p] + w exactly as the backends add it (floats: one IEEE single addition). */
static uint32_t add_weight(uint32_t d, uint32_t w, bool is_float) {
    if (is_float) {
        float a, b, s;
        memcpy(&a, &d, 4);
        memcpy(&b, &w, 4);
        s = a + b;
        uint32_t r;
        memcpy(&r, &s, 4);
        return r;
    }
    uint32_t s = d + w;
    return s < d ? SSSP_INF_INT : s;
}

static bool has_tight_arc(const struct pb_sssp_graph *g, uint32_t p, uint32_t v,
                          const uint32_t *dist) {
    for (uint32_t e = g->row[p]; e < g->row[p + 1]; e++)
        if (g->col[e] == v && add_weight(dist[p], g->w[e], g->is_float) == dist[v]) return true;
    return false;
}

int pb_sssp_check(const struct pb_sssp_graph *g, uint32_t source, const uint32_t *ref_dist,
                  const uint32_t *dist, const uint32_t *pred, char *why, size_t why_len) {
    const uint32_t n = g->n, inf = pb_sssp_inf(g->is_float);
    for (uint32_t v = 0; v < n; v++) {
        if (dist[v] != ref_dist[v]) {
            snprintf(why, why_len, "dist[%u] = 0x%08x, expected 0x%08x%s", v, dist[v], ref_dist[v],
                     ref_dist[v] == inf ? " (unreachable)" : "");
            return 1;
        }
    }
    if (pred[source] != SSSP_NO_PRED) {
        snprintf(why, why_len, "the source %u has predecessor %u", source, pred[source]);
        return 1;
    }
    for (uint32_t v = 0; v < n; v++) {
        if (v == source) continue;
        if (dist[v] == inf) {
            if (pred[v] != SSSP_NO_PRED) {
                snprintf(why, why_len, "unreachable vertex %u has predecessor %u", v, pred[v]);
                return 1;
            }
            continue;
        }
        uint32_t p = pred[v];
        if (p >= n) {
            snprintf(why, why_len, "pred[%u] = %u: not a vertex", v, p);
            return 1;
        }
        if (!has_tight_arc(g, p, v, dist)) {
            snprintf(why, why_len, "pred[%u] = %u: no arc %u -> %u with dist[%u] + w = dist[%u]", v,
                     p, p, v, p, v);
            return 1;
        }
    }
    /* Tight arcs could still close a cycle of zero weights: the predecessors must lead
     * back to the source. state: 0 unseen, 1 on the current walk, 2 reaches the source. */
    unsigned char *state = calloc(n, 1);
    if (!state) {
        snprintf(why, why_len, "out of memory checking predecessors");
        return 1;
    }
    state[source] = 2;
    int bad = 0;
    for (uint32_t v = 0; v < n && !bad; v++) {
        if (dist[v] == inf || state[v] == 2) continue;
        uint32_t x = v;
        while (state[x] == 0) {
            state[x] = 1;
            x = pred[x];
        }
        if (state[x] == 1) {
            snprintf(why, why_len, "the predecessors from %u run in a cycle through %u", v, x);
            bad = 1;
        }
        for (x = v; state[x] == 1; x = pred[x]) state[x] = 2;
    }
    free(state);
    return bad;
}

static int sssp_verify(const struct pb_case *c, const struct pb_input *in, const void *ref,
                       const void *out, char *why, size_t why_len) {
    const struct pb_sssp_graph *g = in->host;
    return pb_sssp_check(g, pb_sssp_case_source(c, g->n), ref, out, (const uint32_t *)out + g->n,
                         why, why_len);
}

static uint64_t case_arcs(const struct pb_case *c) {
    return pb_sssp_generated_arcs(case_family(c), case_vertices(c),
                                  (uint32_t)pb_case_int(c, "density"));
}

/* Elements: arcs (a Dijkstra relaxes each reachable arc once). Bytes: every arc's head and
 * weight read once, the offsets read and the distances and predecessors written once. */
static void sssp_work(const struct pb_case *c, double *elements, double *bytes) {
    double n = (double)case_vertices(c), m = (double)case_arcs(c);
    *elements = m;
    *bytes = 8 * m + 12 * n;
}

/* The graph, the outputs, and the largest backend scratch (frontier: packed distances,
 * stamps and three queues of n), plus CUB's. */
static size_t sssp_device_bytes(const struct pb_case *c) {
    size_t n = case_vertices(c), m = case_arcs(c);
    return 8 * m + 4 * n + 8 * n + 40 * n + ((size_t)16 << 20);
}

const struct pb_primitive pb_primitive_sssp = {
    .name = "sssp",
    .summary = "single-source shortest paths: distances and predecessors (seed 004's Dijkstra)",
    .axes = sssp_axes,
    .naxes = (int)(sizeof sssp_axes / sizeof sssp_axes[0]),
    .make_input = sssp_make_input,
    .free_input = sssp_free_input,
    .output_bytes = sssp_output_bytes,
    .reference = sssp_reference,
    .verify = sssp_verify,
    .work = sssp_work,
    .device_bytes = sssp_device_bytes,
};
