/* The sort primitive (seed 003): n keys cut into segments of `segment` keys (the last
 * one may be shorter; segment = 0 means the whole array is one segment), each segment
 * sorted on its own, ascending or descending, optionally with u32 values (each key's
 * input index) that must keep their keys. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datagen.h"
#include "input_keys.h"
#include "sort.h"

static const char *const sort_dtypes[] = {"u32", "i32", "f32", "u64", "f64", NULL};
static const char *const value_kinds[] = {"none", "u32", NULL};
static const char *const orders[] = {"ascending", "descending", NULL};

/* Input-shaping axes first, so cases sharing an input are adjacent in a sweep: segment
 * and order only change how the same keys are sorted. */
static const struct pb_axis sort_axes[] = {
    {.name = "n",
     .help = "number of keys in total",
     .kind = PB_AXIS_INT,
     .min = 1,
     .max = 1073741824,
     .default_value = "1048576",
     .shapes_input = true},
    {.name = "dtype",
     .help = "key type",
     .kind = PB_AXIS_CHOICE,
     .choices = sort_dtypes,
     .default_value = "u32",
     .shapes_input = true},
    {.name = "distribution",
     .help = "key distribution",
     .kind = PB_AXIS_CHOICE,
     .choices = pb_dist_names,
     .default_value = "uniform",
     .shapes_input = true},
    {.name = "values",
     .help = "none (keys only) or u32 (key-value pairs; the value is the key's input index)",
     .kind = PB_AXIS_CHOICE,
     .choices = value_kinds,
     .default_value = "none",
     .shapes_input = true},
    {.name = "segment",
     .help = "keys per segment, any length (the last segment takes the rest); 0: one "
             "segment of all n keys",
     .kind = PB_AXIS_INT,
     .min = 0,
     .max = 1073741824,
     .default_value = "32"},
    {.name = "order",
     .help = "ascending or descending (floats: -0.0 before +0.0 ascending)",
     .kind = PB_AXIS_CHOICE,
     .choices = orders,
     .default_value = "ascending"},
};

void pb_sort_case_shape(const struct pb_case *c, struct pb_sort_shape *s) {
    memset(s, 0, sizeof *s);
    s->n = (uint64_t)pb_case_int(c, "n");
    uint64_t seg = (uint64_t)pb_case_int(c, "segment");
    s->length = seg == 0 || seg > s->n ? s->n : seg;
    s->count = (s->n + s->length - 1) / s->length;
    s->dtype = PB_U32;
    pb_dtype_parse(pb_case_choice(c, "dtype"), &s->dtype);
    s->pairs = pb_case_int(c, "values") != 0;
    s->descending = pb_case_int(c, "order") != 0;
}

bool pb_sort_supports(const struct pb_case *c, char *why, size_t why_len) {
    const char *name = pb_case_choice(c, "dtype");
    for (int i = 0; sort_dtypes[i]; i++)
        if (strcmp(sort_dtypes[i], name) == 0) return true;
    snprintf(why, why_len, "dtype %s is not supported", name);
    return false;
}

size_t pb_sort_values_offset(const struct pb_sort_shape *s) {
    return (size_t)s->n * pb_dtype_size(s->dtype);
}

/* ---- input --------------------------------------------------------------------- */

static int sort_make_input(const struct pb_case *c, bool want_device, struct pb_input *in,
                           char *err, size_t err_len) {
    struct pb_sort_shape sh;
    pb_sort_case_shape(c, &sh);
    enum pb_dist dist = PB_DIST_UNIFORM;
    pb_dist_parse(pb_case_choice(c, "distribution"), &dist);
    struct pb_gen_spec spec = {.dtype = sh.dtype,
                               .dist = dist,
                               .n = sh.n,
                               .seed = c->seed,
                               .stream = pb_case_input_stream(c),
                               .unique = 16};
    if (pb_input_keys_host(in, &spec, err, err_len) != 0) return -1;
    struct pb_sort_extra *x = calloc(1, sizeof *x);
    in->extra = x;
    if (x) x->pairs = sh.pairs;
    if (x && x->pairs) x->host_values = pb_index_values(spec.n);
    if (!x || (x->pairs && !x->host_values)) {
        snprintf(err, err_len, "cannot allocate the input's values");
        return -1;
    }
    if (!want_device) return 0;
    int e = pb_input_keys_device(in, &spec);
    if (e == cudaSuccess && x->pairs) e = cudaMalloc((void **)&x->device_values, spec.n * 4);
    if (e == cudaSuccess && x->pairs) e = pb_sort_fill_index(x->device_values, spec.n, 0);
    return pb_input_device_ready(e, in, err, err_len);
}

