/* From config text to a cJSON tree, with the checks cJSON does not make: encoding,
 * raw control characters, nesting depth, duplicate keys, and where a parse failed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_internal.h"

/* Encoding problems in a file that is not UTF-8 at all would fill a screen. */
#define MAX_TEXT_PROBLEMS 10

static void position_of(const char *text, size_t offset, char *out, size_t cap) {
    int line = 1, column = 1;
    for (size_t i = 0; i < offset; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\n') {
            line++;
            column = 1;
        } else if ((c & 0xC0) != 0x80) {
            column++; /* characters, not bytes: continuation bytes do not move the cursor */
        }
    }
    snprintf(out, cap, "line %d, column %d", line, column);
}

/* Length of the valid UTF-8 sequence at s, or 0 when the bytes there are not one
 * (overlong forms, surrogates and code points past U+10FFFF included). */
static size_t utf8_sequence_length(const unsigned char *s, size_t avail) {
    unsigned char c = s[0];
    if (c < 0x80) {
        return 1;
    }
    size_t n;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        lo = c == 0xE0 ? 0xA0 : 0x80;
        hi = c == 0xED ? 0x9F : 0xBF;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        lo = c == 0xF0 ? 0x90 : 0x80;
        hi = c == 0xF4 ? 0x8F : 0xBF;
    } else {
        return 0;
    }
    if (avail < n || s[1] < lo || s[1] > hi) {
        return 0;
    }
    for (size_t i = 2; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            return 0;
        }
    }
    return n;
}

/* Scans the raw text before cJSON sees it: cJSON copies string bytes unchecked, takes
 * any byte below 0x20 as whitespace, truncates strings at an escaped NUL, and recurses
 * to depth 1000. Returns false when the text must not be parsed. */
static bool prescan(const char *text, size_t len, struct pb_diag *d) {
    const unsigned char *s = (const unsigned char *)text;
    char where[64];
    int depth = 0, problems = 0;
    bool in_string = false;
    for (size_t i = 0; i < len && problems < MAX_TEXT_PROBLEMS;) {
        unsigned char c = s[i];
        if (c >= 0x80) {
            size_t n = utf8_sequence_length(s + i, len - i);
            if (n == 0) {
                position_of(text, i, where, sizeof where);
                pb_diag_add(d, where, "invalid UTF-8 byte 0x%02x%s (configs must be UTF-8)", c,
                            in_string ? " in a string" : "");
                problems++;
                /* The rest of a broken sequence is the same problem, not more. */
                for (n = 1; i + n < len && (s[i + n] & 0xC0) == 0x80; n++) {
                }
            }
            i += n;
            continue;
        }
        if (in_string) {
            if (c == '"') {
                in_string = false;
            } else if (c == '\\' && i + 1 < len) {
                if (len - i >= 6 && memcmp(text + i + 1, "u0000", 5) == 0) {
                    position_of(text, i, where, sizeof where);
                    pb_diag_add(d, where, "\\u0000 is not allowed in a string");
                    problems++;
                }
                /* Skip the escaped character unless it starts a multi-byte sequence,
                 * which the next step checks (and cJSON then rejects as an escape). */
                i += s[i + 1] < 0x80 ? 2 : 1;
                continue;
            } else if (c < 0x20) {
                position_of(text, i, where, sizeof where);
                pb_diag_add(d, where,
                            "control character 0x%02x in a string (write it as an escape "
                            "such as \\n or \\t)",
                            c);
                problems++;
            }
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            if (++depth > PB_CONFIG_MAX_DEPTH) {
                position_of(text, i, where, sizeof where);
                pb_diag_add(d, where, "nesting deeper than %d levels", PB_CONFIG_MAX_DEPTH);
                return false;
            }
        } else if (c == '}' || c == ']') {
            depth--;
        } else if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
            position_of(text, i, where, sizeof where);
            pb_diag_add(d, where, "control character 0x%02x", c);
            problems++;
        }
        i++;
    }
    if (problems >= MAX_TEXT_PROBLEMS) {
        pb_diag_add(d, NULL, "too many encoding problems; stopped looking");
    }
    return problems == 0;
}

static bool is_blank(const char *text, size_t len) {
    for (size_t i = 0; i < len; i++) {
        if (text[i] != ' ' && text[i] != '\t' && text[i] != '\r' && text[i] != '\n') {
            return false;
        }
    }
    return true;
}

static const char *kind_of(const cJSON *item) {
    if (cJSON_IsArray(item)) {
        return "an array";
    }
    if (cJSON_IsString(item)) {
        return "a string";
    }
    if (cJSON_IsNumber(item)) {
        return "a number";
    }
    if (cJSON_IsBool(item)) {
        return "a boolean";
    }
    return "null";
}

