/* Every GPU sssp backend against the CPU Dijkstra: hand-made edge graphs (a single
 * vertex, a source without out-arcs, disconnected parts, zero weights, parallel arcs,
 * self-loops, ties), rome99, and small instances of every generator, integer and float
 * weights. Sizes cross dijkstra-butterfly's switch from one block to a cluster; knobs force
 * its cluster sizes and its cooperative grid. */
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

/* Runs the checks with dijkstra-butterfly's knobs set (a cluster size, the row offsets
 * left in global memory). */
struct butterfly_knobs {
    const char *cluster, *rows_global;
};

static void set_knobs(struct butterfly_knobs k) {
    setenv("PB_SSSP_CLUSTER", k.cluster, 1);
    setenv("PB_SSSP_ROWS_GLOBAL", k.rows_global, 1);
}

/* The knobs concern dijkstra-butterfly alone, so the checks under them run only it
 * (PB_TEST_BACKEND narrowed until unset_knobs); false when PB_TEST_BACKEND leaves it out. */
static bool narrowed;
static char saved_filter[256];
static bool only_butterfly(void) {
    const struct pb_backend *b = pb_registry_find_backend("sssp/dijkstra-butterfly");
    if (!b || !backend_under_test(b, "sssp", PB_TARGET_GPU)) return false;
    const char *filter = getenv("PB_TEST_BACKEND");
    snprintf(saved_filter, sizeof saved_filter, "%s", filter ? filter : "");
    setenv("PB_TEST_BACKEND", b->name, 1);
    narrowed = true;
    return true;
}

/* Also the teardown of the tests that set them, so that a failure leaves none set. */
static void unset_knobs(void) {
    unsetenv("PB_SSSP_CLUSTER");
    unsetenv("PB_SSSP_ROWS_GLOBAL");
    unsetenv("PB_SSSP_NO_PREFETCH");
    unsetenv("PB_SSSP_ONE_PER_STEP");
    unsetenv("PB_SSSP_WIDE_ARCS");
    if (narrowed && saved_filter[0])
        setenv("PB_TEST_BACKEND", saved_filter, 1);
    else if (narrowed)
        unsetenv("PB_TEST_BACKEND");
    narrowed = false;
}

/* Whether a cluster of that many blocks can hold n distances and be resident here. */
static bool cluster_fits(const char *cluster, uint32_t n) {
    struct pb_sssp_butterfly_knobs knobs = {.cluster = (uint32_t)atoi(cluster)};
    struct pb_sssp_butterfly_plan plan;
    if (pb_sssp_butterfly_plan(n, 0, false, &knobs, &plan) == 0) return true;
    printf("a cluster of %s blocks for %u vertices: not resident on this GPU, not checked\n",
           cluster, n);
    return false;
}

static int knobs_teardown(void **state) {
    (void)state;
    unset_knobs();
    return 0;
}

/* dijkstra-butterfly's cluster kernel at every cluster size this GPU can make resident:
 * blocks with no vertex (edge graphs), blocks of several 1024-vertex chunks, relaxations
 * into other blocks' shared memory, with and without the row offsets in shared memory. Small enough
 * for compute-sanitizer. */
static void cluster_sizes_on_small_graphs(void **state) {
    (void)state;
    static const struct {
        struct butterfly_knobs knobs;
        bool in_small; /* under a sanitizer (racecheck took over 440 s with three sizes): 4
                        * and 16, each knob in both states */
    } runs[] = {
        {{"1", "0"}, false}, {{"1", "1"}, false}, {{"2", "0"}, false},  {{"4", "1"}, true},
        {{"8", "1"}, false}, {{"16", "0"}, true}, {{"16", "1"}, false},
    };
    if (!only_butterfly()) return;
    for (size_t i = 0; i < COUNT(runs); i++) {
        if ((small && !runs[i].in_small) || !cluster_fits(runs[i].knobs.cluster, 5000)) continue;
        set_knobs(runs[i].knobs);
        check_edge_graphs();
        check("grid", small ? 2100 : 5000, 1, "int", 0); /* 3 or 5 chunks */
        if (!small) {
            check("rmat", 4096, 1, "float", 3);
            check("random", 3000, 250, "int", 0);
            check("complete", 1500, 1, "float", 1);
        }
    }
    unset_knobs();
}

/* dijkstra-butterfly's one-block kernel on graphs with hundreds of vertices tied at each
 * distance (dense random, complete), where a step settles every vertex tied with u:
 * every such step wide (relaxed by the whole grid); on one block, with the row offsets
 * in global memory; then the seed's step, u alone, with and without the L2 prefetch of
 * tied vertices' arcs; the edge graphs (zero weights, ties between paths) in the first
 * three; then at full size (16384 vertices at 25%, 12000 at 50%) as planned, on one
 * block, and one vertex a step. */
