/* The paper-style table. Rows and columns follow the CSV's own order (the sweep's), so n
 * ascends and choices appear as the config listed them. */
#include "report_table.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *err, size_t err_len, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
    return -1;
}

int pb_report_decimals(double v) {
    double a = fabs(v);
    if (!(a > 0) || !isfinite(a)) return 0;
    int d = 3 - (int)floor(log10(a));
    return d < 0 ? 0 : d > 12 ? 12 : d;
}

/* Where every table row falls: the index of its value on each axis, then its backend's. */
struct layout {
    const struct pb_results_table *t;
    int stride; /* naxes + 1 */
    int *idx;   /* nrows * stride */
    int *nvalues;
    const char ***values; /* per axis, then the backends */
    int *row_keys;        /* positions in idx keying a table row: row axes, then backend */
    int nrow_keys;
    int col;         /* the column axis, -1 for none */
    int *group_keys; /* varying axes that are neither rows nor the column */
    int ngroup_keys;
    int baseline;   /* the baseline's backend index, -1 for none */
    long *base_row; /* with a baseline: per row, the baseline's row of its case, or -1 */
};

static bool same(const struct layout *l, size_t a, size_t b, const int *keys, int nkeys) {
    for (int i = 0; i < nkeys; i++)
        if (l->idx[a * l->stride + keys[i]] != l->idx[b * l->stride + keys[i]]) return false;
    return true;
}

static void free_layout(struct layout *l) {
    for (int i = 0; l->values && i < l->stride; i++) free(l->values[i]);
    free(l->values);
    free(l->nvalues);
    free(l->idx);
    free(l->row_keys);
    free(l->group_keys);
    free(l->base_row);
}

static int index_rows(struct layout *l, char *err, size_t err_len) {
    const struct pb_results_table *t = l->t;
    l->stride = t->naxes + 1;
    l->values = calloc((size_t)l->stride, sizeof *l->values);
    l->nvalues = calloc((size_t)l->stride, sizeof *l->nvalues);
    l->idx = malloc((t->nrows ? t->nrows : 1) * (size_t)l->stride * sizeof *l->idx);
    l->row_keys = malloc((size_t)l->stride * sizeof *l->row_keys);
    l->group_keys = malloc((size_t)l->stride * sizeof *l->group_keys);
    if (!l->values || !l->nvalues || !l->idx || !l->row_keys || !l->group_keys)
        return fail(err, err_len, "%s: out of memory", t->path);
    for (int a = 0; a < l->stride; a++) {
        int col = a < t->naxes ? a : t->backend;
        l->nvalues[a] = pb_results_table_distinct(t, col, &l->values[a]);
        if (l->nvalues[a] < 0) return fail(err, err_len, "%s: out of memory", t->path);
        for (size_t r = 0; r < t->nrows; r++)
            l->idx[r * l->stride + a] = pb_results_value_index(l->values[a], l->nvalues[a],
                                                               pb_results_table_field(t, r, col));
    }
    return 0;
}

static void list_axes(const struct pb_results_table *t, char *buf, size_t len) {
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < t->naxes && used < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", t->header.fields[i]);
        if (w < 0) break;
        used += (size_t)w;
    }
}

static int find_axis(const struct pb_results_table *t, const char *option, const char *name,
                     char *err, size_t err_len) {
    int a = pb_results_table_axis(t, name);
    if (a < 0) {
        char axes[256];
        list_axes(t, axes, sizeof axes);
        return fail(err, err_len, "%s: %s: '%s' is not an axis of this file (axes: %s)", t->path,
                    option, name, axes);
    }
    return a;
}

static bool is_row_key(const struct layout *l, int a) {
    for (int i = 0; i < l->nrow_keys; i++)
        if (l->row_keys[i] == a) return true;
    return false;
}

static int choose_axes(struct layout *l, const struct pb_report_options *o, char *err,
                       size_t err_len) {
    const struct pb_results_table *t = l->t;
    l->col = -1;
    if (o->cols) {
        l->col = find_axis(t, "--cols", o->cols, err, err_len);
        if (l->col < 0) return -1;
    }
    if (o->rows) {
        for (int i = 0; i < o->nrows; i++) {
            if (strcmp(o->rows[i], "backend") == 0) continue; /* always the last row key */
            int a = find_axis(t, "--rows", o->rows[i], err, err_len);
            if (a < 0) return -1;
            if (a == l->col)
                return fail(err, err_len, "%s: '%s' cannot be both in --rows and --cols", t->path,
                            o->rows[i]);
            if (is_row_key(l, a))
                return fail(err, err_len, "%s: --rows: '%s' is given twice", t->path, o->rows[i]);
            l->row_keys[l->nrow_keys++] = a;
        }
    }
    if (!o->cols)
        for (int a = t->naxes - 1; a >= 0 && l->col < 0; a--)
            if (l->nvalues[a] > 1 && !is_row_key(l, a)) l->col = a;
    for (int a = 0; a < t->naxes; a++) {
        if (a == l->col || is_row_key(l, a) || l->nvalues[a] < 2) continue;
        if (o->rows)
            l->group_keys[l->ngroup_keys++] = a;
        else
            l->row_keys[l->nrow_keys++] = a;
    }
    l->row_keys[l->nrow_keys++] = t->naxes; /* the backend */
    return 0;
}

