/* Graph generators, each a pure function of (family, n, density, seed): every arc and
 * weight comes from a counter-based hash, so rows can be built in parallel and the graph
 * is the same on every machine. Integer weights 1..1000. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sssp.h"

#define MAX_WEIGHT 1000u

static uint64_t mix64(uint64_t x) {
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    return x;
}

static uint64_t hash3(uint64_t seed, uint64_t a, uint64_t b) {
    return mix64(seed ^ mix64(a * 0x9E3779B97F4A7C15ull ^ mix64(b + 0x632BE59BD9B4E019ull)));
}

static uint32_t weight_of(uint64_t seed, uint64_t a, uint64_t b) {
    return 1 + (uint32_t)(hash3(seed ^ 0x5757575757575757ull, a, b) % MAX_WEIGHT);
}

static uint32_t grid_cols(uint32_t n) {
    uint32_t c = (uint32_t)ceil(sqrt((double)n));
    while ((uint64_t)c * c < n) c++;
    while (c > 1 && (uint64_t)(c - 1) * (c - 1) >= n) c--;
    return c ? c : 1;
}

/* Up to four neighbours in a row-major grid of cols columns, the last row partial. */
static int grid_neighbours(uint32_t v, uint32_t n, uint32_t cols, uint32_t *out) {
    int k = 0;
    uint32_t c = v % cols;
    if (c + 1 < cols && v + 1 < n) out[k++] = v + 1;
    if (c > 0) out[k++] = v - 1;
    if ((uint64_t)v + cols < n) out[k++] = v + cols;
    if (v >= cols) out[k++] = v - cols;
    return k;
}

/* Allocates g for n vertices and m arcs with row already holding per-vertex counts at
 * row[v + 1]; turns them into offsets. */
static int alloc_rows(struct pb_sssp_graph *g, uint32_t n, uint64_t m, char *err, size_t err_len) {
    if (m > 0xFFFFFFFEull) {
        snprintf(err, err_len, "%llu arcs: more than 2^32 - 2", (unsigned long long)m);
        return -1;
    }
    g->m = (uint32_t)m;
    g->col = malloc((m + 1) * sizeof *g->col);
    g->w = malloc((m + 1) * sizeof *g->w);
    if (!g->col || !g->w) {
        snprintf(err, err_len, "cannot allocate %llu arcs", (unsigned long long)m);
        return -1;
    }
    for (uint32_t v = 0; v < n; v++) g->row[v + 1] += g->row[v];
    return 0;
}

static int make_grid(uint32_t n, uint64_t seed, struct pb_sssp_graph *g, char *err,
                     size_t err_len) {
    uint32_t cols = grid_cols(n), nb[4];
    uint64_t m = 0;
    for (uint32_t v = 0; v < n; v++) {
        g->row[v + 1] = (uint32_t)grid_neighbours(v, n, cols, nb);
        m += g->row[v + 1];
    }
    if (alloc_rows(g, n, m, err, err_len) != 0) return -1;
#pragma omp parallel for schedule(static)
    for (uint32_t v = 0; v < n; v++) {
        uint32_t local[4];
        int k = grid_neighbours(v, n, cols, local);
        for (int j = 0; j < k; j++) {
            g->col[g->row[v] + j] = local[j];
            g->w[g->row[v] + j] = weight_of(seed, v, local[j]);
        }
    }
    return 0;
}

/* Random graph: each ordered pair (u, v), u != v, is an arc with probability density /
 * 1000 (complete: every pair). */
static int make_random(uint32_t n, uint32_t density, bool complete, uint64_t seed,
                       struct pb_sssp_graph *g, char *err, size_t err_len) {
    uint64_t threshold = complete || density >= 1000
                             ? UINT64_MAX
                             : (uint64_t)((double)density / 1000.0 * 18446744073709549568.0);
#define IS_ARC(u, v) ((u) != (v) && (complete || hash3(seed, (u), (v)) < threshold))
#pragma omp parallel for schedule(dynamic, 16)
    for (uint32_t u = 0; u < n; u++) {
        uint32_t count = 0;
        for (uint32_t v = 0; v < n; v++) count += IS_ARC(u, v);
        g->row[u + 1] = count;
    }
    uint64_t m = 0;
    for (uint32_t u = 0; u < n; u++) m += g->row[u + 1];
    if (alloc_rows(g, n, m, err, err_len) != 0) return -1;
#pragma omp parallel for schedule(dynamic, 16)
    for (uint32_t u = 0; u < n; u++) {
        uint32_t at = g->row[u];
        for (uint32_t v = 0; v < n; v++)
            if (IS_ARC(u, v)) {
                g->col[at] = v;
                g->w[at++] = weight_of(seed, u, v);
            }
    }
#undef IS_ARC
    return 0;
}

