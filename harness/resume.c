/* Reading an existing output back for --resume, and the metadata a resumed run adds.
 * Only the last row of an output can be incomplete (rows are written whole and flushed
 * one at a time; a crash or a second Ctrl-C can still cut one): it is dropped. Anything
 * else that does not read as the primitive's rows is refused, so --resume never
 * appends to a file it does not understand. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "csv.h"
#include "pb_version.h"
#include "resume.h"

#define KEY_SEP '\x1f' /* the ASCII unit separator: in no axis value or backend name */

/* A key under construction. */
struct key {
    char text[1024];
    size_t len;
    bool overflow;
};

static void key_add(struct key *k, const char *part) {
    size_t n = strlen(part);
    if (k->len + n + 2 > sizeof k->text) {
        k->overflow = true;
        return;
    }
    memcpy(k->text + k->len, part, n);
    k->len += n;
    k->text[k->len++] = KEY_SEP;
    k->text[k->len] = '\0';
}

static void case_key(const struct pb_columns *cols, const struct pb_case *c, const char *backend,
                     struct key *k) {
    char buf[32];
    k->len = 0;
    k->text[0] = '\0';
    k->overflow = false;
    for (int j = 0; j < cols->count; j++)
        key_add(k, pb_columns_case_text(cols, c, j, buf, sizeof buf));
    key_add(k, backend);
}

static int keys_push(struct pb_resume *rs, size_t *cap, const struct key *k) {
    if (rs->count == *cap) {
        size_t n = *cap ? 2 * *cap : 256;
        char **keys = realloc(rs->keys, n * sizeof *keys);
        if (!keys) return -1;
        rs->keys = keys;
        *cap = n;
    }
    rs->keys[rs->count] = strdup(k->text);
    return rs->keys[rs->count++] ? 0 : -1;
}

static int compare_keys(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

bool pb_resume_has(const struct pb_resume *rs, const struct pb_case *c, const char *backend) {
    if (!rs->count) return false;
    struct key k;
    case_key(&rs->columns, c, backend, &k);
    const char *p = k.text;
    return bsearch(&p, rs->keys, rs->count, sizeof *rs->keys, compare_keys) != NULL;
}

void pb_resume_free(struct pb_resume *rs) {
    for (size_t i = 0; i < rs->count; i++) free(rs->keys[i]);
    free(rs->keys);
    memset(rs, 0, sizeof *rs);
}

static bool is_failed_status(const char *s) {
    return strcmp(s, "wrong") == 0 || strcmp(s, "error") == 0 || strcmp(s, "timeout") == 0;
}

/* The whole file, NUL-terminated (NULL on error, errno set). */
static char *read_file(const char *path, long *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *text = NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (*len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (text = malloc((size_t)*len + 1)) && fread(text, 1, (size_t)*len, f) == (size_t)*len) {
        text[*len] = '\0';
    } else {
        free(text);
        text = NULL;
    }
    fclose(f);
    return text;
}

/* "I/N" of the shard a metadata file's run recorded, "whole sweep" when none. */
static void recorded_shard(const cJSON *run, char *buf, size_t len) {
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(run, "shard");
    const cJSON *index = cJSON_GetObjectItemCaseSensitive(s, "index");
    const cJSON *count = cJSON_GetObjectItemCaseSensitive(s, "count");
    if (cJSON_IsNumber(index) && cJSON_IsNumber(count) && count->valueint > 1)
        snprintf(buf, len, "%d/%d", index->valueint, count->valueint);
    else
        snprintf(buf, len, "whole sweep");
}

static int check_meta(const struct pb_config *cfg, const char *meta_path, bool profile,
                      const struct pb_shard *shard, char *err, size_t err_len) {
    long len;
    char *text = read_file(meta_path, &len);
    if (!text) {
        snprintf(err, err_len, "%s: %s; without it the output cannot be resumed", meta_path,
                 strerror(errno));
        return 2;
    }
    cJSON *m = cJSON_Parse(text);
    free(text);
    int rc = 2;
    char want[32];
    snprintf(want, sizeof want, "%016" PRIx64, cfg->hash);
    const char *tool = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "tool"));
    const char *hash = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m, "config_hash"));
    cJSON *run = cJSON_GetObjectItemCaseSensitive(m, "run");
    cJSON *was_profile = cJSON_GetObjectItemCaseSensitive(run, "profile");
    if (!m)
        snprintf(err, err_len, "%s: not valid JSON", meta_path);
    else if (!tool || strcmp(tool, "primbench") != 0)
        snprintf(err, err_len, "%s: tool: not a primbench metadata file", meta_path);
    else if (!hash)
        snprintf(err, err_len, "%s: config_hash: missing", meta_path);
    else if (strcmp(hash, want) != 0)
        snprintf(err, err_len,
                 "%s: config_hash: the output was written by a different config (%s; %s is %s); "
                 "run with --force to start over",
                 meta_path, hash, cfg->path, want);
    else if (cJSON_IsBool(was_profile) && cJSON_IsTrue(was_profile) != profile)
        snprintf(err, err_len, "%s: run.profile: the output was written %s --profile; resume it %s",
                 meta_path, profile ? "without" : "with", profile ? "without" : "with");
    else
        rc = 0;
    char was[64], now[64];
    recorded_shard(run, was, sizeof was);
    if (shard && shard->count > 1)
        snprintf(now, sizeof now, "%d/%d", shard->index, shard->count);
    else
        snprintf(now, sizeof now, "whole sweep");
    if (rc == 0 && strcmp(was, now) != 0) {
        snprintf(err, err_len, "%s: run.shard: the output holds %s%s, this run is %s%s", meta_path,
                 strcmp(was, "whole sweep") ? "shard " : "the ", was,
                 strcmp(now, "whole sweep") ? "shard " : "the ", now);
        rc = 2;
    }
    cJSON_Delete(m);
    return rc;
}

