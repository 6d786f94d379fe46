/* Summary statistics and the Student t distribution, from libm alone.
 *
 * The t CDF goes through the regularized incomplete beta function. Tails are computed
 * directly rather than as 1 - cdf, and every step avoids cancellation (log1p, log-gamma
 * differences by Stirling series, an asymptotic expansion where df is large), so the CDF
 * keeps ~1e-13 relative accuracy, tails included, for df from 0.1 to beyond 1e10. */
#include "stats.h"

#include <float.h>
#include <stdbool.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PB_PI 3.14159265358979323846

/* log Gamma(x) - (x - 0.5) log x + x - 0.5 log(2 pi): the Stirling remainder, x >= 10.
 * The next omitted term is below 3e-15 at x = 10. */
static double stirling_remainder(double x) {
    static const double coefficients[] = {1.0 / 12, -1.0 / 360, 1.0 / 1260, -1.0 / 1680,
                                          1.0 / 1188};
    const int count = (int)(sizeof coefficients / sizeof coefficients[0]);
    double inv2 = 1.0 / (x * x);
    double series = coefficients[count - 1];
    for (int i = count - 2; i >= 0; i--) series = coefficients[i] + inv2 * series;
    return series / x;
}

/* log Gamma(a) - log Gamma(a + b) for a, b > 0, without the cancellation of two
 * large lgamma values when a is large. */
static double lgamma_difference(double a, double b) {
    if (a < 10.0) {
        return lgamma(a) - lgamma(a + b);
    }
    double ab = a + b;
    /* (a - 0.5) log a - (a + b - 0.5) log(a + b) + b, rewritten with log1p. */
    double head = -(a - 0.5) * log1p(b / a) - b * log(ab) + b;
    return head + stirling_remainder(a) - stirling_remainder(ab);
}

/* log B(a, b) with the larger argument taking the Stirling path. */
static double log_beta(double a, double b) {
    if (a < b) {
        double swap = a;
        a = b;
        b = swap;
    }
    return lgamma_difference(a, b) + lgamma(b);
}

/* Lentz's method divides by these; a zero is nudged away rather than dividing by it. */
static double away_from_zero(double v) { return fabs(v) < 1e-300 ? 1e-300 : v; }

/* The continued fraction of I_x(a, b) (modified Lentz), which converges fast when
 * x < (a + 1) / (a + b + 2). */
static double beta_continued_fraction(double a, double b, double x) {
    /* Callers stay where this converges in tens of steps; the cap only bounds bad input. */
    const int max_iterations = 10000;
    double c = 1.0;
    double d = 1.0 / away_from_zero(1.0 - (a + b) * x / (a + 1.0));
    double h = d;
    for (int m = 1; m <= max_iterations; m++) {
        /* Each step applies an even and an odd coefficient of the fraction. */
        double even = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
        d = 1.0 / away_from_zero(1.0 + even * d);
        c = away_from_zero(1.0 + even / c);
        h *= d * c;
        double odd = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
        d = 1.0 / away_from_zero(1.0 + odd * d);
        c = away_from_zero(1.0 + odd / c);
        double delta = d * c;
        h *= delta;
        if (fabs(delta - 1.0) <= 2 * DBL_EPSILON) break;
    }
    return h;
}

/* Regularized incomplete beta I_x(a, b), given x and y = 1 - x, both in [0, 1], and their
 * logarithms: for large a, a * log(x) would amplify the rounding of x itself. */
static double incomplete_beta(double a, double b, double x, double y, double log_x, double log_y) {
    if (x <= 0.0) {
        return 0.0;
    }
    if (y <= 0.0) {
        return 1.0;
    }
    /* Symmetry I_x(a, b) = 1 - I_y(b, a) keeps the continued fraction where it converges fast. */
    bool mirrored = x > (a + 1.0) / (a + b + 2.0);
    if (mirrored) {
        double swap = a;
        a = b;
        b = swap;
        swap = x;
        x = y;
        y = swap;
        swap = log_x;
        log_x = log_y;
        log_y = swap;
    }
    double log_front = a * log_x + b * log_y - log_beta(a, b);
    double value = exp(log_front) * beta_continued_fraction(a, b, x) / a;
    return mirrored ? 1.0 - value : value;
}

