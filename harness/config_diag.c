/* Collecting a config's problems as message lines, and naming where they are. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_internal.h"
#include "suggest.h"

static bool diag_reserve(struct pb_diag *d, size_t extra) {
    if (d->out_of_memory) {
        return false;
    }
    if (d->len + extra + 1 <= d->cap) {
        return true;
    }
    size_t cap = d->cap ? d->cap : 256;
    while (cap < d->len + extra + 1) {
        cap *= 2;
    }
    char *text = realloc(d->text, cap);
    if (!text) {
        d->out_of_memory = true;
        return false;
    }
    d->text = text;
    d->cap = cap;
    return true;
}

static void diag_append(struct pb_diag *d, const char *s, size_t n) {
    if (diag_reserve(d, n)) {
        memcpy(d->text + d->len, s, n);
        d->len += n;
        d->text[d->len] = '\0';
    }
}

static void diag_vappend(struct pb_diag *d, const char *fmt, va_list ap) {
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    if (n > 0 && diag_reserve(d, (size_t)n)) {
        vsnprintf(d->text + d->len, (size_t)n + 1, fmt, again);
        d->len += (size_t)n;
    }
    va_end(again);
}

static void diag_appendf(struct pb_diag *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void diag_appendf(struct pb_diag *d, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_vappend(d, fmt, ap);
    va_end(ap);
}

/* The file name as given, but with control characters escaped: a name holding a newline
 * must not split a message into two lines. */
static void diag_append_file(struct pb_diag *d) {
    for (const char *p = d->file; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c < 0x20 || c == 0x7f) {
            diag_appendf(d, "\\x%02x", c);
        } else {
            diag_append(d, p, 1);
        }
    }
    diag_append(d, ": ", 2);
}

static void diag_begin_line(struct pb_diag *d, const char *where) {
    diag_append_file(d);
    if (where && where[0] && d->prefix && d->prefix[0]) {
        diag_appendf(d, "%s.%s: ", d->prefix, where);
    } else if (where && where[0]) {
        diag_appendf(d, "%s: ", where);
    }
    d->count++;
}

void pb_diag_add(struct pb_diag *d, const char *where, const char *fmt, ...) {
    diag_begin_line(d, where);
    va_list ap;
    va_start(ap, fmt);
    diag_vappend(d, fmt, ap);
    va_end(ap);
    diag_append(d, "\n", 1);
}

void pb_diag_unknown(struct pb_diag *d, const char *where, const char *what, const char *word,
                     const char *context, const char *const *candidates, size_t count) {
    char shown[PB_SHOW_LEN];
    pb_show_name(word, shown, sizeof shown);
    diag_begin_line(d, where);
    diag_appendf(d, "%s '%s'%s", what, shown, context ? context : "");
    const char *guess = pb_suggest(word, candidates, count);
    if (guess) {
        diag_appendf(d, " (did you mean '%s'?)", guess);
    } else if (count > 0) {
        diag_appendf(d, " (expected one of: ");
        for (size_t i = 0; i < count; i++) {
            diag_appendf(d, "%s%s", i ? ", " : "", candidates[i]);
        }
        diag_append(d, ")", 1);
    }
    diag_append(d, "\n", 1);
}

char *pb_diag_take(struct pb_diag *d) {
    char *text = d->out_of_memory ? NULL : d->text;
    if (d->out_of_memory) {
        free(d->text);
    }
    d->text = NULL;
    d->len = d->cap = 0;
    return text;
}

void pb_path_key(char *out, size_t cap, const char *parent, const char *key) {
    /* Escaped, so that a key holding a newline cannot split a message line. */
    char shown[PB_SHOW_LEN];
    pb_show_name(key, shown, sizeof shown);
    if (parent[0]) {
        snprintf(out, cap, "%s.%s", parent, shown);
    } else {
        snprintf(out, cap, "%s", shown);
    }
}

void pb_path_index(char *out, size_t cap, const char *parent, int index) {
    snprintf(out, cap, "%s[%d]", parent, index);
}

size_t pb_count_names(const char *const *names) {
    size_t n = 0;
    while (names && names[n]) {
        n++;
    }
    return n;
}

void pb_join_names(const char *const *names, char *out, size_t cap) {
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; names && names[i] && used < cap; i++) {
        int n = snprintf(out + used, cap - used, "%s%s", i ? ", " : "", names[i]);
        used += n > 0 ? (size_t)n : 0;
    }
}

int pb_name_index(const char *const *names, const char *name) {
    for (int i = 0; names && names[i]; i++) {
        if (strcmp(names[i], name) == 0) {
            return i;
        }
    }
    return -1;
}
