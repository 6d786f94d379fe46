/* Comparing two result CSVs case by case: which rows got faster, slower, stayed the same, or
 * moved by more than the threshold without the evidence to say so (uncertain). */
#ifndef PB_COMPARE_H
#define PB_COMPARE_H

#include <stdio.h>

#include "results_read.h"

enum pb_verdict {
    PB_VERDICT_SAME,
    PB_VERDICT_FASTER,
    PB_VERDICT_SLOWER,
    PB_VERDICT_UNCERTAIN,      /* beyond the threshold, but not significant */
    PB_VERDICT_FAILING,        /* ok in BASE, wrong, error or timeout in NEW */
    PB_VERDICT_NOT_COMPARABLE, /* not ok on one side (and not a new failure) */
    PB_VERDICT_COUNT
};

const char *pb_verdict_name(enum pb_verdict v);

struct pb_compare_options {
    double threshold_pct; /* a change smaller than this is "same" */
    double alpha;         /* Welch's p must be below this for faster or slower */
};

/* One row's time: the mean of reps repetitions and their standard deviation (NAN when
 * unknown, as for one repetition). */
struct pb_timing {
    double mean_ms, stddev_ms;
    int reps;
};

/* Classifies one ok pair; sets *change_pct (new against base, + is slower) and *p (Welch's
 * two-sided p-value, NAN when it cannot be computed, e.g. one repetition). */
enum pb_verdict pb_compare_timings(const struct pb_timing *base, const struct pb_timing *next,
                                   const struct pb_compare_options *o, double *change_pct,
                                   double *p);

struct pb_compare_pair {
    size_t base_row, new_row;
    enum pb_verdict verdict;
    double change_pct, p; /* NAN unless both rows are ok */
};

struct pb_compare_result {
    struct pb_compare_pair *pairs; /* in BASE's order */
    size_t npairs;
    size_t *only_base, *only_new; /* rows without a partner */
    size_t nonly_base, nonly_new;
    size_t count[PB_VERDICT_COUNT];
};

/* Joins the rows of base and next on their axes and backend, and classifies each pair.
 * Returns 0, or -1 with one line in err when the files cannot be compared (different column
 * sets, a case twice in one file). */
int pb_compare_tables(const struct pb_results_table *base, const struct pb_results_table *next,
                      const struct pb_compare_options *o, struct pb_compare_result *out, char *err,
                      size_t err_len);
void pb_compare_result_free(struct pb_compare_result *r);

/* The markdown report: a table of the pairs, then the rows found on one side only. */
void pb_compare_print(FILE *out, const struct pb_results_table *base,
                      const struct pb_results_table *next, const struct pb_compare_result *r,
                      const struct pb_compare_options *o);
/* 1 when some row is slower or newly failing, 0 otherwise. */
int pb_compare_exit_code(const struct pb_compare_result *r);

#endif
