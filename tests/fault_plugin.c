/* A primbench plugin of deliberately faulty reduce backends, for the fault drills
 * (tests/gpu/test_faults_gpu.c, README "Fault drills"). Load it with
 * `bench run --plugin build/tests/libpb_fault_plugin.so`.
 *
 *   reduce/fault-illegal-address  a store through a null device pointer: a sticky error
 *   reduce/fault-launch           a launch of 4096 threads a block: a non-sticky error
 *   reduce/fault-hang             a kernel that spins for FAULT_SPIN_S, then traps
 *   reduce/fault-wrong            the sum of u32 keys plus 1 (u32 sums only)
 *   reduce/fault-oom              asks for twice the device's memory in prepare
 *
 * The kernels run through the CUDA driver API (libcuda, opened with dlopen in prepare)
 * in the context the harness's runtime made current, and the module is loaded in every
 * prepare: after a fault the harness resets the device, which would leave a module (or
 * a second CUDA runtime linked into this library) pointing at a context that is gone.
 * Nothing is loaded before prepare, so the plugin loads, and lists, without a GPU. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#include "primbench.h"
#include "reduce.h"

/* The fatbinary of fault_kernels.cu (sm_90 code and PTX), made by the build. */
extern const unsigned char fault_kernels_fatbin[];
extern const size_t fault_kernels_fatbin_size;

/* How long fault-hang's kernel spins before it gives up: far over the drill's time
 * limit, short enough that a GPU the process's end did not free is free again soon. */
#define FAULT_SPIN_S 60ull

/* The driver API functions the backends use, looked up in libcuda per run. */
struct driver {
    void *lib;
    CUresult (*ctx_get_current)(CUcontext *);
    CUresult (*module_load_data)(CUmodule *, const void *);
    CUresult (*module_unload)(CUmodule);
    CUresult (*module_get_function)(CUfunction *, CUmodule, const char *);
    CUresult (*launch_kernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, unsigned, CUstream, void **, void **);
    CUresult (*mem_alloc)(CUdeviceptr *, size_t);
    CUresult (*mem_free)(CUdeviceptr);
    CUresult (*mem_get_info)(size_t *, size_t *);
    CUresult (*memset_d8_async)(CUdeviceptr, unsigned char, size_t, CUstream);
    CUresult (*memcpy_dtoh)(void *, CUdeviceptr, size_t);
    CUresult (*stream_synchronize)(CUstream);
    CUresult (*get_error_string)(CUresult, const char **);
};

struct fault_state {
    struct driver cu;
    CUmodule module;
    CUfunction kernel;
    CUdeviceptr result; /* fault-wrong's 64-bit sum */
};

/* Looks a symbol up into a function pointer of any type (POSIX allows the conversion). */
static int lookup(void *lib, const char *name, void *fn_ptr, size_t fn_size) {
    void *sym = dlsym(lib, name);
    if (!sym) return -1;
    memcpy(fn_ptr, &sym, fn_size);
    return 0;
}

#define LOOKUP(lib, name, field) lookup(lib, name, &(field), sizeof(field))

static int open_driver(struct driver *cu, char *err, size_t err_len) {
    memset(cu, 0, sizeof *cu);
    cu->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!cu->lib) {
        snprintf(err, err_len, "fault plugin: cannot load libcuda.so.1: %s", dlerror());
        return -1;
    }
    /* The _v2 names are the ones cuda.h's macros select for these calls. */
    if (LOOKUP(cu->lib, "cuCtxGetCurrent", cu->ctx_get_current) ||
        LOOKUP(cu->lib, "cuModuleLoadData", cu->module_load_data) ||
        LOOKUP(cu->lib, "cuModuleUnload", cu->module_unload) ||
        LOOKUP(cu->lib, "cuModuleGetFunction", cu->module_get_function) ||
        LOOKUP(cu->lib, "cuLaunchKernel", cu->launch_kernel) ||
        LOOKUP(cu->lib, "cuMemAlloc_v2", cu->mem_alloc) ||
        LOOKUP(cu->lib, "cuMemFree_v2", cu->mem_free) ||
        LOOKUP(cu->lib, "cuMemGetInfo_v2", cu->mem_get_info) ||
        LOOKUP(cu->lib, "cuMemsetD8Async", cu->memset_d8_async) ||
        LOOKUP(cu->lib, "cuMemcpyDtoH_v2", cu->memcpy_dtoh) ||
        LOOKUP(cu->lib, "cuStreamSynchronize", cu->stream_synchronize) ||
        LOOKUP(cu->lib, "cuGetErrorString", cu->get_error_string)) {
        snprintf(err, err_len, "fault plugin: libcuda.so.1 lacks a driver API function");
        dlclose(cu->lib);
        cu->lib = NULL;
        return -1;
    }
    return 0;
}