cJSON *pb_json_parse(const char *text, size_t len, struct pb_diag *d) {
    if (is_blank(text, len)) {
        pb_diag_add(d, NULL, "the file is empty (expected a JSON object)");
        return NULL;
    }
    if (!prescan(text, len, d)) {
        return NULL;
    }
    const char *end = NULL;
    /* The length takes in the NUL so that cJSON rejects anything after the value. */
    cJSON *root = cJSON_ParseWithLengthOpts(text, len + 1, &end, true);
    if (!root) {
        size_t offset = end && end >= text && end <= text + len ? (size_t)(end - text) : len;
        char where[64];
        position_of(text, offset, where, sizeof where);
        pb_diag_add(d, where, "malformed JSON");
        return NULL;
    }
    if (!cJSON_IsObject(root)) {
        pb_diag_add(d, NULL, "the top level is %s; a config is a JSON object", kind_of(root));
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

struct member_ref {
    const char *key;
    int index;
};

static int compare_members(const void *a, const void *b) {
    const struct member_ref *x = a, *y = b;
    int order = strcmp(x->key, y->key);
    return order ? order : (x->index > y->index) - (x->index < y->index);
}

/* Sorting keeps this linear-logarithmic: an object may have thousands of members. */
static void check_object_duplicates(const cJSON *obj, const char *path, struct pb_diag *d) {
    int count = cJSON_GetArraySize(obj);
    if (count < 2) {
        return;
    }
    struct member_ref *refs = malloc((size_t)count * sizeof *refs);
    bool *repeated = calloc((size_t)count, sizeof *repeated);
    if (!refs || !repeated) {
        pb_diag_add(d, path, "out of memory");
        free(refs);
        free(repeated);
        return;
    }
    int i = 0;
    for (const cJSON *m = obj->child; m; m = m->next, i++) {
        refs[i] = (struct member_ref){m->string, i};
    }
    qsort(refs, (size_t)count, sizeof *refs, compare_members);
    for (i = 1; i < count; i++) {
        if (strcmp(refs[i].key, refs[i - 1].key) == 0) {
            repeated[refs[i].index] = true;
        }
    }
    i = 0;
    for (const cJSON *m = obj->child; m; m = m->next, i++) {
        if (repeated[i]) {
            char where[PB_PATH_LEN];
            pb_path_key(where, sizeof where, path, m->string);
            pb_diag_add(d, where, "duplicate key (each key may appear once in an object)");
        }
    }
    free(refs);
    free(repeated);
}

void pb_json_check_duplicates(const cJSON *node, const char *path, struct pb_diag *d) {
    if (cJSON_IsObject(node)) {
        check_object_duplicates(node, path, d);
    }
    int i = 0;
    for (const cJSON *m = node->child; m; m = m->next, i++) {
        char child[PB_PATH_LEN];
        if (cJSON_IsObject(node)) {
            pb_path_key(child, sizeof child, path, m->string);
        } else {
            pb_path_index(child, sizeof child, path, i);
        }
        if (cJSON_IsObject(m) || cJSON_IsArray(m)) {
            pb_json_check_duplicates(m, child, d);
        }
    }
}

bool pb_json_key_seen_before(const cJSON *obj, const cJSON *item) {
    for (const cJSON *m = obj->child; m && m != item; m = m->next) {
        if (strcmp(m->string, item->string) == 0) {
            return true;
        }
    }
    return false;
}

static size_t escape_byte(unsigned char c, char *esc) {
    if (c == '"' || c == '\\') {
        esc[0] = '\\';
        esc[1] = (char)c;
        return 2;
    }
    if (c < 0x20) {
        return (size_t)snprintf(esc, 8, "\\u%04x", c);
    }
    esc[0] = (char)c;
    return 1;
}

/* Copies s into out as JSON string content, cut with "..." at a character boundary
 * when it does not fit. */
static void show_string_content(const char *s, char *out, size_t cap) {
    char esc[8];
    size_t total = 0;
    for (size_t i = 0; s[i]; i++) {
        total += escape_byte((unsigned char)s[i], esc);
    }
    bool cut = total >= cap;
    size_t room = cut ? cap - 4 : cap - 1;
    size_t o = 0;
    for (size_t i = 0; s[i];) {
        size_t bytes = 1;
        while (bytes < 4 && ((unsigned char)s[i + bytes] & 0xC0) == 0x80) {
            bytes++;
        }
        size_t n = bytes;
        if (bytes == 1) {
            n = escape_byte((unsigned char)s[i], esc);
        } else {
            memcpy(esc, s + i, bytes);
        }
        if (o + n > room) {
            break;
        }
        memcpy(out + o, esc, n);
        o += n;
        i += bytes;
    }
    if (cut) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
}

void pb_show_name(const char *s, char *out, size_t cap) { show_string_content(s, out, cap); }

void pb_json_show(const cJSON *item, char *out, size_t cap) {
    if (cJSON_IsString(item)) {
        char inner[PB_SHOW_LEN];
        show_string_content(item->valuestring, inner, sizeof inner);
        snprintf(out, cap, "\"%s\"", inner);
    } else if (cJSON_IsNumber(item)) {
        double v = item->valuedouble;
        if (!isfinite(v)) {
            snprintf(out, cap, "a number too large for a double");
            return;
        }
        /* The shortest form that reads back as the same double. */
        snprintf(out, cap, "%.15g", v);
        if (strtod(out, NULL) != v) {
            snprintf(out, cap, "%.17g", v);
        }
    } else if (cJSON_IsBool(item)) {
        snprintf(out, cap, "%s", cJSON_IsTrue(item) ? "true" : "false");
    } else if (cJSON_IsNull(item)) {
        snprintf(out, cap, "null");
    } else if (cJSON_IsArray(item)) {
        snprintf(out, cap, "%s", item->child ? "[...]" : "[]");
    } else {
        snprintf(out, cap, "%s", item->child ? "{...}" : "{}");
    }
}
