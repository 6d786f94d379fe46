/* CSR graphs on the host: building from arc lists, freeing, float weights, data files. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sssp.h"

void pb_sssp_graph_free(struct pb_sssp_graph *g) {
    free(g->row);
    free(g->col);
    free(g->w);
    memset(g, 0, sizeof *g);
}

int pb_sssp_graph_from_arcs(uint32_t n, uint32_t m, const uint32_t *src, const uint32_t *dst,
                            const uint32_t *w, bool is_float, struct pb_sssp_graph *g, char *err,
                            size_t err_len) {
    memset(g, 0, sizeof *g);
    g->n = n;
    g->m = m;
    g->is_float = is_float;
    g->row = calloc((size_t)n + 1, sizeof *g->row);
    g->col = malloc(((size_t)m + 1) * sizeof *g->col);
    g->w = malloc(((size_t)m + 1) * sizeof *g->w);
    if (!g->row || !g->col || !g->w) {
        pb_sssp_graph_free(g);
        snprintf(err, err_len, "cannot allocate a graph of %u vertices and %u arcs", n, m);
        return -1;
    }
    /* Counting sort by tail, stable. */
    for (uint32_t e = 0; e < m; e++) g->row[src[e] + 1]++;
    for (uint32_t v = 0; v < n; v++) g->row[v + 1] += g->row[v];
    uint32_t *next = malloc(((size_t)n + 1) * sizeof *next);
    if (!next) {
        pb_sssp_graph_free(g);
        snprintf(err, err_len, "cannot allocate a graph of %u vertices and %u arcs", n, m);
        return -1;
    }
    memcpy(next, g->row, ((size_t)n + 1) * sizeof *next);
    for (uint32_t e = 0; e < m; e++) {
        uint32_t at = next[src[e]]++;
        g->col[at] = dst[e];
        g->w[at] = w[e];
        if (w[e] > g->max_w) g->max_w = w[e];
    }
    free(next);
    return 0;
}

void pb_sssp_graph_to_float(struct pb_sssp_graph *g) {
    if (g->is_float) return;
    for (uint32_t e = 0; e < g->m; e++) {
        float f = (float)g->w[e];
        memcpy(&g->w[e], &f, 4);
    }
    float top = (float)g->max_w;
    memcpy(&g->max_w, &top, 4);
    g->is_float = true;
}

uint32_t pb_sssp_max_degree(const struct pb_sssp_graph *g) {
    uint32_t most = 0;
    for (uint32_t v = 0; v < g->n; v++)
        if (g->row[v + 1] - g->row[v] > most) most = g->row[v + 1] - g->row[v];
    return most;
}

#ifndef PB_SOURCE_ROOT
#define PB_SOURCE_ROOT "."
#endif

int pb_sssp_find_data(const char *file, char *path, size_t path_len, char *err, size_t err_len) {
    // The guard also keeps GCC 12's -O3 UBSan build from warning of a null destination.
    if (!path || path_len == 0) return -1;
    const char *env = getenv("PB_DATA_DIR");
    const char *dirs[] = {env, "../shared/data", PB_SOURCE_ROOT "/../shared/data",
                          PB_SOURCE_ROOT "/shared/data"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        if (!dirs[i] || !dirs[i][0]) continue;
        snprintf(path, path_len, "%s/%s", dirs[i], file);
        if (access(path, R_OK) == 0) return 0;
    }
    snprintf(err, err_len, "%s not found in $PB_DATA_DIR (%s), ../shared/data or %s/../shared/data",
             file, env ? env : "unset", PB_SOURCE_ROOT);
    return -1;
}
