/* The k-way merge primitive (seed 000): k sorted lists, concatenated, merged into one
 * stable sorted list. The lists' sizes come from the `sizes` axis; their keys from the
 * harness generator, each list then sorted. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datagen.h"
#include "merge.h"
#include "sort.h"

const char *const pb_merge_sizes_names[] = {"uniform", "equal", "zipf", "empty", NULL};
static const char *const merge_dtypes[] = {"u32", "i32", "f32", "u64", "f64", NULL};
static const char *const value_kinds[] = {"none", "u32", NULL};

/* Every axis shapes the input: the lists are the case. */
static const struct pb_axis merge_axes[] = {
    {.name = "k",
     .help = "number of sorted lists",
     .kind = PB_AXIS_INT,
     .min = 1,
     .max = 1 << 22,
     .default_value = "1024",
     .shapes_input = true},
    {.name = "n",
     .help = "keys in all lists together (ignored when max_size > 0)",
     .kind = PB_AXIS_INT,
     .min = 1,
     .max = 1073741824,
     .default_value = "16777216",
     .shapes_input = true},
    {.name = "max_size",
     .help = "0, or with sizes = uniform: each list's size uniform in 1..max_size, as the "
             "seed's generator draws them (n is then their sum)",
     .kind = PB_AXIS_INT,
     .min = 0,
     .max = 1073741824,
     .default_value = "0",
     .shapes_input = true},
    {.name = "sizes",
     .help = "list sizes: uniform (random, summing to n), equal, zipf (a few long lists), "
             "empty (a quarter of the lists empty, the rest equal)",
     .kind = PB_AXIS_CHOICE,
     .choices = pb_merge_sizes_names,
     .default_value = "uniform",
     .shapes_input = true},
    {.name = "dtype",
     .help = "key type (f64 is the seed's)",
     .kind = PB_AXIS_CHOICE,
     .choices = merge_dtypes,
     .default_value = "u32",
     .shapes_input = true},
    {.name = "distribution",
     .help = "key distribution before each list is sorted",
     .kind = PB_AXIS_CHOICE,
     .choices = pb_dist_names,
     .default_value = "uniform",
     .shapes_input = true},
    {.name = "values",
     .help = "none (keys only) or u32 (each key's index in the concatenated input)",
     .kind = PB_AXIS_CHOICE,
     .choices = value_kinds,
     .default_value = "none",
     .shapes_input = true},
};

/* ---- list sizes ------------------------------------------------------------------ */

static uint64_t mix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static double unit(uint64_t seed, uint64_t i) { return (mix64(seed ^ mix64(i)) >> 11) * 0x1p-53; }

/* offsets from weights: list i gets floor(n * W_{i+1} / W) - floor(n * W_i / W), so the
 * sizes add up to n exactly. */
static void offsets_from_weights(const double *w, uint32_t k, uint64_t n, uint64_t *offsets) {
    double total = 0;
    for (uint32_t i = 0; i < k; i++) total += w[i];
    double run = 0;
    offsets[0] = 0;
    for (uint32_t i = 0; i < k; i++) {
        run += w[i];
        uint64_t at = (uint64_t)floor((double)n * (run / total));
        offsets[i + 1] = i + 1 == k || at > n ? n : at;
        if (offsets[i + 1] < offsets[i]) offsets[i + 1] = offsets[i];
    }
}

uint64_t pb_merge_make_offsets(enum pb_merge_sizes how, uint32_t k, uint64_t n, uint64_t max,
                               uint64_t seed, uint64_t *offsets) {
    offsets[0] = 0;
    if (how == PB_MERGE_SIZES_UNIFORM && max > 0) {
        for (uint32_t i = 0; i < k; i++)
            offsets[i + 1] = offsets[i] + 1 + mix64(seed ^ mix64(i)) % max;
        return offsets[k];
    }
    if (how == PB_MERGE_SIZES_EQUAL) {
        for (uint32_t i = 0; i < k; i++) offsets[i + 1] = offsets[i] + n / k + (i < n % k);
        return n;
    }
    double *w = malloc((size_t)k * sizeof *w);
    if (!w) return UINT64_MAX;
    for (uint32_t i = 0; i < k; i++) {
        double u = unit(seed, i);
        switch (how) {
        case PB_MERGE_SIZES_ZIPF:
            w[i] = 1.0 / (1.0 + floor(u * k));
            break;
        /* Every fourth list on average is empty; list 0 never is, so n has a home. */
        case PB_MERGE_SIZES_EMPTY:
            w[i] = i > 0 && u < 0.25 ? 0.0 : 1.0;
            break;
        default:
            w[i] = 0.05 + u;
            break;
        }
    }
    offsets_from_weights(w, k, n, offsets);
    free(w);
    return n;
}

