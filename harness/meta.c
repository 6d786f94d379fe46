/* Metadata: device, clocks, driver and runtime, copy-probe bound, git commit, config
 * and its hash, date, host. A result without its provenance is not a result. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "meta.h"
#include "pb_version.h"

/* The host CPU's model name, from /proc/cpuinfo where there is one. */
static void host_cpu(char *buf, size_t len) {
    snprintf(buf, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon) {
            snprintf(buf, len, "%s", colon + 2);
            buf[strcspn(buf, "\n")] = '\0';
            break;
        }
    }
    fclose(f);
}

static cJSON *device_json(const struct pb_device_info *dev) {
    cJSON *d = cJSON_CreateObject();
    cJSON_AddBoolToObject(d, "available", dev->available);
    if (!dev->available) {
        cJSON_AddStringToObject(d, "reason", dev->unavailable_reason);
        cJSON_AddNumberToObject(d, "runtime_version", dev->runtime_version);
        return d;
    }
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", dev->cc_major, dev->cc_minor);
    cJSON_AddNumberToObject(d, "ordinal", dev->ordinal);
    cJSON_AddStringToObject(d, "name", dev->name);
    cJSON_AddStringToObject(d, "compute_capability", cc);
    cJSON_AddNumberToObject(d, "sm_count", dev->sm_count);
    cJSON_AddNumberToObject(d, "l2_bytes", dev->l2_bytes);
    cJSON_AddNumberToObject(d, "global_mem_bytes", (double)dev->global_mem_bytes);
    cJSON_AddNumberToObject(d, "shared_mem_per_block_optin",
                            (double)dev->shared_mem_per_block_optin);
    cJSON_AddNumberToObject(d, "sm_clock_khz", dev->sm_clock_khz);
    cJSON_AddNumberToObject(d, "mem_clock_khz", dev->mem_clock_khz);
    cJSON_AddNumberToObject(d, "mem_bus_bits", dev->mem_bus_bits);
    cJSON_AddNumberToObject(d, "driver_version", dev->driver_version);
    cJSON_AddNumberToObject(d, "runtime_version", dev->runtime_version);
    cJSON_AddNumberToObject(d, "copy_probe_gbytes_per_s", dev->copy_probe_gbytes_per_s);
    cJSON_AddNumberToObject(d, "copy_probe_ms", dev->copy_probe_ms);
    return d;
}

static cJSON *build(const struct pb_config *cfg, const struct pb_device_info *devs, int ndevs,
                    int argc, char **argv) {
    cJSON *m = cJSON_CreateObject();
    char text[512];
    time_t now = time(NULL);
    struct tm utc;
    gmtime_r(&now, &utc);
    strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    cJSON_AddStringToObject(m, "tool", "primbench");
    cJSON_AddStringToObject(m, "git_commit", PB_GIT_COMMIT);
    cJSON_AddStringToObject(m, "date", text);
    if (gethostname(text, sizeof text) == 0) cJSON_AddStringToObject(m, "host", text);
    host_cpu(text, sizeof text);
    cJSON_AddStringToObject(m, "host_cpu", text);
    cJSON_AddNumberToObject(m, "host_cpus", (double)sysconf(_SC_NPROCESSORS_ONLN));
    cJSON *cmd = cJSON_AddArrayToObject(m, "command");
    for (int i = 0; i < argc; i++) cJSON_AddItemToArray(cmd, cJSON_CreateString(argv[i]));
    cJSON_AddItemToObject(m, "device", device_json(&devs[0]));
    if (ndevs > 1) {
        cJSON *all = cJSON_AddArrayToObject(m, "devices");
        for (int i = 0; i < ndevs; i++) cJSON_AddItemToArray(all, device_json(&devs[i]));
    }
    cJSON_AddStringToObject(m, "config_path", cfg->path);
    snprintf(text, sizeof text, "%016" PRIx64, cfg->hash);
    cJSON_AddStringToObject(m, "config_hash", text);
    cJSON *config = cJSON_Parse(cfg->text);
    if (config) cJSON_AddItemToObject(m, "config", config);
    cJSON *measure = cJSON_AddObjectToObject(m, "measurement");
    cJSON_AddNumberToObject(measure, "reps", cfg->reps);
    cJSON_AddNumberToObject(measure, "warmup", cfg->warmup);
    cJSON_AddStringToObject(measure, "cache", cfg->cold ? "cold" : "hot");
    cJSON_AddNumberToObject(measure, "cpu_budget_s", cfg->cpu_budget_s);
    if (cfg->nparts > 0) {
        /* A suite's settings above are its parts' defaults; what each part ran with: */
        cJSON *parts = cJSON_AddArrayToObject(measure, "parts");
        for (int i = 0; i < cfg->nparts; i++) {
            const struct pb_config *part = &cfg->parts[i];
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "primitive", part->primitive->name);
            cJSON_AddNumberToObject(e, "reps", part->reps);
            cJSON_AddNumberToObject(e, "warmup", part->warmup);
            cJSON_AddStringToObject(e, "cache", part->cold ? "cold" : "hot");
            cJSON_AddNumberToObject(e, "cpu_budget_s", part->cpu_budget_s);
            cJSON_AddItemToArray(parts, e);
        }
    }
    cJSON_AddStringToObject(
        measure, "gpu_timer",
        "CUDA events around run() only; batches enqueued behind a blocking kernel");
    cJSON_AddStringToObject(measure, "cpu_timer", "CLOCK_MONOTONIC");
    return m;
}

int pb_meta_write(const char *path, const struct pb_config *cfg, const struct pb_device_info *devs,
                  int ndevs, int argc, char **argv, char *err, size_t err_len) {
    cJSON *m = build(cfg, devs, ndevs, argc, argv);
    char *text = cJSON_Print(m);
    cJSON_Delete(m);
    if (!text) {
        snprintf(err, err_len, "%s: out of memory", path);
        return -1;
    }
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    int ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    if (f && fclose(f) != 0) ok = 0;
    free(text);
    if (!ok || rename(tmp, path) != 0) {
        snprintf(err, err_len, "%s: %s", path, strerror(errno));
        remove(tmp);
        return -1;
    }
    return 0;
}