/* R-MAT (Chakrabarti et al., Graph500's a, b, c = 0.57, 0.19, 0.19) over 2^ceil(log2 n)
 * ids folded into 0..n-1, SSSP_RMAT_EDGE_FACTOR arcs per vertex; self-loops and parallel
 * arcs are kept. */
static int make_rmat(uint32_t n, uint64_t seed, struct pb_sssp_graph *g, char *err,
                     size_t err_len) {
    int scale = 0;
    while ((1ull << scale) < n) scale++;
    uint64_t m = (uint64_t)n * SSSP_RMAT_EDGE_FACTOR;
    if (m > 0xFFFFFFFEull) {
        snprintf(err, err_len, "rmat of %u vertices: more than 2^32 - 2 arcs", n);
        return -1;
    }
    uint32_t *src = malloc(m * sizeof *src), *dst = malloc(m * sizeof *dst),
             *w = malloc(m * sizeof *w);
    int rc = -1;
    if (!src || !dst || !w) {
        snprintf(err, err_len, "cannot allocate %llu arcs", (unsigned long long)m);
        goto out;
    }
#pragma omp parallel for schedule(static)
    for (uint64_t e = 0; e < m; e++) {
        uint64_t u = 0, v = 0;
        for (int level = 0; level < scale; level++) {
            uint64_t h = hash3(seed, e, (uint64_t)level) % 100;
            int quadrant = h < 57 ? 0 : h < 76 ? 1 : h < 95 ? 2 : 3;
            u = u * 2 + (quadrant >= 2);
            v = v * 2 + (quadrant & 1);
        }
        src[e] = (uint32_t)(u % n);
        dst[e] = (uint32_t)(v % n);
        w[e] = weight_of(seed, e, m);
    }
    free(g->row);
    rc = pb_sssp_graph_from_arcs(n, (uint32_t)m, src, dst, w, false, g, err, err_len);
out:
    free(src);
    free(dst);
    free(w);
    return rc;
}

uint64_t pb_sssp_generated_arcs(enum pb_sssp_family family, uint64_t n, uint32_t density) {
    switch (family) {
    case SSSP_GRID:
        return 4 * n;
    case SSSP_RANDOM:
        return (uint64_t)((double)n * (double)(n - 1) * density / 1000.0);
    case SSSP_RMAT:
        return n * SSSP_RMAT_EDGE_FACTOR;
    case SSSP_COMPLETE:
        return n * (n - 1);
    case SSSP_ROME99:
        return 8870;
    }
    return 0;
}

int pb_sssp_generate(enum pb_sssp_family family, uint32_t n, uint32_t density, uint64_t seed,
                     struct pb_sssp_graph *g, char *err, size_t err_len) {
    memset(g, 0, sizeof *g);
    g->n = n;
    g->row = calloc((size_t)n + 1, sizeof *g->row);
    if (!g->row) {
        snprintf(err, err_len, "cannot allocate %u vertices", n);
        return -1;
    }
    int rc = -1;
    switch (family) {
    case SSSP_GRID:
        rc = make_grid(n, seed, g, err, err_len);
        break;
    case SSSP_RANDOM:
        rc = make_random(n, density, false, seed, g, err, err_len);
        break;
    case SSSP_COMPLETE:
        rc = make_random(n, 1000, true, seed, g, err, err_len);
        break;
    case SSSP_RMAT:
        rc = make_rmat(n, seed, g, err, err_len);
        break;
    case SSSP_ROME99:
        snprintf(err, err_len, "rome99 is a file, not a generator");
        break;
    }
    if (rc != 0) {
        pb_sssp_graph_free(g);
        return -1;
    }
    g->max_w = 0;
    for (uint32_t e = 0; e < g->m; e++)
        if (g->w[e] > g->max_w) g->max_w = g->w[e];
    return 0;
}
