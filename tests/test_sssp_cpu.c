/* The sssp primitive on the CPU: the DIMACS reader on good and malformed files, the
 * generators, the two CPU backends against the reference, and the verifier. */
#include <setjmp.h>
#include <stdio.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend_check.h"
#include "case_builder.h"
#include "registry.h"
#include "sssp.h"
#include "sssp_graphs.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const struct pb_primitive *sssp(void) { return pb_registry_find_primitive("sssp"); }

static void reads_a_good_file(void **state) {
    (void)state;
    struct pb_sssp_graph g;
    char err[512] = "";
    assert_int_equal(pb_gr_read("data/sssp/good.gr", &g, err, sizeof err), 0);
    assert_int_equal(g.n, 4);
    assert_int_equal(g.m, 5);
    const uint32_t row[] = {0, 2, 3, 4, 5}, col[] = {1, 2, 3, 1, 3}, w[] = {7, 2, 1, 3, 0};
    assert_memory_equal(g.row, row, sizeof row);
    assert_memory_equal(g.col, col, sizeof col);
    assert_memory_equal(g.w, w, sizeof w);
    assert_int_equal(g.max_w, 7);
    assert_int_equal(pb_sssp_max_degree(&g), 2); /* vertex 0's two arcs */
    pb_sssp_graph_free(&g);
    assert_int_equal(pb_gr_peek_vertices("data/sssp/good.gr"), 4);
}

static void rejects_malformed_files(void **state) {
    (void)state;
    const struct {
        const char *file, *where, *what;
    } bad[] = {
        {"bad_header.gr", "bad_header.gr:1:", "bad header"},
        {"too_few_arcs.gr", "too_few_arcs.gr:3:", "the header says 3"},
        {"too_many_arcs.gr", "too_many_arcs.gr:3:", "more arcs than the header's 1"},
        {"vertex_out_of_range.gr", "vertex_out_of_range.gr:3:", "out of range 1..3"},
        {"vertex_zero.gr", "vertex_zero.gr:3:", "out of range"},
        {"negative_weight.gr", "negative_weight.gr:3:", "negative weight"},
        {"truncated.gr", "truncated.gr:3:", "bad arc"},
        {"arc_before_header.gr", "arc_before_header.gr:1:", "before the 'p sp V E' header"},
        {"unknown_line.gr", "unknown_line.gr:2:", "unknown line type 'x'"},
        {"missing.gr", "missing.gr", "No such file"},
    };
    for (size_t i = 0; i < COUNT(bad); i++) {
        char path[256], err[512] = "";
        struct pb_sssp_graph g;
        snprintf(path, sizeof path, "data/sssp/%s", bad[i].file);
        if (pb_gr_read(path, &g, err, sizeof err) == 0) fail_msg("%s was accepted", path);
        if (!strstr(err, bad[i].where) || !strstr(err, bad[i].what))
            fail_msg("%s: message '%s' lacks '%s' or '%s'", path, err, bad[i].where, bad[i].what);
        if (strchr(err, '\n')) fail_msg("%s: message is more than one line", path);
        assert_null(g.row);
    }
}

