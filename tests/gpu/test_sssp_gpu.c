/* Every GPU sssp backend against the CPU Dijkstra: hand-made edge graphs (a single
 * vertex, a source without out-arcs, disconnected parts, zero weights, parallel arcs,
 * self-loops, ties), rome99, and small instances of every generator, integer and float
 * weights. Sizes cross dijkstra-butterfly's switch from one block to a cooperative grid. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend_check.h"
#include "case_builder.h"
#include "gpu_skip.h"
#include "registry.h"
#include "sssp_graphs.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static bool small; /* PB_TEST_SMALL: under compute-sanitizer, fewer and smaller cases */

static const struct pb_primitive *sssp(void) { return pb_registry_find_primitive("sssp"); }

static void check_edge_graphs(void) {
    for (size_t i = 0; i < COUNT(sssp_edge_graphs); i++)
        for (int fl = 0; fl < 2; fl++) {
            struct pb_input in;
            char err[512] = "";
            if (sssp_input_from_text(sssp_edge_graphs[i].text, fl, true, &in, err, sizeof err))
                fail_msg("%s: %s", sssp_edge_graphs[i].name, err);
            struct pb_case c;
            sssp_case_for_input(&c, &in, sssp_edge_graphs[i].source);
            if (check_all_backends_on_input(PB_TARGET_GPU, "sssp", &c, &in, err, sizeof err))
                fail_msg("%s (%s): %s", sssp_edge_graphs[i].name, fl ? "float" : "int", err);
            sssp()->free_input(&in);
        }
}

static void check(const char *graph, int64_t n, int64_t density, const char *weights,
                  int64_t source) {
    struct pb_case c;
    case_init(&c, sssp(), 3);
    case_set_choice(&c, "graph", graph);
    case_set_int(&c, "vertices", n);
    case_set_int(&c, "density", density);
    case_set_choice(&c, "weights", weights);
    case_set_int(&c, "source", source);
    char why[600] = "";
    if (check_all_backends(PB_TARGET_GPU, "sssp", &c, why, sizeof why) != 0)
        fail_msg("%s n=%lld density=%lld %s source=%lld: %s", graph, (long long)n,
                 (long long)density, weights, (long long)source, why);
}

static void rome99(void **state) {
    (void)state;
    if (small) { /* 3353 steps a backend: the kernels of generated_graphs, far slower */
        printf("rome99: not run under PB_TEST_SMALL (generated_graphs runs the same kernels)\n");
        return;
    }
    check("rome99", 1, 1, "int", 0);
    check("rome99", 1, 1, "float", 2000);
}

static void generated_graphs(void **state) {
    (void)state;
    const char *const weights[] = {"int", "float"};
    for (int w = 0; w < 2; w++) {
        check("grid", small ? 300 : 10007, 1, weights[w], 0);
        check("grid", 1, 1, weights[w], 0);
        check("random", small ? 200 : 2000, 2, weights[w], 5); /* unreachable parts */
        check("random", small ? 200 : 3000, 250, weights[w], 0);
        check("rmat", small ? 256 : 16384, 1, weights[w], 0);
        check("rmat", small ? 300 : 20000, 1, weights[w], 77);
        check("complete", small ? 64 : 700, 1, weights[w], 1);
    }
}

static void edge_graphs(void **state) {
    (void)state;
    check_edge_graphs();
}

/* dijkstra-butterfly's cooperative grid path on graphs small enough for compute-sanitizer:
 * the knob sends every graph above one vertex to it. */
static void grid_path_on_small_graphs(void **state) {
    (void)state;
    setenv("PB_SSSP_BLOCK_MAX_VERTICES", "1", 1);
    check_edge_graphs();
    check("grid", small ? 200 : 1000, 1, "int", 0);
    check("rmat", small ? 256 : 1024, 1, "float", 3);
    check("random", small ? 128 : 300, 250, "int", 0);
    unsetenv("PB_SSSP_BLOCK_MAX_VERTICES");
}

/* Past one block's shared memory (65536 distances are 256 KiB): dijkstra-butterfly's
 * cooperative grid; and frontier alone past the step loops' 65536 vertices. */
static void larger_graphs(void **state) {
    (void)state;
    if (small) { /* 65536 grid-wide steps of dijkstra-butterfly: hours under a sanitizer */
        printf("larger_graphs: not run under PB_TEST_SMALL (grid_path_on_small_graphs checks "
               "the cooperative grid path)\n");
        return;
    }
    check("grid", 65536, 1, "int", 0);
    check("rmat", 65536, 1, "float", 12345);
    check("grid", 65000, 1, "float", 777);
    check("grid", 1 << 20, 1, "int", 0);
    check("rmat", 1 << 18, 1, "int", 3);
}

int main(void) {
    gpu_test_start();
    small = getenv("PB_TEST_SMALL") != NULL;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(edge_graphs),      cmocka_unit_test(rome99),
        cmocka_unit_test(generated_graphs), cmocka_unit_test(grid_path_on_small_graphs),
        cmocka_unit_test(larger_graphs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