/* 0 on success; otherwise r->err gets "what: the driver's message" and -1. */
static int cu_check(struct pb_run *r, const struct driver *cu, CUresult e, const char *what) {
    if (e == CUDA_SUCCESS) return 0;
    const char *msg = NULL;
    if (cu->get_error_string(e, &msg) != CUDA_SUCCESS || !msg) msg = "unknown CUDA error";
    snprintf(r->err, sizeof r->err, "%s: %s", what, msg);
    return -1;
}

/* The choice of a named axis of the case (the plugin needs nothing of the harness). */
static const char *axis_choice(const struct pb_case *c, const char *name) {
    for (int i = 0; i < c->naxes; i++)
        if (strcmp(c->axes[i].name, name) == 0 && c->axes[i].kind == PB_AXIS_CHOICE)
            return c->axes[i].choices[c->value[i]];
    return "";
}

static bool any_case(const struct pb_case *c, char *why, size_t why_len) {
    (void)c;
    (void)why;
    (void)why_len;
    return true;
}

/* Opens the driver and loads the kernels into the current context; kernel may be NULL. */
static int prepare_kernel(struct pb_run *r, const char *kernel) {
    struct fault_state *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(r->err, sizeof r->err, "fault plugin: out of host memory");
        return -1;
    }
    r->state = s;
    if (open_driver(&s->cu, r->err, sizeof r->err) != 0) return -1;
    CUcontext ctx = NULL;
    if (cu_check(r, &s->cu, s->cu.ctx_get_current(&ctx), "cuCtxGetCurrent")) return -1;
    if (!ctx) {
        snprintf(r->err, sizeof r->err, "fault plugin: no current CUDA context");
        return -1;
    }
    if (cu_check(r, &s->cu, s->cu.module_load_data(&s->module, fault_kernels_fatbin),
                 "cuModuleLoadData"))
        return -1;
    if (kernel &&
        cu_check(r, &s->cu, s->cu.module_get_function(&s->kernel, s->module, kernel), kernel))
        return -1;
    return 0;
}

static void fault_release(struct pb_run *r) {
    struct fault_state *s = r->state;
    if (!s) return;
    /* After a sticky fault these fail: the harness resets the device next. */
    if (s->result) s->cu.mem_free(s->result);
    if (s->module) s->cu.module_unload(s->module);
    if (s->cu.lib) dlclose(s->cu.lib);
    free(s);
    r->state = NULL;
}

/* Each drill's run enqueues its kernel; none of them has an output worth collecting,
 * except fault-wrong's. The harness's verifier then reads r->out as collect left it. */
static int no_collect(struct pb_run *r) {
    (void)r;
    return 0;
}

/* ---- fault-illegal-address --------------------------------------------------- */

static int illegal_prepare(struct pb_run *r) { return prepare_kernel(r, "fault_wild_store"); }

static int illegal_run(struct pb_run *r) {
    struct fault_state *s = r->state;
    unsigned long long address = 0; /* no allocation is ever at 0 */
    int value = 1;
    void *args[] = {&address, &value};
    return cu_check(
        r, &s->cu,
        s->cu.launch_kernel(s->kernel, 1, 1, 1, 32, 1, 1, 0, (CUstream)r->stream, args, NULL),
        "launch of fault_wild_store");
}

static const struct pb_backend fault_illegal_address = {
    .primitive = "reduce",
    .name = "reduce/fault-illegal-address",
    .summary = "fault drill: a store through a null device pointer (sticky: the context dies)",
    .target = PB_TARGET_GPU,
    .supports = any_case,
    .prepare = illegal_prepare,
    .run = illegal_run,
    .collect = no_collect,
    .release = fault_release,
};

/* ---- fault-launch -------------------------------------------------------------- */

static int launch_prepare(struct pb_run *r) { return prepare_kernel(r, "fault_sum_plus_one"); }

static int launch_run(struct pb_run *r) {
    struct fault_state *s = r->state;
    /* 4096 threads a block is over every GPU's limit (1024): the launch itself fails,
     * and the context stays usable. The arguments are never read. */
    unsigned long long n = 0, address = 0;
    CUdeviceptr keys = 0;
    void *args[] = {&keys, &n, &address};
    return cu_check(
        r, &s->cu,
        s->cu.launch_kernel(s->kernel, 1, 1, 1, 4096, 1, 1, 0, (CUstream)r->stream, args, NULL),
        "launch with 4096 threads a block");
}

static const struct pb_backend fault_launch = {
    .primitive = "reduce",
    .name = "reduce/fault-launch",
    .summary = "fault drill: a launch of 4096 threads a block (an error; the context survives)",
    .target = PB_TARGET_GPU,
    .supports = any_case,
    .prepare = launch_prepare,
    .run = launch_run,
    .collect = no_collect,
    .release = fault_release,
};

/* ---- fault-hang ---------------------------------------------------------------- */

static int hang_prepare(struct pb_run *r) { return prepare_kernel(r, "fault_spin"); }

static int hang_run(struct pb_run *r) {
    struct fault_state *s = r->state;
    unsigned long long bound_ns = FAULT_SPIN_S * 1000000000ull;
    void *args[] = {&bound_ns};
    return cu_check(
        r, &s->cu,
        s->cu.launch_kernel(s->kernel, 1, 1, 1, 1, 1, 1, 0, (CUstream)r->stream, args, NULL),
        "launch of fault_spin");
}

