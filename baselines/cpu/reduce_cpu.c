/* reduce/cpu: a good multicore CPU reduction. Chunks of CHUNK keys are reduced with
 * SIMD-friendly loops in the key's own accumulator, each chunk by one thread; chunk
 * results are combined in the widest type (float sums in double, so long inputs do
 * not lose precision to one long serial float sum). */
#include <stdlib.h>
#include <string.h>

#include "reduce.h"

#define CHUNK 4096

struct cpu_state {
    enum pb_reduce_op op;
    struct pb_reduce_result result;
};

#define CPU_REDUCE_FOR(T, ACC, IS_FLOAT)                                                           \
    static void cpu_reduce_##T(const T *x, uint64_t n, enum pb_reduce_op op,                       \
                               struct pb_reduce_result *res) {                                     \
        uint64_t chunks = (n + CHUNK - 1) / CHUNK;                                                 \
        if (op == PB_REDUCE_SUM) {                                                                 \
            double fsum = 0;                                                                       \
            uint64_t isum = 0;                                                                     \
            _Pragma(                                                                               \
                "omp parallel for schedule(static) reduction(+ : fsum, isum)") for (uint64_t c =   \
                                                                                        0;         \
                                                                                    c < chunks;    \
                                                                                    c++) {         \
                uint64_t end = (c + 1) * CHUNK < n ? (c + 1) * CHUNK : n;                          \
                ACC part = 0;                                                                      \
                _Pragma("omp simd reduction(+ : part)") for (uint64_t i = c * CHUNK; i < end; i++) \
                    part += (ACC)x[i];                                                             \
                if (IS_FLOAT)                                                                      \
                    fsum += (double)part;                                                          \
                else                                                                               \
                    isum += (uint64_t)part;                                                        \
            }                                                                                      \
            res->as_float = fsum;                                                                  \
            res->as_int = (int64_t)isum;                                                           \
            return;                                                                                \
        }                                                                                          \
        /* min, max, argmin: per-thread best, merged in thread order so ties keep the */           \
        /* first index. */                                                                         \
        T best = x[0];                                                                             \
        uint64_t best_index = 0;                                                                   \
        _Pragma("omp parallel") {                                                                  \
            T my_best = x[0];                                                                      \
            uint64_t my_index = 0;                                                                 \
            _Pragma("omp for schedule(static) nowait") for (uint64_t c = 0; c < chunks; c++) {     \
                uint64_t end = (c + 1) * CHUNK < n ? (c + 1) * CHUNK : n;                          \
                for (uint64_t i = c * CHUNK; i < end; i++) {                                       \
                    bool better = op == PB_REDUCE_MAX ? x[i] > my_best : x[i] < my_best;           \
                    if (better) {                                                                  \
                        my_best = x[i];                                                            \
                        my_index = i;                                                              \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
            _Pragma("omp critical") {                                                              \
                bool better = op == PB_REDUCE_MAX ? my_best > best : my_best < best;               \
                if (better || (my_best == best && my_index < best_index)) {                        \
                    best = my_best;                                                                \
                    best_index = my_index;                                                         \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        res->as_float = IS_FLOAT ? (double)best : 0;                                               \
        res->as_int = IS_FLOAT ? 0 : (int64_t)best;                                                \
        res->index = op == PB_REDUCE_ARGMIN ? (int64_t)best_index : 0;                             \
    }

CPU_REDUCE_FOR(uint32_t, uint64_t, 0)
CPU_REDUCE_FOR(int32_t, uint64_t, 0) /* integer sums wrap: unsigned arithmetic */
CPU_REDUCE_FOR(uint64_t, uint64_t, 0)
CPU_REDUCE_FOR(int64_t, uint64_t, 0)
CPU_REDUCE_FOR(float, float, 1)
CPU_REDUCE_FOR(double, double, 1)

static int cpu_prepare(struct pb_run *r) {
    struct cpu_state *s = calloc(1, sizeof *s);
    if (!s) return -1;
    s->op = pb_reduce_case_op(r->c);
    r->state = s;
    return 0;
}

static int cpu_poison(struct pb_run *r) {
    struct cpu_state *s = r->state;
    /* a run that writes nothing cannot pass */
    memset(&s->result, PB_POISON_BYTE, sizeof s->result);
    return 0;
}

static int cpu_run(struct pb_run *r) {
    struct cpu_state *s = r->state;
    const void *x = r->in->host;
    uint64_t n = r->in->n;
    memset(&s->result, 0, sizeof s->result);
    switch (r->in->dtype) {
    case PB_U32:
        cpu_reduce_uint32_t(x, n, s->op, &s->result);
        break;
    case PB_I32:
        cpu_reduce_int32_t(x, n, s->op, &s->result);
        break;
    case PB_U64:
        cpu_reduce_uint64_t(x, n, s->op, &s->result);
        break;
    case PB_I64:
        cpu_reduce_int64_t(x, n, s->op, &s->result);
        break;
    case PB_F32:
        cpu_reduce_float(x, n, s->op, &s->result);
        break;
    case PB_F64:
        cpu_reduce_double(x, n, s->op, &s->result);
        break;
    default:
        return -1;
    }
    return 0;
}

static int cpu_collect(struct pb_run *r) {
    struct cpu_state *s = r->state;
    memcpy(r->out, &s->result, sizeof s->result);
    return 0;
}

static void cpu_release(struct pb_run *r) {
    free(r->state);
    r->state = NULL;
}

const struct pb_backend pb_backend_reduce_cpu = {
    .primitive = "reduce",
    .name = "reduce/cpu",
    .summary = "OpenMP over chunks, SIMD inside each chunk; float sums combined in double",
    .target = PB_TARGET_CPU,
    .supports = pb_reduce_supports,
    .prepare = cpu_prepare,
    .poison = cpu_poison,
    .run = cpu_run,
    .collect = cpu_collect,
    .release = cpu_release,
};
