/* Provenance: the .meta.json written beside every CSV. */
#ifndef PB_META_H
#define PB_META_H

#include "config.h"
#include "device.h"

/* Writes path atomically (a temporary file renamed into place). Returns 0 or -1 with err. */
int pb_meta_write(const char *path, const struct pb_config *cfg, const struct pb_device_info *dev,
                  int argc, char **argv, char *err, size_t err_len);

#endif
