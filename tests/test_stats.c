/* Student t distribution, Welch's test and sample summaries against independent references:
 * published t tables, closed forms for df = 1 and 2, and values computed with mpmath at 40
 * digits (betainc, findroot, and quad of the density where betainc cannot reach). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "stats.h"

/* Fails unless actual is within rel_tol of expected, relative to |expected|. */
#define assert_close(actual, expected, rel_tol)                                                    \
    check_close((actual), (expected), (rel_tol), #actual, __FILE__, __LINE__)

static void check_close(double actual, double expected, double rel_tol, const char *what,
                        const char *file, int line) {
    double error = fabs(actual - expected);
    if (!(error <= rel_tol * fabs(expected))) {
        fail_msg("%s:%d: %s = %.17g, expected %.17g (relative error %.3g > %.3g)", file, line, what,
                 actual, expected, error / fabs(expected), rel_tol);
    }
}

static void quantile_matches_t_tables(void **state) {
    (void)state;
    /* 12 significant digits, rounded from 40-digit mpmath values; the tolerance is what
     * those digits support. */
    assert_close(pb_student_t_quantile(0.975, 1), 12.7062047362, 1e-11);
    assert_close(pb_student_t_quantile(0.975, 2), 4.30265272975, 1e-11);
    assert_close(pb_student_t_quantile(0.975, 5), 2.57058183564, 1e-11);
    assert_close(pb_student_t_quantile(0.975, 10), 2.22813885199, 1e-11);
    assert_close(pb_student_t_quantile(0.975, 30), 2.04227245630, 1e-11);
    assert_close(pb_student_t_quantile(0.975, 99), 1.98421695, 1e-8);
    assert_close(pb_student_t_quantile(0.95, 10), 1.81246112281, 1e-11);
    assert_close(pb_student_t_quantile(0.975, 1e6), 1.95996, 1e-5);
}

static void quantile_matches_high_precision_references(void **state) {
    (void)state;
    assert_close(pb_student_t_quantile(0.975, 1), 12.706204736174693314, 1e-13);
    assert_close(pb_student_t_quantile(0.975, 99), 1.9842169515864171029, 1e-13);
    assert_close(pb_student_t_quantile(0.975, 7), 2.3646242515927847379, 1e-13);
    /* non-integer df */
    assert_close(pb_student_t_quantile(0.975, 7.5), 2.3330396268649740266, 1e-13);
    assert_close(pb_student_t_quantile(0.995, 2.5), 7.1637281389487828791, 1e-13);
    assert_close(pb_student_t_quantile(0.975, 1e6), 1.9599663568141070353, 1e-12);
    /* the lower quantile is the negated upper one */
    assert_close(pb_student_t_quantile(0.025, 7.5), -2.3330396268649740266, 1e-13);
    assert_true(pb_student_t_quantile(0.5, 3.0) == 0.0);
}

static void quantile_inverts_cdf(void **state) {
    (void)state;
    const double dfs[] = {0.5, 1, 2.5, 9, 31, 400, 1e5, 1e9};
    const double ps[] = {1e-12, 1e-6, 0.01, 0.2, 0.5001, 0.9, 0.999, 1 - 1e-9};
    for (size_t i = 0; i < sizeof dfs / sizeof dfs[0]; i++) {
        for (size_t j = 0; j < sizeof ps / sizeof ps[0]; j++) {
            double t = pb_student_t_quantile(ps[j], dfs[i]);
            /* Compare the small tail, where the probability keeps its relative precision. */
            double tail = ps[j] < 0.5 ? pb_student_t_cdf(t, dfs[i]) : pb_student_t_cdf(-t, dfs[i]);
            assert_close(tail, ps[j] < 0.5 ? ps[j] : 1 - ps[j], 1e-10);
        }
    }
}

static void quantile_rejects_invalid_arguments(void **state) {
    (void)state;
    assert_true(isnan(pb_student_t_quantile(0.5, 0.0)));
    assert_true(isnan(pb_student_t_quantile(1.5, 3.0)));
    assert_true(isnan(pb_student_t_quantile(NAN, 3.0)));
    assert_true(pb_student_t_quantile(1.0, 3.0) == INFINITY);
    assert_true(pb_student_t_quantile(0.0, 3.0) == -INFINITY);
}

static void cdf_matches_closed_forms(void **state) {
    (void)state;
    const double pi = 3.14159265358979323846;
    const double ts[] = {-40.0, -3.0, -1.0, -0.25, 0.1, 0.8, 2.0, 7.5, 1e3};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
        double t = ts[i];
        /* df = 1 is the Cauchy distribution; df = 2 has an algebraic CDF. */
        double cauchy = t < 0 ? atan(-1.0 / t) / pi : 0.5 + atan(t) / pi;
        assert_close(pb_student_t_cdf(t, 1), cauchy, 1e-13);
        /* tail = (1 - |t| / s) / 2 with s = sqrt(t^2 + 2), rearranged to avoid cancellation */
        double s = sqrt(t * t + 2);
        double df2_tail = 1.0 / (s * (s + fabs(t)));
        assert_close(pb_student_t_cdf(t, 2), t < 0 ? df2_tail : 1 - df2_tail, 1e-13);
    }
    assert_true(pb_student_t_cdf(0.0, 4.2) == 0.5);
}

