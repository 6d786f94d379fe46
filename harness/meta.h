/* Provenance: the .meta.json written beside every CSV. */
#ifndef PB_META_H
#define PB_META_H

#include <stdbool.h>

#include "config.h"
#include "device.h"
#include "results.h"
#include "shard.h"

/* Writes path atomically (a temporary file renamed into place): `device` is devs[0], and
 * with more than one, `devices` lists them all. Returns 0 or -1 with err. */
int pb_meta_write(const char *path, const struct pb_config *cfg, const struct pb_device_info *devs,
                  int ndevs, int argc, char **argv, char *err, size_t err_len);

/* How a run ran, the metadata's "run" object. */
struct pb_meta_run {
    bool profile;
    double time_limit_s;
    enum pb_format format;
    const struct pb_shard *shard; /* written as {index, count, source} when count > 0 */
    const int *devices;           /* the GPU ordinals of --devices */
    int ndevices;
};

#endif
