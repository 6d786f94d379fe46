/* CSV rows of results. Numbers that do not exist (a skipped row's time, the interval
 * of a single repetition) are empty fields, never zeros. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "csv.h"
#include "results.h"

static const char *const status_names[] = {"ok", "wrong", "skipped", "error", "timeout"};

const char *pb_status_name(enum pb_status s) { return status_names[s]; }

const char *const pb_result_columns[] = {
    "primitive",
    "backend",
    "target",
    "device",
    "status",
    "reason",
    "reps",
    "mean_ms",
    "stddev_ms",
    "ci95_low_ms",
    "ci95_high_ms",
    "median_ms",
    "min_ms",
    "max_ms",
    "gelem_per_s",
    "gelem_per_s_ci_low",
    "gelem_per_s_ci_high",
    "gbytes_per_s",
    "gbytes_per_s_ci_low",
    "gbytes_per_s_ci_high",
    "bound_fraction",
    "setup_ms",
    "wall_ms",
    "between_reps_us",
};
#define FIXED_COUNT ((int)(sizeof pb_result_columns / sizeof pb_result_columns[0]))
const int pb_result_column_count = FIXED_COUNT;
_Static_assert(PB_MAX_AXIS_COLUMNS + sizeof pb_result_columns / sizeof pb_result_columns[0] <=
                   PB_RESULTS_MAX_FIELDS,
               "PB_RESULTS_MAX_FIELDS must hold every axis and fixed column");

int pb_results_header_fields(const struct pb_primitive *p, const char **names) {
    int n = 0;
    for (int i = 0; i < p->naxes; i++) names[n++] = p->axes[i].name;
    for (int i = 0; i < FIXED_COUNT; i++) names[n++] = pb_result_columns[i];
    return n;
}

int pb_results_header_columns(const struct pb_columns *cols, const char **names) {
    int n = 0;
    for (int i = 0; i < cols->count; i++) names[n++] = cols->name[i];
    for (int i = 0; i < FIXED_COUNT; i++) names[n++] = pb_result_columns[i];
    return n;
}

int pb_results_write_header(FILE *f, const struct pb_primitive *p) {
    const char *fields[PB_RESULTS_MAX_FIELDS];
    int n = pb_results_header_fields(p, fields);
    return pb_csv_write_row(f, fields, n);
}

int pb_results_write_header_columns(FILE *f, const struct pb_columns *cols) {
    const char *fields[PB_RESULTS_MAX_FIELDS];
    int n = pb_results_header_columns(cols, fields);
    return pb_csv_write_row(f, fields, n);
}

void pb_row_rates(const struct pb_row *row, struct pb_rates *out) {
    const struct pb_summary *t = &row->time_ms;
    /* time in ms -> per second, scaled to 1e9: x / (ms * 1e-3) / 1e9 = x / ms / 1e6 */
    /* A time interval reaching zero (few, noisy repetitions) bounds no rate from above: the
     * rate's upper end is then infinite, which the output writes as an empty field. */
    double per_fastest_ms = t->ci95_low > 0 ? 1.0 / t->ci95_low : t->ci95_low <= 0 ? INFINITY : NAN;
    out->gelem_per_s = row->elements / t->mean / 1e6;
    out->gelem_low = row->elements / t->ci95_high / 1e6;
    out->gelem_high = row->elements * per_fastest_ms / 1e6;
    out->gbytes_per_s = row->bytes / t->mean / 1e6;
    out->gbytes_low = row->bytes / t->ci95_high / 1e6;
    out->gbytes_high = row->bytes * per_fastest_ms / 1e6;
    out->bound_fraction =
        row->bound_gbytes_per_s > 0 ? out->gbytes_per_s / row->bound_gbytes_per_s : NAN;
}

const char *pb_results_axis_text(const struct pb_case *c, int axis, char *buf, size_t len) {
    if (c->axes[axis].kind == PB_AXIS_CHOICE) return c->axes[axis].choices[c->value[axis]];
    snprintf(buf, len, "%" PRId64, c->value[axis]);
    return buf;
}

/* Appends one field; a number that is not finite is empty text. */
static void add_text(struct pb_row_fields *o, const char *name, const char *text) {
    o->name[o->count] = name;
    o->text[o->count] = text;
    o->is_number[o->count++] = false;
}

static void add_number(struct pb_row_fields *o, const char *name, double v) {
    char *buf = o->buf[o->count];
    buf[0] = '\0';
    if (isfinite(v)) snprintf(buf, sizeof o->buf[0], "%.6g", v);
    o->name[o->count] = name;
    o->text[o->count] = buf;
    o->is_number[o->count++] = true;
}

