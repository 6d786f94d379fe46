/* Reading a results CSV back, checked once here so that compare, report and plot need not
 * second-guess a field. */
#include "results_read.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"

#define FIRST_NUMERIC 6

static const char *const statuses[] = {"ok", "wrong", "skipped", "error", "timeout"};

static int fail(char *err, size_t err_len, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
    return -1;
}

bool pb_parse_number(const char *s, double *out) {
    if (!s || !*s) return false;
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || errno == ERANGE || !isfinite(v)) return false;
    *out = v;
    return true;
}

int pb_results_table_column(const struct pb_results_table *t, const char *name) {
    for (int i = 0; i < t->header.count; i++)
        if (strcmp(t->header.fields[i], name) == 0) return i;
    return -1;
}

int pb_results_table_axis(const struct pb_results_table *t, const char *name) {
    int col = pb_results_table_column(t, name);
    return col >= 0 && col < t->naxes ? col : -1;
}

const char *pb_results_table_field(const struct pb_results_table *t, size_t row, int col) {
    return t->rows[row].fields[col];
}

double pb_results_table_number(const struct pb_results_table *t, size_t row, int col) {
    double v;
    return pb_parse_number(t->rows[row].fields[col], &v) ? v : NAN;
}

bool pb_results_table_ok(const struct pb_results_table *t, size_t row) {
    return strcmp(t->rows[row].fields[t->status], "ok") == 0;
}

void pb_results_table_describe(const struct pb_results_table *t, size_t row, char *buf,
                               size_t len) {
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < t->naxes && used < len; i++) {
        if (!t->rows[row].fields[i][0]) continue;
        int w = snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "", t->header.fields[i],
                         t->rows[row].fields[i]);
        if (w < 0) break;
        used += (size_t)w;
    }
}

int pb_results_value_index(const char *const *values, int count, const char *value) {
    for (int i = 0; i < count; i++)
        if (strcmp(values[i], value) == 0) return i;
    return -1;
}

int pb_results_backend_index(const char *path, const char *option, const char *const *backends,
                             int count, const char *name, char *err, size_t err_len) {
    for (int b = 0; b < count; b++) {
        const char *slash = strchr(backends[b], '/');
        if (strcmp(backends[b], name) == 0 || (slash && strcmp(slash + 1, name) == 0)) return b;
    }
    char list[512] = "";
    for (int b = 0; b < count; b++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", b ? ", " : "",
                 backends[b]);
    snprintf(err, err_len, "%s: %s: no backend '%s' (backends: %s)", path, option, name, list);
    return -1;
}

int pb_results_table_distinct(const struct pb_results_table *t, int col, const char ***values) {
    const char **list = malloc((t->nrows ? t->nrows : 1) * sizeof *list);
    if (!list) return -1;
    int count = 0;
    for (size_t r = 0; r < t->nrows; r++) {
        const char *v = t->rows[r].fields[col];
        if (pb_results_value_index(list, count, v) < 0) list[count++] = v;
    }
    *values = list;
    return count;
}

/* Lines a record spans: one, plus the line breaks inside its quoted fields. */
static int record_lines(const struct pb_csv_record *rec) {
    int lines = 1;
    for (int i = 0; i < rec->count; i++)
        for (const char *p = rec->fields[i]; *p; p++) lines += *p == '\n';
    return lines;
}

