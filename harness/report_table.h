/* A paper-style markdown table of one metric from a results CSV: a row per value of the
 * chosen axes and backend, a column per value of one axis, each cell the metric with its
 * 95% interval. */
#ifndef PB_REPORT_TABLE_H
#define PB_REPORT_TABLE_H

#include <stdio.h>

#include "metric.h"
#include "results_read.h"

struct pb_report_options {
    const char *const *rows; /* axis names keying the rows (backend follows); NULL: default */
    int nrows;
    const char *cols; /* the axis whose values are the columns; NULL: default */
    const struct pb_metric *metric;
    /* NULL, or a backend (as pb_results_backend_index finds it): the other backends' cells
     * are then their speedups over it in the same case, and its own rows are left out */
    const char *baseline;
};

/* The columns default to the last axis with more than one value; the rows to every other
 * axis with more than one value. Axes that vary but are neither rows nor columns split the
 * output into one table per combination of their values. Returns 0, or -1 with one line in
 * err (an unknown axis, one used twice, an unknown baseline). */
int pb_report_table(FILE *out, const struct pb_results_table *t, const struct pb_report_options *o,
                    char *err, size_t err_len);

/* Four significant digits, never an exponent: 361.2, 0.2193, 12345. */
int pb_report_decimals(double v);

#endif