int pb_merge_case_shape(const struct pb_case *c, struct pb_merge_shape *s, char *err,
                        size_t err_len) {
    memset(s, 0, sizeof *s);
    s->k = (uint32_t)pb_case_int(c, "k");
    s->dtype = PB_U32;
    pb_dtype_parse(pb_case_choice(c, "dtype"), &s->dtype);
    s->pairs = pb_case_int(c, "values") != 0;
    s->offsets = malloc(((size_t)s->k + 1) * sizeof *s->offsets);
    if (!s->offsets) {
        snprintf(err, err_len, "cannot allocate %u list offsets", s->k);
        return -1;
    }
    enum pb_merge_sizes how = (enum pb_merge_sizes)pb_case_int(c, "sizes");
    s->n = pb_merge_make_offsets(how, s->k, (uint64_t)pb_case_int(c, "n"),
                                 (uint64_t)pb_case_int(c, "max_size"),
                                 c->seed ^ pb_case_input_stream(c), s->offsets);
    if (s->n == UINT64_MAX) {
        snprintf(err, err_len, "cannot allocate the list weights");
        pb_merge_shape_free(s);
        return -1;
    }
    return 0;
}

void pb_merge_shape_free(struct pb_merge_shape *s) {
    free(s->offsets);
    s->offsets = NULL;
}

size_t pb_merge_values_offset(const struct pb_merge_shape *s) {
    return (size_t)s->n * pb_dtype_size(s->dtype);
}

/* The shape without its offsets, for the callbacks that only need sizes. */
static struct pb_merge_shape shape_of(const struct pb_case *c) {
    struct pb_merge_shape s;
    char err[PB_REASON_LEN];
    if (pb_merge_case_shape(c, &s, err, sizeof err) != 0) memset(&s, 0, sizeof s);
    pb_merge_shape_free(&s);
    return s;
}

/* ---- input --------------------------------------------------------------------- */

static uint64_t longest_list(const struct pb_merge_shape *s) {
    uint64_t top = 0;
    for (uint32_t i = 0; i < s->k; i++)
        if (s->offsets[i + 1] - s->offsets[i] > top) top = s->offsets[i + 1] - s->offsets[i];
    return top;
}

/* Sorts each list in place, lists spread over the cores. */
static int sort_lists(const struct pb_merge_shape *s, void *keys) {
    size_t ks = pb_dtype_size(s->dtype), scratch_bytes = pb_sort_cpu_scratch_bytes(longest_list(s));
    int failed = 0;
#pragma omp parallel reduction(| : failed)
    {
        void *scratch = malloc(scratch_bytes);
        failed = scratch == NULL;
#pragma omp for schedule(dynamic, 1)
        for (uint32_t i = 0; i < s->k; i++)
            if (scratch)
                pb_sort_cpu_run(s->dtype, false, (char *)keys + s->offsets[i] * ks, NULL,
                                s->offsets[i + 1] - s->offsets[i], scratch);
        free(scratch);
    }
    return failed ? -1 : 0;
}