static void cdf_matches_high_precision_references(void **state) {
    (void)state;
    assert_close(pb_student_t_cdf(-3.0, 4.5), 0.017190433944379811929, 1e-13);
    assert_close(pb_student_t_cdf(0.7, 30.5), 0.75538369858600196539, 1e-13);
    /* large df, where the t distribution is nearly normal */
    assert_close(pb_student_t_cdf(-2.0, 1e6), 0.022750266925659604211, 1e-12);
    /* a far tail keeps its relative precision */
    assert_close(pb_student_t_cdf(-50.0, 1000), 1.3793362061625824812e-274, 1e-12);
}

static void cdf_is_symmetric(void **state) {
    (void)state;
    const double dfs[] = {0.3, 1, 3.7, 12, 250, 1e7};
    const double ts[] = {1e-9, 0.5, 1.7, 4.0, 25.0};
    for (size_t i = 0; i < sizeof dfs / sizeof dfs[0]; i++) {
        for (size_t j = 0; j < sizeof ts / sizeof ts[0]; j++) {
            double sum = pb_student_t_cdf(ts[j], dfs[i]) + pb_student_t_cdf(-ts[j], dfs[i]);
            assert_close(sum, 1.0, 1e-14);
            assert_true(pb_student_t_cdf(ts[j], dfs[i]) > 0.5);
        }
    }
}

static void summary_of_even_count(void **state) {
    (void)state;
    const double samples[] = {9, 4, 2, 5, 4, 7, 4, 5};
    double copy[8];
    for (int i = 0; i < 8; i++) copy[i] = samples[i];
    struct pb_summary s;
    assert_int_equal(pb_summarize(copy, 8, &s), 0);
    for (int i = 0; i < 8; i++) assert_true(copy[i] == samples[i]); /* input untouched */
    assert_int_equal(s.count, 8);
    assert_close(s.mean, 5.0, 1e-15);
    /* squared deviations sum to 32, so sd = sqrt(32 / 7) */
    assert_close(s.stddev, 2.1380899352993950775, 1e-15);
    assert_close(s.median, 4.5, 0);
    assert_close(s.min, 2.0, 0);
    assert_close(s.max, 9.0, 0);
    /* 5 -+ t(0.975, 7) * sd / sqrt(8) */
    assert_close(s.ci95_low, 3.212512081763789105, 1e-13);
    assert_close(s.ci95_high, 6.787487918236210895, 1e-13);
}

