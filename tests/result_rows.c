#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "csv.h"
#include "result_rows.h"

static int column(const struct pb_csv_record *header, const char *name) {
    for (int i = 0; i < header->count; i++)
        if (strcmp(header->fields[i], name) == 0) return i;
    return -1;
}

int read_result_rows(const char *path, struct result_row *rows) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    struct pb_csv_record header, rec;
    char err[256];
    if (pb_csv_read_record(f, &header, err, sizeof err) != 1) {
        fclose(f);
        return -1;
    }
    int n = column(&header, "n"), backend = column(&header, "backend"),
        status = column(&header, "status"), reason = column(&header, "reason"),
        mean = column(&header, "mean_ms");
    int count = 0, got;
    bool ok = n >= 0 && backend >= 0 && status >= 0 && reason >= 0 && mean >= 0;
    while (ok && (got = pb_csv_read_record(f, &rec, err, sizeof err)) == 1) {
        ok = rec.count == header.count && count < RESULT_ROWS_MAX;
        if (ok) {
            struct result_row *r = &rows[count++];
            snprintf(r->n, sizeof r->n, "%s", rec.fields[n]);
            snprintf(r->backend, sizeof r->backend, "%s", rec.fields[backend]);
            snprintf(r->status, sizeof r->status, "%s", rec.fields[status]);
            snprintf(r->reason, sizeof r->reason, "%s", rec.fields[reason]);
            snprintf(r->mean_ms, sizeof r->mean_ms, "%s", rec.fields[mean]);
        }
        pb_csv_record_free(&rec);
    }
    if (ok && got != 0) ok = false;
    pb_csv_record_free(&header);
    fclose(f);
    return ok ? count : -1;
}

const struct result_row *find_result_row(const struct result_row *rows, int count, const char *n,
                                         const char *backend) {
    for (int i = 0; i < count; i++)
        if (strcmp(rows[i].n, n) == 0 && strcmp(rows[i].backend, backend) == 0) return &rows[i];
    return NULL;
}
