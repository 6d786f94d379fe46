/* The reduction primitive (seed 004): sum, min, max and argmin over n keys. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datagen.h"
#include "input_keys.h"
#include "reduce.h"

static const char *const reduce_dtypes[] = {"u32", "i32", "u64", "i64", "f32", "f64", NULL};
static const char *const reduce_ops[] = {"sum", "min", "max", "argmin", NULL};

static const struct pb_axis reduce_axes[] = {
    {.name = "n",
     .help = "number of keys",
     .kind = PB_AXIS_INT,
     .min = 1,
     .max = 17179869184LL,
     .default_value = "1048576",
     .shapes_input = true},
    {.name = "dtype",
     .help = "key type",
     .kind = PB_AXIS_CHOICE,
     .choices = reduce_dtypes,
     .default_value = "u32",
     .shapes_input = true},
    {.name = "distribution",
     .help = "key distribution",
     .kind = PB_AXIS_CHOICE,
     .choices = pb_dist_names,
     .default_value = "uniform",
     .shapes_input = true},
    {.name = "op",
     .help = "sum, min, max, or argmin (index of the first minimum)",
     .kind = PB_AXIS_CHOICE,
     .choices = reduce_ops,
     .default_value = "sum"},
};

/* Distinct values of the few-unique distribution. */
#define FEW_UNIQUE_COUNT 16

enum pb_reduce_op pb_reduce_case_op(const struct pb_case *c) {
    return (enum pb_reduce_op)pb_case_int(c, "op");
}

bool pb_reduce_dtype_supported(enum pb_dtype t) {
    for (int i = 0; reduce_dtypes[i]; i++)
        if (strcmp(reduce_dtypes[i], pb_dtype_name(t)) == 0) return true;
    return false;
}

bool pb_reduce_supports(const struct pb_case *c, char *why, size_t why_len) {
    enum pb_dtype t;
    if (pb_dtype_parse(pb_case_choice(c, "dtype"), &t) == 0 && pb_reduce_dtype_supported(t))
        return true;
    snprintf(why, why_len, "dtype %s is not supported", pb_case_choice(c, "dtype"));
    return false;
}

static enum pb_dtype case_dtype(const struct pb_case *c) {
    enum pb_dtype t = PB_U32;
    pb_dtype_parse(pb_case_choice(c, "dtype"), &t);
    return t;
}

static int reduce_make_input(const struct pb_case *c, bool want_device, struct pb_input *in,
                             char *err, size_t err_len) {
    enum pb_dist dist = PB_DIST_UNIFORM;
    pb_dist_parse(pb_case_choice(c, "distribution"), &dist);
    struct pb_gen_spec spec = {
        .dtype = case_dtype(c),
        .dist = dist,
        .n = (uint64_t)pb_case_int(c, "n"),
        .seed = c->seed,
        .stream = pb_case_input_stream(c),
        .unique = FEW_UNIQUE_COUNT,
    };
    if (pb_input_keys_host(in, &spec, err, err_len) != 0) return -1;
    if (!want_device) return 0;
    return pb_input_device_ready(pb_input_keys_device(in, &spec), in, err, err_len);
}

static void reduce_free_input(struct pb_input *in) { pb_input_keys_free(in); }

static size_t reduce_output_bytes(const struct pb_case *c) {
    (void)c;
    return sizeof(struct pb_reduce_result);
}

