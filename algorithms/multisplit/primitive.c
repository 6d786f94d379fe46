/* The multisplit primitive (seed 001): keys (and values) grouped by bin, in bin order,
 * stable inside each bin, with the bins' offsets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bucket_rules.h"
#include "datagen.h"
#include "input_keys.h"
#include "multisplit.h"

static const char *const multisplit_dtypes[] = {"u32", "i32", "u64", "f32", NULL};
static const char *const bucket_kinds[] = {"range", "modulo", "splitters", NULL};
static const char *const value_kinds[] = {"none", "u32", NULL};

/* Input-shaping axes first, so cases sharing an input are adjacent in a sweep. */
static const struct pb_axis multisplit_axes[] = {
    {.name = "n",
     .help = "number of keys",
     .kind = PB_AXIS_INT,
     .min = 1,
     .max = 2147483648LL,
     .default_value = "1048576",
     .shapes_input = true},
    {.name = "dtype",
     .help = "key type",
     .kind = PB_AXIS_CHOICE,
     .choices = multisplit_dtypes,
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
    {.name = "bucket",
     .help = "range (equal-width bins over the keys' min..max, the seed's f), modulo, or "
             "splitters (bins between sorted splitter keys: quantiles of a sample of the input)",
     .kind = PB_AXIS_CHOICE,
     .choices = bucket_kinds,
     .default_value = "range"},
    {.name = "bins",
     .help = "number of bins, any count",
     .kind = PB_AXIS_INT,
     .min = 1,
     .max = 65536,
     .default_value = "256"},
};

static enum pb_dtype case_dtype(const struct pb_case *c) {
    enum pb_dtype t = PB_U32;
    pb_dtype_parse(pb_case_choice(c, "dtype"), &t);
    return t;
}

static bool case_pairs(const struct pb_case *c) { return pb_case_int(c, "values") != 0; }

bool pb_multisplit_dtype_supported(enum pb_dtype t) {
    for (int i = 0; multisplit_dtypes[i]; i++)
        if (strcmp(multisplit_dtypes[i], pb_dtype_name(t)) == 0) return true;
    return false;
}

bool pb_multisplit_supports(const struct pb_case *c, char *why, size_t why_len) {
    if (pb_multisplit_dtype_supported(case_dtype(c))) return true;
    snprintf(why, why_len, "dtype %s is not supported", pb_case_choice(c, "dtype"));
    return false;
}

void pb_multisplit_layout(uint64_t n, uint32_t bins, size_t key_size, bool pairs,
                          struct pb_multisplit_layout *out) {
    out->offsets = 0;
    out->keys = (size_t)bins * sizeof(uint32_t);
    out->values = out->keys + n * key_size;
    out->total = out->values + (pairs ? n * sizeof(uint32_t) : 0);
}

/* ---- the bucket function's constants ----------------------------------------- */

#define MIN_MAX_OF(T)                                                                              \
    static void min_max_##T(const T *k, uint64_t n, T *lo, T *hi) {                                \
        T a = k[0], b = k[0];                                                                      \
        _Pragma("omp parallel for reduction(min : a) reduction(max : b)") for (uint64_t i = 0;     \
                                                                               i < n; i++) {       \
            a = k[i] < a ? k[i] : a;                                                               \
            b = k[i] > b ? k[i] : b;                                                               \
        }                                                                                          \
        *lo = a;                                                                                   \
        *hi = b;                                                                                   \
    }
MIN_MAX_OF(uint32_t)
MIN_MAX_OF(int32_t)
MIN_MAX_OF(uint64_t)
MIN_MAX_OF(float)

/* whole + frac / 2^64 = bins / range_plus_one, rounded up (range_plus_one may be 2^64).
 * Rounded up, d * scale lands in the same integer as d * bins / range_plus_one whenever
 * the rounding error d / 2^64 is below the gap 1 / range_plus_one to the next integer:
 * for every key of 32-bit types the bin is exactly floor(d * bins / (max - min + 1)). */
static void fixed_point_ratio(uint32_t bins, unsigned __int128 range_plus_one,
                              struct pb_bucket *b) {
    unsigned __int128 scaled = ((unsigned __int128)bins << 64) + range_plus_one - 1;
    unsigned __int128 ratio = scaled / range_plus_one;
    b->scale_whole = (uint64_t)(ratio >> 64);
    b->scale_frac = (uint64_t)ratio;
}

void pb_key_range_of(enum pb_dtype t, const void *keys, uint64_t n, struct pb_key_range *r) {
    memset(r, 0, sizeof *r);
    if (n == 0) return;
    switch (t) {
    case PB_U32: {
        uint32_t lo, hi;
        min_max_uint32_t(keys, n, &lo, &hi);
        r->min_bits = lo;
        r->max_bits = hi;
        break;
    }
    case PB_I32: {
        int32_t lo, hi;
        min_max_int32_t(keys, n, &lo, &hi);
        r->min_bits = (uint64_t)(int64_t)lo;
        r->max_bits = (uint64_t)(int64_t)hi;
        break;
    }
    case PB_U64:
        min_max_uint64_t(keys, n, &r->min_bits, &r->max_bits);
        break;
    case PB_F32: {
        float lo, hi;
        min_max_float(keys, n, &lo, &hi);
        r->fmin = lo;
        r->fmax = hi;
        break;
    }
    default:
        break;
    }
}

