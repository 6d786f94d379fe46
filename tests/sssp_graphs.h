/* Small hand-made graphs for the sssp tests, as DIMACS text, and a helper that makes a
 * primitive input of one. */
#ifndef PB_TEST_SSSP_GRAPHS_H
#define PB_TEST_SSSP_GRAPHS_H

#include <stdio.h>
#include <string.h>

#include "case_builder.h"
#include "registry.h"
#include "sssp.h"

struct sssp_named_graph {
    const char *name;
    const char *text;
    uint32_t source; /* 0-based */
};

static const struct sssp_named_graph sssp_edge_graphs[] = {
    {"single vertex", "p sp 1 0\n", 0},
    {"single vertex with a self-loop", "p sp 1 1\na 1 1 5\n", 0},
    {"source without out-arcs", "p sp 4 3\na 2 1 1\na 2 3 4\na 3 4 1\n", 0},
    {"disconnected parts", "p sp 6 5\na 1 2 3\na 2 3 4\na 4 5 1\na 5 6 1\na 6 4 2\n", 0},
    {"zero weights", "p sp 5 6\na 1 2 0\na 2 3 0\na 3 2 0\na 3 4 0\na 1 4 0\na 4 5 0\n", 0},
    {"parallel arcs", "p sp 3 5\na 1 2 9\na 1 2 4\na 1 2 6\na 2 3 2\na 2 3 1\n", 0},
    {"self-loops", "p sp 3 4\na 1 1 0\na 1 2 3\na 2 2 1\na 2 3 1\n", 0},
    {"ties between paths",
     "p sp 6 8\na 1 2 1\na 1 3 1\na 2 4 1\na 3 4 1\na 4 5 2\na 2 5 3\na 3 6 3\na 5 6 0\n", 0},
    {"source in the middle", "p sp 5 6\na 1 2 1\na 2 3 1\na 3 4 1\na 4 5 1\na 5 1 1\na 3 1 7\n", 2},
};

/* 0, or -1 with err set. */
static inline int sssp_input_from_text(const char *text, bool is_float, bool device,
                                       struct pb_input *in, char *err, size_t err_len) {
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    if (!f) {
        snprintf(err, err_len, "fmemopen failed");
        return -1;
    }
    struct pb_sssp_graph g;
    int rc = pb_gr_read_stream(f, "test graph", &g, err, err_len);
    fclose(f);
    if (rc != 0) return rc;
    if (is_float) pb_sssp_graph_to_float(&g);
    return pb_sssp_input_from_graph(&g, device, in, err, err_len);
}

/* A case that describes a hand-made input: the primitive sizes its output from the case
 * (vertices of a generated graph), so the case must name the input's vertex count. */
static inline void sssp_case_for_input(struct pb_case *c, const struct pb_input *in,
                                       int64_t source) {
    case_init(c, pb_registry_find_primitive("sssp"), 1);
    case_set_choice(c, "graph", "grid");
    case_set_int(c, "vertices", (int64_t)in->n);
    case_set_int(c, "source", source);
}

#endif
