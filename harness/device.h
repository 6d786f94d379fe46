/* The GPU a run uses: what it is, and the copy-probe bandwidth bound. */
#ifndef PB_DEVICE_H
#define PB_DEVICE_H

#include <stdbool.h>
#include <stddef.h>

struct pb_device_info {
    bool available;
    char unavailable_reason[256]; /* why there is no GPU, when !available */
    int ordinal;
    char name[256];
    int cc_major, cc_minor;
    int sm_count;
    int l2_bytes;
    size_t global_mem_bytes;
    size_t shared_mem_per_block_optin;
    int sm_clock_khz, mem_clock_khz, mem_bus_bits;
    int driver_version, runtime_version;
    double
        copy_probe_gbytes_per_s; /* device-to-device copy, bytes read + written; 0 if not probed */
    double copy_probe_ms;
};

/* Opens device `ordinal` and reads its properties. Returns 0, or -1 with
 * available = false and the reason filled (no driver, no device). */
int pb_device_open(int ordinal, struct pb_device_info *info);
/* Times a device-to-device copy of up to 1 GiB (median of 10) and records the rate. */
int pb_device_probe_copy(struct pb_device_info *info);

#endif
