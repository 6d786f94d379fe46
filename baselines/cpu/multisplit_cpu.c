/* multisplit/cpu: a two-pass stable counting sort on every core. Each thread counts its
 * contiguous slice, the offsets are laid out bin by bin and thread by thread (so slices
 * keep their order inside each bin), then each thread places its slice. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "bucket_rules.h"

struct cpu_state {
    struct pb_bucket bucket;
    struct pb_multisplit_layout layout;
    int threads;
    uint32_t *next;  /* threads x bins: each thread's next position per bin */
    uint32_t *cells; /* splitters: the cell index, as the GPU backends have it */
};

static int cpu_prepare(struct pb_run *r) {
    struct cpu_state *s = calloc(1, sizeof *s);
    if (!s) return -1;
    r->state = s;
    const struct pb_multisplit_extra *x = r->in->extra;
    pb_multisplit_case_bucket(r->c, r->in, &s->bucket);
    pb_multisplit_layout(r->in->n, s->bucket.bins, pb_dtype_size(r->in->dtype), x->pairs,
                         &s->layout);
    s->threads = omp_get_max_threads();
    s->next = malloc((size_t)s->threads * s->bucket.bins * sizeof *s->next);
    if (!s->next) return -1;
    if (s->bucket.kind == PB_BUCKET_SPLITTERS &&
        !(s->cells = pb_splitter_cells_new(&s->bucket, &x->range, PB_SPLITTER_CELLS_PER_BIN)))
        return -1;
    return 0;
}

static int cpu_poison(struct pb_run *r) {
    struct cpu_state *s = r->state;
    memset(r->out, PB_POISON_BYTE, s->layout.total);
    return 0;
}

static int cpu_run(struct pb_run *r) {
    struct cpu_state *s = r->state;
    const struct pb_multisplit_extra *x = r->in->extra;
    const uint64_t n = r->in->n;
    const uint32_t bins = s->bucket.bins;
    const size_t ks = pb_dtype_size(r->in->dtype);
    const int threads = s->threads;
    char *out = r->out;
    uint32_t *offsets = (uint32_t *)(out + s->layout.offsets);
    char *keys = out + s->layout.keys;
    uint32_t *values = (uint32_t *)(out + s->layout.values);
    const char *in = r->in->host;
#pragma omp parallel num_threads(threads)
    {
        int t = omp_get_thread_num();
        uint64_t begin = n * (uint64_t)t / threads, end = n * (uint64_t)(t + 1) / threads;
        uint32_t *mine = s->next + (size_t)t * bins;
        memset(mine, 0, bins * sizeof *mine);
        for (uint64_t i = begin; i < end; i++) mine[pb_bucket_at(&s->bucket, in, i)]++;
#pragma omp barrier
#pragma omp single
        {
            uint32_t start = 0;
            for (uint32_t k = 0; k < bins; k++) {
                offsets[k] = start;
                for (int u = 0; u < threads; u++) {
                    uint32_t count = s->next[(size_t)u * bins + k];
                    s->next[(size_t)u * bins + k] = start;
                    start += count;
                }
            }
        }
        for (uint64_t i = begin; i < end; i++) {
            uint32_t dest = mine[pb_bucket_at(&s->bucket, in, i)]++;
            memcpy(keys + (size_t)dest * ks, in + i * ks, ks);
            if (x->pairs) values[dest] = x->host_values[i];
        }
    }
    return 0;
}

static void cpu_release(struct pb_run *r) {
    struct cpu_state *s = r->state;
    if (!s) return;
    free(s->next);
    free(s->cells);
    free(s);
    r->state = NULL;
}

const struct pb_backend pb_backend_multisplit_cpu = {
    .primitive = "multisplit",
    .name = "multisplit/cpu",
    .summary = "two-pass stable counting sort, one contiguous slice per thread",
    .target = PB_TARGET_CPU,
    .supports = pb_multisplit_supports,
    .prepare = cpu_prepare,
    .poison = cpu_poison,
    .run = cpu_run,
    .release = cpu_release,
};
