/* libFuzzer target: pb_gr_read_stream (DIMACS .gr) over arbitrary bytes. A graph read is
 * checked against the CSR invariants sssp.h promises, then written back as .gr text and
 * read again, which must give the same graph; a refusal must be one non-empty line naming
 * the file. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sssp.h"

#define NAME "fuzz.gr"
/* The reader takes up to 2^31 - 1 vertices, and a graph of V vertices needs O(V) memory
 * and time whatever its arcs: headers above this are skipped, not read, to keep each run
 * fast and under libFuzzer's memory limit. */
#define MAX_VERTICES (1u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* True when some line that starts with 'p' has a first number (the vertex count, since the
 * reader wants "p sp V E") above MAX_VERTICES. The arc count is not limited: the reader
 * must cope with a header that promises more arcs than the file holds. */
static bool header_too_big(const uint8_t *data, size_t size) {
    bool p_line = false, in_number = false, past_number = false, at_line_start = true;
    uint64_t v = 0;
    for (size_t i = 0; i < size; i++) {
        uint8_t c = data[i];
        if (at_line_start) {
            p_line = c == 'p';
            in_number = past_number = false;
            v = 0;
        }
        at_line_start = c == '\n';
        if (!p_line || past_number) continue;
        if (c >= '0' && c <= '9') {
            in_number = true;
            v = v * 10 + (c - '0');
            if (v > MAX_VERTICES) return true;
        } else if (in_number) {
            past_number = true;
        }
    }
    return false;
}

static void check_graph(const struct pb_sssp_graph *g) {
    if (g->n == 0 || g->n > 0x7FFFFFFFu || g->is_float) abort();
    if (!g->row || !g->col || !g->w) abort();
    if (g->row[0] != 0 || g->row[g->n] != g->m) abort();
    for (uint32_t v = 0; v < g->n; v++)
        if (g->row[v + 1] < g->row[v]) abort();
    uint32_t max_w = 0;
    for (uint32_t e = 0; e < g->m; e++) {
        if (g->col[e] >= g->n) abort();
        if (g->w[e] > 0xFFFFFFFEu) abort(); /* all ones is the unreachable distance */
        if (g->w[e] > max_w) max_w = g->w[e];
    }
    if (g->max_w != max_w) abort();
}

/* Writes g as .gr (arcs in CSR order) and reads it back: the CSR must be the same, since
 * the reader keeps each vertex's arcs in file order. */
static void check_round_trip(const struct pb_sssp_graph *g) {
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out) return;
    fprintf(out, "c round trip\np sp %" PRIu32 " %" PRIu32 "\n", g->n, g->m);
    for (uint32_t u = 0; u < g->n; u++)
        for (uint32_t e = g->row[u]; e < g->row[u + 1]; e++)
            fprintf(out, "a %" PRIu32 " %" PRIu32 " %" PRIu32 "\n", u + 1, g->col[e] + 1, g->w[e]);
    if (fclose(out) != 0) abort();
    FILE *in = fmemopen(text, len, "r");
    if (!in) abort();
    struct pb_sssp_graph again;
    char err[256];
    if (pb_gr_read_stream(in, NAME, &again, err, sizeof err) != 0) abort();
    fclose(in);
    free(text);
    if (again.n != g->n || again.m != g->m || again.max_w != g->max_w) abort();
    if (memcmp(again.row, g->row, ((size_t)g->n + 1) * sizeof *g->row) != 0) abort();
    if (g->m && memcmp(again.col, g->col, (size_t)g->m * sizeof *g->col) != 0) abort();
    if (g->m && memcmp(again.w, g->w, (size_t)g->m * sizeof *g->w) != 0) abort();
    pb_sssp_graph_free(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0; /* fmemopen takes no empty buffer on older C libraries */
    if (header_too_big(data, size)) return 0;
    FILE *f = fmemopen((void *)data, size, "r");
    if (!f) return 0;
    struct pb_sssp_graph g;
    char err[256];
    memset(err, 0, sizeof err);
    int rc = pb_gr_read_stream(f, NAME, &g, err, sizeof err);
    fclose(f);
    if (rc == 0) {
        check_graph(&g);
        check_round_trip(&g);
        pb_sssp_graph_free(&g);
    } else {
        if (rc != -1) abort();
        /* Refused: nothing allocated, and "FILE:LINE: what" on one line. */
        if (g.row || g.col || g.w) abort();
        if (strncmp(err, NAME ":", sizeof NAME) != 0) abort();
        if (strlen(err) <= sizeof NAME || strchr(err, '\n')) abort();
    }
    return 0;
}
