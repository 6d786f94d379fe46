/* Metrics of a result row and their 95% intervals. */
#include "metric.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const struct pb_metric metrics[] = {
    {"gelem_per_s", "Gelem/s", true},
    {"gbytes_per_s", "GB/s", true},
    {"bound_fraction", "fraction of the copy bound", true},
    {"mean_ms", "mean time (ms)", false},
    {"median_ms", "median time (ms)", false},
};
#define NMETRICS (sizeof metrics / sizeof metrics[0])

const struct pb_metric *pb_metric_find(const char *name) {
    for (size_t i = 0; i < NMETRICS; i++)
        if (strcmp(metrics[i].name, name) == 0) return &metrics[i];
    return NULL;
}

const char *pb_metric_list(void) {
    return "gelem_per_s, gbytes_per_s, bound_fraction, mean_ms, median_ms";
}

static double number(const struct pb_results_table *t, size_t row, const char *column) {
    int col = pb_results_table_column(t, column);
    return col < 0 ? NAN : pb_results_table_number(t, row, col);
}

bool pb_metric_value(const struct pb_results_table *t, size_t row, const struct pb_metric *m,
                     double *value, double *low, double *high) {
    *value = *low = *high = NAN;
    if (!pb_results_table_ok(t, row)) return false;
    *value = number(t, row, m->name);
    if (strcmp(m->name, "gelem_per_s") == 0 || strcmp(m->name, "gbytes_per_s") == 0) {
        char column[64];
        snprintf(column, sizeof column, "%s_ci_low", m->name);
        *low = number(t, row, column);
        snprintf(column, sizeof column, "%s_ci_high", m->name);
        *high = number(t, row, column);
    } else if (strcmp(m->name, "mean_ms") == 0) {
        *low = number(t, row, "ci95_low_ms");
        *high = number(t, row, "ci95_high_ms");
    } else if (strcmp(m->name, "bound_fraction") == 0) {
        /* the bound is a constant of the run, so the fraction scales with the bandwidth */
        double gb = number(t, row, "gbytes_per_s");
        *low = *value * number(t, row, "gbytes_per_s_ci_low") / gb;
        *high = *value * number(t, row, "gbytes_per_s_ci_high") / gb;
    }
    if (!isfinite(*low) || !isfinite(*high)) *low = *high = NAN;
    return isfinite(*value);
}

struct pb_estimate pb_metric_speedup(const struct pb_metric *m, struct pb_estimate x,
                                     struct pb_estimate base) {
    struct pb_estimate s = {NAN, NAN, NAN};
    if (!isfinite(x.value) || !isfinite(base.value)) return s;
    s.value = m->higher_is_better ? x.value / base.value : base.value / x.value;
    /* an interval with an end at or below zero (a noisy CPU row of few repetitions) bounds
     * no ratio */
    if (x.low > 0 && x.high > 0 && base.low > 0 && base.high > 0 && isfinite(x.high) &&
        isfinite(base.high)) {
        s.low = m->higher_is_better ? x.low / base.high : base.low / x.high;
        s.high = m->higher_is_better ? x.high / base.low : base.high / x.low;
    }
    return s;
}
