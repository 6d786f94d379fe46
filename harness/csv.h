/* RFC 4180 CSV: fields quoted only when they need it, quotes doubled, CRLF line ends.
 * Writing flushes every row, so a crash never leaves a half-written row behind a
 * complete one. */
#ifndef PB_CSV_H
#define PB_CSV_H

#include <stdio.h>

/* Writes one field, quoted when it holds a comma, quote, CR or LF. */
int pb_csv_write_field(FILE *f, const char *s);
/* Writes count fields as one record, then CRLF, then fflush. Returns 0 or -1 on I/O error. */
int pb_csv_write_row(FILE *f, const char *const *fields, int count);

/* One parsed record. */
struct pb_csv_record {
    int count;
    char **fields; /* count strings, owned */
};

/* Reads the next record (quoted fields may span lines). Returns 1 when a record was
 * read, 0 at end of file, -1 on a malformed record (message in err). */
int pb_csv_read_record(FILE *f, struct pb_csv_record *rec, char *err, size_t err_len);
void pb_csv_record_free(struct pb_csv_record *rec);

#endif
