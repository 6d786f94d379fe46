/* merge/cpu-heap and merge/cpu-2way, and the key order every merge shares on the host.
 * Each merge is written once per key type by a macro, so the inner loops compare keys
 * directly rather than through a function pointer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"

#define FOR_EACH_MERGE_TYPE(X)                                                                     \
    X(PB_U32, uint32_t, u32)                                                                       \
    X(PB_I32, int32_t, i32)                                                                        \
    X(PB_F32, float, f32)                                                                          \
    X(PB_U64, uint64_t, u64)                                                                       \
    X(PB_F64, double, f64)

bool pb_merge_key_less2(enum pb_dtype t, const void *a, uint64_t i, const void *b, uint64_t j) {
    switch (t) {
#define LESS(TAG, T, SUFFIX)                                                                       \
    case TAG:                                                                                      \
        return ((const T *)a)[i] < ((const T *)b)[j];
        FOR_EACH_MERGE_TYPE(LESS)
#undef LESS
    default:
        return false;
    }
}

bool pb_merge_key_less(enum pb_dtype t, const void *keys, uint64_t i, uint64_t j) {
    return pb_merge_key_less2(t, keys, i, keys, j);
}

/* A binary min-heap of list indices ordered by (head key, list index): the list index
 * breaks ties, which with in-order consumption of each list makes the merge stable. */
#define HEAP_MERGE(TAG, T, SUFFIX)                                                                 \
    static int heap_##SUFFIX(const T *keys, const uint32_t *values, const uint64_t *offsets,       \
                             uint32_t k, T *out, uint32_t *out_values) {                           \
        uint32_t *heap = malloc(((size_t)k + 1) * sizeof *heap);                                   \
        uint64_t *at = malloc(((size_t)k + 1) * sizeof *at);                                       \
        if (!heap || !at) {                                                                        \
            free(heap);                                                                            \
            free(at);                                                                              \
            return -1;                                                                             \
        }                                                                                          \
        uint32_t size = 0;                                                                         \
        for (uint32_t l = 0; l < k; l++) {                                                         \
            at[l] = offsets[l];                                                                    \
            if (offsets[l] == offsets[l + 1]) continue;                                            \
            uint32_t hole = size++; /* sift up */                                                  \
            while (hole > 0) {                                                                     \
                uint32_t parent = (hole - 1) / 2, p = heap[parent];                                \
                if (!(keys[at[l]] < keys[at[p]])) break; /* equal: the lower list stays up */      \
                heap[hole] = p;                                                                    \
                hole = parent;                                                                     \
            }                                                                                      \
            heap[hole] = l;                                                                        \
        }                                                                                          \
        for (uint64_t o = 0; size > 0; o++) {                                                      \
            uint32_t top = heap[0];                                                                \
            out[o] = keys[at[top]];                                                                \
            if (out_values) out_values[o] = values[at[top]];                                       \
            uint32_t moving = top;                                                                 \
            if (++at[top] == offsets[top + 1]) moving = heap[--size];                              \
            if (size == 0) break;                                                                  \
            T key = keys[at[moving]];                                                              \
            uint32_t hole = 0; /* sift down */                                                     \
            for (;;) {                                                                             \
                uint32_t child = 2 * hole + 1;                                                     \
                if (child >= size) break;                                                          \
                uint32_t c = heap[child];                                                          \
                if (child + 1 < size) {                                                            \
                    uint32_t d = heap[child + 1];                                                  \
                    if (keys[at[d]] < keys[at[c]] || (!(keys[at[c]] < keys[at[d]]) && d < c)) {    \
                        c = d;                                                                     \
                        child++;                                                                   \
                    }                                                                              \
                }                                                                                  \
                if (key < keys[at[c]] || (!(keys[at[c]] < key) && moving < c)) break;              \
                heap[hole] = c;                                                                    \
                hole = child;                                                                      \
            }                                                                                      \
            heap[hole] = moving;                                                                   \
        }                                                                                          \
        free(heap);                                                                                \
        free(at);                                                                                  \
        return 0;                                                                                  \
    }
FOR_EACH_MERGE_TYPE(HEAP_MERGE)
#undef HEAP_MERGE

/* Two sorted runs a and b into out, ties from a first (a's lists come before b's). */
#define TWO_WAY(TAG, T, SUFFIX)                                                                    \
    static void two_way_##SUFFIX(const T *a, const uint32_t *av, uint64_t na, const T *b,          \
                                 const uint32_t *bv, uint64_t nb, T *out, uint32_t *ov) {          \
        uint64_t i = 0, j = 0, o = 0;                                                              \
        while (i < na && j < nb) {                                                                 \
            bool take_b = b[j] < a[i];                                                             \
            out[o] = take_b ? b[j] : a[i];                                                         \
            if (ov) ov[o] = take_b ? bv[j] : av[i];                                                \
            o++;                                                                                   \
            j += take_b;                                                                           \
            i += !take_b;                                                                          \
        }                                                                                          \
        memcpy(out + o, a + i, (na - i) * sizeof(T));                                              \
        memcpy(out + o + (na - i), b + j, (nb - j) * sizeof(T));                                   \
        if (ov) {                                                                                  \
            memcpy(ov + o, av + i, (na - i) * sizeof *ov);                                         \
            memcpy(ov + o + (na - i), bv + j, (nb - j) * sizeof *ov);                              \
        }                                                                                          \
    }
FOR_EACH_MERGE_TYPE(TWO_WAY)
#undef TWO_WAY

/* The seed's CPU baseline: neighbouring runs merged two at a time, round after round,
 * until one run is left; ping-pong between out and a scratch copy. */
