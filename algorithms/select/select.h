/* The select (top-k) primitive, shared by its backends: the case's parameters, the
 * output layout and the reference's per-row summary. */
#ifndef PB_SELECT_H
#define PB_SELECT_H

#include <stdbool.h>
#include <stdint.h>

#include "primbench.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a case asks for. k is the effective k: the axis' k clamped to n under k_rule
 * "fixed", n / 2 (at least 1) under "half", n under "whole". */
struct pb_select_case {
    enum pb_dtype dtype;
    uint64_t n;     /* keys per row */
    uint32_t batch; /* rows */
    uint64_t k;     /* results per row */
    bool largest;   /* order "max" */
    bool sorted;    /* output "sorted": best first */
    bool with_index;
};

void pb_select_case_of(const struct pb_case *c, struct pb_select_case *s);
bool pb_select_supports(const struct pb_case *c, char *why, size_t why_len);

/* Output (host and device alike): batch * k keys of the dtype, row after row, then
 * (with_index) batch * k uint32 indices into the row, the i-th index for the i-th key. */
size_t pb_select_keys_bytes(const struct pb_select_case *s);
size_t pb_select_index_offset(const struct pb_select_case *s);
size_t pb_select_output_bytes(const struct pb_select_case *s);

/* The reference's summary of one row (at the start of the reference buffer): the k-th
 * ordered value, how many keys order strictly before it, and two commutative hashes of
 * the ordered values before it (the multiset of the keys that must all be returned). */
struct pb_select_row_summary {
    uint64_t kth;
    uint64_t count_before;
    uint64_t hash_before[2];
};

/* The summary of every row of keys (batch rows of n): radix histograms of 16-bit digits
 * on the ordered values, OpenMP over the keys. Returns 0, -1 without memory. */
int pb_select_reference_rows(const struct pb_select_case *s, const void *keys,
                             struct pb_select_row_summary *rows);
/* 0 when out holds a correct answer for every row; 1 and where and why otherwise. */
int pb_select_verify_rows(const struct pb_select_case *s, const void *keys,
                          const struct pb_select_row_summary *rows, const void *out, char *why,
                          size_t why_len);
/* The commutative hash lane (0 or 1) of one ordered value. */
uint64_t pb_select_hash(uint64_t ordered, int lane);

#ifdef __cplusplus
}
#endif

#endif
