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

/* The value of the four hex digits at s, or -1. */
static long hex4(const unsigned char *s, size_t avail) {
    if (avail < 4) {
        return -1;
    }
    long v = 0;
    for (int k = 0; k < 4; k++) {
        int c = s[k], digit = c >= '0' && c <= '9'   ? c - '0'
                              : c >= 'a' && c <= 'f' ? c - 'a' + 10
                              : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                     : -1;
        if (digit < 0) {
            return -1;
        }
        v = v * 16 + digit;
    }
    return v;
}

/* Checks the escape at s[0] == '\\' in a string; returns how many bytes it spans.
 * cJSON would truncate at \u0000 and turn half a surrogate pair into garbage bytes. */
static size_t check_escape(const char *text, size_t i, size_t len, struct pb_diag *d,
                           int *problems) {
    const unsigned char *s = (const unsigned char *)text + i;
    size_t avail = len - i;
    if (avail < 2) {
        return 1;
    }
    if (s[1] != 'u') {
        /* Skip the escaped character unless it starts a multi-byte sequence, which the
         * next step checks (and cJSON then rejects as an escape). */
        return s[1] < 0x80 ? 2 : 1;
    }
    long unit = hex4(s + 2, avail - 2);
    if (unit < 0) {
        return 2; /* not four hex digits: cJSON reports it as malformed */
    }
    char where[64];
    if (unit == 0) {
        position_of(text, i, where, sizeof where);
        pb_diag_add(d, where, "\\u0000 is not allowed in a string");
        ++*problems;
        return 6;
    }
    if (unit >= 0xD800 && unit <= 0xDBFF && avail >= 12 && s[6] == '\\' && s[7] == 'u') {
        long low = hex4(s + 8, avail - 8);
        if (low >= 0xDC00 && low <= 0xDFFF) {
            return 12;
        }
    }
    if (unit >= 0xD800 && unit <= 0xDFFF) {
        position_of(text, i, where, sizeof where);
        pb_diag_add(d, where,
                    "\\u%04lx is half of a UTF-16 surrogate pair (a high \\ud800-\\udbff "
                    "must be followed by a low \\udc00-\\udfff)",
                    unit);
        ++*problems;
    }
    return 6;
}

/* Length of the number token at s (its first byte '-' or a digit), checked against
 * JSON's grammar, which cJSON does not enforce: it hands the token to strtod, which
 * takes "01", "1." and "1.e5". Sets *valid. */
static size_t number_token(const unsigned char *s, size_t avail, bool *valid) {
    size_t n = 0;
    while (n < avail && ((s[n] >= '0' && s[n] <= '9') || s[n] == '-' || s[n] == '+' ||
                         s[n] == '.' || s[n] == 'e' || s[n] == 'E')) {
        n++;
    }
    size_t k = 0;
    *valid = false;
    if (k < n && s[k] == '-') {
        k++;
    }
    if (k < n && s[k] == '0') {
        k++;
    } else if (k < n && s[k] >= '1' && s[k] <= '9') {
        while (k < n && s[k] >= '0' && s[k] <= '9') {
            k++;
        }
    } else {
        return n;
    }
    if (k < n && s[k] == '.') {
        size_t start = ++k;
        while (k < n && s[k] >= '0' && s[k] <= '9') {
            k++;
        }
        if (k == start) {
            return n;
        }
    }
    if (k < n && (s[k] == 'e' || s[k] == 'E')) {
        k++;
        if (k < n && (s[k] == '+' || s[k] == '-')) {
            k++;
        }
        size_t start = k;
        while (k < n && s[k] >= '0' && s[k] <= '9') {
            k++;
        }
        if (k == start) {
            return n;
        }
    }
    *valid = k == n;
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
            } else if (c == '\\') {
                i += check_escape(text, i, len, d, &problems);
                continue;
            } else if (c == '\n' || c == '\r') {
                /* Almost always a missing closing quote: say so once, and read on as if
                 * the string ended here, so its line does not cascade into more. */
                position_of(text, i, where, sizeof where);
                pb_diag_add(d, where, "a line break inside a string (a missing closing quote?)");
                problems++;
                in_string = false;
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
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            bool valid;
            size_t n = number_token(s + i, len - i, &valid);
            if (!valid) {
                char shown[PB_SHOW_LEN];
                size_t cut = n < sizeof shown - 4 ? n : sizeof shown - 4;
                snprintf(shown, sizeof shown, "%.*s%s", (int)cut, text + i, cut < n ? "..." : "");
                position_of(text, i, where, sizeof where);
                pb_diag_add(d, where,
                            "'%s' is not a JSON number (no leading zeros or '+'; digits on "
                            "both sides of a '.' and after an exponent's 'e')",
                            shown);
                problems++;
            }
            i += n;
            continue;
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
    /* Valid UTF-8, so the prescan passes it, but cJSON then fails at column 1 with no
     * visible cause: name it. */
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
        pb_diag_add(d, "line 1, column 1",
                    "a UTF-8 byte-order mark (JSON has none; save the file without it)");
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
        /* cJSON's error position is at times one character past the culprit, so the
         * character there is not named; the end of the file is unambiguous. */
        pb_diag_add(d, where, "malformed JSON%s",
                    offset >= len ? ": the file ends inside a value" : "");
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