static int two_way_rounds(enum pb_dtype t, const void *keys, const uint32_t *values,
                          const uint64_t *offsets, uint32_t k, void *keys_out,
                          uint32_t *values_out) {
    size_t ks = pb_dtype_size(t);
    uint64_t n = offsets[k];
    uint64_t *bounds = malloc(((size_t)k + 1) * sizeof *bounds);
    char *buf = malloc(n * ks + 1);
    uint32_t *vbuf = values_out ? malloc(n * sizeof *vbuf + 1) : NULL;
    if (!bounds || !buf || (values_out && !vbuf)) {
        free(bounds);
        free(buf);
        free(vbuf);
        return -1;
    }
    memcpy(bounds, offsets, ((size_t)k + 1) * sizeof *bounds);
    /* Which buffer holds the runs: pick the start so the last round lands in keys_out. */
    uint32_t rounds = 0;
    for (uint32_t runs = k; runs > 1; runs = (runs + 1) / 2) rounds++;
    char *src = rounds % 2 ? buf : keys_out, *dst = rounds % 2 ? keys_out : buf;
    uint32_t *vsrc = rounds % 2 ? vbuf : values_out, *vdst = rounds % 2 ? values_out : vbuf;
    memcpy(src, keys, n * ks);
    if (values_out) memcpy(vsrc, values, n * sizeof *vsrc);
    for (uint32_t runs = k; runs > 1; runs = (runs + 1) / 2) {
#pragma omp parallel for schedule(dynamic, 1)
        for (uint32_t r = 0; r < runs; r += 2) {
            uint64_t b = bounds[r], m = bounds[r + 1], e = r + 2 <= runs ? bounds[r + 2] : m;
            switch (t) {
#define CALL(TAG, T, SUFFIX)                                                                       \
    case TAG:                                                                                      \
        two_way_##SUFFIX((const T *)src + b, vsrc ? vsrc + b : NULL, m - b, (const T *)src + m,    \
                         vsrc ? vsrc + m : NULL, e - m, (T *)dst + b, vdst ? vdst + b : NULL);     \
        break;
                FOR_EACH_MERGE_TYPE(CALL)
#undef CALL
            default:
                break;
            }
        }
        for (uint32_t r = 0; r < runs; r += 2)
            bounds[r / 2 + 1] = r + 2 <= runs ? bounds[r + 2] : bounds[r + 1];
        char *tk = src;
        src = dst;
        dst = tk;
        uint32_t *tv = vsrc;
        vsrc = vdst;
        vdst = tv;
    }
    free(bounds);
    free(buf);
    free(vbuf);
    return 0;
}

int pb_merge_cpu_heap(enum pb_dtype t, const void *keys, const uint32_t *values,
                      const uint64_t *offsets, uint32_t k, void *keys_out, uint32_t *values_out) {
    switch (t) {
#define CALL(TAG, T, SUFFIX)                                                                       \
    case TAG:                                                                                      \
        return heap_##SUFFIX(keys, values, offsets, k, keys_out, values_out);
        FOR_EACH_MERGE_TYPE(CALL)
#undef CALL
    default:
        return -1;
    }
}

int pb_merge_cpu_2way(enum pb_dtype t, const void *keys, const uint32_t *values,
                      const uint64_t *offsets, uint32_t k, void *keys_out, uint32_t *values_out) {
    return two_way_rounds(t, keys, values, offsets, k, keys_out, values_out);
}

/* ---- the two CPU backends ---------------------------------------------------------- */

static int cpu_prepare(struct pb_run *r) {
    (void)r;
    return 0;
}

static int cpu_poison(struct pb_run *r) {
    const struct pb_merge_extra *x = r->in->extra;
    const struct pb_merge_shape *s = &x->shape;
    memset(r->out, PB_POISON_BYTE, pb_merge_values_offset(s) + (s->pairs ? s->n * 4 : 0));
    return 0;
}

static int cpu_run_with(struct pb_run *r, bool heap) {
    const struct pb_merge_extra *x = r->in->extra;
    const struct pb_merge_shape *s = &x->shape;
    uint32_t *values = s->pairs ? (uint32_t *)((char *)r->out + pb_merge_values_offset(s)) : NULL;
    int rc = (heap ? pb_merge_cpu_heap : pb_merge_cpu_2way)(s->dtype, r->in->host, x->host_values,
                                                            s->offsets, s->k, r->out, values);
    if (rc != 0) snprintf(r->err, sizeof r->err, "out of host memory");
    return rc;
}

static int heap_run(struct pb_run *r) { return cpu_run_with(r, true); }
static int two_way_run(struct pb_run *r) { return cpu_run_with(r, false); }
static int cpu_collect(struct pb_run *r) {
    (void)r;
    return 0;
}
static void cpu_release(struct pb_run *r) { (void)r; }

static bool cpu_supports(const struct pb_case *c, char *why, size_t why_len) {
    (void)c;
    (void)why;
    (void)why_len;
    return true;
}

const struct pb_backend pb_backend_merge_cpu_heap = {
    .primitive = "merge",
    .name = "merge/cpu-heap",
    .summary = "one core: a binary heap of the k list heads",
    .target = PB_TARGET_CPU,
    .supports = cpu_supports,
    .prepare = cpu_prepare,
    .poison = cpu_poison,
    .run = heap_run,
    .collect = cpu_collect,
    .release = cpu_release,
};

const struct pb_backend pb_backend_merge_cpu_2way = {
    .primitive = "merge",
    .name = "merge/cpu-2way",
    .summary = "the seed's CPU baseline: neighbouring lists merged two at a time, round by "
               "round (pairs of a round spread over the cores)",
    .target = PB_TARGET_CPU,
    .supports = cpu_supports,
    .prepare = cpu_prepare,
    .poison = cpu_poison,
    .run = two_way_run,
    .collect = cpu_collect,
    .release = cpu_release,
};