/* True when the byte before offset `end` is a line feed: the record was ended. */
static bool ends_line(FILE *f, long end) {
    if (end <= 0 || fseek(f, end - 1, SEEK_SET) != 0) return false;
    return getc(f) == '\n';
}

static int load_csv(const struct pb_config *cfg, const char *path, FILE *f, struct pb_resume *rs,
                    char *err, size_t err_len) {
    const struct pb_columns *cols = &rs->columns;
    const char *names[PB_RESULTS_MAX_FIELDS];
    int nfields = pb_results_header_columns(cols, names);
    int backend_col = cols->count + 1, status_col = cols->count + 4;
    struct pb_csv_record rec;
    char why[256];
    int got = pb_csv_read_record(f, &rec, why, sizeof why);
    if (got == 0) { /* stopped before even the header */
        rs->needs_header = true;
        return 0;
    }
    long end = ftell(f);
    bool header_ok = got == 1 && rec.count == nfields && ends_line(f, end);
    for (int i = 0; header_ok && i < nfields; i++) header_ok = strcmp(rec.fields[i], names[i]) == 0;
    if (got == 1) pb_csv_record_free(&rec);
    if (!header_ok) {
        char what[256];
        pb_config_describe(cfg, what, sizeof what);
        snprintf(err, err_len, "%s: line 1: not a primbench CSV of %s (its header differs)", path,
                 what);
        return 2;
    }
    rs->valid_bytes = end;
    size_t cap = 0;
    for (long record = 2;; record++) {
        fseek(f, rs->valid_bytes, SEEK_SET);
        got = pb_csv_read_record(f, &rec, why, sizeof why);
        if (got == 0) return 0;
        end = ftell(f); /* after -1: where the reader stopped */
        bool line_ended = got == 1 && ends_line(f, end);
        if (!line_ended || rec.count != nfields) {
            if (got == 1) pb_csv_record_free(&rec);
            /* Only the last row may be cut (the file ends inside it); a bad record with
             * more after it means a damaged or foreign file. */
            fseek(f, 0, SEEK_END);
            if (!line_ended && end >= ftell(f)) return 0;
            snprintf(err, err_len, "%s: record %ld: %s", path, record,
                     got == -1 ? why : "not a primbench row (wrong number of fields)");
            return 2;
        }
        struct key k = {.len = 0};
        k.text[0] = '\0';
        for (int i = 0; i < cols->count; i++) key_add(&k, rec.fields[i]);
        key_add(&k, rec.fields[backend_col]);
        rs->any_failed |= is_failed_status(rec.fields[status_col]);
        int pushed = k.overflow ? -1 : keys_push(rs, &cap, &k);
        pb_csv_record_free(&rec);
        if (pushed != 0) {
            snprintf(err, err_len, "%s: record %ld: out of memory or overlong key", path, record);
            return 2;
        }
        rs->valid_bytes = end;
    }
}

