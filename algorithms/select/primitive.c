/* The select primitive (seed 002): the k smallest (or largest) keys of each row, exactly k
 * of them (ties at the k-th value cut so the count is exact), unordered or sorted, with
 * their indices on request. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datagen.h"
#include "input_keys.h"
#include "select.h"

static const char *const select_dtypes[] = {"u8",  "u16", "u32", "u64", "i8", "i16",
                                            "i32", "i64", "f32", "f64", NULL};
/* sparse: the full key range (floats: [-1, 1)), the seed's; dense: keys modulo 300. */
static const char *const select_dists[] = {"sparse", "dense",     "normal",
                                           "sorted", "all-equal", NULL};
static const char *const k_rules[] = {"fixed", "half", "whole", NULL};
static const char *const orders[] = {"min", "max", NULL};
static const char *const output_kinds[] = {"unordered", "sorted", NULL};
static const char *const yes_no[] = {"no", "yes", NULL};

/* Input-shaping axes first, so cases sharing an input are adjacent in a sweep. */
static const struct pb_axis select_axes[] = {
    {.name = "n",
     .help = "keys per row",
     .kind = PB_AXIS_INT,
     .min = 1,
     .max = 2147483648LL,
     .default_value = "1048576",
     .shapes_input = true},
    {.name = "batch",
     .help = "rows, each selected independently (n keys each)",
     .kind = PB_AXIS_INT,
     .min = 1,
     .max = 65535,
     .default_value = "1",
     .shapes_input = true},
    {.name = "dtype",
     .help = "key type (floats: NaN after every number)",
     .kind = PB_AXIS_CHOICE,
     .choices = select_dtypes,
     .default_value = "u32",
     .shapes_input = true},
    {.name = "distribution",
     .help = "sparse (full range), dense (keys modulo 300), normal, sorted, all-equal",
     .kind = PB_AXIS_CHOICE,
     .choices = select_dists,
     .default_value = "sparse",
     .shapes_input = true},
    {.name = "k",
     .help = "results per row under k_rule fixed (clamped to n)",
     .kind = PB_AXIS_INT,
     .min = 1,
     .max = 2147483648LL,
     .default_value = "1024"},
    {.name = "k_rule",
     .help = "fixed (the k axis), half (k = n/2), whole (k = n)",
     .kind = PB_AXIS_CHOICE,
     .choices = k_rules,
     .default_value = "fixed"},
    {.name = "order",
     .help = "min (the k smallest, the seed's) or max (the k largest)",
     .kind = PB_AXIS_CHOICE,
     .choices = orders,
     .default_value = "min"},
    {.name = "output",
     .help = "unordered (the seed's) or sorted (best first)",
     .kind = PB_AXIS_CHOICE,
     .choices = output_kinds,
     .default_value = "unordered"},
    {.name = "with_index",
     .help = "also return each key's index in its row",
     .kind = PB_AXIS_CHOICE,
     .choices = yes_no,
     .default_value = "no"},
};

void pb_select_case_of(const struct pb_case *c, struct pb_select_case *s) {
    memset(s, 0, sizeof *s);
    s->dtype = PB_U32;
    pb_dtype_parse(pb_case_choice(c, "dtype"), &s->dtype);
    s->n = (uint64_t)pb_case_int(c, "n");
    s->batch = (uint32_t)pb_case_int(c, "batch");
    const char *rule = pb_case_choice(c, "k_rule");
    uint64_t k = (uint64_t)pb_case_int(c, "k");
    if (strcmp(rule, "half") == 0)
        k = s->n / 2 ? s->n / 2 : 1;
    else if (strcmp(rule, "whole") == 0)
        k = s->n;
    s->k = k < s->n ? k : s->n;
    s->largest = strcmp(pb_case_choice(c, "order"), "max") == 0;
    s->sorted = strcmp(pb_case_choice(c, "output"), "sorted") == 0;
    s->with_index = strcmp(pb_case_choice(c, "with_index"), "yes") == 0;
}

/* Indices are uint32 and the whole input is one allocation of batch * n keys. */
bool pb_select_supports(const struct pb_case *c, char *why, size_t why_len) {
    struct pb_select_case s;
    pb_select_case_of(c, &s);
    if (s.n > 4294967295ull) {
        snprintf(why, why_len, "n = %llu keys per row exceeds uint32 indices",
                 (unsigned long long)s.n);
        return false;
    }
    if (s.n * s.batch > (1ull << 34)) {
        snprintf(why, why_len, "batch * n = %llu keys is more than 2^34",
                 (unsigned long long)(s.n * s.batch));
        return false;
    }
    return true;
}

