/* Comparing two result CSVs. A change counts only when it is both large (beyond the
 * threshold) and real (Welch's t-test on the rows' own statistics), so neither noise nor a
 * tiny but consistent shift fails a gate. */
#include "compare.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static const char *const verdict_names[] = {"same",      "faster",  "slower",
                                            "uncertain", "failing", "not comparable"};

const char *pb_verdict_name(enum pb_verdict v) { return verdict_names[v]; }

enum pb_verdict pb_compare_timings(const struct pb_timing *base, const struct pb_timing *next,
                                   const struct pb_compare_options *o, double *change_pct,
                                   double *p) {
    *change_pct = (next->mean_ms - base->mean_ms) / base->mean_ms * 100.0;
    *p = pb_welch_p_value(base->mean_ms, base->stddev_ms, base->reps, next->mean_ms,
                          next->stddev_ms, next->reps, NULL, NULL);
    if (!(fabs(*change_pct) > o->threshold_pct)) return PB_VERDICT_SAME;
    if (!(*p < o->alpha)) return PB_VERDICT_UNCERTAIN; /* also when p is NAN: no evidence */
    return *change_pct > 0 ? PB_VERDICT_SLOWER : PB_VERDICT_FASTER;
}

static int fail(char *err, size_t err_len, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
    return -1;
}

/* A row's join key: its axis values (in BASE's axis order) and backend. */
struct keyed_row {
    char *key;
    size_t row;
};

static int by_key(const void *a, const void *b) {
    return strcmp(((const struct keyed_row *)a)->key, ((const struct keyed_row *)b)->key);
}

static void free_keys(struct keyed_row *k, size_t n) {
    for (size_t i = 0; k && i < n; i++) free(k[i].key);
    free(k);
}

/* cols: the key's columns in t, in key order. Sorted by key; NULL when out of memory. */
static struct keyed_row *make_keys(const struct pb_results_table *t, const int *cols, int ncols) {
    struct keyed_row *k = calloc(t->nrows ? t->nrows : 1, sizeof *k);
    if (!k) return NULL;
    for (size_t r = 0; r < t->nrows; r++) {
        size_t len = 1;
        for (int i = 0; i < ncols; i++) len += strlen(t->rows[r].fields[cols[i]]) + 1;
        k[r].row = r;
        k[r].key = malloc(len);
        if (!k[r].key) {
            free_keys(k, r);
            return NULL;
        }
        char *p = k[r].key;
        for (int i = 0; i < ncols; i++) {
            /* a unit separator cannot occur in a value, so keys of different rows differ */
            size_t n = strlen(t->rows[r].fields[cols[i]]);
            memcpy(p, t->rows[r].fields[cols[i]], n);
            p += n;
            *p++ = '\x1f';
        }
        *p = '\0';
    }
    qsort(k, t->nrows, sizeof *k, by_key);
    return k;
}

static int check_unique(const struct pb_results_table *t, const struct keyed_row *k, char *err,
                        size_t err_len) {
    for (size_t i = 1; i < t->nrows; i++) {
        if (strcmp(k[i - 1].key, k[i].key) != 0) continue;
        size_t first = k[i - 1].row < k[i].row ? k[i - 1].row : k[i].row;
        size_t again = k[i - 1].row < k[i].row ? k[i].row : k[i - 1].row;
        char what[512];
        pb_results_table_describe(t, again, what, sizeof what);
        return fail(err, err_len, "%s: line %d: %s %s appears again (first on line %d)", t->path,
                    t->line[again], what, t->rows[again].fields[t->backend], t->line[first]);
    }
    return 0;
}

/* "reduce" or "reduce, sort, ...": the primitives of t's rows, cut to fit. */
static void list_primitives(const struct pb_results_table *t, char *buf, size_t len) {
    if (!buf || len == 0) return;
    buf[0] = '\0';
    const char **prims = NULL;
    int n = pb_results_table_primitives(t, &prims);
    size_t at = 0;
    for (int i = 0; i < n && at < len; i++) {
        int w = snprintf(buf + at, len - at, "%s%s", i ? ", " : "", prims[i]);
        if (w < 0) break;
        at += (size_t)w;
    }
    if (n == 0) snprintf(buf, len, "no rows");
    free(prims);
}

/* Different column sets: the files come from different configs (say an old
 * single-primitive baseline and a suite's output); the message says what each holds. */
static int columns_differ(const struct pb_results_table *base, const struct pb_results_table *next,
                          const char *what, char *err, size_t err_len) {
    char in_base[256], in_next[256];
    list_primitives(base, in_base, sizeof in_base);
    list_primitives(next, in_next, sizeof in_next);
    return fail(err, err_len,
                "%s: %s: the column sets differ, so the files come from different configs "
                "(%s holds %s; %s holds %s); make the baseline again with this config",
                next->path, what, base->path, in_base, next->path, in_next);
}