static int merge_make_input(const struct pb_case *c, bool want_device, struct pb_input *in,
                            char *err, size_t err_len) {
    memset(in, 0, sizeof *in);
    struct pb_merge_extra *x = calloc(1, sizeof *x);
    if (!x) {
        snprintf(err, err_len, "cannot allocate the input's extras");
        return -1;
    }
    in->extra = x;
    if (pb_merge_case_shape(c, &x->shape, err, err_len) != 0) return -1;
    const struct pb_merge_shape *s = &x->shape;
    enum pb_dist dist = PB_DIST_UNIFORM;
    pb_dist_parse(pb_case_choice(c, "distribution"), &dist);
    struct pb_gen_spec spec = {.dtype = s->dtype,
                               .dist = dist,
                               .n = s->n,
                               .seed = c->seed,
                               .stream = pb_case_input_stream(c),
                               .unique = 16};
    size_t bytes = s->n * pb_dtype_size(s->dtype);
    in->n = s->n;
    in->dtype = s->dtype;
    in->host = malloc(bytes ? bytes : 1);
    if (s->pairs) x->host_values = malloc(s->n * sizeof(uint32_t) + 1);
    if (!in->host || (s->pairs && !x->host_values)) {
        snprintf(err, err_len, "cannot allocate %.2f GiB of host memory for the input",
                 bytes / 1073741824.0);
        return -1;
    }
    pb_generate_host(&spec, in->host);
    if (sort_lists(s, in->host) != 0) {
        snprintf(err, err_len, "cannot allocate the list sort's scratch");
        return -1;
    }
    if (s->pairs)
        for (uint64_t i = 0; i < s->n; i++) x->host_values[i] = (uint32_t)i;
    if (!want_device) return 0;
    size_t offsets_bytes = ((size_t)s->k + 1) * sizeof(uint64_t);
    cudaError_t e = cudaMalloc(&in->device, bytes ? bytes : 1);
    if (e == cudaSuccess) e = cudaMemcpy(in->device, in->host, bytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) e = cudaMalloc((void **)&x->device_offsets, offsets_bytes);
    if (e == cudaSuccess)
        e = cudaMemcpy(x->device_offsets, s->offsets, offsets_bytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess && s->pairs) {
        e = cudaMalloc((void **)&x->device_values, s->n * sizeof(uint32_t) + 4);
        if (e == cudaSuccess)
            e = cudaMemcpy(x->device_values, x->host_values, s->n * sizeof(uint32_t),
                           cudaMemcpyHostToDevice);
    }
    if (e != cudaSuccess) {
        snprintf(err, err_len, "device input of %.2f GiB: %s", bytes / 1073741824.0,
                 cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

static void merge_free_input(struct pb_input *in) {
    struct pb_merge_extra *x = in->extra;
    free(in->host);
    if (in->device) cudaFree(in->device);
    if (x) {
        pb_merge_shape_free(&x->shape);
        free(x->host_values);
        if (x->device_offsets) cudaFree(x->device_offsets);
        if (x->device_values) cudaFree(x->device_values);
        free(x);
    }
    memset(in, 0, sizeof *in);
}

static size_t merge_output_bytes(const struct pb_case *c) {
    struct pb_merge_shape s = shape_of(c);
    return pb_merge_values_offset(&s) + (s.pairs ? s.n * sizeof(uint32_t) : 0);
}

/* ---- reference and verification -------------------------------------------------- */

/* The seed's two-way rounds (their early rounds run on all cores), tested against a
 * stable sort of (key, input index) in test_merge_cpu. */
static int merge_reference(const struct pb_case *c, const struct pb_input *in, void *ref) {
    (void)c;
    const struct pb_merge_extra *x = in->extra;
    const struct pb_merge_shape *s = &x->shape;
    uint32_t *values = s->pairs ? (uint32_t *)((char *)ref + pb_merge_values_offset(s)) : NULL;
    return pb_merge_cpu_2way(s->dtype, in->host, x->host_values, s->offsets, s->k, ref, values);
}

/* The stable merge is unique, so the output must equal the reference bit for bit (a
 * -0.0 and a +0.0 in each other's place is a broken tie order). */
static int merge_verify(const struct pb_case *c, const struct pb_input *in, const void *ref,
                        const void *out, char *why, size_t why_len) {
    (void)c;
    const struct pb_merge_extra *x = in->extra;
    const struct pb_merge_shape *s = &x->shape;
    size_t ks = pb_dtype_size(s->dtype);
    const char *r = ref, *o = out;
    for (uint64_t i = 0; i < s->n; i++) {
        if (memcmp(r + i * ks, o + i * ks, ks) == 0) continue;
        const char *how = i > 0 && pb_merge_key_less(s->dtype, out, i, i - 1)
                              ? "out of order"
                              : "not the stable merge's";
        snprintf(why, why_len, "key at output position %llu of %llu is %s", (unsigned long long)i,
                 (unsigned long long)s->n, how);
        return 1;
    }
    if (!s->pairs) return 0;
    const uint32_t *rv = (const uint32_t *)(r + pb_merge_values_offset(s));
    const uint32_t *ov = (const uint32_t *)(o + pb_merge_values_offset(s));
    for (uint64_t i = 0; i < s->n; i++) {
        if (rv[i] == ov[i]) continue;
        snprintf(why, why_len,
                 "value at output position %llu is %u, the stable merge's is %u (ties out of "
                 "list order, or a broken pair)",
                 (unsigned long long)i, ov[i], rv[i]);
        return 1;
    }
    return 0;
}

/* The fewest bytes: every key (and value) read once and written once. */
static void merge_work(const struct pb_case *c, double *elements, double *bytes) {
    struct pb_merge_shape s = shape_of(c);
    *elements = (double)s.n;
    *bytes = (double)s.n * 2 * (double)pb_dtype_size(s.dtype) + (s.pairs ? s.n * 8.0 : 0);
}

/* Input, output and two ping-pong buffers (the merge tree), offsets, and CUB's scratch. */
static size_t merge_device_bytes(const struct pb_case *c) {
    struct pb_merge_shape s = shape_of(c);
    size_t per_key = pb_dtype_size(s.dtype) + (s.pairs ? 4 : 0);
    return s.n * per_key * 4 + ((size_t)s.k + 1) * 8 * 4 + (64u << 20);
}

const struct pb_primitive pb_primitive_merge = {
    .name = "merge",
    .summary = "k sorted lists of any sizes merged into one, stable (seed 000)",
    .axes = merge_axes,
    .naxes = (int)(sizeof merge_axes / sizeof merge_axes[0]),
    .make_input = merge_make_input,
    .free_input = merge_free_input,
    .output_bytes = merge_output_bytes,
    .reference = merge_reference,
    .verify = merge_verify,
    .work = merge_work,
    .device_bytes = merge_device_bytes,
};
