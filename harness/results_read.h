/* A results CSV read back (by compare, report and plot): the header, every row as strings,
 * checked to be a primbench CSV so that the readers can trust its fields. */
#ifndef PB_RESULTS_READ_H
#define PB_RESULTS_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "csv.h"

struct pb_results_table {
    char *path;
    struct pb_csv_record header;
    int naxes; /* the axis columns: every column before `primitive` */
    size_t nrows;
    struct pb_csv_record *rows; /* each with header.count fields */
    int *line;                  /* the line each row starts on, for messages */
    int backend, status, reason, reps, mean_ms, stddev_ms; /* column indexes */
};

/* Reads and checks path: the fixed columns of harness/results.c all present, every row as
 * wide as the header, a known status, numbers where numbers belong, a time in every ok row.
 * Returns 0, or -1 with one line in err naming the file (and the line and column). */
int pb_results_table_load(const char *path, struct pb_results_table *t, char *err, size_t err_len);
void pb_results_table_free(struct pb_results_table *t);

/* The index of a column, -1 when there is none. */
int pb_results_table_column(const struct pb_results_table *t, const char *name);
/* An axis column by name, -1 when name is not an axis. */
int pb_results_table_axis(const struct pb_results_table *t, const char *name);
const char *pb_results_table_field(const struct pb_results_table *t, size_t row, int col);
/* A numeric field; NAN when empty (the load checked that the others are numbers). */
double pb_results_table_number(const struct pb_results_table *t, size_t row, int col);
bool pb_results_table_ok(const struct pb_results_table *t, size_t row);
/* "n=1024 dtype=u32 distribution=uniform op=sum": the row's axes (empty ones, which a
 * suite's output has where a primitive lacks an axis, left out). */
void pb_results_table_describe(const struct pb_results_table *t, size_t row, char *buf, size_t len);

/* The distinct values of a column in order of first appearance, as pointers into the table,
 * in a new array (the caller frees it). Returns the count, or -1 when out of memory. */
int pb_results_table_distinct(const struct pb_results_table *t, int col, const char ***values);
/* The position of value in values[0..count), -1 when absent. */
int pb_results_value_index(const char *const *values, int count, const char *value);
/* The position of backend `name` in backends[0..count): its whole name, or the part after
 * the primitive's slash ("cub" finds "reduce/cub"). -1 when absent, with one line in err
 * naming the file, the option and the backends there are. */
int pb_results_backend_index(const char *path, const char *option, const char *const *backends,
                             int count, const char *name, char *err, size_t err_len);

/* The values of the `primitive` column in order of first appearance (as
 * pb_results_table_distinct): more than one for the output of a suite. */
int pb_results_table_primitives(const struct pb_results_table *t, const char ***values);
/* The rows of one primitive as a table of their own, for readers that show one primitive
 * at a time (report, plot): the axis columns those rows fill (a suite's output leaves a
 * column empty where the primitive has no such axis), then the fixed columns. The path
 * is t's; rows and lines are copies. Returns 0, or -1 with err (memory). */
int pb_results_table_subset(const struct pb_results_table *t, const char *primitive,
                            struct pb_results_table *out, char *err, size_t err_len);

/* Parses a whole-string number; false for "" or anything with trailing text. */
bool pb_parse_number(const char *s, double *out);

#endif