size_t pb_select_keys_bytes(const struct pb_select_case *s) {
    return (size_t)s->batch * s->k * pb_dtype_size(s->dtype);
}

size_t pb_select_index_offset(const struct pb_select_case *s) {
    return (pb_select_keys_bytes(s) + 7) & ~(size_t)7;
}

/* The reference buffer has the same size and holds one summary per row at its start. */
size_t pb_select_output_bytes(const struct pb_select_case *s) {
    size_t out = pb_select_index_offset(s) + (s->with_index ? (size_t)s->batch * s->k * 4 : 0);
    size_t summaries = (size_t)s->batch * sizeof(struct pb_select_row_summary);
    return out > summaries ? out : summaries;
}

static enum pb_dist dist_of(const char *name, uint64_t *unique) {
    *unique = 300;
    if (strcmp(name, "dense") == 0) return PB_DIST_FEW_UNIQUE;
    if (strcmp(name, "normal") == 0) return PB_DIST_NORMAL;
    if (strcmp(name, "sorted") == 0) return PB_DIST_SORTED;
    if (strcmp(name, "all-equal") == 0) return PB_DIST_ALL_EQUAL;
    return PB_DIST_UNIFORM;
}

static int select_make_input(const struct pb_case *c, bool want_device, struct pb_input *in,
                             char *err, size_t err_len) {
    struct pb_select_case s;
    pb_select_case_of(c, &s);
    struct pb_gen_spec spec = {
        .dtype = s.dtype, .n = s.n * s.batch, .seed = c->seed, .stream = pb_case_input_stream(c)};
    spec.dist = dist_of(pb_case_choice(c, "distribution"), &spec.unique);
    if (pb_input_keys_host(in, &spec, err, err_len) != 0) return -1;
    if (!want_device) return 0;
    return pb_input_device_ready(pb_input_keys_device(in, &spec), in, err, err_len);
}

static void select_free_input(struct pb_input *in) { pb_input_keys_free(in); }

static size_t select_output_bytes(const struct pb_case *c) {
    struct pb_select_case s;
    pb_select_case_of(c, &s);
    return pb_select_output_bytes(&s);
}

static int select_reference(const struct pb_case *c, const struct pb_input *in, void *ref) {
    struct pb_select_case s;
    pb_select_case_of(c, &s);
    return pb_select_reference_rows(&s, in->host, ref);
}

static int select_verify(const struct pb_case *c, const struct pb_input *in, const void *ref,
                         const void *out, char *why, size_t why_len) {
    struct pb_select_case s;
    pb_select_case_of(c, &s);
    return pb_select_verify_rows(&s, in->host, ref, out, why, why_len);
}

/* The fewest bytes: every key read once (the k results are not counted). */
static void select_work(const struct pb_case *c, double *elements, double *bytes) {
    struct pb_select_case s;
    pb_select_case_of(c, &s);
    *elements = (double)s.n * s.batch;
    *bytes = *elements * (double)pb_dtype_size(s.dtype);
}

/* Input, plus the largest backend's scratch: cub-sort's sorted copy of ordered keys and
 * indices, double-buffered (24 bytes per key at most), and the outputs. */
static size_t select_device_bytes(const struct pb_case *c) {
    struct pb_select_case s;
    pb_select_case_of(c, &s);
    size_t keys = (size_t)s.n * s.batch;
    return keys * pb_dtype_size(s.dtype) + keys * 24 + 2 * pb_select_output_bytes(&s) + (64u << 20);
}

const struct pb_primitive pb_primitive_select = {
    .name = "select",
    .summary = "top-k: the k smallest or largest keys of each row, exactly k (seed 002)",
    .axes = select_axes,
    .naxes = (int)(sizeof select_axes / sizeof select_axes[0]),
    .make_input = select_make_input,
    .free_input = select_free_input,
    .output_bytes = select_output_bytes,
    .reference = select_reference,
    .verify = select_verify,
    .work = select_work,
    .device_bytes = select_device_bytes,
};
