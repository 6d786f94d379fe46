/* CSV rows of results. Numbers that do not exist (a skipped row's time, the interval
 * of a single repetition) are empty fields, never zeros. */
#include <inttypes.h>
#include <math.h>

#include "csv.h"
#include "results.h"

static const char *const status_names[] = {"ok", "wrong", "skipped", "error", "timeout"};

const char *pb_status_name(enum pb_status s) { return status_names[s]; }

static const char *const fixed_columns[] = {
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
#define FIXED_COUNT ((int)(sizeof fixed_columns / sizeof fixed_columns[0]))

int pb_results_write_header(FILE *f, const struct pb_primitive *p) {
    const char *fields[PB_MAX_AXES + FIXED_COUNT];
    int n = 0;
    for (int i = 0; i < p->naxes; i++) fields[n++] = p->axes[i].name;
    for (int i = 0; i < FIXED_COUNT; i++) fields[n++] = fixed_columns[i];
    return pb_csv_write_row(f, fields, n);
}

void pb_row_rates(const struct pb_row *row, struct pb_rates *out) {
    const struct pb_summary *t = &row->time_ms;
    /* time in ms -> per second, scaled to 1e9: x / (ms * 1e-3) / 1e9 = x / ms / 1e6 */
    out->gelem_per_s = row->elements / t->mean / 1e6;
    out->gelem_low = row->elements / t->ci95_high / 1e6;
    out->gelem_high = row->elements / t->ci95_low / 1e6;
    out->gbytes_per_s = row->bytes / t->mean / 1e6;
    out->gbytes_low = row->bytes / t->ci95_high / 1e6;
    out->gbytes_high = row->bytes / t->ci95_low / 1e6;
    out->bound_fraction =
        row->bound_gbytes_per_s > 0 ? out->gbytes_per_s / row->bound_gbytes_per_s : NAN;
}

static const char *number(char *buf, size_t len, double v) {
    if (!isfinite(v)) return "";
    snprintf(buf, len, "%.6g", v);
    return buf;
}

int pb_results_write_row(FILE *f, const struct pb_row *row) {
    char text[PB_MAX_AXES + FIXED_COUNT][40];
    const char *fields[PB_MAX_AXES + FIXED_COUNT];
    int n = 0;
    const struct pb_case *c = row->c;
    for (int i = 0; i < c->naxes; i++, n++) {
        if (c->axes[i].kind == PB_AXIS_INT) {
            snprintf(text[n], sizeof text[n], "%" PRId64, c->value[i]);
            fields[n] = text[n];
        } else {
            fields[n] = c->axes[i].choices[c->value[i]];
        }
    }
    fields[n++] = row->backend->primitive;
    fields[n++] = row->backend->name;
    fields[n++] = row->backend->target == PB_TARGET_GPU ? "gpu" : "cpu";
    if (row->device >= 0) {
        snprintf(text[n], sizeof text[n], "%d", row->device);
        fields[n] = text[n];
    } else {
        fields[n] = row->device == -1 ? "cpu" : "";
    }
    n++;
    fields[n++] = pb_status_name(row->status);
    fields[n++] = row->reason;
    bool timed = row->status == PB_STATUS_OK;
    snprintf(text[n], sizeof text[n], "%d", timed ? row->time_ms.count : 0);
    fields[n] = text[n];
    n++;
    struct pb_rates r = {0};
    const struct pb_summary *t = &row->time_ms;
    double none = NAN;
    if (timed) pb_row_rates(row, &r);
    double values[] = {t->mean,        t->stddev,    t->ci95_low,   t->ci95_high,    t->median,
                       t->min,         t->max,       r.gelem_per_s, r.gelem_low,     r.gelem_high,
                       r.gbytes_per_s, r.gbytes_low, r.gbytes_high, r.bound_fraction};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++, n++)
        fields[n] = number(text[n], sizeof text[n], timed ? values[i] : none);
    fields[n] = number(text[n], sizeof text[n], row->setup_ms);
    n++;
    fields[n] = number(text[n], sizeof text[n], row->wall_ms);
    n++;
    fields[n] = number(text[n], sizeof text[n], timed ? row->between_reps_us : none);
    n++;
    return pb_csv_write_row(f, fields, n);
}