/* The baseline's backend, and for each row the baseline's row with the same value on every
 * axis (the first, if the case is there twice). */
static int choose_baseline(struct layout *l, const char *name, char *err, size_t err_len) {
    const struct pb_results_table *t = l->t;
    l->baseline = -1;
    if (!name) return 0;
    const int b = t->naxes; /* the backend's position in idx */
    l->baseline = pb_results_backend_index(t->path, "--baseline", l->values[b], l->nvalues[b], name,
                                           err, err_len);
    if (l->baseline < 0) return -1;
    l->base_row = malloc((t->nrows ? t->nrows : 1) * sizeof *l->base_row);
    if (!l->base_row) return fail(err, err_len, "%s: out of memory", t->path);
    const size_t axes_bytes = (size_t)t->naxes * sizeof *l->idx;
    for (size_t r = 0; r < t->nrows; r++) {
        l->base_row[r] = -1;
        for (size_t q = 0; q < t->nrows && l->base_row[r] < 0; q++)
            if (l->idx[q * l->stride + b] == l->baseline &&
                memcmp(&l->idx[r * l->stride], &l->idx[q * l->stride], axes_bytes) == 0)
                l->base_row[r] = (long)q;
    }
    return 0;
}

static bool is_baseline(const struct layout *l, size_t row) {
    return l->baseline >= 0 && l->idx[row * l->stride + l->t->naxes] == l->baseline;
}

/* The row's metric, or with a baseline its speedup over the baseline's row of its case;
 * false where there is none. */
static bool cell_value(const struct layout *l, const struct pb_metric *m, size_t row,
                       struct pb_estimate *e) {
    if (!pb_metric_value(l->t, row, m, &e->value, &e->low, &e->high)) return false;
    if (l->baseline < 0) return true;
    struct pb_estimate base;
    const long q = l->base_row[row];
    if (q < 0 || !pb_metric_value(l->t, (size_t)q, m, &base.value, &base.low, &base.high))
        return false;
    *e = pb_metric_speedup(m, *e, base);
    return isfinite(e->value);
}

static void print_cell(FILE *out, const struct layout *l, const struct pb_metric *m, long row) {
    if (row < 0) {
        fputs(" |", out);
        return;
    }
    struct pb_estimate e;
    if (!cell_value(l, m, (size_t)row, &e)) {
        /* not ok: say why there is no number, briefly; ok without this metric (a CPU row's
         * bound_fraction) or without a baseline row to set it against: n/a */
        bool ok = pb_results_table_ok(l->t, (size_t)row);
        fprintf(out, " %s |", ok ? "n/a" : pb_results_table_field(l->t, (size_t)row, l->t->status));
        return;
    }
    const double v = e.value, lo = e.low, hi = e.high;
    int d = pb_report_decimals(v);
    if (isfinite(lo))
        fprintf(out, " %.*f (%.*f-%.*f) |", d, v, d, lo, d, hi);
    else
        fprintf(out, " %.*f |", d, v);
}

static void print_header(FILE *out, const struct layout *l, const struct pb_metric *m) {
    const struct pb_results_table *t = l->t;
    fputs("|", out);
    for (int i = 0; i < l->nrow_keys; i++)
        fprintf(out, " %s |",
                l->row_keys[i] < t->naxes ? t->header.fields[l->row_keys[i]] : "backend");
    int ncols = l->col < 0 ? 1 : l->nvalues[l->col];
    for (int c = 0; c < ncols; c++) {
        if (l->col < 0)
            fprintf(out, " %s |", m->name);
        else
            fprintf(out, " %s=%s |", t->header.fields[l->col], l->values[l->col][c]);
    }
    fputs("\n|", out);
    for (int i = 0; i < l->nrow_keys; i++) fputs("---|", out);
    for (int c = 0; c < ncols; c++) fputs("---:|", out);
    fputs("\n", out);
}