/* Counts and ordinals as integers, never in exponent form. */
static void add_int(struct pb_row_fields *o, const char *name, long long v) {
    snprintf(o->buf[o->count], sizeof o->buf[0], "%lld", v);
    o->name[o->count] = name;
    o->text[o->count] = o->buf[o->count];
    o->is_number[o->count++] = true;
}

void pb_results_row_fields(const struct pb_row *row, struct pb_row_fields *o) {
    o->count = 0;
    const struct pb_case *c = row->c;
    const struct pb_columns *cols = row->columns;
    int naxes = cols ? cols->count : c->naxes;
    for (int j = 0; j < naxes; j++) {
        /* A column the case's primitive has no axis for is empty (JSON: null). */
        int i = cols ? pb_columns_case_axis(cols, c, j) : j;
        o->name[o->count] = cols ? cols->name[j] : c->axes[i].name;
        o->buf[o->count][0] = '\0';
        o->text[o->count] =
            i < 0 ? o->buf[o->count]
                  : pb_results_axis_text(c, i, o->buf[o->count], sizeof o->buf[o->count]);
        o->is_number[o->count++] = i < 0 || c->axes[i].kind == PB_AXIS_INT;
    }
    int f = 0; /* index into pb_result_columns, which the order below follows */
    add_text(o, pb_result_columns[f++], row->backend->primitive);
    add_text(o, pb_result_columns[f++], row->backend->name);
    add_text(o, pb_result_columns[f++], row->backend->target == PB_TARGET_GPU ? "gpu" : "cpu");
    if (row->device >= 0)
        add_int(o, pb_result_columns[f++], row->device);
    else if (row->device == -1)
        add_text(o, pb_result_columns[f++], "cpu");
    else /* a GPU row without a GPU: no device at all */
        add_number(o, pb_result_columns[f++], NAN);
    add_text(o, pb_result_columns[f++], pb_status_name(row->status));
    add_text(o, pb_result_columns[f++], row->reason);
    /* Only an ok row has a time: a wrong, skipped, error or timeout row never reports one. */
    bool timed = row->status == PB_STATUS_OK;
    add_int(o, pb_result_columns[f++], timed ? row->time_ms.count : 0);
    struct pb_rates r = {0};
    const struct pb_summary *t = &row->time_ms;
    if (timed) pb_row_rates(row, &r);
    double values[] = {t->mean,        t->stddev,    t->ci95_low,   t->ci95_high,    t->median,
                       t->min,         t->max,       r.gelem_per_s, r.gelem_low,     r.gelem_high,
                       r.gbytes_per_s, r.gbytes_low, r.gbytes_high, r.bound_fraction};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
        add_number(o, pb_result_columns[f++], timed ? values[i] : NAN);
    add_number(o, pb_result_columns[f++], row->setup_ms);
    add_number(o, pb_result_columns[f++], row->wall_ms);
    add_number(o, pb_result_columns[f++], timed ? row->between_reps_us : NAN);
}

int pb_results_write_row(FILE *f, const struct pb_row *row) {
    struct pb_row_fields o;
    pb_results_row_fields(row, &o);
    return pb_csv_write_row(f, o.text, o.count);
}

int pb_results_write_json_row(FILE *f, const struct pb_row *row) {
    struct pb_row_fields o;
    pb_results_row_fields(row, &o);
    cJSON *obj = cJSON_CreateObject();
    for (int i = 0; obj && i < o.count; i++) {
        cJSON *v = !o.is_number[i] ? cJSON_CreateString(o.text[i])
                   : o.text[i][0]  ? cJSON_CreateNumber(strtod(o.text[i], NULL))
                                   : cJSON_CreateNull();
        if (!v || !cJSON_AddItemToObject(obj, o.name[i], v)) {
            cJSON_Delete(v);
            cJSON_Delete(obj);
            obj = NULL;
        }
    }
    char *text = obj ? cJSON_PrintUnformatted(obj) : NULL;
    cJSON_Delete(obj);
    if (!text) return -1;
    /* The line goes out whole or not at all: one fwrite of text and newline, then flush. */
    size_t len = strlen(text);
    text[len] = '\n'; /* replaces the terminator; len + 1 bytes are written */
    int rc = fwrite(text, 1, len + 1, f) == len + 1 && fflush(f) == 0 ? 0 : -1;
    free(text);
    return rc;
}