static void summary_of_odd_count(void **state) {
    (void)state;
    const double samples[] = {3, 1, 2};
    struct pb_summary s;
    assert_int_equal(pb_summarize(samples, 3, &s), 0);
    assert_close(s.mean, 2.0, 1e-15);
    assert_close(s.stddev, 1.0, 1e-15);
    assert_close(s.median, 2.0, 0);
    assert_close(s.min, 1.0, 0);
    assert_close(s.max, 3.0, 0);
    /* 2 -+ t(0.975, 2) / sqrt(3) */
    assert_close(s.ci95_low, -0.48413771175033107104, 1e-13);
    assert_close(s.ci95_high, 4.484137711750331071, 1e-13);
}

static void summary_of_one_sample_has_no_spread(void **state) {
    (void)state;
    const double sample = 1.25;
    struct pb_summary s;
    assert_int_equal(pb_summarize(&sample, 1, &s), 0);
    assert_int_equal(s.count, 1);
    assert_true(s.mean == 1.25 && s.median == 1.25 && s.min == 1.25 && s.max == 1.25);
    assert_true(isnan(s.stddev));
    assert_true(isnan(s.ci95_low));
    assert_true(isnan(s.ci95_high));
    assert_int_equal(pb_summarize(&sample, 0, &s), -1);
}

static void summary_of_identical_samples_has_zero_width(void **state) {
    (void)state;
    const double samples[] = {0.5, 0.5, 0.5, 0.5};
    struct pb_summary s;
    assert_int_equal(pb_summarize(samples, 4, &s), 0);
    assert_true(s.stddev == 0.0);
    assert_true(s.ci95_low == 0.5 && s.ci95_high == 0.5);
}

static void welch_with_df_two_matches_closed_form(void **state) {
    (void)state;
    /* {1, 3} against {4, 6}: se^2 = 2, t = -3 / sqrt(2), df = 2, so
     * p = 1 - |t| / sqrt(t^2 + 2) = 1 - 3 / sqrt(13). */
    double t, df;
    double p = pb_welch_p_value(2.0, sqrt(2.0), 2, 5.0, sqrt(2.0), 2, &t, &df);
    assert_close(t, -3.0 / sqrt(2.0), 1e-15);
    assert_close(df, 2.0, 1e-15);
    assert_close(p, 0.16794970566215631697, 1e-13);
}

static void welch_with_unequal_variances(void **state) {
    (void)state;
    double t, df;
    double p = pb_welch_p_value(10.0, 2.0, 10, 12.0, 5.0, 15, &t, &df);
    assert_close(t, -1.3912166872805048177, 1e-14);
    assert_close(df, 19.756240822320117474, 1e-14);
    assert_close(p, 0.1796297636950180312, 1e-12);
    /* the test is symmetric in its two samples */
    assert_close(pb_welch_p_value(12.0, 5.0, 15, 10.0, 2.0, 10, NULL, NULL), p, 1e-14);
}

static void welch_without_spread(void **state) {
    (void)state;
    double t, df;
    assert_true(pb_welch_p_value(3.0, 0.0, 5, 3.0, 0.0, 7, &t, &df) == 1.0);
    assert_true(t == 0.0);
    assert_true(pb_welch_p_value(3.0, 0.0, 5, 3.5, 0.0, 7, &t, &df) == 0.0);
    assert_true(t == -INFINITY);
    assert_true(isnan(pb_welch_p_value(3.0, 1.0, 1, 3.5, 1.0, 7, NULL, NULL)));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(quantile_matches_t_tables),
        cmocka_unit_test(quantile_matches_high_precision_references),
        cmocka_unit_test(quantile_inverts_cdf),
        cmocka_unit_test(quantile_rejects_invalid_arguments),
        cmocka_unit_test(cdf_matches_closed_forms),
        cmocka_unit_test(cdf_matches_high_precision_references),
        cmocka_unit_test(cdf_is_symmetric),
        cmocka_unit_test(summary_of_even_count),
        cmocka_unit_test(summary_of_odd_count),
        cmocka_unit_test(summary_of_one_sample_has_no_spread),
        cmocka_unit_test(summary_of_identical_samples_has_zero_width),
        cmocka_unit_test(welch_with_df_two_matches_closed_form),
        cmocka_unit_test(welch_with_unequal_variances),
        cmocka_unit_test(welch_without_spread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