/* One JSON Lines row's key; -1 when it is not a row of the config's primitives. */
static int json_row_key(const struct pb_columns *cols, const cJSON *row, struct key *k,
                        const char **status) {
    k->len = 0;
    k->text[0] = '\0';
    k->overflow = false;
    char bufs[PB_MAX_AXIS_COLUMNS][32];
    const char *texts[PB_MAX_AXIS_COLUMNS];
    if (pb_columns_json_texts(cols, row, bufs, texts) != 0) return -1;
    for (int j = 0; j < cols->count; j++) key_add(k, texts[j]);
    const char *backend = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "backend"));
    *status = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "status"));
    if (!backend || !*status) return -1;
    key_add(k, backend);
    return k->overflow ? -1 : 0;
}

static int load_jsonl(const struct pb_config *cfg, const char *path, struct pb_resume *rs,
                      char *err, size_t err_len) {
    long len;
    char *text = read_file(path, &len);
    if (!text) {
        snprintf(err, err_len, "%s: %s", path, strerror(errno));
        return 2;
    }
    size_t cap = 0;
    long line = 1;
    int rc = 0;
    for (char *p = text; *p; line++) {
        char *nl = strchr(p, '\n');
        if (nl) *nl = '\0';
        cJSON *row = cJSON_Parse(p);
        struct key k;
        const char *status = NULL;
        int bad = json_row_key(&rs->columns, row, &k, &status);
        if (!nl) { /* no newline: the last row was cut, whether it parses or not */
            cJSON_Delete(row);
            break;
        }
        if (bad) {
            char what[256];
            pb_config_describe(cfg, what, sizeof what);
            snprintf(err, err_len, "%s: line %ld: not a primbench JSON row of %s", path, line,
                     what);
            cJSON_Delete(row);
            rc = 2;
            break;
        }
        rs->any_failed |= is_failed_status(status);
        cJSON_Delete(row);
        if (keys_push(rs, &cap, &k) != 0) {
            snprintf(err, err_len, "%s: out of memory", path);
            rc = 2;
            break;
        }
        p = nl + 1;
        rs->valid_bytes = p - text;
    }
    free(text);
    return rc;
}

int pb_resume_load(const struct pb_config *cfg, const char *out_path, const char *meta_path,
                   enum pb_format fmt, bool profile, const struct pb_shard *shard,
                   struct pb_resume *rs, char *err, size_t err_len) {
    memset(rs, 0, sizeof *rs);
    if (pb_columns_from_config(cfg, &rs->columns) != 0) {
        snprintf(err, err_len, "%s: more axis columns than an output holds", cfg->path);
        return 2;
    }
    struct stat st;
    if (stat(out_path, &st) != 0) return 0; /* nothing yet: a fresh run */
    rs->exists = true;
    rs->file_bytes = (long)st.st_size;
    int rc = check_meta(cfg, meta_path, profile, shard, err, err_len);
    if (rc != 0) return rc;
    if (fmt == PB_FORMAT_JSON) {
        rc = load_jsonl(cfg, out_path, rs, err, err_len);
    } else {
        FILE *f = fopen(out_path, "rb");
        if (!f) {
            snprintf(err, err_len, "%s: %s", out_path, strerror(errno));
            return 2;
        }
        rc = load_csv(cfg, out_path, f, rs, err, err_len);
        fclose(f);
    }
    if (rc == 0) qsort(rs->keys, rs->count, sizeof *rs->keys, compare_keys);
    return rc;
}

/* ---- metadata ------------------------------------------------------------- */