void pb_bucket_range_rule(enum pb_dtype t, uint32_t count, const struct pb_key_range *r,
                          struct pb_bucket *b) {
    if (t == PB_F32) {
        b->fmin = r->fmin;
        b->fscale = r->fmax > r->fmin ? count / (r->fmax - r->fmin) : 0.0;
        return;
    }
    b->min_bits = r->min_bits;
    fixed_point_ratio(count, (unsigned __int128)(r->max_bits - r->min_bits) + 1, b);
}

void pb_bucket_make(enum pb_bucket_kind kind, enum pb_dtype t, uint32_t bins,
                    const struct pb_key_range *r, struct pb_bucket *b) {
    memset(b, 0, sizeof *b);
    b->kind = kind;
    b->dtype = t;
    b->bins = bins;
    if (kind == PB_BUCKET_RANGE) pb_bucket_range_rule(t, bins, r, b);
}

/* ---- the splitters' sample ------------------------------------------------------ */

#define COMPARE_OF(T)                                                                              \
    static int compare_##T(const void *a, const void *b) {                                         \
        T x = *(const T *)a, y = *(const T *)b;                                                    \
        return (x > y) - (x < y);                                                                  \
    }
COMPARE_OF(uint32_t)
COMPARE_OF(int32_t)
COMPARE_OF(uint64_t)
COMPARE_OF(float)

uint32_t pb_splitter_sample(enum pb_dtype t, const void *keys, uint64_t n, void *sample) {
    uint32_t samples = n < PB_SPLITTER_MAX_SAMPLES ? (uint32_t)n : PB_SPLITTER_MAX_SAMPLES;
    size_t ks = pb_dtype_size(t);
    for (uint32_t j = 0; j < samples; j++)
        memcpy((char *)sample + (size_t)j * ks, (const char *)keys + (j * n / samples) * ks, ks);
    int (*compare)(const void *, const void *) = t == PB_U32   ? compare_uint32_t
                                                 : t == PB_I32 ? compare_int32_t
                                                 : t == PB_U64 ? compare_uint64_t
                                                               : compare_float;
    qsort(sample, samples, ks, compare);
    return samples;
}

/* ---- input --------------------------------------------------------------------- */

int pb_multisplit_fill_index(uint32_t *d_values, uint64_t n, cudaStream_t stream);

static int multisplit_make_input(const struct pb_case *c, bool want_device, struct pb_input *in,
                                 char *err, size_t err_len) {
    enum pb_dist dist = PB_DIST_UNIFORM;
    pb_dist_parse(pb_case_choice(c, "distribution"), &dist);
    struct pb_gen_spec spec = {.dtype = case_dtype(c),
                               .dist = dist,
                               .n = (uint64_t)pb_case_int(c, "n"),
                               .seed = c->seed,
                               .stream = pb_case_input_stream(c),
                               .unique = 16};
    if (pb_input_keys_host(in, &spec, err, err_len) != 0) return -1;
    struct pb_multisplit_extra *x = calloc(1, sizeof *x);
    in->extra = x;
    size_t ks = pb_dtype_size(spec.dtype);
    if (x) {
        x->pairs = case_pairs(c);
        pb_key_range_of(spec.dtype, in->host, spec.n, &x->range);
        x->host_sample = malloc(PB_SPLITTER_MAX_SAMPLES * ks);
        if (x->pairs) x->host_values = pb_index_values(spec.n);
    }
    if (!x || !x->host_sample || (x->pairs && !x->host_values)) {
        snprintf(err, err_len, "cannot allocate the input's values and splitter sample");
        return -1;
    }
    x->samples = pb_splitter_sample(spec.dtype, in->host, spec.n, x->host_sample);
    if (!want_device) return 0;
    int e = pb_input_keys_device(in, &spec);
    if (e == cudaSuccess && x->pairs) e = cudaMalloc((void **)&x->device_values, spec.n * 4);
    if (e == cudaSuccess && x->pairs) e = pb_multisplit_fill_index(x->device_values, spec.n, 0);
    if (e == cudaSuccess) e = cudaMalloc(&x->device_sample, (size_t)x->samples * ks);
    if (e == cudaSuccess)
        e = cudaMemcpy(x->device_sample, x->host_sample, (size_t)x->samples * ks,
                       cudaMemcpyHostToDevice);
    return pb_input_device_ready(e, in, err, err_len);
}

static void multisplit_free_input(struct pb_input *in) {
    struct pb_multisplit_extra *x = in->extra;
    if (x) {
        free(x->host_values);
        free(x->host_sample);
        if (x->device_values) cudaFree(x->device_values);
        if (x->device_sample) cudaFree(x->device_sample);
        free(x);
    }
    pb_input_keys_free(in);
}

static size_t multisplit_output_bytes(const struct pb_case *c) {
    struct pb_multisplit_layout l;
    pb_multisplit_layout((uint64_t)pb_case_int(c, "n"), (uint32_t)pb_case_int(c, "bins"),
                         pb_dtype_size(case_dtype(c)), case_pairs(c), &l);
    return l.total;
}