/* I_x(a, 1/2) for a >= 15 and x >= 1/2, by the asymptotic expansion of Didonato and Morris
 * (ACM TOMS 708, BGRAT) specialised to b = 1/2, where Q(1/2, z) = erfc(sqrt(z)). Needed for
 * large df: there x is within ~t^2/df of 1, and the continued fraction, which only sees x
 * itself, loses the relative precision that the rounding of x costs 1 - x. The expansion
 * works from log(x) alone. Returns -1 when it cannot be used (far tail, below ~1e-300). */
static double incomplete_beta_large_a_half_b(double a, double log_x) {
    const double b = 0.5;
    const double nu = a - 0.25; /* a + (b - 1) / 2 */
    const double z = -nu * log_x;
    if (!(z > 0.0) || z > 690.0) {
        return -1.0;
    }
    /* r = exp(-z) z^b / Gamma(b); u = r * Gamma(a + b) / (Gamma(a) nu^b). */
    double log_r = -z + 0.5 * log(z) - 0.5 * log(PB_PI);
    double log_u = log_r - (lgamma_difference(a, b) + b * log(nu));
    double j = erfc(sqrt(z)) / exp(log_r);
    double v = 0.25 / (nu * nu);
    double t2 = 0.25 * log_x * log_x;
    double sum = j, t = 1.0, cn = 1.0, n2 = 0.0;
    double c[30], d[30];
    for (int n = 1; n <= 30; n++) {
        double bp2n = b + n2;
        j = (bp2n * (bp2n + 1.0) * j + (z + bp2n + 1.0) * t) * v;
        n2 += 2.0;
        t *= t2;
        cn /= n2 * (n2 + 1.0);
        c[n - 1] = cn;
        double s = 0.0;
        double coef = b - n;
        for (int i = 1; i < n; i++) {
            s += coef * c[i - 1] * d[n - i - 1];
            coef += b;
        }
        d[n - 1] = (b - 1.0) * cn + s / n;
        double dj = d[n - 1] * j;
        sum += dj;
        if (sum <= 0.0) {
            return -1.0;
        }
        if (fabs(dj) <= 1e-16 * sum) {
            break;
        }
    }
    return exp(log_u) * sum;
}

/* P(T > t) for t >= 0, computed directly so small tails keep full relative precision. */
static double t_upper_tail(double t, double df) {
    if (isinf(t)) {
        return 0.0;
    }
    double t2 = t * t;
    /* x = df / (df + t^2), y = t^2 / (df + t^2), each formed without subtraction. */
    double x, y, log_x, log_y;
    if (t2 < df) {
        double r = t2 / df;
        x = 1.0 / (1.0 + r);
        y = r / (1.0 + r);
        log_x = -log1p(r);
        log_y = log(r) + log_x;
    } else {
        double r = df / t2;
        x = r / (1.0 + r);
        y = 1.0 / (1.0 + r);
        log_y = -log1p(r);
        log_x = log(r) + log_y;
    }
    if (df >= 30.0 && x > 0.5) {
        double tail = incomplete_beta_large_a_half_b(0.5 * df, log_x);
        if (tail >= 0.0) {
            return 0.5 * tail;
        }
    }
    return 0.5 * incomplete_beta(0.5 * df, 0.5, x, y, log_x, log_y);
}

static double t_density(double t, double df) {
    double log_norm = -lgamma_difference(0.5 * df, 0.5) - 0.5 * log(df * PB_PI);
    return exp(log_norm - 0.5 * (df + 1.0) * log1p(t * t / df));
}

double pb_student_t_cdf(double t, double df) {
    if (isnan(t) || isnan(df) || df <= 0.0) {
        return NAN;
    }
    if (t >= 0.0) {
        return 1.0 - t_upper_tail(t, df);
    }
    return t_upper_tail(-t, df);
}

