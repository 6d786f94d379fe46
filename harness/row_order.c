/* Row keys are the axis values and the backend joined by the ASCII unit separator (in no
 * axis value or backend name), as resume.c makes them. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "csv.h"
#include "row_order.h"

#define KEY_SEP '\x1f'
#define KEY_LEN 1024

/* Joins parts into buf with KEY_SEP after each. Returns 0, or -1 when it does not fit. */
static int key_join(const char *const *parts, int n, char *buf, size_t len) {
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        size_t l = strlen(parts[i]);
        if (at + l + 2 > len) return -1;
        memcpy(buf + at, parts[i], l);
        at += l;
        buf[at++] = KEY_SEP;
    }
    buf[at] = '\0';
    return 0;
}

struct entry {
    char *key;
    size_t pos;
};

static int compare_entries(const void *a, const void *b) {
    return strcmp(((const struct entry *)a)->key, ((const struct entry *)b)->key);
}

int pb_row_order_build(const struct pb_config *cfg, const struct pb_sweep *sw,
                       struct pb_row_order *o) {
    memset(o, 0, sizeof *o);
    if (pb_columns_from_config(cfg, &o->columns) != 0) return -1;
    pb_config_describe(cfg, o->what, sizeof o->what);
    const struct pb_columns *cols = &o->columns;
    size_t total = 0;
    for (size_t i = 0; i < sw->count; i++)
        total += (size_t)pb_config_part(cfg, pb_sweep_part(sw, i))->nbackends;
    struct entry *e = calloc(total + 1, sizeof *e);
    if (!e) return -1;
    char bufs[PB_MAX_AXIS_COLUMNS][32], key[KEY_LEN];
    const char *parts[PB_MAX_AXIS_COLUMNS + 1];
    size_t n = 0;
    for (size_t i = 0; i < sw->count; i++) {
        const struct pb_case *c = &sw->cases[i];
        const struct pb_config *part = pb_config_part(cfg, pb_sweep_part(sw, i));
        for (int j = 0; j < cols->count; j++)
            parts[j] = pb_columns_case_text(cols, c, j, bufs[j], sizeof bufs[j]);
        /* Rows in sweep order: a case's backends, case after case; n counts them. */
        for (int b = 0; b < part->nbackends; b++) {
            parts[cols->count] = part->backends[b]->name;
            if (key_join(parts, cols->count + 1, key, sizeof key) != 0 || !(e[n].key = strdup(key)))
                goto fail;
            e[n].pos = n;
            n++;
        }
    }
    qsort(e, n, sizeof *e, compare_entries);
    o->keys = calloc(n + 1, sizeof *o->keys);
    o->pos = calloc(n + 1, sizeof *o->pos);
    if (!o->keys || !o->pos) goto fail;
    for (size_t i = 0; i < n; i++) {
        o->keys[i] = e[i].key;
        o->pos[i] = e[i].pos;
    }
    o->count = n;
    free(e);
    return 0;
fail:
    for (size_t i = 0; i < n; i++) free(e[i].key);
    free(e);
    free(o->keys);
    free(o->pos);
    memset(o, 0, sizeof *o);
    return -1;
}

void pb_row_order_free(struct pb_row_order *o) {
    for (size_t i = 0; i < o->count; i++) free(o->keys[i]);
    free(o->keys);
    free(o->pos);
    memset(o, 0, sizeof *o);
}

