/* CPU Dijkstra: a binary heap with lazy deletion (sssp/cpu-heap, also the primitive's
 * reference), and the O(V^2) scan for the minimum that seed 004 starts from
 * (sssp/cpu-scan). Distances are 32-bit words ordered as unsigned integers (float
 * weights as their bits: non-negative floats order the same way); relaxation adds in
 * the weights' own type, saturating at the unreachable value for integers. */
#include <stdlib.h>
#include <string.h>

#include "sssp.h"

static inline uint32_t relax_add(uint32_t d, uint32_t w, bool is_float) {
    if (is_float) {
        float a, b;
        memcpy(&a, &d, 4);
        memcpy(&b, &w, 4);
        float s = a + b;
        uint32_t r;
        memcpy(&r, &s, 4);
        return r;
    }
    uint32_t s = d + w;
    return s < d ? SSSP_INF_INT : s;
}

static void init_outputs(uint32_t n, bool is_float, uint32_t *dist, uint32_t *pred) {
    uint32_t inf = pb_sssp_inf(is_float);
    for (uint32_t v = 0; v < n; v++) {
        dist[v] = inf;
        pred[v] = SSSP_NO_PRED;
    }
}

/* Min-heap of (distance << 32 | vertex). */
static void heap_push(uint64_t *heap, uint64_t *size, uint64_t key) {
    uint64_t i = (*size)++;
    while (i > 0) {
        uint64_t parent = (i - 1) / 2;
        if (heap[parent] <= key) break;
        heap[i] = heap[parent];
        i = parent;
    }
    heap[i] = key;
}

static uint64_t heap_pop(uint64_t *heap, uint64_t *size) {
    uint64_t top = heap[0], last = heap[--(*size)], i = 0, n = *size;
    for (;;) {
        uint64_t child = 2 * i + 1;
        if (child >= n) break;
        if (child + 1 < n && heap[child + 1] < heap[child]) child++;
        if (heap[child] >= last) break;
        heap[i] = heap[child];
        i = child;
    }
    if (n > 0) heap[i] = last;
    return top;
}

void pb_sssp_dijkstra_heap(const struct pb_sssp_graph *g, uint32_t source, uint32_t *dist,
                           uint32_t *pred, uint64_t *heap) {
    init_outputs(g->n, g->is_float, dist, pred);
    uint32_t inf = pb_sssp_inf(g->is_float);
    uint64_t size = 0;
    dist[source] = 0;
    heap_push(heap, &size, (uint64_t)source);
    while (size > 0) {
        uint64_t top = heap_pop(heap, &size);
        uint32_t u = (uint32_t)top, du = (uint32_t)(top >> 32);
        if (du != dist[u]) continue; /* stale: u was settled with a smaller distance */
        for (uint32_t e = g->row[u]; e < g->row[u + 1]; e++) {
            uint32_t v = g->col[e], nd = relax_add(du, g->w[e], g->is_float);
            if (nd < dist[v] && nd < inf) {
                dist[v] = nd;
                pred[v] = u;
                heap_push(heap, &size, (uint64_t)nd << 32 | v);
            }
        }
    }
}

void pb_sssp_dijkstra_scan(const struct pb_sssp_graph *g, uint32_t source, uint32_t *dist,
                           uint32_t *pred, uint64_t *key) {
    const uint32_t n = g->n;
    init_outputs(n, g->is_float, dist, pred);
    uint32_t inf = pb_sssp_inf(g->is_float);
    /* key[v] = dist << 32 | v while v is unsettled, all ones once settled: the minimum
     * key is the next vertex, ties to the smaller id. */
    for (uint32_t v = 0; v < n; v++) key[v] = (uint64_t)inf << 32 | v;
    dist[source] = 0;
    key[source] = source;
    for (uint32_t step = 0; step < n; step++) {
        uint64_t best = UINT64_MAX;
#pragma omp simd reduction(min : best)
        for (uint32_t v = 0; v < n; v++) best = key[v] < best ? key[v] : best;
        uint32_t u = (uint32_t)best, du = (uint32_t)(best >> 32);
        if (best == UINT64_MAX || du >= inf) break; /* the rest is unreachable */
        key[u] = UINT64_MAX;
        for (uint32_t e = g->row[u]; e < g->row[u + 1]; e++) {
            uint32_t v = g->col[e], nd = relax_add(du, g->w[e], g->is_float);
            if (nd < dist[v] && key[v] != UINT64_MAX) {
                dist[v] = nd;
                pred[v] = u;
                key[v] = (uint64_t)nd << 32 | v;
            }
        }
    }
}

