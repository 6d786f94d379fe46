/* The rows of a result CSV, by column name, for the tests that drive the bench binary. */
#ifndef PB_TEST_RESULT_ROWS_H
#define PB_TEST_RESULT_ROWS_H

#define RESULT_ROWS_MAX 64

struct result_row {
    char n[32], backend[64], status[16], reason[256], mean_ms[32];
};

/* Reads up to RESULT_ROWS_MAX rows of path into rows; returns the count, or -1 when the
 * file cannot be read, a row is malformed or has another field count than the header. */
int read_result_rows(const char *path, struct result_row *rows);

/* The row of backend (full name) at n, or NULL. */
const struct result_row *find_result_row(const struct result_row *rows, int count, const char *n,
                                         const char *backend);

#endif
