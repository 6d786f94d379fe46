/* RFC 4180 CSV writing and reading. */
#include "csv.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool needs_quotes(const char *s) { return strpbrk(s, ",\"\r\n") != NULL; }

int pb_csv_write_field(FILE *f, const char *s) {
    if (!s) s = "";
    if (!needs_quotes(s)) return fputs(s, f) == EOF ? -1 : 0;
    if (putc('"', f) == EOF) return -1;
    for (const char *p = s; *p; p++) {
        if (*p == '"' && putc('"', f) == EOF) return -1;
        if (putc(*p, f) == EOF) return -1;
    }
    return putc('"', f) == EOF ? -1 : 0;
}

int pb_csv_write_row(FILE *f, const char *const *fields, int count) {
    /* A lone empty field would be a blank line, which reads back as a record of no
     * fields; quoting it keeps the round trip exact (as Python's csv module does). */
    if (count == 1 && (!fields[0] || fields[0][0] == '\0')) {
        if (fputs("\"\"", f) == EOF) return -1;
    } else {
        for (int i = 0; i < count; i++) {
            if (i > 0 && putc(',', f) == EOF) return -1;
            if (pb_csv_write_field(f, fields[i]) != 0) return -1;
        }
    }
    if (fputs("\r\n", f) == EOF) return -1;
    if (fflush(f) != 0) return -1;
    return ferror(f) ? -1 : 0;
}

/* A growable byte buffer for the field being read. */
struct text {
    char *data;
    size_t len, cap;
};

static int text_push(struct text *t, char c) {
    if (t->len + 1 >= t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        char *data = realloc(t->data, cap);
        if (!data) return -1;
        t->data = data;
        t->cap = cap;
    }
    t->data[t->len++] = c;
    t->data[t->len] = '\0';
    return 0;
}

/* The fields read so far. */
struct field_list {
    char **items;
    int count, cap;
};

static int field_list_take(struct field_list *l, struct text *t) {
    if (l->count == l->cap) {
        int cap = l->cap ? 2 * l->cap : 8;
        char **items = realloc(l->items, (size_t)cap * sizeof *items);
        if (!items) return -1;
        l->items = items;
        l->cap = cap;
    }
    char *s = t->data;
    if (!s) {
        s = calloc(1, 1);
        if (!s) return -1;
    }
    l->items[l->count++] = s;
    *t = (struct text){0};
    return 0;
}

static void field_list_free(struct field_list *l) {
    for (int i = 0; i < l->count; i++) free(l->items[i]);
    free(l->items);
    *l = (struct field_list){0};
}

static void set_error(char *err, size_t err_len, const char *fmt, ...) {
    if (!err || err_len == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
}

/* Where the reader is within the current field. */
enum read_state {
    FIELD_START,    /* nothing of the field read yet */
    UNQUOTED,       /* inside a field that did not open with a quote */
    QUOTED,         /* inside quotes */
    QUOTE_IN_QUOTED /* just read a quote inside quotes: a doubled quote or the closing one */
};

/* rec is only written, never freed first. A blank line is a record of no fields. On 0 and -1
 * rec holds nothing to free; after -1 the stream is left mid-record, so stop reading there. */
int pb_csv_read_record(FILE *f, struct pb_csv_record *rec, char *err, size_t err_len) {
    rec->count = 0;
    rec->fields = NULL;
    struct field_list fields = {0};
    struct text field = {0};
    enum read_state state = FIELD_START;
    const char *problem = NULL;
    bool any = false; /* read anything at all, so a record exists */
    for (;;) {
        int c = getc(f);
        if (c == EOF) {
            if (ferror(f)) {
                problem = "read error";
            } else if (state == QUOTED) {
                problem = "unterminated quoted field";
            } else if (any && field_list_take(&fields, &field) != 0) {
                problem = "out of memory";
            }
            break;
        }
        any = true;
        if (c == '\0') {
            problem = "NUL byte in input";
            break;
        }
        if (state == QUOTED) {
            if (c == '"') {
                state = QUOTE_IN_QUOTED;
            } else if (text_push(&field, (char)c) != 0) {
                problem = "out of memory";
                break;
            }
            continue;
        }
        if (state == QUOTE_IN_QUOTED && c == '"') {
            if (text_push(&field, '"') != 0) {
                problem = "out of memory";
                break;
            }
            state = QUOTED;
            continue;
        }
        /* Outside quotes (or just past the closing one): separators and line ends. */
        if (c == '\r') {
            c = getc(f);
            if (c != '\n') {
                problem = "carriage return not followed by line feed outside quotes";
                break;
            }
        }
        if (c == '\n') {
            /* A blank line is a record of no fields; anything else ends its last field here. */
            bool blank = state == FIELD_START && fields.count == 0;
            if (!blank && field_list_take(&fields, &field) != 0) problem = "out of memory";
            break;
        }
        if (c == ',') {
            if (field_list_take(&fields, &field) != 0) {
                problem = "out of memory";
                break;
            }
            state = FIELD_START;
            continue;
        }
        if (state == QUOTE_IN_QUOTED) {
            problem = "character after the closing quote of a field";
            break;
        }
        if (c == '"') {
            if (state == UNQUOTED) {
                problem = "quote inside an unquoted field";
                break;
            }
            state = QUOTED;
            continue;
        }
        if (text_push(&field, (char)c) != 0) {
            problem = "out of memory";
            break;
        }
        state = UNQUOTED;
    }
    free(field.data);
    if (problem) {
        set_error(err, err_len, "malformed CSV record, field %d: %s", fields.count + 1, problem);
        field_list_free(&fields);
        return -1;
    }
    if (!any) return 0;
    rec->count = fields.count;
    rec->fields = fields.items;
    return 1;
}

void pb_csv_record_free(struct pb_csv_record *rec) {
    for (int i = 0; i < rec->count; i++) free(rec->fields[i]);
    free(rec->fields);
    rec->count = 0;
    rec->fields = NULL;
}
