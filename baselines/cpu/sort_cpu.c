/* sort/cpu: every segment sorted by one core (insertion sort up to 32 keys, an LSD radix
 * sort past that: sort_cpu_core.c), segments spread over all cores by OpenMP. One whole
 * array is sorted by one core. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "sort.h"

struct cpu_state {
    struct pb_sort_shape shape;
    int threads;
    size_t scratch_bytes; /* per thread */
    char *scratch;
};

static int cpu_prepare(struct pb_run *r) {
    struct cpu_state *s = calloc(1, sizeof *s);
    if (!s) return -1;
    r->state = s;
    pb_sort_case_shape(r->c, &s->shape);
    s->threads = omp_get_max_threads();
    s->scratch_bytes = pb_sort_cpu_scratch_bytes(s->shape.length);
    s->scratch = malloc(s->scratch_bytes * (size_t)s->threads);
    return s->scratch ? 0 : -1;
}

static int cpu_poison(struct pb_run *r) {
    struct cpu_state *s = r->state;
    size_t bytes = pb_sort_values_offset(&s->shape) + (s->shape.pairs ? s->shape.n * 4 : 0);
    memset(r->out, PB_POISON_BYTE, bytes);
    return 0;
}

static int cpu_run(struct pb_run *r) {
    struct cpu_state *s = r->state;
    const struct pb_sort_shape *sh = &s->shape;
    const struct pb_sort_extra *x = r->in->extra;
    size_t ks = pb_dtype_size(sh->dtype);
    char *keys = r->out;
    uint32_t *values = sh->pairs ? (uint32_t *)(keys + pb_sort_values_offset(sh)) : NULL;
#pragma omp parallel num_threads(s->threads)
    {
        char *scratch = s->scratch + (size_t)omp_get_thread_num() * s->scratch_bytes;
#pragma omp for schedule(dynamic, 64)
        for (uint64_t g = 0; g < sh->count; g++) {
            uint64_t b = g * sh->length, e = b + sh->length < sh->n ? b + sh->length : sh->n;
            memcpy(keys + b * ks, (const char *)r->in->host + b * ks, (e - b) * ks);
            if (values) memcpy(values + b, x->host_values + b, (e - b) * sizeof *values);
            pb_sort_cpu_run(sh->dtype, sh->descending, keys + b * ks, values ? values + b : NULL,
                            e - b, scratch);
        }
    }
    return 0;
}

static void cpu_release(struct pb_run *r) {
    struct cpu_state *s = r->state;
    if (!s) return;
    free(s->scratch);
    free(s);
    r->state = NULL;
}

const struct pb_backend pb_backend_sort_cpu = {
    .primitive = "sort",
    .name = "sort/cpu",
    .summary = "per segment: insertion sort up to 32 keys, LSD radix sort past that; OpenMP "
               "over segments",
    .target = PB_TARGET_CPU,
    .supports = pb_sort_supports,
    .prepare = cpu_prepare,
    .poison = cpu_poison,
    .run = cpu_run,
    .release = cpu_release,
};
