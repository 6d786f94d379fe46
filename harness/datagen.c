/* Deterministic input generation on the host; the per-element rule is in datagen_rules.h. */
#include "datagen.h"

#include <math.h>
#include <string.h>

#include "datagen_rules.h"

const char *const pb_dist_names[] = {
    [PB_DIST_UNIFORM] = "uniform",
    [PB_DIST_NORMAL] = "normal",
    [PB_DIST_BINOMIAL] = "binomial",
    [PB_DIST_ZIPF] = "zipf",
    [PB_DIST_SORTED] = "sorted",
    [PB_DIST_REVERSE] = "reverse",
    [PB_DIST_NEARLY_SORTED] = "nearly-sorted",
    [PB_DIST_FEW_UNIQUE] = "few-unique",
    [PB_DIST_ALL_EQUAL] = "all-equal",
    [PB_DIST_SKEWED] = "skewed",
    [PB_DIST_SIGNED_ZEROS] = "signed-zeros",
    [PB_DIST_COUNT] = NULL,
};

int pb_dist_parse(const char *name, enum pb_dist *out) {
    for (int d = 0; d < PB_DIST_COUNT; d++) {
        if (strcmp(name, pb_dist_names[d]) == 0) {
            *out = (enum pb_dist)d;
            return 0;
        }
    }
    return -1;
}

void pb_gen_prepare(const struct pb_gen_spec *s, struct pb_gen_rule *r) {
    memset(r, 0, sizeof *r);
    r->key = pb_mix64(s->seed + pb_mix64(s->stream + PB_GOLDEN_GAMMA));
    r->n = s->n;
    r->dist = (int)s->dist;
    uint64_t unique = s->unique ? s->unique : 1;
    /* sd of the sum of eight uniform 16-bit chunks: 8 * (65536^2 - 1) / 12 is the variance. */
    const double chunk_sum_sd = sqrt(8.0 * (65536.0 * 65536.0 - 1.0) / 12.0);
    double inv_n = s->n ? 1.0 / (double)s->n : 0.0;

    if (pb_dtype_is_float(s->dtype)) {
        int mantissa_bits = s->dtype == PB_F32 ? 24 : 53;
        r->uniform_shift = 64 - mantissa_bits;
        r->uniform_scale = ldexp(1.0, -(mantissa_bits - 1));
        r->zipf_classes = mantissa_bits;
        r->spread_scale = (s->dist == PB_DIST_BINOMIAL ? sqrt(2.0) / 2.0 : 1.0) / chunk_sum_sd;
        r->sorted_step = inv_n;
        r->few_count = unique;
        return;
    }

    int bits = (int)pb_dtype_size(s->dtype) * 8;
    bool is_signed = pb_dtype_is_signed(s->dtype);
    /* Signed minimum: -2^(bits-1) in 64-bit two's complement. */
    r->lo = is_signed ? ~(((uint64_t)1 << (bits - 1)) - 1) : 0;
    r->span = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
    uint64_t max_value = r->lo + r->span;
    r->mid = r->span - r->span / 2;
    r->uniform_shift = 64 - bits;
    r->zipf_classes = is_signed ? bits - 1 : bits;

    double sd = s->dist == PB_DIST_BINOMIAL ? sqrt((double)r->span) / 2.0 : (double)r->span / 8.0;
    r->spread_scale = sd / chunk_sum_sd;
    r->below_mid_limit = (double)r->mid;
    r->above_mid_limit = (double)(r->span - r->mid);

    r->sorted_limit = (double)r->span + 1.0;
    r->sorted_step = s->n ? r->sorted_limit / (double)s->n : 0.0;

    /* Distinct values 0..count-1, shifted down when they would pass the type's maximum. */
    r->few_count = r->span != UINT64_MAX && unique > r->span ? r->span + 1 : unique;
    uint64_t top = r->few_count - 1;
    r->few_base = top <= max_value ? 0 : max_value - top;
}

/* Elements per OpenMP work item: large enough to amortise scheduling, small enough to
 * balance across threads. */
#define PB_HOST_BLOCK 65536

/* One fill per key type, so that the dtype switch happens once per call. The rule is
 * copied to a local: stores through a char-typed out would otherwise force reloads. */
#define PB_DEFINE_FILL(NAME, T, VALUE_EXPR)                                                        \
    static void NAME(const struct pb_gen_rule *shared_rule, void *out_bytes) {                     \
        const struct pb_gen_rule rule = *shared_rule;                                              \
        const struct pb_gen_rule *r = &rule;                                                       \
        T *out = out_bytes;                                                                        \
        int64_t nblocks = (int64_t)((r->n + PB_HOST_BLOCK - 1) / PB_HOST_BLOCK);                   \
        _Pragma("omp parallel for schedule(static)") for (int64_t b = 0; b < nblocks; b++) {       \
            uint64_t begin = (uint64_t)b * PB_HOST_BLOCK;                                          \
            uint64_t end = r->n - begin < PB_HOST_BLOCK ? r->n : begin + PB_HOST_BLOCK;            \
            for (uint64_t i = begin; i < end; i++) {                                               \
                out[i] = VALUE_EXPR;                                                               \
            }                                                                                      \
        }                                                                                          \
    }

/* Signed types take the low bits of the two's-complement value (modular on gcc, clang
 * and nvcc alike). */
PB_DEFINE_FILL(fill_u8, uint8_t, (uint8_t)pb_int_value(r, i))
PB_DEFINE_FILL(fill_u16, uint16_t, (uint16_t)pb_int_value(r, i))
PB_DEFINE_FILL(fill_u32, uint32_t, (uint32_t)pb_int_value(r, i))
PB_DEFINE_FILL(fill_u64, uint64_t, pb_int_value(r, i))
PB_DEFINE_FILL(fill_i8, int8_t, (int8_t)(uint8_t)pb_int_value(r, i))
PB_DEFINE_FILL(fill_i16, int16_t, (int16_t)(uint16_t)pb_int_value(r, i))
PB_DEFINE_FILL(fill_i32, int32_t, (int32_t)(uint32_t)pb_int_value(r, i))
PB_DEFINE_FILL(fill_i64, int64_t, (int64_t)pb_int_value(r, i))
PB_DEFINE_FILL(fill_f32, float, pb_f32_value(r, i))
PB_DEFINE_FILL(fill_f64, double, pb_f64_value(r, i))

void pb_generate_host(const struct pb_gen_spec *s, void *out) {
    struct pb_gen_rule rule;
    pb_gen_prepare(s, &rule);
    switch (s->dtype) {
    case PB_U8:
        fill_u8(&rule, out);
        break;
    case PB_U16:
        fill_u16(&rule, out);
        break;
    case PB_U32:
        fill_u32(&rule, out);
        break;
    case PB_U64:
        fill_u64(&rule, out);
        break;
    case PB_I8:
        fill_i8(&rule, out);
        break;
    case PB_I16:
        fill_i16(&rule, out);
        break;
    case PB_I32:
        fill_i32(&rule, out);
        break;
    case PB_I64:
        fill_i64(&rule, out);
        break;
    case PB_F32:
        fill_f32(&rule, out);
        break;
    case PB_F64:
        fill_f64(&rule, out);
        break;
    default:
        break;
    }
}