/* Loads meta_path, lets edit() change it, and writes it back atomically. */
static int edit_meta(const char *meta_path, void (*edit)(cJSON *m, const void *arg),
                     const void *arg, char *err, size_t err_len) {
    long len;
    char *text = read_file(meta_path, &len);
    cJSON *m = text ? cJSON_Parse(text) : NULL;
    free(text);
    if (!m) {
        snprintf(err, err_len, "%s: cannot read it back as JSON", meta_path);
        return -1;
    }
    edit(m, arg);
    char *out = cJSON_Print(m);
    cJSON_Delete(m);
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", meta_path);
    FILE *f = out ? fopen(tmp, "w") : NULL;
    int ok = f && fputs(out, f) >= 0 && fputc('\n', f) != EOF;
    if (f && fclose(f) != 0) ok = 0;
    free(out);
    if (!ok || rename(tmp, meta_path) != 0) {
        snprintf(err, err_len, "%s: %s", meta_path, strerror(errno));
        remove(tmp);
        return -1;
    }
    return 0;
}

static void add_run_options(cJSON *m, const void *arg) {
    const struct pb_meta_run *a = arg;
    cJSON_DeleteItemFromObjectCaseSensitive(m, "run");
    cJSON *run = cJSON_AddObjectToObject(m, "run");
    cJSON_AddBoolToObject(run, "profile", a->profile);
    cJSON_AddNumberToObject(run, "time_limit_s", a->time_limit_s);
    cJSON_AddStringToObject(run, "format", a->format == PB_FORMAT_JSON ? "jsonl" : "csv");
    if (a->shard && a->shard->count > 0) {
        cJSON *s = cJSON_AddObjectToObject(run, "shard");
        cJSON_AddNumberToObject(s, "index", a->shard->index);
        cJSON_AddNumberToObject(s, "count", a->shard->count);
        cJSON_AddStringToObject(s, "source", a->shard->source ? a->shard->source : "option");
    }
    if (a->ndevices > 0) {
        cJSON *d = cJSON_AddArrayToObject(run, "devices");
        for (int i = 0; i < a->ndevices; i++)
            cJSON_AddItemToArray(d, cJSON_CreateNumber(a->devices[i]));
    }
}

int pb_meta_add_run_options(const char *meta_path, const struct pb_meta_run *run, char *err,
                            size_t err_len) {
    return edit_meta(meta_path, add_run_options, run, err, err_len);
}

struct resumed_arg {
    const struct pb_device_info *dev;
    int argc;
    char **argv;
    double time_limit_s;
};

static void add_resumed(cJSON *m, const void *arg) {
    const struct resumed_arg *a = arg;
    cJSON *list = cJSON_GetObjectItemCaseSensitive(m, "resumed");
    if (!cJSON_IsArray(list)) {
        cJSON_DeleteItemFromObjectCaseSensitive(m, "resumed");
        list = cJSON_AddArrayToObject(m, "resumed");
    }
    cJSON *entry = cJSON_CreateObject();
    char date[64];
    time_t now = time(NULL);
    struct tm utc;
    gmtime_r(&now, &utc);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &utc);
    cJSON_AddStringToObject(entry, "date", date);
    cJSON_AddStringToObject(entry, "git_commit", PB_GIT_COMMIT);
    cJSON *cmd = cJSON_AddArrayToObject(entry, "command");
    for (int i = 0; i < a->argc; i++) cJSON_AddItemToArray(cmd, cJSON_CreateString(a->argv[i]));
    cJSON_AddStringToObject(entry, "device",
                            a->dev->available ? a->dev->name : a->dev->unavailable_reason);
    cJSON_AddNumberToObject(entry, "time_limit_s", a->time_limit_s);
    cJSON_AddItemToArray(list, entry);
}

int pb_meta_add_resumed(const char *meta_path, const struct pb_device_info *dev, int argc,
                        char **argv, double time_limit_s, char *err, size_t err_len) {
    struct resumed_arg a = {dev, argc, argv, time_limit_s};
    return edit_meta(meta_path, add_resumed, &a, err, err_len);
}
