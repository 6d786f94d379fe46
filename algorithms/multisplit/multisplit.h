/* The multisplit primitive: what its backends share. */
#ifndef PB_MULTISPLIT_H
#define PB_MULTISPLIT_H

#include <stdint.h>

#include "primbench.h"

#ifdef __cplusplus
extern "C" {
#endif

enum pb_bucket_kind {
    PB_BUCKET_RANGE,  /* equal-width bins over [min, max] of the input (the seed's f(x)) */
    PB_BUCKET_MODULO, /* the key's unsigned bits modulo bins */
    /* bins - 1 sorted splitter keys, quantiles of a sample of the input; a key's bin is
     * the number of splitters <= it, found by binary search (sample sort's partition). */
    PB_BUCKET_SPLITTERS,
};

/* Splitter i (0 <= i < bins - 1) is sample[(i + 1) * samples / bins] of a sorted sample of
 * the input, so one sample serves every bin count; a cell index also keeps them compact. */
#define PB_SPLITTER_MAX_SAMPLES 65536u

/* A bucket function, with its constants: made once per input on the host, passed by
 * value to kernels. */
struct pb_bucket {
    int kind;  /* enum pb_bucket_kind */
    int dtype; /* enum pb_dtype of the keys */
    uint32_t bins;
    /* range: the range rule over bins; splitters with a cell index: over cells */
    uint64_t min_bits; /* integer keys: the input's minimum (two's complement bits) */
    /* integer keys: bins (or cells) / (max - min + 1) in 64.64 fixed point */
    uint64_t scale_whole, scale_frac;
    double fmin, fscale; /* float keys: min and bins (or cells) / (max - min) */
    /* splitters: the sorted sample, of the keys' type, in the memory of whoever evaluates
     * the function (host for the CPU, device for kernels) */
    const void *sample;
    uint32_t samples;
    /* splitters, optional on the host (NULL: search the sample), required by kernels: per
     * cell, its first splitter | the count of its splitters << 16, then (from
     * pb_splitter_entry_words(cells) words on) the bins - 1 splitters, compact
     * (pb_splitter_cells_new), in the same memory as sample */
    const uint32_t *cell_splitters;
    uint32_t cells;
};

/* The keys' smallest and largest values: integer keys as 64-bit two's complement
 * (sign-extended), float keys as doubles. */
struct pb_key_range {
    uint64_t min_bits, max_bits;
    double fmin, fmax;
};

/* The input of a multisplit case: keys (host, device) from the harness, values are the
 * element's index (u32) so that stability is visible in the output. */
struct pb_multisplit_extra {
    struct pb_key_range range;
    bool pairs; /* values travel with keys */
    uint32_t *host_values;
    uint32_t *device_values;
    /* a sorted strided sample of the keys, for the splitters bucket */
    void *host_sample, *device_sample;
    uint32_t samples;
};

/* Where each part of a multisplit result lies in the host output buffer:
 * [offsets: bins x u32][keys: n x key size][values: n x u32, pairs only]. */
struct pb_multisplit_layout {
    size_t offsets, keys, values, total;
};
void pb_multisplit_layout(uint64_t n, uint32_t bins, size_t key_size, bool pairs,
                          struct pb_multisplit_layout *out);

void pb_key_range_of(enum pb_dtype t, const void *keys, uint64_t n, struct pb_key_range *out);
void pb_bucket_make(enum pb_bucket_kind kind, enum pb_dtype t, uint32_t bins,
                    const struct pb_key_range *range, struct pb_bucket *out);
/* The range rule's constants in out (min_bits and scale_*, or fmin and fscale) for `count`
 * equal-width parts of the keys' range: a range bucket's bins, a splitter bucket's cells. */
void pb_bucket_range_rule(enum pb_dtype t, uint32_t count, const struct pb_key_range *range,
                          struct pb_bucket *out);
/* The sorted sample the splitters come from: min(n, PB_SPLITTER_MAX_SAMPLES) keys taken at
 * an even stride; sample must hold that many keys. Returns the count. */
uint32_t pb_splitter_sample(enum pb_dtype t, const void *keys, uint64_t n, void *sample);
/* Gives splitter bucket b (its sample on the host, bins <= 65536) a cell index over the
 * keys' range r, cells_per_bin cells a bin up to 16384 (0: one cell, a plain binary search
 * over the compact splitters): its rule in b, its b->cells entries and the compact
 * splitters in one block of pb_splitter_cells_bytes(b) that b->cell_splitters points to
 * and the caller frees (or copies to the device, pointing there instead). NULL, b
 * unchanged, when out of memory. */
#define PB_SPLITTER_CELLS_PER_BIN 16u
uint32_t *pb_splitter_cells_new(struct pb_bucket *b, const struct pb_key_range *r,
                                uint32_t cells_per_bin);
size_t pb_splitter_cells_bytes(const struct pb_bucket *b);
/* The bucket function of a case, from its input's key range. */
void pb_multisplit_case_bucket(const struct pb_case *c, const struct pb_input *in,
                               struct pb_bucket *b);
bool pb_multisplit_dtype_supported(enum pb_dtype t);
bool pb_multisplit_supports(const struct pb_case *c, char *why, size_t why_len);

#ifdef __cplusplus
}
#endif

#endif