static void generators_are_deterministic(void **state) {
    (void)state;
    const enum pb_sssp_family families[] = {SSSP_GRID, SSSP_RANDOM, SSSP_RMAT, SSSP_COMPLETE};
    for (size_t f = 0; f < COUNT(families); f++) {
        struct pb_sssp_graph a, b, c;
        char err[256];
        assert_int_equal(pb_sssp_generate(families[f], 1000, 50, 7, &a, err, sizeof err), 0);
        assert_int_equal(pb_sssp_generate(families[f], 1000, 50, 7, &b, err, sizeof err), 0);
        assert_int_equal(pb_sssp_generate(families[f], 1000, 50, 8, &c, err, sizeof err), 0);
        assert_int_equal(a.n, 1000);
        assert_int_equal(a.m, b.m);
        assert_memory_equal(a.row, b.row, 1001 * 4);
        assert_memory_equal(a.col, b.col, (size_t)a.m * 4);
        assert_memory_equal(a.w, b.w, (size_t)a.m * 4);
        assert_true(a.m != c.m || memcmp(a.w, c.w, (size_t)a.m * 4) != 0);
        for (uint32_t e = 0; e < a.m; e++) {
            assert_true(a.w[e] >= 1 && a.w[e] <= 1000);
            assert_true(a.col[e] < a.n);
        }
        switch (families[f]) {
        case SSSP_GRID: /* 32 x 32 minus 24: 4 * 1000 - 2 * (32 + 32) + 2 * 24 ... count directly */
            assert_int_equal(a.row[1] - a.row[0], 2); /* a corner */
            break;
        case SSSP_RANDOM: /* 5% of 999000 pairs */
            assert_in_range(a.m, 45000, 55000);
            break;
        case SSSP_RMAT:
            assert_int_equal(a.m, 1000 * SSSP_RMAT_EDGE_FACTOR);
            break;
        case SSSP_COMPLETE:
            assert_int_equal(a.m, 999000);
            break;
        default:
            break;
        }
        pb_sssp_graph_free(&a);
        pb_sssp_graph_free(&b);
        pb_sssp_graph_free(&c);
    }
}

static void check_cpu(const char *graph, int64_t n, int64_t density, const char *weights,
                      int64_t source) {
    struct pb_case c;
    case_init(&c, sssp(), 5);
    case_set_choice(&c, "graph", graph);
    case_set_int(&c, "vertices", n);
    case_set_int(&c, "density", density);
    case_set_choice(&c, "weights", weights);
    case_set_int(&c, "source", source);
    char why[512] = "";
    if (check_all_backends(PB_TARGET_CPU, "sssp", &c, why, sizeof why) != 0)
        fail_msg("%s n=%lld density=%lld %s source=%lld: %s", graph, (long long)n,
                 (long long)density, weights, (long long)source, why);
}

static void cpu_backends_agree_on_generated_graphs(void **state) {
    (void)state;
    /* The road graph lives beside the clone (../shared/data), which a bare clone lacks. */
    char path[4096], err[512];
    if (pb_sssp_find_data("rome99.gr", path, sizeof path, err, sizeof err) == 0) {
        check_cpu("rome99", 1, 1, "int", 0);
        check_cpu("rome99", 1, 1, "float", 1234);
    } else {
        printf("rome99 cases not run: %s\n", err);
    }
    check_cpu("grid", 1000, 1, "int", 0);
    check_cpu("grid", 1000, 1, "float", 517);
    check_cpu("grid", 1, 1, "int", 0);
    check_cpu("random", 500, 5, "int", 3); /* sparse: unreachable vertices */
    check_cpu("random", 500, 300, "float", 0);
    check_cpu("rmat", 2048, 1, "int", 0);
    check_cpu("rmat", 3000, 1, "int", 2999); /* not a power of two */
    check_cpu("complete", 200, 1, "int", 0);
}

/* Both CPU backends on each hand-made graph, as the harness runs them. */
static void cpu_backends_on_edge_graphs(void **state) {
    (void)state;
    for (size_t i = 0; i < COUNT(sssp_edge_graphs); i++)
        for (int fl = 0; fl < 2; fl++) {
            struct pb_input in;
            char err[512] = "";
            if (sssp_input_from_text(sssp_edge_graphs[i].text, fl, false, &in, err, sizeof err))
                fail_msg("%s: %s", sssp_edge_graphs[i].name, err);
            struct pb_case c;
            sssp_case_for_input(&c, &in, sssp_edge_graphs[i].source);
            if (check_all_backends_on_input(PB_TARGET_CPU, "sssp", &c, &in, err, sizeof err))
                fail_msg("%s (%s): %s", sssp_edge_graphs[i].name, fl ? "float" : "int", err);
            sssp()->free_input(&in);
        }
}

