/* select/cpu: per row, a bounded max-heap for small k, otherwise introselect (three-way
 * quickselect, median-of-three pivots, a heap select past a depth limit) on (ordered
 * value, index) pairs; ties at the k-th value are cut by position in the partition, so
 * exactly k results. OpenMP over rows when batched. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select.h"
#include "select_order.h"

#define HEAP_MAX_K 256

struct ranked {
    uint64_t v;
    uint32_t i;
};

struct cpu_state {
    struct pb_select_case s;
    int threads;
    struct ranked **work; /* one buffer per thread: n pairs (introselect) or k (heap) */
};

static bool cpu_supports(const struct pb_case *c, char *why, size_t why_len) {
    if (!pb_select_supports(c, why, why_len)) return false;
    struct pb_select_case s;
    pb_select_case_of(c, &s);
    if (s.n * s.batch > (1ull << 28)) {
        snprintf(why, why_len, "the CPU baseline stops at 2^28 keys (its pairs need 16 B a key)");
        return false;
    }
    return true;
}

static bool uses_heap(const struct pb_select_case *s) { return s->k <= HEAP_MAX_K && s->k < s->n; }

static int cpu_prepare(struct pb_run *r) {
    struct cpu_state *st = calloc(1, sizeof *st);
    if (!st) return -1;
    r->state = st;
    pb_select_case_of(r->c, &st->s);
    st->threads = omp_get_max_threads();
    st->work = calloc((size_t)st->threads, sizeof *st->work);
    if (!st->work) return -1;
    size_t pairs = uses_heap(&st->s) ? st->s.k : st->s.n;
    for (int t = 0; t < st->threads; t++)
        if (!(st->work[t] = malloc(pairs * sizeof(struct ranked)))) return -1;
    return 0;
}

static void swap(struct ranked *a, struct ranked *b) {
    struct ranked t = *a;
    *a = *b;
    *b = t;
}

/* Max-heap on v: the root is the worst of the best k seen so far. */
static void sift_down(struct ranked *h, uint64_t size, uint64_t at) {
    for (;;) {
        uint64_t l = 2 * at + 1, big = at;
        if (l < size && h[l].v > h[big].v) big = l;
        if (l + 1 < size && h[l + 1].v > h[big].v) big = l + 1;
        if (big == at) return;
        swap(&h[at], &h[big]);
        at = big;
    }
}

/* The k best of a[0..n) moved to a[0..k) (heap order). */
static void heap_select(struct ranked *a, uint64_t n, uint64_t k) {
    for (uint64_t i = k / 2; i-- > 0;) sift_down(a, k, i);
    for (uint64_t i = k; i < n; i++)
        if (a[i].v < a[0].v) {
            swap(&a[0], &a[i]);
            sift_down(a, k, 0);
        }
}

/* Rearranges a[0..n) so that a[0..k) are the k best: three-way partitions (equal keys
 * gather in the middle, so massive ties end in one step). */
static void introselect(struct ranked *a, uint64_t n, uint64_t k) {
    int depth = 2 * 64;
    while (n > 16 && k > 0 && k < n) {
        if (depth-- == 0) {
            heap_select(a, n, k);
            return;
        }
        uint64_t x = a[0].v, y = a[n / 2].v, z = a[n - 1].v;
        uint64_t pivot = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
        uint64_t lt = 0, i = 0, gt = n; /* [0,lt) < pivot, [lt,i) == pivot, [gt,n) > pivot */
        while (i < gt) {
            if (a[i].v < pivot)
                swap(&a[lt++], &a[i++]);
            else if (a[i].v > pivot)
                swap(&a[i], &a[--gt]);
            else
                i++;
        }
        if (k <= lt) {
            n = lt;
        } else if (k <= gt) {
            return; /* the k-th is the pivot: a[0..k) are the k best */
        } else {
            a += gt;
            k -= gt;
            n -= gt;
        }
    }
    if (k == 0 || k >= n) return;
    for (uint64_t i = 1; i < n; i++) /* insertion sort of the small rest */
        for (uint64_t j = i; j > 0 && a[j].v < a[j - 1].v; j--) swap(&a[j], &a[j - 1]);
}

static int by_value(const void *pa, const void *pb) {
    const struct ranked *a = pa, *b = pb;
    return a->v < b->v ? -1 : a->v > b->v;
}

static void select_row(const struct pb_select_case *s, const void *keys, uint64_t row,
                       struct ranked *w, char *out) {
    uint64_t first = row * s->n;
    if (uses_heap(s)) {
        for (uint64_t i = 0; i < s->k; i++)
            w[i] =
                (struct ranked){pb_order_key(s->dtype, keys, first + i, s->largest), (uint32_t)i};
        for (uint64_t i = s->k / 2; i-- > 0;) sift_down(w, s->k, i);
        for (uint64_t i = s->k; i < s->n; i++) {
            uint64_t v = pb_order_key(s->dtype, keys, first + i, s->largest);
            if (v >= w[0].v) continue;
            w[0] = (struct ranked){v, (uint32_t)i};
            sift_down(w, s->k, 0);
        }
    } else {
        for (uint64_t i = 0; i < s->n; i++)
            w[i] =
                (struct ranked){pb_order_key(s->dtype, keys, first + i, s->largest), (uint32_t)i};
        introselect(w, s->n, s->k);
    }
    if (s->sorted) qsort(w, s->k, sizeof *w, by_value);
    size_t ks = pb_dtype_size(s->dtype);
    uint32_t *index = s->with_index ? (uint32_t *)(out + pb_select_index_offset(s)) : NULL;
    for (uint64_t j = 0; j < s->k; j++) {
        uint64_t at = row * s->k + j;
        memcpy(out + at * ks, (const char *)keys + (first + w[j].i) * ks, ks);
        if (index) index[at] = w[j].i;
    }
}

static int cpu_run(struct pb_run *r) {
    struct cpu_state *st = r->state;
    const struct pb_select_case *s = &st->s;
#pragma omp parallel for schedule(dynamic) num_threads(st->threads) if (s->batch > 1)
    for (uint64_t row = 0; row < s->batch; row++)
        select_row(s, r->in->host, row, st->work[omp_get_thread_num()], r->out);
    return 0;
}

static int cpu_poison(struct pb_run *r) {
    struct cpu_state *st = r->state;
    memset(r->out, PB_POISON_BYTE, pb_select_output_bytes(&st->s));
    return 0;
}

static void cpu_release(struct pb_run *r) {
    struct cpu_state *st = r->state;
    if (!st) return;
    for (int t = 0; st->work && t < st->threads; t++) free(st->work[t]);
    free(st->work);
    free(st);
    r->state = NULL;
}

const struct pb_backend pb_backend_select_cpu = {
    .primitive = "select",
    .name = "select/cpu",
    .summary = "heap for k <= 256, else introselect (three-way partitions); OpenMP over rows",
    .target = PB_TARGET_CPU,
    .supports = cpu_supports,
    .prepare = cpu_prepare,
    .poison = cpu_poison,
    .run = cpu_run,
    .release = cpu_release,
};