static const struct pb_backend fault_hang = {
    .primitive = "reduce",
    .name = "reduce/fault-hang",
    .summary = "fault drill: a kernel that spins for 60 s (run it with --time-limit under 60)",
    .target = PB_TARGET_GPU,
    .supports = any_case,
    .prepare = hang_prepare,
    .run = hang_run,
    .collect = no_collect,
    .release = fault_release,
};

/* ---- fault-wrong --------------------------------------------------------------- */

static bool wrong_supports(const struct pb_case *c, char *why, size_t why_len) {
    if (strcmp(axis_choice(c, "dtype"), "u32") == 0 && strcmp(axis_choice(c, "op"), "sum") == 0)
        return true;
    snprintf(why, why_len, "fault-wrong drills u32 sums only");
    return false;
}

static int wrong_prepare(struct pb_run *r) {
    if (prepare_kernel(r, "fault_sum_plus_one") != 0) return -1;
    struct fault_state *s = r->state;
    return cu_check(r, &s->cu, s->cu.mem_alloc(&s->result, sizeof(unsigned long long)),
                    "cuMemAlloc result");
}

static int wrong_run(struct pb_run *r) {
    struct fault_state *s = r->state;
    CUstream stream = (CUstream)r->stream;
    CUdeviceptr keys = (CUdeviceptr)(uintptr_t)r->in->device;
    unsigned long long n = r->in->n;
    if (cu_check(r, &s->cu, s->cu.memset_d8_async(s->result, 0, 8, stream), "clear result"))
        return -1;
    void *args[] = {&keys, &n, &s->result};
    return cu_check(r, &s->cu,
                    s->cu.launch_kernel(s->kernel, 64, 1, 1, 256, 1, 1, 0, stream, args, NULL),
                    "launch of fault_sum_plus_one");
}

static int wrong_collect(struct pb_run *r) {
    struct fault_state *s = r->state;
    unsigned long long sum = 0;
    if (cu_check(r, &s->cu, s->cu.stream_synchronize((CUstream)r->stream), "synchronize") ||
        cu_check(r, &s->cu, s->cu.memcpy_dtoh(&sum, s->result, sizeof sum), "copy result"))
        return -1;
    struct pb_reduce_result *out = r->out;
    memset(out, 0, sizeof *out);
    out->as_int = (int64_t)sum;
    return 0;
}

static const struct pb_backend fault_wrong = {
    .primitive = "reduce",
    .name = "reduce/fault-wrong",
    .summary = "fault drill: the sum of u32 keys plus 1 (a wrong answer)",
    .target = PB_TARGET_GPU,
    .supports = wrong_supports,
    .prepare = wrong_prepare,
    .run = wrong_run,
    .collect = wrong_collect,
    .release = fault_release,
};

/* ---- fault-oom ----------------------------------------------------------------- */

static int oom_prepare(struct pb_run *r) {
    if (prepare_kernel(r, NULL) != 0) return -1;
    struct fault_state *s = r->state;
    size_t free_bytes = 0, total = 0;
    if (cu_check(r, &s->cu, s->cu.mem_get_info(&free_bytes, &total), "cuMemGetInfo")) return -1;
    size_t ask = 2 * total;
    char what[128];
    snprintf(what, sizeof what, "cuMemAlloc of %.1f GiB (twice the device's memory)",
             ask / 1073741824.0);
    CUdeviceptr never = 0;
    CUresult e = s->cu.mem_alloc(&never, ask);
    if (e == CUDA_SUCCESS) { /* cannot happen; keep the drill honest if it does */
        s->cu.mem_free(never);
        snprintf(r->err, sizeof r->err, "%s succeeded", what);
        return -1;
    }
    return cu_check(r, &s->cu, e, what);
}

static int oom_run(struct pb_run *r) {
    snprintf(r->err, sizeof r->err, "fault-oom: run after a failed prepare");
    return -1;
}

static const struct pb_backend fault_oom = {
    .primitive = "reduce",
    .name = "reduce/fault-oom",
    .summary = "fault drill: asks for twice the device's memory in prepare",
    .target = PB_TARGET_GPU,
    .supports = any_case,
    .prepare = oom_prepare,
    .run = oom_run,
    .collect = no_collect,
    .release = fault_release,
};

/* ---- registration ----------------------------------------------------------------- */

static const struct pb_backend *const fault_backends[] = {
    &fault_illegal_address, &fault_launch, &fault_wrong, &fault_oom, &fault_hang,
};

int pb_plugin_register(int abi, const struct pb_backend *const **backends, int *count);

int pb_plugin_register(int abi, const struct pb_backend *const **backends, int *count) {
    if (abi != PB_PLUGIN_ABI) return -1;
    *backends = fault_backends;
    *count = (int)(sizeof fault_backends / sizeof fault_backends[0]);
    return 0;
}