static int check_columns(const struct pb_results_table *base, const struct pb_results_table *next,
                         char *err, size_t err_len) {
    char what[512];
    for (int i = 0; i < next->header.count; i++)
        if (pb_results_table_column(base, next->header.fields[i]) < 0) {
            snprintf(what, sizeof what, "column '%.200s' is not in %.200s", next->header.fields[i],
                     base->path);
            return columns_differ(base, next, what, err, err_len);
        }
    for (int i = 0; i < base->header.count; i++)
        if (pb_results_table_column(next, base->header.fields[i]) < 0) {
            snprintf(what, sizeof what, "no column '%.200s', which %.200s has",
                     base->header.fields[i], base->path);
            return columns_differ(base, next, what, err, err_len);
        }
    if (base->naxes != next->naxes)
        return fail(err, err_len, "%s: %d axis columns, but %s has %d", next->path, next->naxes,
                    base->path, base->naxes);
    return 0;
}

static struct pb_timing timing(const struct pb_results_table *t, size_t row) {
    return (struct pb_timing){
        .mean_ms = pb_results_table_number(t, row, t->mean_ms),
        .stddev_ms = pb_results_table_number(t, row, t->stddev_ms),
        .reps = (int)pb_results_table_number(t, row, t->reps),
    };
}

static void classify(const struct pb_results_table *base, const struct pb_results_table *next,
                     const struct pb_compare_options *o, struct pb_compare_pair *pair) {
    pair->change_pct = pair->p = NAN;
    bool base_ok = pb_results_table_ok(base, pair->base_row);
    bool new_ok = pb_results_table_ok(next, pair->new_row);
    if (base_ok && new_ok) {
        struct pb_timing b = timing(base, pair->base_row), n = timing(next, pair->new_row);
        pair->verdict = pb_compare_timings(&b, &n, o, &pair->change_pct, &pair->p);
    } else if (base_ok &&
               strcmp(pb_results_table_field(next, pair->new_row, next->status), "skipped") != 0) {
        pair->verdict = PB_VERDICT_FAILING; /* it worked before, and now it does not */
    } else {
        pair->verdict = PB_VERDICT_NOT_COMPARABLE;
    }
}

int pb_compare_tables(const struct pb_results_table *base, const struct pb_results_table *next,
                      const struct pb_compare_options *o, struct pb_compare_result *out, char *err,
                      size_t err_len) {
    *out = (struct pb_compare_result){0};
    if (check_columns(base, next, err, err_len) != 0) return -1;
    int ncols = base->naxes + 1;
    int *base_cols = malloc(2 * (size_t)ncols * sizeof *base_cols);
    if (!base_cols) return fail(err, err_len, "%s: out of memory", next->path);
    int *new_cols = base_cols + ncols;
    for (int i = 0; i < base->naxes; i++) {
        base_cols[i] = i;
        new_cols[i] = pb_results_table_column(next, base->header.fields[i]);
    }
    base_cols[base->naxes] = base->backend;
    new_cols[base->naxes] = next->backend;
    struct keyed_row *bk = make_keys(base, base_cols, ncols);
    struct keyed_row *nk = make_keys(next, new_cols, ncols);
    bool *matched = calloc(next->nrows ? next->nrows : 1, sizeof *matched);
    out->pairs = calloc(base->nrows ? base->nrows : 1, sizeof *out->pairs);
    out->only_base = calloc(base->nrows ? base->nrows : 1, sizeof *out->only_base);
    out->only_new = calloc(next->nrows ? next->nrows : 1, sizeof *out->only_new);
    int rc = -1;
    if (!bk || !nk || !matched || !out->pairs || !out->only_base || !out->only_new) {
        fail(err, err_len, "%s: out of memory comparing with %s", next->path, base->path);
    } else if (check_unique(base, bk, err, err_len) == 0 &&
               check_unique(next, nk, err, err_len) == 0) {
        /* bk is sorted by key; walking it by row gives BASE's order */
        size_t *key_of_row = malloc((base->nrows ? base->nrows : 1) * sizeof *key_of_row);
        if (!key_of_row) {
            fail(err, err_len, "%s: out of memory", base->path);
        } else {
            for (size_t i = 0; i < base->nrows; i++) key_of_row[bk[i].row] = i;
            for (size_t r = 0; r < base->nrows; r++) {
                const struct keyed_row *hit =
                    bsearch(&bk[key_of_row[r]], nk, next->nrows, sizeof *nk, by_key);
                if (!hit) {
                    out->only_base[out->nonly_base++] = r;
                    continue;
                }
                struct pb_compare_pair *pair = &out->pairs[out->npairs++];
                pair->base_row = r;
                pair->new_row = hit->row;
                matched[hit->row] = true;
                classify(base, next, o, pair);
                out->count[pair->verdict]++;
            }
            for (size_t r = 0; r < next->nrows; r++)
                if (!matched[r]) out->only_new[out->nonly_new++] = r;
            free(key_of_row);
            rc = 0;
        }
    }
    free_keys(bk, base->nrows);
    free_keys(nk, next->nrows);
    free(matched);
    free(base_cols);
    if (rc != 0) pb_compare_result_free(out);
    return rc;
}