static void sort_free_input(struct pb_input *in) {
    struct pb_sort_extra *x = in->extra;
    if (x) {
        free(x->host_values);
        if (x->device_values) cudaFree(x->device_values);
        free(x);
    }
    pb_input_keys_free(in);
}

static size_t sort_output_bytes(const struct pb_case *c) {
    struct pb_sort_shape sh;
    pb_sort_case_shape(c, &sh);
    return pb_sort_values_offset(&sh) + (sh.pairs ? sh.n * sizeof(uint32_t) : 0);
}

/* ---- reference: every segment by the CPU sort (tested against qsort in test_sort_cpu) */

static int sort_reference(const struct pb_case *c, const struct pb_input *in, void *out) {
    struct pb_sort_shape sh;
    pb_sort_case_shape(c, &sh);
    const struct pb_sort_extra *x = in->extra;
    size_t ks = pb_dtype_size(sh.dtype);
    char *keys = out;
    uint32_t *values = sh.pairs ? (uint32_t *)(keys + pb_sort_values_offset(&sh)) : NULL;
    memcpy(keys, in->host, sh.n * ks);
    if (values) memcpy(values, x->host_values, sh.n * sizeof *values);
    int failed = 0;
#pragma omp parallel reduction(| : failed)
    {
        void *scratch = malloc(pb_sort_cpu_scratch_bytes(sh.length));
        failed = scratch == NULL;
#pragma omp for schedule(dynamic, 64)
        for (uint64_t s = 0; s < sh.count; s++) {
            uint64_t b = s * sh.length, e = b + sh.length < sh.n ? b + sh.length : sh.n;
            if (scratch)
                pb_sort_cpu_run(sh.dtype, sh.descending, keys + b * ks, values ? values + b : NULL,
                                e - b, scratch);
        }
        free(scratch);
    }
    return failed ? -1 : 0;
}

/* ---- verification ---------------------------------------------------------------- */

static bool is_float(enum pb_dtype t) { return t == PB_F32 || t == PB_F64; }

static double float_at(enum pb_dtype t, const void *keys, uint64_t i) {
    if (t == PB_F32) {
        float f;
        memcpy(&f, (const char *)keys + i * 4, 4);
        return f;
    }
    double d;
    memcpy(&d, (const char *)keys + i * 8, 8);
    return d;
}

/* Keys i and j (i before j) in the case's order; float zeros of either sign are equal. */
static bool in_order(enum pb_dtype t, bool descending, const void *keys, uint64_t i, uint64_t j) {
    if (is_float(t)) {
        double a = float_at(t, keys, i), b = float_at(t, keys, j);
        return descending ? a >= b : a <= b;
    }
    return pb_sort_ordered_bits(t, descending, keys, i) <=
           pb_sort_ordered_bits(t, descending, keys, j);
}

static bool negative_zero(enum pb_dtype t, const void *keys, uint64_t i) {
    if (!is_float(t)) return false;
    uint64_t bits = 0;
    memcpy(&bits, (const char *)keys + i * pb_dtype_size(t), pb_dtype_size(t));
    return bits == (t == PB_F32 ? 0x80000000ull : 0x8000000000000000ull);
}

/* The first fault in segment [b, e) of out: 0, or 1 with the reason in why. The keys
 * must be in order and, up to the order of zeros of either sign, equal to the reference
 * (so a permutation of the input); each value an index of the segment, used once, whose
 * input key is the key beside it. */