void pb_reduce_decode(enum pb_reduce_op op, enum pb_dtype t, const void *raw,
                      struct pb_reduce_result *out) {
    memset(out, 0, sizeof *out);
    const unsigned char *b = raw;
    bool wide_sum = op == PB_REDUCE_SUM && !pb_dtype_is_float(t);
    switch (wide_sum ? PB_I64 : t) {
    case PB_U32: {
        uint32_t v;
        memcpy(&v, b, 4);
        out->as_int = (int64_t)v;
        break;
    }
    case PB_I32: {
        int32_t v;
        memcpy(&v, b, 4);
        out->as_int = v;
        break;
    }
    case PB_U64:
    case PB_I64:
        memcpy(&out->as_int, b, 8);
        break;
    case PB_F32: {
        float v;
        memcpy(&v, b, 4);
        out->as_float = v;
        break;
    }
    case PB_F64:
        memcpy(&out->as_float, b, 8);
        break;
    default:
        break;
    }
    if (op == PB_REDUCE_ARGMIN) memcpy(&out->index, b + 8, 8);
}

/* The reference: plain loops, one per (type, op), in the widest type. Parallel only
 * through OpenMP reduction clauses, so the code says just what it computes (and a
 * 2^28-key reference takes milliseconds, not a second, on a many-core host). Float
 * sums accumulate in a type with far more precision than the key's: double for f32
 * (its 29 extra bits dwarf any order's f32 rounding), long double for f64. */
#define REFERENCE_FOR(T, IS_FLOAT, WIDE)                                                           \
    static void reference_##T(const T *x, uint64_t n, enum pb_reduce_op op,                        \
                              struct pb_reduce_result *ref) {                                      \
        if (op == PB_REDUCE_SUM) {                                                                 \
            WIDE fsum = 0, fabs_sum = 0;                                                           \
            uint64_t isum = 0;                                                                     \
            _Pragma("omp parallel for reduction(+ : fsum, fabs_sum, isum)") for (uint64_t i = 0;   \
                                                                                 i < n; i++) {     \
                if (IS_FLOAT) {                                                                    \
                    fsum += (WIDE)x[i];                                                            \
                    fabs_sum += (WIDE)x[i] < 0 ? -(WIDE)x[i] : (WIDE)x[i];                         \
                } else {                                                                           \
                    isum += (uint64_t)x[i];                                                        \
                }                                                                                  \
            }                                                                                      \
            ref->as_float = (double)fsum;                                                          \
            ref->abs_sum = (double)fabs_sum;                                                       \
            ref->as_int = (int64_t)isum;                                                           \
            return;                                                                                \
        }                                                                                          \
        /* min and max by reduction clauses; argmin as the first index holding the min, */         \
        /* which is the definition itself. */                                                      \
        T best = x[0];                                                                             \
        if (op == PB_REDUCE_MAX) {                                                                 \
            _Pragma("omp parallel for reduction(max : best)") for (uint64_t i = 0; i < n; i++)     \
                best = x[i] > best ? x[i] : best;                                                  \
        } else {                                                                                   \
            _Pragma("omp parallel for reduction(min : best)") for (uint64_t i = 0; i < n; i++)     \
                best = x[i] < best ? x[i] : best;                                                  \
        }                                                                                          \
        uint64_t first = n;                                                                        \
        if (op == PB_REDUCE_ARGMIN) {                                                              \
            _Pragma("omp parallel for reduction(min : first)") for (uint64_t i = 0; i < n;         \
                                                                    i++) if (x[i] == best &&       \
                                                                             i < first) first = i; \
        }                                                                                          \
        ref->as_float = IS_FLOAT ? (double)best : 0;                                               \
        ref->as_int = IS_FLOAT ? 0 : (int64_t)best;                                                \
        ref->index = op == PB_REDUCE_ARGMIN ? (int64_t)first : 0;                                  \
    }

REFERENCE_FOR(uint32_t, 0, double)
REFERENCE_FOR(int32_t, 0, double)
REFERENCE_FOR(uint64_t, 0, double)
REFERENCE_FOR(int64_t, 0, double)
REFERENCE_FOR(float, 1, double)
REFERENCE_FOR(double, 1, long double)

