/* bench info: the devices and the copy-probe bound. */
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "commands.h"
#include "device.h"

static const char usage[] =
    "usage: bench info [--no-probe]\n"
    "\n"
    "Describes every CUDA device and times a device-to-device copy on each: the\n"
    "bandwidth bound GPU results are reported against.\n"
    "\n"
    "  --no-probe  skip the copy probe\n";

int pb_cmd_info(int argc, char **argv) {
    if (pb_wants_help(argc, argv, usage)) return 0;
    bool probe = true;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--no-probe") == 0)
            probe = false;
        else
            return pb_usage_error(usage, "unknown option '%s'", argv[i]);
    }
    int count = 0;
    struct pb_device_info dev;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        pb_device_open(0, &dev);
        printf("%s\n", dev.unavailable_reason);
        return 0;
    }
    for (int d = 0; d < count; d++) {
        if (pb_device_open(d, &dev) != 0) {
            printf("device %d: %s\n", d, dev.unavailable_reason);
            continue;
        }
        printf("device %d: %s, compute capability %d.%d, %d SMs, %.1f GiB, L2 %.1f MiB, "
               "%zu KiB shared memory per block (opt-in)\n",
               d, dev.name, dev.cc_major, dev.cc_minor, dev.sm_count,
               dev.global_mem_bytes / 1073741824.0, dev.l2_bytes / 1048576.0,
               dev.shared_mem_per_block_optin / 1024);
        printf("  clocks: SM %d MHz, memory %d MHz, %d-bit bus; driver %d, runtime %d\n",
               dev.sm_clock_khz / 1000, dev.mem_clock_khz / 1000, dev.mem_bus_bits,
               dev.driver_version, dev.runtime_version);
        if (probe && pb_device_probe_copy(&dev) == 0)
            printf("  copy probe: %.1f GB/s (bytes read + written, median of 10, %.3f ms)\n",
                   dev.copy_probe_gbytes_per_s, dev.copy_probe_ms);
    }
    return 0;
}