static int check_header(struct pb_results_table *t, char *err, size_t err_len) {
    const struct pb_csv_record *h = &t->header;
    for (int i = 0; i < h->count; i++)
        for (int j = 0; j < i; j++)
            if (strcmp(h->fields[i], h->fields[j]) == 0)
                return fail(err, err_len, "%s: line 1: column '%s' appears twice", t->path,
                            h->fields[i]);
    for (int i = 0; i < pb_result_column_count; i++)
        if (pb_results_table_column(t, pb_result_columns[i]) < 0)
            return fail(err, err_len, "%s: not a primbench CSV: the header has no '%s' column",
                        t->path, pb_result_columns[i]);
    t->naxes = pb_results_table_column(t, "primitive");
    for (int i = 0; i < t->naxes; i++)
        for (int j = 1; j < pb_result_column_count; j++)
            if (strcmp(h->fields[i], pb_result_columns[j]) == 0)
                return fail(err, err_len,
                            "%s: not a primbench CSV: '%s' comes before 'primitive', where the "
                            "axes go",
                            t->path, h->fields[i]);
    t->backend = pb_results_table_column(t, "backend");
    t->status = pb_results_table_column(t, "status");
    t->reason = pb_results_table_column(t, "reason");
    t->reps = pb_results_table_column(t, "reps");
    t->mean_ms = pb_results_table_column(t, "mean_ms");
    t->stddev_ms = pb_results_table_column(t, "stddev_ms");
    return 0;
}

static int check_row(const struct pb_results_table *t, const struct pb_csv_record *rec, int line,
                     char *err, size_t err_len) {
    if (rec->count != t->header.count)
        return fail(err, err_len, "%s: line %d: %d fields, but the header has %d", t->path, line,
                    rec->count, t->header.count);
    const char *status = rec->fields[t->status];
    bool known = false;
    for (size_t i = 0; i < sizeof statuses / sizeof statuses[0]; i++)
        known = known || strcmp(status, statuses[i]) == 0;
    if (!known)
        return fail(err, err_len, "%s: line %d: status: '%s' is not a status", t->path, line,
                    status);
    for (int i = FIRST_NUMERIC; i < pb_result_column_count; i++) {
        int col = pb_results_table_column(t, pb_result_columns[i]);
        double v;
        if (rec->fields[col][0] && !pb_parse_number(rec->fields[col], &v))
            return fail(err, err_len, "%s: line %d: %s: '%s' is not a number", t->path, line,
                        pb_result_columns[i], rec->fields[col]);
    }
    if (strcmp(status, "ok") == 0) {
        double reps, mean;
        if (!pb_parse_number(rec->fields[t->reps], &reps) || reps < 1 || reps != floor(reps))
            return fail(err, err_len, "%s: line %d: reps: an ok row needs a count of at least 1",
                        t->path, line);
        if (!pb_parse_number(rec->fields[t->mean_ms], &mean) || mean <= 0)
            return fail(err, err_len, "%s: line %d: mean_ms: an ok row needs a positive time",
                        t->path, line);
    }
    return 0;
}

static int append_row(struct pb_results_table *t, struct pb_csv_record *rec, int line,
                      size_t *cap) {
    if (t->nrows == *cap) {
        size_t n = *cap ? 2 * *cap : 64;
        struct pb_csv_record *rows = realloc(t->rows, n * sizeof *rows);
        if (!rows) return -1;
        t->rows = rows;
        int *lines = realloc(t->line, n * sizeof *lines);
        if (!lines) return -1;
        t->line = lines;
        *cap = n;
    }
    t->rows[t->nrows] = *rec;
    t->line[t->nrows++] = line;
    return 0;
}

static int read_rows(struct pb_results_table *t, FILE *f, char *err, size_t err_len) {
    char why[160];
    int line = 1 + record_lines(&t->header);
    size_t cap = 0;
    for (;;) {
        struct pb_csv_record rec;
        int got = pb_csv_read_record(f, &rec, why, sizeof why);
        if (got == 0) return 0;
        if (got < 0) return fail(err, err_len, "%s: line %d: %s", t->path, line, why);
        int start = line;
        line += record_lines(&rec);
        if (rec.count == 0) continue; /* a blank line holds no row */
        if (check_row(t, &rec, start, err, err_len) != 0 ||
            (append_row(t, &rec, start, &cap) != 0 &&
             fail(err, err_len, "%s: out of memory", t->path))) {
            pb_csv_record_free(&rec);
            return -1;
        }
    }
}

