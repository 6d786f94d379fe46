/* One result row per (case, backend): its status, statistics and derived rates, and
 * how it is written as CSV. */
#ifndef PB_RESULTS_H
#define PB_RESULTS_H

#include <stdio.h>

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
};

/* Header: one column per axis of the primitive, then the fixed columns. */
int pb_results_write_header(FILE *f, const struct pb_primitive *p);
int pb_results_write_row(FILE *f, const struct pb_row *row);

/* Rates of a row: throughput at the mean, and at the ends of the mean's 95% CI. */
struct pb_rates {
    double gelem_per_s, gelem_low, gelem_high;
    double gbytes_per_s, gbytes_low, gbytes_high;
    double bound_fraction;
};
void pb_row_rates(const struct pb_row *row, struct pb_rates *out);

#endif
