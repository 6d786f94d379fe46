/* Summary statistics of timing samples, and the Student t distribution they need. */
#ifndef PB_STATS_H
#define PB_STATS_H

#include <stddef.h>

struct pb_summary {
    int count;
    double mean, stddev;        /* stddev: sample (n - 1); NAN when count < 2 */
    double ci95_low, ci95_high; /* 95% CI of the mean, Student t; NAN when count < 2 */
    double median, min, max;
};

/* Summarizes count >= 1 samples (not modified). Returns 0, or -1 when count < 1. */
int pb_summarize(const double *samples, int count, struct pb_summary *out);

/* Student t distribution with df > 0 degrees of freedom (df need not be an integer). */
double pb_student_t_cdf(double t, double df);
/* The p-quantile, 0 < p < 1: pb_student_t_quantile(0.975, 10) = 2.228138... */
double pb_student_t_quantile(double p, double df);

/* Welch's t-test on two samples given by their summaries (mean, stddev, count).
 * Returns the two-sided p-value; *t_out and *df_out when non-NULL. */
double pb_welch_p_value(double mean_a, double sd_a, int n_a, double mean_b, double sd_b, int n_b,
                        double *t_out, double *df_out);

#endif
