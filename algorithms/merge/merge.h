/* The k-way merge primitive (seed 000): k sorted lists of any sizes (empty ones too)
 * merged into one sorted list, stable: equal keys keep the order list index, then
 * position. Keys u32, i32, f32, u64 or f64 (the seed's); optionally a u32 value per key
 * (its index in the concatenated input), which travels with the key. What every
 * backend shares. */
#ifndef PB_MERGE_H
#define PB_MERGE_H

#include <stdbool.h>
#include <stdint.h>

#include "primbench.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a case's list sizes are drawn (the `sizes` axis). */
enum pb_merge_sizes {
    PB_MERGE_SIZES_UNIFORM, /* each uniform in 1..max (the seed's generator) */
    PB_MERGE_SIZES_EQUAL,   /* n / k each, the first n % k lists one more */
    PB_MERGE_SIZES_ZIPF,    /* list of rank r (shuffled) gets a share ~ 1/r */
    PB_MERGE_SIZES_EMPTY,   /* a quarter of the lists empty, the rest equal */
    PB_MERGE_SIZES_COUNT
};
extern const char *const pb_merge_sizes_names[]; /* NULL-terminated, by enum */

/* A case's lists: the sizes and where each list starts in the concatenation. */
struct pb_merge_shape {
    uint64_t n; /* keys in all lists */
    uint32_t k; /* lists */
    enum pb_dtype dtype;
    bool pairs;
    uint64_t *offsets; /* k + 1 entries: list i is [offsets[i], offsets[i + 1]) */
};
/* Fills s from the case (deterministic in the case's seed); s->offsets is malloc'ed. Returns
 * -1 (with a message) when the sizes cannot be made. */
int pb_merge_case_shape(const struct pb_case *c, struct pb_merge_shape *s, char *err,
                        size_t err_len);
void pb_merge_shape_free(struct pb_merge_shape *s);
/* List sizes for `sizes` with total n (or, uniform with max > 0, each in 1..max and n
 * their sum), into offsets[0..k]; deterministic in seed. Returns the total. */
uint64_t pb_merge_make_offsets(enum pb_merge_sizes how, uint32_t k, uint64_t n, uint64_t max,
                               uint64_t seed, uint64_t *offsets);

/* The input's extras: offsets on host and device, and the values when pairs. */
struct pb_merge_extra {
    struct pb_merge_shape shape;
    uint64_t *device_offsets;
    uint32_t *host_values; /* values[i] = i */
    uint32_t *device_values;
};

/* The host output: [keys: n x key size][values: n x u32, pairs only]. */
size_t pb_merge_values_offset(const struct pb_merge_shape *s);

/* Key comparison every backend merges by: integers by value, floats by value, so -0.0 and
 * +0.0 are equal (and keep their stable order); no NaNs. */
bool pb_merge_key_less(enum pb_dtype t, const void *keys, uint64_t i, uint64_t j);
bool pb_merge_key_less2(enum pb_dtype t, const void *a, uint64_t i, const void *b, uint64_t j);

/* The CPU merges, by the stable order, of in's lists into keys_out (and values_out, or
 * NULL): a binary heap of list heads (baselines/cpu/merge_cpu.c), and the seed's iterative
 * two-way merging. Return -1 when out of memory. */
int pb_merge_cpu_heap(enum pb_dtype t, const void *keys, const uint32_t *values,
                      const uint64_t *offsets, uint32_t k, void *keys_out, uint32_t *values_out);
int pb_merge_cpu_2way(enum pb_dtype t, const void *keys, const uint32_t *values,
                      const uint64_t *offsets, uint32_t k, void *keys_out, uint32_t *values_out);

#ifdef __cplusplus
}
#endif

#endif
