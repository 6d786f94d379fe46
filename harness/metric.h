/* The numbers a report or plot can show for a row, each with its 95% interval where the CSV
 * has one. */
#ifndef PB_METRIC_H
#define PB_METRIC_H

#include <stdbool.h>
#include <stddef.h>

#include "results_read.h"

struct pb_metric {
    const char *name;  /* the CSV column, and the --metric value */
    const char *label; /* for axis labels and captions */
    bool higher_is_better;
};

/* NULL when name is not a metric. */
const struct pb_metric *pb_metric_find(const char *name);
/* "gelem_per_s, gbytes_per_s, ..." for messages. */
const char *pb_metric_list(void);
/* The metric of an ok row and its interval (*low and *high NAN when there is none, as for
 * median_ms or a single repetition). False when the row has no value. */
bool pb_metric_value(const struct pb_results_table *t, size_t row, const struct pb_metric *m,
                     double *value, double *low, double *high);

/* A value with its 95% interval (low and high NAN where there is none). */
struct pb_estimate {
    double value, low, high;
};

/* x's speedup over base in metric m, above 1 where x is better (a ratio of throughputs, or
 * of base's time to x's), with the interval the ends of the two intervals give (NAN where
 * either has none, or one with an end at or below zero). */
struct pb_estimate pb_metric_speedup(const struct pb_metric *m, struct pb_estimate x,
                                     struct pb_estimate base);

#endif