void pb_compare_result_free(struct pb_compare_result *r) {
    free(r->pairs);
    free(r->only_base);
    free(r->only_new);
    *r = (struct pb_compare_result){0};
}

int pb_compare_exit_code(const struct pb_compare_result *r) {
    return r->count[PB_VERDICT_SLOWER] > 0 || r->count[PB_VERDICT_FAILING] > 0 ? 1 : 0;
}

/* "wrong in NEW", "skipped in BASE and NEW", "skipped in BASE, error in NEW" */
static void status_note(const char *base_status, const char *new_status, char *buf, size_t len) {
    bool base_ok = strcmp(base_status, "ok") == 0, new_ok = strcmp(new_status, "ok") == 0;
    if (base_ok)
        snprintf(buf, len, "%s in NEW", new_status);
    else if (new_ok)
        snprintf(buf, len, "%s in BASE", base_status);
    else if (strcmp(base_status, new_status) == 0)
        snprintf(buf, len, "%s in BASE and NEW", base_status);
    else
        snprintf(buf, len, "%s in BASE, %s in NEW", base_status, new_status);
}

static void print_mean(FILE *out, const struct pb_results_table *t, size_t row) {
    if (pb_results_table_ok(t, row))
        fprintf(out, " %.4g |", pb_results_table_number(t, row, t->mean_ms));
    else
        fprintf(out, " |");
}

static void print_pair(FILE *out, const struct pb_results_table *base,
                       const struct pb_results_table *next, const struct pb_compare_pair *pair) {
    char what[512];
    pb_results_table_describe(base, pair->base_row, what, sizeof what);
    fprintf(out, "| %s | %s |", what, pb_results_table_field(base, pair->base_row, base->backend));
    print_mean(out, base, pair->base_row);
    print_mean(out, next, pair->new_row);
    if (isfinite(pair->change_pct))
        fprintf(out, " %+.1f |", pair->change_pct);
    else
        fprintf(out, " |");
    if (isfinite(pair->p))
        fprintf(out, " %.2g |", pair->p);
    else if (isfinite(pair->change_pct))
        fprintf(out, " n/a |"); /* one repetition: no spread to test against */
    else
        fprintf(out, " |");
    if (pair->verdict == PB_VERDICT_FAILING || pair->verdict == PB_VERDICT_NOT_COMPARABLE) {
        char note[64];
        status_note(pb_results_table_field(base, pair->base_row, base->status),
                    pb_results_table_field(next, pair->new_row, next->status), note, sizeof note);
        fprintf(out, " %s: %s |\n", pb_verdict_name(pair->verdict), note);
    } else {
        fprintf(out, " %s |\n", pb_verdict_name(pair->verdict));
    }
}

static void print_only(FILE *out, const char *side, const struct pb_results_table *t,
                       const size_t *rows, size_t count) {
    if (count == 0) return;
    fprintf(out, "\nOnly in %s (%s): %zu row%s\n\n", side, t->path, count, count == 1 ? "" : "s");
    char what[512];
    for (size_t i = 0; i < count; i++) {
        pb_results_table_describe(t, rows[i], what, sizeof what);
        fprintf(out, "- %s %s (%s)\n", what, pb_results_table_field(t, rows[i], t->backend),
                pb_results_table_field(t, rows[i], t->status));
    }
}

void pb_compare_print(FILE *out, const struct pb_results_table *base,
                      const struct pb_results_table *next, const struct pb_compare_result *r,
                      const struct pb_compare_options *o) {
    fprintf(out,
            "BASE %s, NEW %s: a change beyond %g%% counts when Welch's t-test gives p < %g.\n\n",
            base->path, next->path, o->threshold_pct, o->alpha);
    fprintf(out, "| case | backend | base mean ms | new mean ms | change %% | p | verdict |\n");
    fprintf(out, "|---|---|---:|---:|---:|---:|---|\n");
    for (size_t i = 0; i < r->npairs; i++) print_pair(out, base, next, &r->pairs[i]);
    fprintf(out, "\n%zu pairs:", r->npairs);
    for (int v = 0; v < PB_VERDICT_COUNT; v++)
        fprintf(out, "%s %zu %s", v ? "," : "", r->count[v], pb_verdict_name(v));
    fprintf(out, "; %zu only in BASE, %zu only in NEW.\n", r->nonly_base, r->nonly_new);
    print_only(out, "BASE", base, r->only_base, r->nonly_base);
    print_only(out, "NEW", next, r->only_new, r->nonly_new);
}