int pb_results_table_load(const char *path, struct pb_results_table *t, char *err, size_t err_len) {
    *t = (struct pb_results_table){0};
    FILE *f = fopen(path, "rb");
    if (!f) return fail(err, err_len, "%s: cannot open: %s", path, strerror(errno));
    t->path = strdup(path);
    char why[160];
    int got = t->path ? pb_csv_read_record(f, &t->header, why, sizeof why) : -1;
    int rc = -1;
    if (!t->path)
        fail(err, err_len, "%s: out of memory", path);
    else if (got < 0)
        fail(err, err_len, "%s: line 1: %s", path, why);
    else if (got == 0 || t->header.count == 0)
        fail(err, err_len, "%s: empty, not a primbench CSV (no header)", path);
    else if (check_header(t, err, err_len) == 0 && read_rows(t, f, err, err_len) == 0)
        rc = 0;
    fclose(f);
    if (rc != 0) pb_results_table_free(t);
    return rc;
}

int pb_results_table_primitives(const struct pb_results_table *t, const char ***values) {
    return pb_results_table_distinct(t, pb_results_table_column(t, "primitive"), values);
}

/* A copy of rec's fields where keep[i] is set; 0, or -1 when out of memory. */
static int copy_fields(const struct pb_csv_record *rec, const bool *keep, int nkeep,
                       struct pb_csv_record *out) {
    out->count = 0;
    out->fields = calloc((size_t)(nkeep ? nkeep : 1), sizeof *out->fields);
    if (!out->fields) return -1;
    for (int i = 0; i < rec->count; i++) {
        if (!keep[i]) continue;
        out->fields[out->count] = strdup(rec->fields[i]);
        if (!out->fields[out->count]) {
            pb_csv_record_free(out);
            return -1;
        }
        out->count++;
    }
    return 0;
}

int pb_results_table_subset(const struct pb_results_table *t, const char *primitive,
                            struct pb_results_table *out, char *err, size_t err_len) {
    *out = (struct pb_results_table){0};
    int prim = pb_results_table_column(t, "primitive");
    bool *keep = calloc((size_t)t->header.count, sizeof *keep);
    bool *mine = calloc(t->nrows ? t->nrows : 1, sizeof *mine);
    int nkeep = 0;
    size_t nmine = 0;
    int rc = keep && mine ? 0 : -1;
    for (size_t r = 0; rc == 0 && r < t->nrows; r++)
        nmine += mine[r] = strcmp(t->rows[r].fields[prim], primitive) == 0;
    for (int i = 0; rc == 0 && i < t->header.count; i++) {
        keep[i] = i >= t->naxes; /* the fixed columns, and the axes these rows fill */
        for (size_t r = 0; !keep[i] && r < t->nrows; r++)
            keep[i] = mine[r] && t->rows[r].fields[i][0];
        nkeep += keep[i];
    }
    out->path = rc == 0 ? strdup(t->path) : NULL;
    out->rows = calloc(nmine ? nmine : 1, sizeof *out->rows);
    out->line = calloc(nmine ? nmine : 1, sizeof *out->line);
    if (!out->path || !out->rows || !out->line ||
        copy_fields(&t->header, keep, nkeep, &out->header) != 0)
        rc = -1;
    for (size_t r = 0; rc == 0 && r < t->nrows; r++) {
        if (!mine[r]) continue;
        if (copy_fields(&t->rows[r], keep, nkeep, &out->rows[out->nrows]) != 0) {
            rc = -1;
            break;
        }
        out->line[out->nrows++] = t->line[r];
    }
    if (rc == 0)
        rc = check_header(out, err, err_len);
    else
        fail(err, err_len, "%s: out of memory", t->path);
    free(keep);
    free(mine);
    if (rc != 0) pb_results_table_free(out);
    return rc;
}

void pb_results_table_free(struct pb_results_table *t) {
    for (size_t i = 0; i < t->nrows; i++) pb_csv_record_free(&t->rows[i]);
    free(t->rows);
    free(t->line);
    pb_csv_record_free(&t->header);
    free(t->path);
    *t = (struct pb_results_table){0};
}