/* The position of key, or -1 when the sweep has no such row. */
static long long find(const struct pb_row_order *o, const char *key) {
    size_t lo = 0, hi = o->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(o->keys[mid], key);
        if (c == 0) return (long long)o->pos[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static int push(struct pb_results_rows *rows, size_t pos, long record, int file, char *text) {
    if (rows->count == rows->cap) {
        size_t cap = rows->cap ? 2 * rows->cap : 256;
        struct pb_row_text *r = realloc(rows->rows, cap * sizeof *r);
        if (!r) return -1;
        rows->rows = r;
        rows->cap = cap;
    }
    rows->rows[rows->count++] = (struct pb_row_text){pos, record, file, text};
    return 0;
}

/* A CSV record as the writer writes it (one canonical form), in a new string. */
static char *csv_text(const struct pb_csv_record *rec) {
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) return NULL;
    int rc = pb_csv_write_row(m, (const char *const *)rec->fields, rec->count);
    if (fclose(m) != 0 || rc != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static int fail(char *err, size_t err_len, const char *path, long record, const char *what) {
    snprintf(err, err_len, "%s: record %ld: %s", path, record, what);
    return 2;
}

static int load_csv(const char *path, FILE *f, const struct pb_row_order *o, int file,
                    struct pb_results_rows *rows, char *err, size_t err_len) {
    const char *names[PB_RESULTS_MAX_FIELDS];
    int nfields = pb_results_header_columns(&o->columns, names);
    int naxes = o->columns.count;
    struct pb_csv_record rec;
    char why[256];
    int got = pb_csv_read_record(f, &rec, why, sizeof why);
    bool header_ok = got == 1 && rec.count == nfields;
    for (int i = 0; header_ok && i < nfields; i++) header_ok = strcmp(rec.fields[i], names[i]) == 0;
    char *header = header_ok ? csv_text(&rec) : NULL;
    if (got == 1) pb_csv_record_free(&rec);
    if (!header) {
        snprintf(err, err_len, "%s: line 1: not a primbench CSV of %s", path, o->what);
        return 2;
    }
    if (rows->header && strcmp(rows->header, header) != 0) {
        free(header);
        snprintf(err, err_len, "%s: line 1: its header differs from the first file's", path);
        return 2;
    }
    if (rows->header)
        free(header);
    else
        rows->header = header;
    for (long record = 2;; record++) {
        got = pb_csv_read_record(f, &rec, why, sizeof why);
        if (got == 0) return 0;
        if (got < 0) return fail(err, err_len, path, record, why);
        char key[KEY_LEN];
        const char *parts[PB_MAX_AXIS_COLUMNS + 1];
        int rc = 0;
        if (rec.count != nfields) {
            rc = fail(err, err_len, path, record,
                      "not a complete primbench row (a shard stopped mid-row? resume it first)");
        } else {
            for (int i = 0; i < naxes; i++) parts[i] = rec.fields[i];
            parts[naxes] = rec.fields[naxes + 1]; /* after `primitive`: `backend` */
            long long pos = key_join(parts, naxes + 1, key, sizeof key) == 0 ? find(o, key) : -1;
            char *text = pos >= 0 ? csv_text(&rec) : NULL;
            if (pos < 0)
                rc = fail(err, err_len, path, record,
                          "its case or backend is not in the config's sweep");
            else if (!text || push(rows, (size_t)pos, record, file, text) != 0)
                rc = fail(err, err_len, path, record, "out of memory");
            if (rc && text) free(text);
        }
        pb_csv_record_free(&rec);
        if (rc) return rc;
    }
}

/* The key of one JSON Lines row; -1 when it is not a row of the config's primitives. */
static int json_key(const struct pb_row_order *o, const cJSON *row, char *key, size_t len) {
    int naxes = o->columns.count;
    char bufs[PB_MAX_AXIS_COLUMNS][32];
    const char *parts[PB_MAX_AXIS_COLUMNS + 1];
    if (pb_columns_json_texts(&o->columns, row, bufs, parts) != 0) return -1;
    parts[naxes] = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "backend"));
    if (!parts[naxes]) return -1;
    return key_join(parts, naxes + 1, key, len);
}

static int load_jsonl(const char *path, FILE *f, const struct pb_row_order *o, int file,
                      struct pb_results_rows *rows, char *err, size_t err_len) {
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int rc = 0;
    for (long record = 1; (len = getline(&line, &cap, f)) > 0; record++) {
        if (line[len - 1] != '\n') {
            rc = fail(err, err_len, path, record, "cut short (a shard stopped mid-row?)");
            break;
        }
        cJSON *row = cJSON_Parse(line);
        char key[KEY_LEN];
        long long pos = json_key(o, row, key, sizeof key) == 0 ? find(o, key) : -1;
        cJSON_Delete(row);
        char *text = pos >= 0 ? strdup(line) : NULL;
        if (pos < 0) {
            rc = fail(err, err_len, path, record, "not a primbench JSON row of the config's sweep");
            break;
        }
        if (!text || push(rows, (size_t)pos, record, file, text) != 0) {
            free(text);
            rc = fail(err, err_len, path, record, "out of memory");
            break;
        }
    }
    free(line);
    return rc;
}

int pb_results_rows_load(const char *path, enum pb_format fmt, const struct pb_row_order *o,
                         int file, struct pb_results_rows *rows, char *err, size_t err_len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_len, "%s: cannot open: %s", path, strerror(errno));
        return 2;
    }
    int rc = fmt == PB_FORMAT_JSON ? load_jsonl(path, f, o, file, rows, err, err_len)
                                   : load_csv(path, f, o, file, rows, err, err_len);
    fclose(f);
    return rc;
}

static int compare_rows(const void *a, const void *b) {
    const struct pb_row_text *x = a, *y = b;
    if (x->pos != y->pos) return x->pos < y->pos ? -1 : 1;
    if (x->file != y->file) return x->file < y->file ? -1 : 1;
    return (x->record > y->record) - (x->record < y->record);
}

void pb_results_rows_sort(struct pb_results_rows *rows) {
    /* (pos, file, record) is unique, so qsort's instability cannot show. */
    qsort(rows->rows, rows->count, sizeof *rows->rows, compare_rows);
}

int pb_results_rows_write(const char *path, const struct pb_results_rows *rows, char *err,
                          size_t err_len) {
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    bool ok = f != NULL;
    if (ok && rows->header) ok = fputs(rows->header, f) >= 0;
    for (size_t i = 0; ok && i < rows->count; i++) ok = fputs(rows->rows[i].text, f) >= 0;
    if (f && fclose(f) != 0) ok = false;
    if (!ok || rename(tmp, path) != 0) {
        snprintf(err, err_len, "%s: cannot write: %s", path, strerror(errno));
        remove(tmp);
        return -1;
    }
    return 0;
}

void pb_results_rows_free(struct pb_results_rows *rows) {
    for (size_t i = 0; i < rows->count; i++) free(rows->rows[i].text);
    free(rows->rows);
    free(rows->header);
    memset(rows, 0, sizeof *rows);
}

int pb_results_file_sort(const char *path, enum pb_format fmt, const struct pb_row_order *o,
                         char *err, size_t err_len) {
    struct pb_results_rows rows = {0};
    int rc = pb_results_rows_load(path, fmt, o, 0, &rows, err, err_len) == 0 ? 0 : -1;
    if (rc == 0) {
        pb_results_rows_sort(&rows);
        rc = pb_results_rows_write(path, &rows, err, err_len);
    }
    pb_results_rows_free(&rows);
    return rc;
}
