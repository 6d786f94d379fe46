/* One result row per (case, backend): its status, statistics and derived rates, and
 * how it is written as CSV. */
#ifndef PB_RESULTS_H
#define PB_RESULTS_H

#include <stdbool.h>
#include <stdio.h>

#include "columns.h"
#include "primbench.h"
#include "stats.h"

enum pb_status {
    PB_STATUS_OK,
    PB_STATUS_WRONG,
    PB_STATUS_SKIPPED,
    PB_STATUS_ERROR,
    PB_STATUS_TIMEOUT
};

const char *pb_status_name(enum pb_status s);

struct pb_row {
    const struct pb_case *c;
    const struct pb_backend *backend;
    int device; /* GPU ordinal; -1 for CPU backends; -2 for a GPU backend with no GPU */
    enum pb_status status;
    char reason[PB_REASON_LEN];
    struct pb_summary time_ms; /* valid when status is ok */
    double elements, bytes;    /* the primitive's work model */
    double bound_gbytes_per_s; /* copy-probe bound, 0 when unknown */
    double setup_ms; /* the case's input (unless the previous case's is reused) and reference */
    double wall_ms;  /* this row's wall time: prepare, warm-up, reps, verify, release */
    double between_reps_us; /* GPU: time per repetition outside the timed interval; NAN for CPU */
    /* The output's axis columns (a suite's: every part's); NULL: the case's own axes. */
    const struct pb_columns *columns;
};

/* How rows are written: CSV (RFC 4180) or JSON Lines, one object per row. */
enum pb_format { PB_FORMAT_CSV, PB_FORMAT_JSON };

/* The most fields a row has: the axis columns and the fixed columns. */
#define PB_RESULTS_MAX_FIELDS (PB_MAX_AXIS_COLUMNS + 32)

/* One row as named text fields, shared by both formats so that they hold the same
 * fields: CSV writes the text; JSON writes numbers as numbers and an empty number
 * (one that does not exist) as null. */
struct pb_row_fields {
    int count;
    const char *name[PB_RESULTS_MAX_FIELDS];
    const char *text[PB_RESULTS_MAX_FIELDS];
    bool is_number[PB_RESULTS_MAX_FIELDS];
    char buf[PB_RESULTS_MAX_FIELDS][40]; /* storage for formatted numbers */
};
void pb_results_row_fields(const struct pb_row *row, struct pb_row_fields *out);

/* Column names: the primitive's axes, then the fixed columns. Returns the count. */
int pb_results_header_fields(const struct pb_primitive *p, const char **names);
/* The same for an output's axis columns (a suite's union). */
int pb_results_header_columns(const struct pb_columns *cols, const char **names);
/* An axis value as the output writes it ("1024", "u32"); buf holds integers. */
const char *pb_results_axis_text(const struct pb_case *c, int axis, char *buf, size_t len);

/* Header: one column per axis of the primitive, then the fixed columns. */
int pb_results_write_header(FILE *f, const struct pb_primitive *p);
int pb_results_write_header_columns(FILE *f, const struct pb_columns *cols);
/* The fixed columns after the axes, in order; from `reps` on they are numbers. */
extern const char *const pb_result_columns[];
extern const int pb_result_column_count;
int pb_results_write_row(FILE *f, const struct pb_row *row);
/* One JSON object and a newline, written with one fwrite and flushed, like a CSV row. */
int pb_results_write_json_row(FILE *f, const struct pb_row *row);

/* Rates of a row: throughput at the mean, and at the ends of the mean's 95% CI. */
struct pb_rates {
    double gelem_per_s, gelem_low, gelem_high;
    double gbytes_per_s, gbytes_low, gbytes_high;
    double bound_fraction;
};
void pb_row_rates(const struct pb_row *row, struct pb_rates *out);

#endif
