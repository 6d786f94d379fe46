/* The registry: every primitive and backend primbench knows, in one table each.
 * Adding a backend is one file and one line in registry.c. */
#ifndef PB_REGISTRY_H
#define PB_REGISTRY_H

#include "primbench.h"

int pb_registry_primitive_count(void);
const struct pb_primitive *pb_registry_primitive_at(int i);
const struct pb_primitive *pb_registry_find_primitive(const char *name);

int pb_registry_backend_count(void);
const struct pb_backend *pb_registry_backend_at(int i);
const struct pb_backend *pb_registry_find_backend(const char *name);

/* The most backends all loaded plugins may add. */
#define PB_MAX_PLUGIN_BACKENDS 256

/* Adds a plugin's backends after the built-in ones: all of them, or none when one is
 * unusable (no name, supports or run; an unknown primitive or target; a name not
 * "primitive/x" or already taken). Returns 0, or -1 with err naming the backend. */
int pb_registry_add_backends(const struct pb_backend *const *list, int count, char *err,
                             size_t err_len);
/* Forgets every plugin backend (before their libraries are closed). */
void pb_registry_drop_plugin_backends(void);

/* Index of a primitive's axis by name, or -1. */
int pb_primitive_axis_index(const struct pb_primitive *p, const char *axis);

#endif