/* ---- reference: a stable counting sort, serial, as plain as it gets --------------- */

void pb_multisplit_case_bucket(const struct pb_case *c, const struct pb_input *in,
                               struct pb_bucket *b) {
    const struct pb_multisplit_extra *x = in->extra;
    pb_bucket_make((enum pb_bucket_kind)pb_case_int(c, "bucket"), in->dtype,
                   (uint32_t)pb_case_int(c, "bins"), &x->range, b);
    if (b->kind == PB_BUCKET_SPLITTERS) {
        b->sample = x->host_sample;
        b->samples = x->samples;
    }
}

static int multisplit_reference(const struct pb_case *c, const struct pb_input *in, void *out) {
    const struct pb_multisplit_extra *x = in->extra;
    struct pb_bucket b;
    pb_multisplit_case_bucket(c, in, &b);
    size_t ks = pb_dtype_size(in->dtype);
    struct pb_multisplit_layout l;
    pb_multisplit_layout(in->n, b.bins, ks, x->pairs, &l);
    uint32_t *offsets = (uint32_t *)((char *)out + l.offsets);
    char *keys = (char *)out + l.keys;
    uint32_t *values = (uint32_t *)((char *)out + l.values);
    uint32_t *next = calloc(b.bins, sizeof *next);
    if (!next) return -1;
    for (uint64_t i = 0; i < in->n; i++) next[pb_bucket_at(&b, in->host, i)]++;
    uint32_t start = 0;
    for (uint32_t k = 0; k < b.bins; k++) {
        uint32_t count = next[k];
        offsets[k] = next[k] = start;
        start += count;
    }
    for (uint64_t i = 0; i < in->n; i++) {
        uint32_t dest = next[pb_bucket_at(&b, in->host, i)]++;
        memcpy(keys + (size_t)dest * ks, (const char *)in->host + i * ks, ks);
        if (x->pairs) values[dest] = x->host_values[i];
    }
    free(next);
    return 0;
}

/* First index where two arrays of `count` elements of `size` bytes differ, or -1. */
static int64_t first_difference(const char *a, const char *b, uint64_t count, size_t size) {
    const uint64_t block = 4096;
    for (uint64_t i = 0; i < count; i += block) {
        uint64_t m = count - i < block ? count - i : block;
        if (memcmp(a + i * size, b + i * size, m * size) == 0) continue;
        for (uint64_t j = i; j < i + m; j++)
            if (memcmp(a + j * size, b + j * size, size) != 0) return (int64_t)j;
    }
    return -1;
}

static int multisplit_verify(const struct pb_case *c, const struct pb_input *in, const void *ref,
                             const void *out, char *why, size_t why_len) {
    const struct pb_multisplit_extra *x = in->extra;
    uint32_t bins = (uint32_t)pb_case_int(c, "bins");
    size_t ks = pb_dtype_size(in->dtype);
    struct pb_multisplit_layout l;
    pb_multisplit_layout(in->n, bins, ks, x->pairs, &l);
    const char *r = ref, *o = out;
    int64_t at = first_difference(r + l.offsets, o + l.offsets, bins, 4);
    if (at >= 0) {
        snprintf(why, why_len, "offset of bin %lld is %u, expected %u", (long long)at,
                 ((const uint32_t *)(o + l.offsets))[at], ((const uint32_t *)(r + l.offsets))[at]);
        return 1;
    }
    if ((at = first_difference(r + l.keys, o + l.keys, in->n, ks)) >= 0) {
        snprintf(why, why_len, "key at output position %lld differs from the stable order",
                 (long long)at);
        return 1;
    }
    if (x->pairs && (at = first_difference(r + l.values, o + l.values, in->n, 4)) >= 0) {
        snprintf(why, why_len, "value at output position %lld is %u, expected %u (the input index)",
                 (long long)at, ((const uint32_t *)(o + l.values))[at],
                 ((const uint32_t *)(r + l.values))[at]);
        return 1;
    }
    return 0;
}

/* The fewest bytes: keys read twice (to count, to place) and written once; values read
 * and written once; the offsets written. */
static void multisplit_work(const struct pb_case *c, double *elements, double *bytes) {
    double n = (double)pb_case_int(c, "n");
    double ks = (double)pb_dtype_size(case_dtype(c));
    *elements = n;
    *bytes = n * 3 * ks + (case_pairs(c) ? n * 8 : 0) + 4.0 * (double)pb_case_int(c, "bins");
}

const struct pb_primitive pb_primitive_multisplit = {
    .name = "multisplit",
    .summary = "keys (and values) grouped by bin, stable, with bin offsets (seed 001)",
    .axes = multisplit_axes,
    .naxes = (int)(sizeof multisplit_axes / sizeof multisplit_axes[0]),
    .make_input = multisplit_make_input,
    .free_input = multisplit_free_input,
    .output_bytes = multisplit_output_bytes,
    .reference = multisplit_reference,
    .verify = multisplit_verify,
    .work = multisplit_work,
};
