/* The registry: one line per primitive and per backend. */
#include <string.h>

#include "registry.h"

extern const struct pb_primitive pb_primitive_reduce;
extern const struct pb_primitive pb_primitive_multisplit;
extern const struct pb_primitive pb_primitive_sssp;
extern const struct pb_primitive pb_primitive_sort;
extern const struct pb_primitive pb_primitive_select;

extern const struct pb_backend pb_backend_reduce_butterfly;
extern const struct pb_backend pb_backend_reduce_cub;
extern const struct pb_backend pb_backend_reduce_cpu;
extern const struct pb_backend pb_backend_multisplit_bpw;
extern const struct pb_backend pb_backend_multisplit_large;
extern const struct pb_backend pb_backend_multisplit_auto;
extern const struct pb_backend pb_backend_multisplit_cub_sort;
extern const struct pb_backend pb_backend_multisplit_cpu;
extern const struct pb_backend pb_backend_sssp_dijkstra_butterfly;
extern const struct pb_backend pb_backend_sssp_dijkstra_cub;
extern const struct pb_backend pb_backend_sssp_frontier;
extern const struct pb_backend pb_backend_sssp_cpu_heap;
extern const struct pb_backend pb_backend_sssp_cpu_scan;
extern const struct pb_backend pb_backend_sort_odd_even;
extern const struct pb_backend pb_backend_sort_odd_even_merge;
extern const struct pb_backend pb_backend_sort_cub_segmented;
extern const struct pb_backend pb_backend_sort_cub_radix;
extern const struct pb_backend pb_backend_sort_cpu;
extern const struct pb_backend pb_backend_select_radix;
extern const struct pb_backend pb_backend_select_radix_multipass;
extern const struct pb_backend pb_backend_select_radix8;
extern const struct pb_backend pb_backend_select_radix_rowloop;
extern const struct pb_backend pb_backend_select_cub_sort;
extern const struct pb_backend pb_backend_select_cpu;

static const struct pb_primitive *const primitives[] = {
    &pb_primitive_reduce,
    &pb_primitive_multisplit,
    &pb_primitive_sssp,
    &pb_primitive_sort,
    &pb_primitive_select,
};

static const struct pb_backend *const backends[] = {
    &pb_backend_reduce_butterfly,
    &pb_backend_reduce_cub,
    &pb_backend_reduce_cpu,
    &pb_backend_multisplit_bpw,
    &pb_backend_multisplit_large,
    &pb_backend_multisplit_auto,
    &pb_backend_multisplit_cub_sort,
    &pb_backend_multisplit_cpu,
    &pb_backend_sssp_dijkstra_butterfly,
    &pb_backend_sssp_dijkstra_cub,
    &pb_backend_sssp_frontier,
    &pb_backend_sssp_cpu_heap,
    &pb_backend_sssp_cpu_scan,
    &pb_backend_sort_odd_even,
    &pb_backend_sort_odd_even_merge,
    &pb_backend_sort_cub_segmented,
    &pb_backend_sort_cub_radix,
    &pb_backend_sort_cpu,
    &pb_backend_select_radix,
    &pb_backend_select_radix_multipass,
    &pb_backend_select_radix8,
    &pb_backend_select_radix_rowloop,
    &pb_backend_select_cub_sort,
    &pb_backend_select_cpu,
};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

int pb_registry_primitive_count(void) { return COUNT(primitives); }
const struct pb_primitive *pb_registry_primitive_at(int i) { return primitives[i]; }

const struct pb_primitive *pb_registry_find_primitive(const char *name) {
    for (int i = 0; i < COUNT(primitives); i++)
        if (strcmp(primitives[i]->name, name) == 0) return primitives[i];
    return NULL;
}

int pb_registry_backend_count(void) { return COUNT(backends); }
const struct pb_backend *pb_registry_backend_at(int i) { return backends[i]; }

const struct pb_backend *pb_registry_find_backend(const char *name) {
    for (int i = 0; i < COUNT(backends); i++)
        if (strcmp(backends[i]->name, name) == 0) return backends[i];
    return NULL;
}

int pb_primitive_axis_index(const struct pb_primitive *p, const char *axis) {
    for (int i = 0; i < p->naxes; i++)
        if (strcmp(p->axes[i].name, axis) == 0) return i;
    return -1;
}