static int reduce_reference(const struct pb_case *c, const struct pb_input *in, void *out) {
    struct pb_reduce_result *ref = out;
    memset(ref, 0, sizeof *ref);
    enum pb_reduce_op op = pb_reduce_case_op(c);
    switch (in->dtype) {
    case PB_U32:
        reference_uint32_t(in->host, in->n, op, ref);
        break;
    case PB_I32:
        reference_int32_t(in->host, in->n, op, ref);
        break;
    case PB_U64:
        reference_uint64_t(in->host, in->n, op, ref);
        break;
    case PB_I64:
        reference_int64_t(in->host, in->n, op, ref);
        break;
    case PB_F32:
        reference_float(in->host, in->n, op, ref);
        break;
    case PB_F64:
        reference_double(in->host, in->n, op, ref);
        break;
    default:
        return -1;
    }
    return 0;
}

/* Float sums depend on the order of additions. Any order's error is at most about
 * (depth of the summation) * eps * sum|x|; the bound below allows a tree of log2(n)
 * levels over serial runs of up to 2^16 elements, far under what a wrong or missing
 * block of elements does to the sum. */
static double float_sum_tolerance(enum pb_dtype t, uint64_t n, double abs_sum) {
    double eps = t == PB_F32 ? FLT_EPSILON : DBL_EPSILON;
    return (log2((double)n + 1) + 64.0) * eps * abs_sum;
}

static int reduce_verify(const struct pb_case *c, const struct pb_input *in, const void *ref_p,
                         const void *out_p, char *why, size_t why_len) {
    const struct pb_reduce_result *ref = ref_p, *out = out_p;
    enum pb_reduce_op op = pb_reduce_case_op(c);
    bool is_float = pb_dtype_is_float(in->dtype);
    if (op == PB_REDUCE_SUM && is_float) {
        double tol = float_sum_tolerance(in->dtype, in->n, ref->abs_sum);
        if (!(fabs(out->as_float - ref->as_float) <= tol)) {
            snprintf(why, why_len, "sum %.17g, expected %.17g (tolerance %.3g)", out->as_float,
                     ref->as_float, tol);
            return 1;
        }
        return 0;
    }
    bool same = is_float ? out->as_float == ref->as_float : out->as_int == ref->as_int;
    if (!same) {
        if (is_float)
            snprintf(why, why_len, "%s %.17g, expected %.17g", reduce_ops[op], out->as_float,
                     ref->as_float);
        else
            snprintf(why, why_len, "%s %lld, expected %lld", reduce_ops[op], (long long)out->as_int,
                     (long long)ref->as_int);
        return 1;
    }
    if (op == PB_REDUCE_ARGMIN && out->index != ref->index) {
        snprintf(why, why_len, "argmin index %lld, expected %lld (the first minimum)",
                 (long long)out->index, (long long)ref->index);
        return 1;
    }
    return 0;
}

/* Every key is read once; the result is a handful of bytes. */
static void reduce_work(const struct pb_case *c, double *elements, double *bytes) {
    double n = (double)pb_case_int(c, "n");
    *elements = n;
    *bytes = n * (double)pb_dtype_size(case_dtype(c));
}

/* The input, plus the result and the backends' scratch: a few KiB for the butterfly's
 * partials, at most a few MiB for CUB's temporary storage; 16 MiB covers both. */
static size_t reduce_device_bytes(const struct pb_case *c) {
    return (size_t)pb_case_int(c, "n") * pb_dtype_size(case_dtype(c)) + ((size_t)16 << 20);
}

const struct pb_primitive pb_primitive_reduce = {
    .name = "reduce",
    .summary = "sum, min, max, argmin of n keys (seed 004's butterfly reduction)",
    .axes = reduce_axes,
    .naxes = (int)(sizeof reduce_axes / sizeof reduce_axes[0]),
    .make_input = reduce_make_input,
    .free_input = reduce_free_input,
    .output_bytes = reduce_output_bytes,
    .reference = reduce_reference,
    .verify = reduce_verify,
    .work = reduce_work,
    .device_bytes = reduce_device_bytes,
};