/* ---- the two backends ---------------------------------------------------------- */

struct cpu_state {
    uint64_t *scratch;
};

static const struct pb_sssp_graph *graph_of(const struct pb_run *r) {
    return &((const struct pb_sssp_input *)r->in->extra)->graph;
}

static int cpu_prepare(struct pb_run *r, size_t entries) {
    struct cpu_state *s = calloc(1, sizeof *s);
    if (s) s->scratch = malloc(entries * sizeof *s->scratch);
    r->state = s;
    if (!s || !s->scratch) {
        snprintf(r->err, sizeof r->err, "cannot allocate %zu scratch entries", entries);
        return -1;
    }
    return 0;
}

static int heap_prepare(struct pb_run *r) { return cpu_prepare(r, (size_t)graph_of(r)->m + 1); }
static int scan_prepare(struct pb_run *r) { return cpu_prepare(r, (size_t)graph_of(r)->n); }

static int poison(struct pb_run *r) {
    memset(r->out, PB_POISON_BYTE, (size_t)graph_of(r)->n * 8);
    return 0;
}

static int heap_run(struct pb_run *r) {
    const struct pb_sssp_graph *g = graph_of(r);
    struct cpu_state *s = r->state;
    pb_sssp_dijkstra_heap(g, pb_sssp_case_source(r->c, g->n), pb_sssp_out_dist(r->out),
                          pb_sssp_out_pred(r->out, g->n), s->scratch);
    return 0;
}

static int scan_run(struct pb_run *r) {
    const struct pb_sssp_graph *g = graph_of(r);
    struct cpu_state *s = r->state;
    pb_sssp_dijkstra_scan(g, pb_sssp_case_source(r->c, g->n), pb_sssp_out_dist(r->out),
                          pb_sssp_out_pred(r->out, g->n), s->scratch);
    return 0;
}

static void cpu_release(struct pb_run *r) {
    struct cpu_state *s = r->state;
    if (s) free(s->scratch);
    free(s);
    r->state = NULL;
}

static bool heap_supports(const struct pb_case *c, char *why, size_t why_len) {
    (void)c, (void)why, (void)why_len;
    return true;
}

/* O(V^2): 16384 vertices is 2.7e8 key reads per run, a fraction of a second; 4x per doubling. */
#define SCAN_MAX_VERTICES 16384

static bool scan_supports(const struct pb_case *c, char *why, size_t why_len) {
    int64_t n = pb_case_int(c, "vertices");
    if (strcmp(pb_case_choice(c, "graph"), "rome99") == 0 || n <= SCAN_MAX_VERTICES) return true;
    snprintf(why, why_len, "O(V^2) scan: only up to %d vertices", SCAN_MAX_VERTICES);
    return false;
}

const struct pb_backend pb_backend_sssp_cpu_heap = {
    .primitive = "sssp",
    .name = "sssp/cpu-heap",
    .summary = "binary-heap Dijkstra with lazy deletion, one core",
    .target = PB_TARGET_CPU,
    .supports = heap_supports,
    .prepare = heap_prepare,
    .poison = poison,
    .run = heap_run,
    .release = cpu_release,
};

const struct pb_backend pb_backend_sssp_cpu_scan = {
    .primitive = "sssp",
    .name = "sssp/cpu-scan",
    .summary = "seed 004's starting point: O(V^2) Dijkstra scanning for the minimum (SIMD)",
    .target = PB_TARGET_CPU,
    .supports = scan_supports,
    .prepare = scan_prepare,
    .poison = poison,
    .run = scan_run,
    .release = cpu_release,
};
