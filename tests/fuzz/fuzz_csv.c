/* libFuzzer target: pb_csv_read_record over arbitrary bytes. Every record read is written
 * back with pb_csv_write_row and read again, which must give the same fields. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_round_trip(const struct pb_csv_record *rec) {
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out) return;
    if (pb_csv_write_row(out, (const char *const *)rec->fields, rec->count) != 0) abort();
    fclose(out);
    FILE *in = fmemopen(text, len, "r");
    if (!in) abort();
    struct pb_csv_record again;
    char err[128];
    int rc = pb_csv_read_record(in, &again, err, sizeof err);
    /* A record of no fields is a blank line; anything else reads back as itself. */
    if (rec->count == 0 ? rc != 1 && rc != 0 : rc != 1) abort();
    if (rc == 1) {
        if (again.count != rec->count) abort();
        for (int i = 0; i < rec->count; i++)
            if (strcmp(again.fields[i], rec->fields[i]) != 0) abort();
        pb_csv_record_free(&again);
    }
    fclose(in);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0; /* fmemopen takes no empty buffer on older C libraries */
    FILE *f = fmemopen((void *)data, size, "r");
    if (!f) return 0;
    struct pb_csv_record rec;
    char err[128];
    int rc;
    while ((rc = pb_csv_read_record(f, &rec, err, sizeof err)) == 1) {
        check_round_trip(&rec);
        pb_csv_record_free(&rec);
    }
    if (rc == -1 && strncmp(err, "malformed CSV record", 20) != 0) abort();
    if (rc == -1 && (rec.count != 0 || rec.fields)) abort();
    fclose(f);
    return 0;
}