static int verify_segment(const struct pb_sort_shape *sh, const struct pb_input *in,
                          const char *ref, const char *out, uint64_t b, uint64_t e,
                          unsigned char *seen, char *why, size_t why_len) {
    size_t ks = pb_dtype_size(sh->dtype);
    const char *dir = sh->descending ? "descending" : "ascending";
    for (uint64_t i = b + 1; i < e; i++) {
        if (!in_order(sh->dtype, sh->descending, out, i - 1, i)) {
            snprintf(why, why_len, "segment %llu (keys %llu..%llu): keys %llu and %llu are not %s",
                     (unsigned long long)(b / sh->length), (unsigned long long)b,
                     (unsigned long long)e - 1, (unsigned long long)i - 1, (unsigned long long)i,
                     dir);
            return 1;
        }
    }
    long long neg_zero_balance = 0;
    for (uint64_t i = b; i < e; i++) {
        bool neg_out = negative_zero(sh->dtype, out, i), neg_ref = negative_zero(sh->dtype, ref, i);
        neg_zero_balance += (long long)neg_out - (long long)neg_ref;
        if (memcmp(out + i * ks, ref + i * ks, ks) != 0 &&
            !(is_float(sh->dtype) && float_at(sh->dtype, out, i) == 0.0 &&
              float_at(sh->dtype, ref, i) == 0.0)) {
            snprintf(why, why_len,
                     "segment %llu: key at position %llu is not the reference's (the output is "
                     "not a permutation of the segment's keys)",
                     (unsigned long long)(b / sh->length), (unsigned long long)i);
            return 1;
        }
    }
    if (neg_zero_balance != 0) {
        snprintf(why, why_len, "segment %llu: the output has %lld more -0.0 keys than the input",
                 (unsigned long long)(b / sh->length), neg_zero_balance);
        return 1;
    }
    if (!sh->pairs) return 0;
    const uint32_t *values = (const uint32_t *)(out + pb_sort_values_offset(sh));
    for (uint64_t i = b; i < e; i++) {
        uint32_t v = values[i];
        const char *fault = NULL;
        if (v < b || v >= e)
            fault = "is not an index of the segment";
        else if (seen[v])
            fault = "is used twice";
        else if (memcmp((const char *)in->host + (uint64_t)v * ks, out + i * ks, ks) != 0)
            fault = "does not index its key in the input (the pair was broken)";
        if (fault) {
            snprintf(why, why_len, "segment %llu: value %u at position %llu %s",
                     (unsigned long long)(b / sh->length), v, (unsigned long long)i, fault);
            return 1;
        }
        seen[v] = 1;
    }
    return 0;
}

static int sort_verify(const struct pb_case *c, const struct pb_input *in, const void *ref,
                       const void *out, char *why, size_t why_len) {
    struct pb_sort_shape sh;
    pb_sort_case_shape(c, &sh);
    unsigned char *seen = sh.pairs ? calloc(sh.n, 1) : NULL;
    if (sh.pairs && !seen) {
        snprintf(why, why_len, "cannot allocate the verifier's %llu-byte map",
                 (unsigned long long)sh.n);
        return 1;
    }
    uint64_t first_bad = UINT64_MAX;
#pragma omp parallel
    {
        char mine[PB_REASON_LEN];
#pragma omp for schedule(dynamic, 64)
        for (uint64_t s = 0; s < sh.count; s++) {
            uint64_t b = s * sh.length, e = b + sh.length < sh.n ? b + sh.length : sh.n;
            if (verify_segment(&sh, in, ref, out, b, e, seen, mine, sizeof mine) == 0) continue;
#pragma omp critical(sort_verify_first)
            if (s < first_bad) {
                first_bad = s;
                snprintf(why, why_len, "%s", mine);
            }
        }
    }
    free(seen);
    return first_bad == UINT64_MAX ? 0 : 1;
}

/* The fewest bytes: keys (and values) read once and written once. */
static void sort_work(const struct pb_case *c, double *elements, double *bytes) {
    struct pb_sort_shape sh;
    pb_sort_case_shape(c, &sh);
    *elements = (double)sh.n;
    *bytes = (double)sh.n * 2 * (double)pb_dtype_size(sh.dtype) + (sh.pairs ? sh.n * 8.0 : 0);
}

/* Input and output keys and values, and CUB's double buffers and temporary storage. */
static size_t sort_device_bytes(const struct pb_case *c) {
    struct pb_sort_shape sh;
    pb_sort_case_shape(c, &sh);
    size_t per_key = pb_dtype_size(sh.dtype) + (sh.pairs ? 4 : 0);
    return sh.n * per_key * 4 + sh.count * 8 + (64u << 20);
}

const struct pb_primitive pb_primitive_sort = {
    .name = "sort",
    .summary = "every segment of the keys (and values) sorted on its own (seed 003)",
    .axes = sort_axes,
    .naxes = (int)(sizeof sort_axes / sizeof sort_axes[0]),
    .make_input = sort_make_input,
    .free_input = sort_free_input,
    .output_bytes = sort_output_bytes,
    .reference = sort_reference,
    .verify = sort_verify,
    .work = sort_work,
    .device_bytes = sort_device_bytes,
};
