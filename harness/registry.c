/* The registry: one line per primitive and per backend, and the backends plugins add
 * at run time (plugin.c) after the built-in ones. */
#include <stdio.h>
#include <string.h>

#include "registry.h"

extern const struct pb_primitive pb_primitive_reduce;
extern const struct pb_primitive pb_primitive_multisplit;
extern const struct pb_primitive pb_primitive_sssp;
extern const struct pb_primitive pb_primitive_sort;
extern const struct pb_primitive pb_primitive_select;
extern const struct pb_primitive pb_primitive_merge;

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
extern const struct pb_backend pb_backend_merge_path;
extern const struct pb_backend pb_backend_merge_bitonic_splitters;
extern const struct pb_backend pb_backend_merge_cub_sort;
extern const struct pb_backend pb_backend_merge_cub_merge_tree;
extern const struct pb_backend pb_backend_merge_cpu_heap;
extern const struct pb_backend pb_backend_merge_cpu_2way;

static const struct pb_primitive *const primitives[] = {
    &pb_primitive_reduce, &pb_primitive_multisplit, &pb_primitive_sssp,
    &pb_primitive_sort,   &pb_primitive_select,     &pb_primitive_merge,
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
    &pb_backend_merge_path,
    &pb_backend_merge_bitonic_splitters,
    &pb_backend_merge_cub_sort,
    &pb_backend_merge_cub_merge_tree,
    &pb_backend_merge_cpu_heap,
    &pb_backend_merge_cpu_2way,
};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

int pb_registry_primitive_count(void) { return COUNT(primitives); }
const struct pb_primitive *pb_registry_primitive_at(int i) { return primitives[i]; }

const struct pb_primitive *pb_registry_find_primitive(const char *name) {
    for (int i = 0; i < COUNT(primitives); i++)
        if (strcmp(primitives[i]->name, name) == 0) return primitives[i];
    return NULL;
}

/* Backends of loaded plugins, in load order: the registry's only mutable part, written
 * by the main thread before any command uses the registry. */
static const struct pb_backend *plugin_backends[PB_MAX_PLUGIN_BACKENDS];
static int plugin_backend_count;

int pb_registry_backend_count(void) { return COUNT(backends) + plugin_backend_count; }

const struct pb_backend *pb_registry_backend_at(int i) {
    return i < COUNT(backends) ? backends[i] : plugin_backends[i - COUNT(backends)];
}

const struct pb_backend *pb_registry_find_backend(const char *name) {
    for (int i = 0; i < pb_registry_backend_count(); i++)
        if (strcmp(pb_registry_backend_at(i)->name, name) == 0) return pb_registry_backend_at(i);
    return NULL;
}

/* What makes a backend unusable: the first problem, or NULL. */
static const char *backend_problem(const struct pb_backend *b, char *why, size_t why_len) {
    if (!b || !b->name || !b->primitive || !b->summary)
        return "a backend without a name, primitive or summary";
    if (!b->supports || !b->run) {
        snprintf(why, why_len, "backend '%s' has no supports or run function", b->name);
        return why;
    }
    if (b->target != PB_TARGET_CPU && b->target != PB_TARGET_GPU) {
        snprintf(why, why_len, "backend '%s' has an unknown target %d", b->name, (int)b->target);
        return why;
    }
    if (!pb_registry_find_primitive(b->primitive)) {
        snprintf(why, why_len, "backend '%s' names an unknown primitive '%s'", b->name,
                 b->primitive);
        return why;
    }
    size_t plen = strlen(b->primitive);
    if (strncmp(b->name, b->primitive, plen) != 0 || b->name[plen] != '/' || !b->name[plen + 1] ||
        strchr(b->name + plen + 1, '/')) {
        snprintf(why, why_len, "backend name '%s' is not of the form '%s/NAME'", b->name,
                 b->primitive);
        return why;
    }
    if (pb_registry_find_backend(b->name)) {
        snprintf(why, why_len, "backend '%s' is already registered", b->name);
        return why;
    }
    return NULL;
}

int pb_registry_add_backends(const struct pb_backend *const *list, int count, char *err,
                             size_t err_len) {
    if (count < 0 || (count > 0 && !list)) {
        snprintf(err, err_len, "an invalid backend list (count %d)", count);
        return -1;
    }
    if (count > PB_MAX_PLUGIN_BACKENDS - plugin_backend_count) {
        snprintf(err, err_len, "%d backends, more than the %d plugins may add in all", count,
                 PB_MAX_PLUGIN_BACKENDS);
        return -1;
    }
    /* All or none: each one is checked against the registry and the ones before it. */
    int first = plugin_backend_count;
    for (int i = 0; i < count; i++) {
        char why[PB_REASON_LEN];
        const char *problem = backend_problem(list[i], why, sizeof why);
        if (problem) {
            snprintf(err, err_len, "backends[%d]: %s", i, problem);
            plugin_backend_count = first;
            return -1;
        }
        plugin_backends[plugin_backend_count++] = list[i];
    }
    return 0;
}

void pb_registry_drop_plugin_backends(void) { plugin_backend_count = 0; }

int pb_primitive_axis_index(const struct pb_primitive *p, const char *axis) {
    for (int i = 0; i < p->naxes; i++)
        if (strcmp(p->axes[i].name, axis) == 0) return i;
    return -1;
}
