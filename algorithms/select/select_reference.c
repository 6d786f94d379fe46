/* The select primitive's reference and verifier. The reference never sorts: per row it
 * finds the k-th ordered value with 16-bit digit histograms (a method unlike every
 * backend's) and summarises the keys that order before it; the verifier checks an output
 * against that summary in O(k) per row. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datagen_rules.h"
#include "select.h"
#include "select_order.h"

#define DIGIT_BINS 65536

uint64_t pb_select_hash(uint64_t ordered, int lane) {
    return pb_mix64(ordered + (lane ? 0x632be59bd9b4e019ull : 0x9e3779b97f4a7c15ull));
}

/* Counts digit (v >> shift) & (bins - 1) of the keys whose bits above the digit are
 * `above`; threads keep private histograms when the row is large. */
static void digit_histogram(const struct pb_select_case *s, const void *keys, uint64_t first,
                            int shift, int width, uint64_t above, uint64_t *hist) {
    uint64_t bins = 1ull << width;
    int top = shift + width;
    memset(hist, 0, bins * sizeof *hist);
#pragma omp parallel if (s->n >= (1u << 20))
    {
        uint64_t *mine = calloc(bins, sizeof *mine);
#pragma omp for schedule(static)
        for (uint64_t i = 0; i < s->n; i++) {
            uint64_t v = pb_order_key(s->dtype, keys, first + i, s->largest);
            if (top < 64 && (v >> top) != above) continue;
            if (mine) mine[(v >> shift) & (bins - 1)]++;
        }
#pragma omp critical
        if (mine)
            for (uint64_t b = 0; b < bins; b++) hist[b] += mine[b];
        free(mine);
    }
}

static void row_summary(const struct pb_select_case *s, const void *keys, uint64_t row,
                        uint64_t *hist, struct pb_select_row_summary *out) {
    uint64_t first = row * s->n, k_left = s->k, prefix = 0;
    int bits = 8 * (int)pb_dtype_size(s->dtype);
    for (int done = 0; done < bits;) {
        int width = bits - done < 16 ? bits - done : 16;
        int shift = bits - done - width;
        digit_histogram(s, keys, first, shift, width, prefix, hist);
        uint64_t b = 0;
        while (hist[b] < k_left) k_left -= hist[b++];
        prefix = (prefix << width) | b;
        done += width;
    }
    out->kth = prefix;
    uint64_t before = 0, h0 = 0, h1 = 0;
#pragma omp parallel for reduction(+ : before, h0, h1) if (s->n >= (1u << 20))
    for (uint64_t i = 0; i < s->n; i++) {
        uint64_t v = pb_order_key(s->dtype, keys, first + i, s->largest);
        if (v >= prefix) continue;
        before++;
        h0 += pb_select_hash(v, 0);
        h1 += pb_select_hash(v, 1);
    }
    out->count_before = before;
    out->hash_before[0] = h0;
    out->hash_before[1] = h1;
}

int pb_select_reference_rows(const struct pb_select_case *s, const void *keys,
                             struct pb_select_row_summary *rows) {
    int failed = 0;
#pragma omp parallel if (s->batch > 1)
    {
        uint64_t *hist = malloc(DIGIT_BINS * sizeof *hist);
        if (!hist) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic)
        for (uint64_t r = 0; r < s->batch; r++)
            if (hist) row_summary(s, keys, r, hist, &rows[r]);
        free(hist);
    }
    return failed ? -1 : 0;
}

static int verify_row(const struct pb_select_case *s, const void *keys, uint64_t row,
                      const struct pb_select_row_summary *sum, const char *out_keys,
                      const uint32_t *out_index, uint8_t *seen, char *why, size_t why_len) {
    size_t ks = pb_dtype_size(s->dtype);
    uint64_t equal = 0, h0 = 0, h1 = 0, previous = 0;
    for (uint64_t i = 0; i < s->k; i++) {
        uint64_t at = row * s->k + i;
        uint64_t v = pb_order_key(s->dtype, out_keys, at, s->largest);
        if (v > sum->kth) {
            snprintf(why, why_len, "row %llu, result %llu: a key not among the k best",
                     (unsigned long long)row, (unsigned long long)i);
            return 1;
        }
        if (s->sorted && i > 0 && v < previous) {
            snprintf(why, why_len, "row %llu, result %llu: out of order in sorted output",
                     (unsigned long long)row, (unsigned long long)i);
            return 1;
        }
        previous = v;
        if (v == sum->kth) {
            equal++;
        } else {
            h0 += pb_select_hash(v, 0);
            h1 += pb_select_hash(v, 1);
        }
        if (!out_index) continue;
        uint32_t idx = out_index[at];
        if (idx >= s->n ||
            memcmp(out_keys + at * ks, (const char *)keys + (row * s->n + idx) * ks, ks) != 0) {
            snprintf(why, why_len, "row %llu, result %llu: index %u does not hold the key",
                     (unsigned long long)row, (unsigned long long)i, idx);
            return 1;
        }
        if (seen[idx / 8] & (1u << (idx % 8))) {
            snprintf(why, why_len, "row %llu, result %llu: index %u returned twice",
                     (unsigned long long)row, (unsigned long long)i, idx);
            return 1;
        }
        seen[idx / 8] |= (uint8_t)(1u << (idx % 8));
    }
    if (equal != s->k - sum->count_before || h0 != sum->hash_before[0] ||
        h1 != sum->hash_before[1]) {
        snprintf(why, why_len,
                 "row %llu: the keys are not the k best (%llu equal to the k-th, expected "
                 "%llu, or the better ones differ)",
                 (unsigned long long)row, (unsigned long long)equal,
                 (unsigned long long)(s->k - sum->count_before));
        return 1;
    }
    return 0;
}

int pb_select_verify_rows(const struct pb_select_case *s, const void *keys,
                          const struct pb_select_row_summary *rows, const void *out, char *why,
                          size_t why_len) {
    const char *out_keys = out;
    const uint32_t *out_index =
        s->with_index ? (const uint32_t *)(out_keys + pb_select_index_offset(s)) : NULL;
    size_t seen_bytes = out_index ? (size_t)(s->n + 7) / 8 : 1;
    uint8_t *seen = malloc(seen_bytes);
    if (!seen) {
        snprintf(why, why_len, "no memory for the verifier's index bitmap");
        return 1;
    }
    int result = 0;
    for (uint64_t r = 0; r < s->batch && result == 0; r++) {
        memset(seen, 0, seen_bytes);
        result = verify_row(s, keys, r, &rows[r], out_keys, out_index, seen, why, why_len);
    }
    free(seen);
    return result;
}
