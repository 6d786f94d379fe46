/* Sweep order of result rows: where each (case, backend) row sits in a single-device,
 * unsharded run of a config, and files of rows put back into that order. Used by
 * `bench run --devices` (rows are written as workers finish them, then sorted) and by
 * `bench merge` (shards joined into one file). */
#ifndef PB_ROW_ORDER_H
#define PB_ROW_ORDER_H

#include <stddef.h>

#include "config.h"
#include "results.h"
#include "sweep.h"

/* Every row key of a sweep with its position: the rows of the cases before it (each case
 * has a row per backend of its part), plus the backend's index in its part. */
struct pb_row_order {
    size_t count;
    char **keys;               /* sorted, for lookup */
    size_t *pos;               /* pos[i] belongs to keys[i] */
    struct pb_columns columns; /* the output's axis columns, the first columns of a row */
    char what[256];            /* "primitive reduce", "suite ci (...)", for messages */
};

int pb_row_order_build(const struct pb_config *cfg, const struct pb_sweep *sw,
                       struct pb_row_order *o);
void pb_row_order_free(struct pb_row_order *o);

/* One row of a results file, as written (with its line end), and where it belongs. */
struct pb_row_text {
    size_t pos;
    long record; /* its record number in the file (the header is 1), for messages */
    int file;    /* which of several files it came from (set by the caller) */
    char *text;
};

struct pb_results_rows {
    char *header; /* CSV: the header line; NULL for JSON Lines */
    size_t count, cap;
    struct pb_row_text *rows;
};

/* Appends every row of path (CSV, or JSON Lines with fmt PB_FORMAT_JSON) to rows, tagged
 * with `file`. Returns 0, or 2 with one line in err naming the file and record: not the
 * config's header, a malformed or cut row, a row whose case or backend is not in the
 * sweep, or a header that differs from the one already loaded. */
int pb_results_rows_load(const char *path, enum pb_format fmt, const struct pb_row_order *o,
                         int file, struct pb_results_rows *rows, char *err, size_t err_len);
/* Sorts rows into sweep order (stable: rows of one position keep their file order). */
void pb_results_rows_sort(struct pb_results_rows *rows);
/* Writes header and rows to path through a temporary file renamed into place, so a
 * reader or a crash never sees half a file. Returns 0, or -1 with err. */
int pb_results_rows_write(const char *path, const struct pb_results_rows *rows, char *err,
                          size_t err_len);
void pb_results_rows_free(struct pb_results_rows *rows);

/* Rewrites a finished output in sweep order. Returns 0, or -1 with err (the file is then
 * left as it was: every row still in it, in the order written). */
int pb_results_file_sort(const char *path, enum pb_format fmt, const struct pb_row_order *o,
                         char *err, size_t err_len);

#endif
