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

/* Index of a primitive's axis by name, or -1. */
int pb_primitive_axis_index(const struct pb_primitive *p, const char *axis);

#endif