/* One table: the rows sharing the group values of row `first`. */
static int print_group(FILE *out, const struct layout *l, const struct pb_metric *m, size_t first) {
    const struct pb_results_table *t = l->t;
    int ncols = l->col < 0 ? 1 : l->nvalues[l->col];
    size_t *keys = malloc(t->nrows * sizeof *keys); /* a representative row per table row */
    long *cells = malloc(t->nrows * (size_t)ncols * sizeof *cells);
    if (!keys || !cells) {
        free(keys);
        free(cells);
        return -1;
    }
    size_t nkeys = 0;
    for (size_t r = first; r < t->nrows; r++) {
        if (!same(l, r, first, l->group_keys, l->ngroup_keys) || is_baseline(l, r)) continue;
        size_t k = 0;
        while (k < nkeys && !same(l, r, keys[k], l->row_keys, l->nrow_keys)) k++;
        if (k == nkeys) {
            keys[nkeys++] = r;
            for (int c = 0; c < ncols; c++) cells[k * (size_t)ncols + (size_t)c] = -1;
        }
        int c = l->col < 0 ? 0 : l->idx[r * l->stride + l->col];
        long *cell = &cells[k * (size_t)ncols + (size_t)c];
        if (*cell < 0) *cell = (long)r; /* a case twice: the first one counts */
    }
    if (nkeys == 0) { /* a table of the baseline's rows alone: nothing to set against it */
        free(keys);
        free(cells);
        return 0;
    }
    if (l->ngroup_keys > 0) {
        fputs("\n###", out);
        for (int i = 0; i < l->ngroup_keys; i++)
            fprintf(out, " %s=%s", t->header.fields[l->group_keys[i]],
                    pb_results_table_field(t, first, l->group_keys[i]));
        fputs("\n", out);
    }
    fputs("\n", out);
    print_header(out, l, m);
    for (size_t k = 0; k < nkeys; k++) {
        fputs("|", out);
        for (int i = 0; i < l->nrow_keys; i++) {
            int a = l->row_keys[i];
            fprintf(out, " %s |",
                    pb_results_table_field(t, keys[k], a < t->naxes ? a : t->backend));
        }
        for (int c = 0; c < ncols; c++) print_cell(out, l, m, cells[k * (size_t)ncols + (size_t)c]);
        fputs("\n", out);
    }
    free(keys);
    free(cells);
    return 0;
}

static void print_caption(FILE *out, const struct layout *l, const struct pb_metric *m) {
    const struct pb_results_table *t = l->t;
    const char *primitive =
        t->nrows ? pb_results_table_field(t, 0, pb_results_table_column(t, "primitive")) : "";
    bool interval = strcmp(m->name, "median_ms") != 0;
    if (l->baseline >= 0)
        fprintf(out, "**%s: speedup over %s in %s (%s; above 1 is better)%s**, from %s", primitive,
                l->values[t->naxes][l->baseline], m->name, m->label,
                interval ? ", in parentheses from the ends of both 95% intervals" : "", t->path);
    else
        fprintf(out, "**%s: %s (%s)%s**, from %s", primitive, m->name, m->label,
                interval ? ", 95% interval in parentheses" : "", t->path);
    bool any = false;
    for (int a = 0; a < t->naxes; a++) {
        if (l->nvalues[a] != 1) continue;
        fprintf(out, "%s%s=%s", any ? " " : "; for ", t->header.fields[a], l->values[a][0]);
        any = true;
    }
    fputs("\n", out);
}

int pb_report_table(FILE *out, const struct pb_results_table *t, const struct pb_report_options *o,
                    char *err, size_t err_len) {
    struct layout l = {.t = t};
    int rc = index_rows(&l, err, err_len);
    if (rc == 0) rc = choose_axes(&l, o, err, err_len);
    if (rc == 0) rc = choose_baseline(&l, o->baseline, err, err_len);
    if (rc == 0) {
        print_caption(out, &l, o->metric);
        if (t->nrows == 0) fputs("\n(no rows)\n", out);
        /* one table per combination of the group axes, in order of first appearance */
        size_t *groups = malloc((t->nrows ? t->nrows : 1) * sizeof *groups);
        size_t ngroups = 0;
        if (!groups) rc = fail(err, err_len, "%s: out of memory", t->path);
        for (size_t r = 0; r < t->nrows && rc == 0; r++) {
            size_t g = 0;
            while (g < ngroups && !same(&l, groups[g], r, l.group_keys, l.ngroup_keys)) g++;
            if (g < ngroups) continue;
            groups[ngroups++] = r;
            if (print_group(out, &l, o->metric, r) != 0)
                rc = fail(err, err_len, "%s: out of memory", t->path);
        }
        free(groups);
    }
    free_layout(&l);
    return rc;
}