/* The verifier against outputs broken on purpose. Graph: 1->2 (7), 1->3 (2), 3->2 (3),
 * 2->4 (1), 4->4 (0), 5 unreachable; 0-based: dist 0, 5, 2, 6, inf. */
static void verifier_catches_wrong_outputs(void **state) {
    (void)state;
    const char *text = "p sp 5 5\na 1 2 7\na 1 3 2\na 3 2 3\na 2 4 1\na 4 4 0\n";
    struct pb_input in;
    char err[512] = "";
    assert_int_equal(sssp_input_from_text(text, false, false, &in, err, sizeof err), 0);
    const struct pb_sssp_graph *g = in.host;
    uint32_t ref[10], out[10];
    struct pb_case c;
    sssp_case_for_input(&c, &in, 0);
    assert_int_equal(sssp()->reference(&c, &in, ref), 0);
    const uint32_t dist[] = {0, 5, 2, 6, SSSP_INF_INT},
                   pred[] = {SSSP_NO_PRED, 2, 0, 1, SSSP_NO_PRED};
    assert_memory_equal(ref, dist, sizeof dist);
    assert_memory_equal(ref + 5, pred, sizeof pred);
    memcpy(out, ref, sizeof out);
    assert_int_equal(sssp()->verify(&c, &in, ref, out, err, sizeof err), 0);

    const struct {
        int index;
        uint32_t value;
        const char *expect;
    } broken[] = {
        {1, 6, "dist[1]"},                     /* a wrong distance */
        {4, 9, "dist[4]"},                     /* unreachable given a distance */
        {3, SSSP_INF_INT, "dist[3]"},          /* reachable reported unreachable */
        {5 + 1, 0, "no arc 0 -> 1"},           /* arc exists, not tight (7 != 5) */
        {5 + 3, 2, "no arc 2 -> 3"},           /* no such arc */
        {5 + 3, 77, "not a vertex"},           /* out of range */
        {5 + 4, 3, "unreachable vertex 4"},    /* unreachable with a predecessor */
        {5 + 0, 2, "the source 0"},            /* the source with a predecessor */
        {5 + 2, SSSP_NO_PRED, "not a vertex"}, /* reachable without a predecessor */
    };
    for (size_t i = 0; i < COUNT(broken); i++) {
        memcpy(out, ref, sizeof out);
        out[broken[i].index] = broken[i].value;
        err[0] = '\0';
        if (sssp()->verify(&c, &in, ref, out, err, sizeof err) != 1 ||
            !strstr(err, broken[i].expect))
            fail_msg("break %zu: verifier said '%s', expected '%s'", i, err, broken[i].expect);
    }
    (void)g;
    sssp()->free_input(&in);

    /* Tight predecessors in a cycle of zero weights: 1->2 (1), 2->3 (0), 3->2 (0). */
    assert_int_equal(sssp_input_from_text("p sp 3 3\na 1 2 1\na 2 3 0\na 3 2 0\n", false, false,
                                          &in, err, sizeof err),
                     0);
    uint32_t ref3[6], out3[6];
    assert_int_equal(sssp()->reference(&c, &in, ref3), 0);
    memcpy(out3, ref3, sizeof out3);
    out3[3 + 1] = 2; /* pred[1] = 2 and pred[2] = 1: both tight, neither reaches 0 */
    out3[3 + 2] = 1;
    if (sssp()->verify(&c, &in, ref3, out3, err, sizeof err) != 1 || !strstr(err, "cycle"))
        fail_msg("a zero-weight predecessor cycle passed: '%s'", err);
    sssp()->free_input(&in);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_a_good_file),
        cmocka_unit_test(rejects_malformed_files),
        cmocka_unit_test(generators_are_deterministic),
        cmocka_unit_test(cpu_backends_agree_on_generated_graphs),
        cmocka_unit_test(cpu_backends_on_edge_graphs),
        cmocka_unit_test(verifier_catches_wrong_outputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
