/* primbench: the one public header a primitive or backend is written against.
 *
 * A primitive owns what every implementation shares (axes, input, reference,
 * verification, work model); a backend owns only how the work is done. Plain C11,
 * so that backends built outside the tree can load as plugins. */
#ifndef PRIMBENCH_H
#define PRIMBENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PB_MAX_AXES   12
#define PB_REASON_LEN 256

/* ---- key types ------------------------------------------------------------ */

enum pb_dtype {
    PB_U8,
    PB_U16,
    PB_U32,
    PB_U64,
    PB_I8,
    PB_I16,
    PB_I32,
    PB_I64,
    PB_F32,
    PB_F64,
    PB_DTYPE_COUNT
};

const char *pb_dtype_name(enum pb_dtype t);
size_t pb_dtype_size(enum pb_dtype t);
bool pb_dtype_is_float(enum pb_dtype t);
bool pb_dtype_is_signed(enum pb_dtype t);
/* Returns 0 and sets *out when name is a dtype name ("u32"), -1 otherwise. */
int pb_dtype_parse(const char *name, enum pb_dtype *out);

/* ---- axes and cases ------------------------------------------------------- */

enum pb_axis_kind {
    PB_AXIS_INT,   /* an integer in [min, max] */
    PB_AXIS_CHOICE /* one of a fixed list of names */
};

struct pb_axis {
    const char *name;
    const char *help;
    enum pb_axis_kind kind;
    int64_t min, max;           /* PB_AXIS_INT: valid range, inclusive */
    const char *const *choices; /* PB_AXIS_CHOICE: NULL-terminated list */
    const char *default_value;  /* used when a config omits the axis */
    bool shapes_input;          /* the generated input depends on this axis */
};

/* One point of a sweep: a value for every axis of the primitive. */
struct pb_case {
    const struct pb_axis *axes; /* the primitive's axes, in its order */
    int naxes;
    int64_t value[PB_MAX_AXES]; /* INT: the value; CHOICE: index into choices */
    uint64_t seed;              /* the config's seed */
};

/* Value of a named axis; aborts on a name the primitive does not have (a bug). */
int64_t pb_case_int(const struct pb_case *c, const char *axis);
const char *pb_case_choice(const struct pb_case *c, const char *axis);
/* "n=1024 dtype=u32 distribution=uniform op=sum" */
void pb_case_describe(const struct pb_case *c, char *buf, size_t len);
/* A number that identifies the case's input (its input-shaping axes), for the generator. */
uint64_t pb_case_input_stream(const struct pb_case *c);
/* True when two cases have the same input, so it can be made once for both. */
bool pb_case_same_input(const struct pb_case *a, const struct pb_case *b);

/* ---- inputs and runs ------------------------------------------------------ */

/* The input of one case, made by the primitive. host is always set; device is
 * set when a GPU is present and a GPU backend will run. Backends never modify
 * either: a backend that consumes its input copies it in reset(). */
struct pb_input {
    uint64_t n;
    enum pb_dtype dtype;
    void *host;
    void *device;
    void *extra; /* primitive-owned extras */
};

enum pb_target { PB_TARGET_CPU, PB_TARGET_GPU };

struct pb_run {
    const struct pb_case *c;
    const struct pb_input *in;
    cudaStream_t stream;     /* GPU backends enqueue all work here */
    void *state;             /* backend-owned, set in prepare */
    void *out;               /* host buffer of primitive->output_bytes, filled by collect */
    char err[PB_REASON_LEN]; /* a backend's error message, for the row's reason */
};

/* 0 when err is cudaSuccess; otherwise -1 with "what: the CUDA message" in r->err (the
 * row's reason). For backends' CUDA calls. */
int pb_run_cuda_failed(struct pb_run *r, cudaError_t err, const char *what);

/* The byte every output is filled with before a timed run (poison), so that a backend that
 * writes nothing, or not all of its output, cannot pass verification. */
#define PB_POISON_BYTE 0xA5

/* Fills `bytes` of device memory at `device` (nothing if NULL) with PB_POISON_BYTE on the
 * run's stream: 0, or -1 with "poison WHAT: the CUDA message" in r->err. */
int pb_run_poison_device(struct pb_run *r, void *device, size_t bytes, const char *what);

struct pb_backend {
    const char *primitive;
    const char *name; /* "reduce/butterfly" */
    const char *summary;
    enum pb_target target;
    /* false (with a reason in why) when this backend cannot run the case */
    bool (*supports)(const struct pb_case *c, char *why, size_t why_len);
    int (*prepare)(struct pb_run *r); /* allocate, upload: untimed */
    int (*reset)(
        struct pb_run *r); /* restore consumed inputs: untimed, async on r->stream; may be NULL */
    /* Fill the outputs with a pattern no correct run leaves, so an element the run does
     * not write cannot pass verification. Called before the last, verified repetition
     * only (untimed, async on r->stream); may be NULL. */
    int (*poison)(struct pb_run *r);
    int (*run)(struct pb_run *r);     /* the timed work, async on r->stream for GPU backends */
    int (*collect)(struct pb_run *r); /* output to r->out (synchronous) */
    void (*release)(struct pb_run *r);
};

struct pb_primitive {
    const char *name;
    const char *summary;
    const struct pb_axis *axes;
    int naxes;
    /* Make the case's input: host always; device too when want_device. */
    int (*make_input)(const struct pb_case *c, bool want_device, struct pb_input *in, char *err,
                      size_t err_len);
    void (*free_input)(struct pb_input *in);
    size_t (*output_bytes)(const struct pb_case *c);
    /* The reference result, into a buffer of output_bytes. */
    int (*reference)(const struct pb_case *c, const struct pb_input *in, void *ref);
    /* 0 when out matches ref; otherwise 1 and the first difference in why. */
    int (*verify)(const struct pb_case *c, const struct pb_input *in, const void *ref,
                  const void *out, char *why, size_t why_len);
    /* Elements processed, and the fewest bytes any implementation must move. */
    void (*work)(const struct pb_case *c, double *elements, double *bytes);
    /* Device memory a GPU row of the case needs: the input plus typical output and
     * scratch. The runner skips a row that would not fit instead of failing it. May be
     * NULL (the runner then counts n keys of the case's dtype). */
    size_t (*device_bytes)(const struct pb_case *c);
};

/* ---- plugins -------------------------------------------------------------- */

/* `bench run --plugin LIB.so` (and list, validate) dlopens LIB.so and calls its
 *
 *     int pb_plugin_register(int abi, const struct pb_backend *const **backends, int *count);
 *
 * abi is PB_PLUGIN_ABI as the harness was built; a plugin built against another value
 * returns nonzero. Otherwise it sets *backends to an array of *count backends that live
 * as long as the library (static storage) and returns 0. Each names a primitive the
 * harness has, a name "primitive/x" no other backend has, a target, supports and run.
 * A plugin is linked against nothing of primbench: the functions of this header resolve
 * from the bench executable. GPU work in a plugin uses the CUDA driver API (loaded with
 * dlopen) in the runtime's current context, not a CUDA runtime of its own: the harness
 * links the runtime statically, and after a fault it resets the device, which a second
 * runtime in the process would not know of (see tests/fault_plugin.c). */
#define PB_PLUGIN_ABI   1
#define PB_PLUGIN_ENTRY "pb_plugin_register"
typedef int (*pb_plugin_register_fn)(int abi, const struct pb_backend *const **backends,
                                     int *count);

#ifdef __cplusplus
}
#endif

#endif