/* The t >= 0 with P(T > t) = q, for 0 < q <= 0.5. */
static double t_upper_quantile(double q, double df) {
    if (q >= 0.5) {
        return 0.0;
    }
    /* Bracket: the tail is decreasing in t, so double hi until it is past the root. */
    double lo = 0.0, hi = 1.0;
    while (t_upper_tail(hi, df) > q) {
        lo = hi;
        hi *= 2.0;
        if (isinf(hi)) {
            return INFINITY;
        }
    }
    /* Newton on the tail, falling back to bisection whenever a step leaves the bracket. */
    double t = 0.5 * (lo + hi);
    for (int i = 0; i < 400; i++) {
        double f = t_upper_tail(t, df) - q;
        if (f == 0.0) {
            return t;
        }
        if (f > 0.0) {
            lo = t;
        } else {
            hi = t;
        }
        double density = t_density(t, df);
        double next = density > 0.0 ? t + f / density : NAN;
        if (!(next > lo && next < hi)) {
            next = 0.5 * (lo + hi);
        }
        if (fabs(next - t) <= 1e-15 * fabs(next) || hi - lo <= 4.0 * DBL_EPSILON * hi) {
            return next;
        }
        t = next;
    }
    return t;
}

double pb_student_t_quantile(double p, double df) {
    if (isnan(p) || isnan(df) || df <= 0.0 || p < 0.0 || p > 1.0) {
        return NAN;
    }
    if (p == 0.0) {
        return -INFINITY;
    }
    if (p == 1.0) {
        return INFINITY;
    }
    if (p > 0.5) {
        return t_upper_quantile(1.0 - p, df);
    }
    return -t_upper_quantile(p, df);
}

double pb_welch_p_value(double mean_a, double sd_a, int n_a, double mean_b, double sd_b, int n_b,
                        double *t_out, double *df_out) {
    double t = NAN, df = NAN, p = NAN;
    if (n_a >= 2 && n_b >= 2 && sd_a >= 0.0 && sd_b >= 0.0 && isfinite(mean_a) &&
        isfinite(mean_b)) {
        double var_a = sd_a * sd_a / n_a;
        double var_b = sd_b * sd_b / n_b;
        double var = var_a + var_b;
        double diff = mean_a - mean_b;
        if (var == 0.0) {
            /* No spread at all: the samples either agree exactly or differ for certain. */
            df = (double)n_a + n_b - 2;
            t = diff == 0.0 ? 0.0 : copysign(INFINITY, diff);
            p = diff == 0.0 ? 1.0 : 0.0;
        } else {
            t = diff / sqrt(var);
            df = var * var / (var_a * var_a / (n_a - 1) + var_b * var_b / (n_b - 1));
            p = fmin(2.0 * t_upper_tail(fabs(t), df), 1.0); /* rounding near t = 0 */
        }
    }
    if (t_out) {
        *t_out = t;
    }
    if (df_out) {
        *df_out = df;
    }
    return p;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int pb_summarize(const double *samples, int count, struct pb_summary *out) {
    if (count < 1 || !samples || !out) {
        return -1;
    }
    double *sorted = malloc((size_t)count * sizeof *sorted);
    if (!sorted) {
        return -1;
    }
    memcpy(sorted, samples, (size_t)count * sizeof *sorted);
    qsort(sorted, (size_t)count, sizeof *sorted, compare_doubles);

    double sum = 0.0;
    for (int i = 0; i < count; i++) {
        sum += sorted[i];
    }
    double mean = sum / count;

    out->count = count;
    out->mean = mean;
    out->min = sorted[0];
    out->max = sorted[count - 1];
    out->median = count % 2 ? sorted[count / 2] : 0.5 * (sorted[count / 2 - 1] + sorted[count / 2]);
    if (count < 2) {
        out->stddev = out->ci95_low = out->ci95_high = NAN;
    } else {
        /* Two passes: deviations from the mean avoid the cancellation of sum-of-squares. */
        double squares = 0.0;
        for (int i = 0; i < count; i++) {
            double d = sorted[i] - mean;
            squares += d * d;
        }
        out->stddev = sqrt(squares / (count - 1));
        double half_width = pb_student_t_quantile(0.975, count - 1) * out->stddev / sqrt(count);
        out->ci95_low = mean - half_width;
        out->ci95_high = mean + half_width;
    }
    free(sorted);
    return 0;
}