#define NEVER_WIDE "4294967295"
static void block_kernel_on_tied_graphs(void **state) {
    (void)state;
    static const struct {
        const char *one_per_step, *no_prefetch, *rows_global, *wide_arcs;
    } runs[] = {{"0", "0", "0", "1"},
                {"0", "0", "1", NEVER_WIDE},
                {"1", "0", "0", NEVER_WIDE},
                {"1", "1", "0", NEVER_WIDE}};
    /* the plan: wide steps where a step's list can hold 32768 arcs (16384 vertices of up
     * to 4096 arcs), unless a knob rules them out; never on a grid (4 arcs a vertex) */
    struct pb_sssp_butterfly_knobs knobs = {0};
    struct pb_sssp_butterfly_plan plan;
    assert_int_equal(pb_sssp_butterfly_plan(16384, 4096, false, &knobs, &plan), 0);
    assert_true(plan.single_block && plan.wide_grid > 1 && plan.wide_arcs == 32768);
    assert_int_equal(pb_sssp_butterfly_plan(16384, 4, false, &knobs, &plan), 0);
    assert_true(plan.single_block && plan.wide_grid == 0);
    knobs.wide_arcs = UINT32_MAX;
    assert_int_equal(pb_sssp_butterfly_plan(16384, 4096, false, &knobs, &plan), 0);
    assert_true(plan.single_block && plan.wide_grid == 0);
    knobs = (struct pb_sssp_butterfly_knobs){.one_per_step = true};
    assert_int_equal(pb_sssp_butterfly_plan(16384, 4096, false, &knobs, &plan), 0);
    assert_true(plan.single_block && plan.wide_grid == 0);
    if (!only_butterfly()) return;
    for (size_t i = 0; i < COUNT(runs); i++) {
        setenv("PB_SSSP_ONE_PER_STEP", runs[i].one_per_step, 1);
        setenv("PB_SSSP_NO_PREFETCH", runs[i].no_prefetch, 1);
        setenv("PB_SSSP_ROWS_GLOBAL", runs[i].rows_global, 1);
        setenv("PB_SSSP_WIDE_ARCS", runs[i].wide_arcs, 1);
        check("random", small ? 150 : 3000, 250, "int", 0);
        check("random", small ? 150 : 3000, 250, "float", 7);
        check("complete", small ? 64 : 1000, 1, "int", 2);
        check("grid", small ? 256 : 4096, 1, "int", 5);
        if (i < 3) check_edge_graphs();
    }
    unset_knobs();
    if (small) return;
    only_butterfly();
    for (int pass = 0; pass < 3; pass++) {
        if (pass == 1) setenv("PB_SSSP_WIDE_ARCS", NEVER_WIDE, 1);
        if (pass == 2) setenv("PB_SSSP_ONE_PER_STEP", "1", 1);
        check("random", 16384, 250, "int", 0);
        if (pass == 2) break;
        check("random", 12000, 500, "int", 3);
        check("random", 16384, 10, "float", 9);
    }
    unset_knobs();
}

/* Past one block's shared memory (65536 distances are 256 KiB): dijkstra-butterfly's
 * clusters; and frontier alone past the step loops' 65536 vertices. */
static void larger_graphs(void **state) {
    (void)state;
    if (small) { /* 65536 steps of dijkstra-butterfly: hours under a sanitizer */
        printf("larger_graphs: not run under PB_TEST_SMALL (cluster_sizes_on_small_graphs and "
               "grid_path_on_small_graphs check the same kernels)\n");
        return;
    }
    check("grid", 65536, 1, "int", 0);
    check("rmat", 65536, 1, "float", 12345);
    check("grid", 65000, 1, "float", 777);
    check("grid", 1 << 20, 1, "int", 0);
    check("rmat", 1 << 18, 1, "int", 3);
    /* dijkstra-butterfly: 65536 vertices in 2 blocks (row offsets in global memory), 16 */
    static const struct butterfly_knobs big[] = {{"2", "0"}, {"16", "0"}};
    if (!only_butterfly()) return;
    for (size_t i = 0; i < COUNT(big); i++) {
        if (!cluster_fits(big[i].cluster, 65536)) continue;
        set_knobs(big[i]);
        check("rmat", 65536, 1, "int", 5);
    }
    unset_knobs();
}

int main(void) {
    gpu_test_start();
    small = getenv("PB_TEST_SMALL") != NULL;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(edge_graphs),
        cmocka_unit_test(rome99),
        cmocka_unit_test(generated_graphs),
        cmocka_unit_test(grid_path_on_small_graphs),
        cmocka_unit_test_teardown(block_kernel_on_tied_graphs, knobs_teardown),
        cmocka_unit_test_teardown(cluster_sizes_on_small_graphs, knobs_teardown),
        cmocka_unit_test_teardown(larger_graphs, knobs_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
