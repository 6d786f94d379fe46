/* Device discovery and the copy probe. Properties are read off the device; nothing is
 * hard-coded (CUDA 13 removed some cudaDeviceProp fields: attributes instead). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "device.h"
#include "stats.h"

static int unavailable(struct pb_device_info *info, const char *what, cudaError_t err) {
    info->available = false;
    snprintf(info->unavailable_reason, sizeof info->unavailable_reason, "no CUDA device: %s%s%s",
             what, err != cudaSuccess ? ": " : "",
             err != cudaSuccess ? cudaGetErrorString(err) : "");
    return -1;
}

static int attribute(enum cudaDeviceAttr attr, int ordinal) {
    int value = 0;
    if (cudaDeviceGetAttribute(&value, attr, ordinal) != cudaSuccess) return 0;
    return value;
}

int pb_device_open(int ordinal, struct pb_device_info *info) {
    memset(info, 0, sizeof *info);
    info->ordinal = ordinal;
    cudaRuntimeGetVersion(&info->runtime_version);
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) return unavailable(info, "cudaGetDeviceCount", err);
    if (ordinal >= count) return unavailable(info, "no device with that ordinal", cudaSuccess);
    if ((err = cudaSetDevice(ordinal)) != cudaSuccess)
        return unavailable(info, "cudaSetDevice", err);
    cudaDriverGetVersion(&info->driver_version);
    struct cudaDeviceProp prop;
    if ((err = cudaGetDeviceProperties(&prop, ordinal)) != cudaSuccess)
        return unavailable(info, "cudaGetDeviceProperties", err);
    info->available = true;
    snprintf(info->name, sizeof info->name, "%s", prop.name);
    info->cc_major = prop.major;
    info->cc_minor = prop.minor;
    info->sm_count = prop.multiProcessorCount;
    info->l2_bytes = prop.l2CacheSize;
    info->global_mem_bytes = prop.totalGlobalMem;
    info->shared_mem_per_block_optin = prop.sharedMemPerBlockOptin;
    info->sm_clock_khz = attribute(cudaDevAttrClockRate, ordinal);
    info->mem_clock_khz = attribute(cudaDevAttrMemoryClockRate, ordinal);
    info->mem_bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, ordinal);
    return 0;
}

int pb_device_probe_copy(struct pb_device_info *info) {
    if (!info->available) return -1;
    /* 1 GiB each way is far past the L2, so the copy runs at memory speed; smaller
     * when the device has little free memory. */
    size_t free_bytes = 0, total = 0;
    cudaMemGetInfo(&free_bytes, &total);
    size_t bytes = (size_t)1 << 30;
    while (bytes > ((size_t)1 << 24) && 2 * bytes > free_bytes / 2) bytes /= 2;
    void *src = NULL, *dst = NULL;
    cudaEvent_t start = NULL, stop = NULL;
    double samples[10];
    int done = 0;
    if (cudaMalloc(&src, bytes) != cudaSuccess || cudaMalloc(&dst, bytes) != cudaSuccess) goto out;
    cudaMemset(src, 0x5A, bytes);
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice); /* warm-up */
    for (; done < 10; done++) {
        float ms = 0;
        cudaEventRecord(start, 0);
        cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0);
        cudaEventRecord(stop, 0);
        if (cudaEventSynchronize(stop) != cudaSuccess) break;
        cudaEventElapsedTime(&ms, start, stop);
        samples[done] = ms;
    }
out:
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    cudaFree(src);
    cudaFree(dst);
    if (done < 10) {
        cudaGetLastError();
        return -1;
    }
    struct pb_summary s;
    pb_summarize(samples, done, &s);
    info->copy_probe_ms = s.median;
    info->copy_probe_gbytes_per_s = 2.0 * (double)bytes / (s.median * 1e-3) / 1e9;
    return 0;
}
