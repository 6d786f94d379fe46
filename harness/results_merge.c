/* Shards are checked against the first file's metadata, then their rows are put in the
 * order of the sweep that the metadata's config expands to. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "config.h"
#include "results_merge.h"
#include "pb_version.h"
#include "row_order.h"
#include "sweep.h"

/* One shard's metadata, and what merge checks of it. */
struct shard_meta {
    char path[4200];
    cJSON *meta;
    const char *hash;
    bool profile;
    bool jsonl;
    int index, count; /* count 0: not a shard (a whole run) */
};

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *text = NULL;
    long len;
    if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (text = malloc((size_t)len + 1)) && fread(text, 1, (size_t)len, f) == (size_t)len)
        text[len] = '\0';
    else {
        free(text);
        text = NULL;
    }
    fclose(f);
    return text;
}

static int read_meta(const char *shard, struct shard_meta *m, char *err, size_t err_len) {
    snprintf(m->path, sizeof m->path, "%s.meta.json", shard);
    char *text = slurp(m->path);
    if (!text) {
        snprintf(err, err_len, "%s: %s (a shard needs its metadata)", m->path, strerror(errno));
        return 2;
    }
    m->meta = cJSON_Parse(text);
    free(text);
    const cJSON *run = cJSON_GetObjectItemCaseSensitive(m->meta, "run");
    const char *tool = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m->meta, "tool"));
    m->hash = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(m->meta, "config_hash"));
    if (!m->meta || !tool || strcmp(tool, "primbench") != 0) {
        snprintf(err, err_len, "%s: not a primbench metadata file", m->path);
        return 2;
    }
    if (!m->hash || !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(m->meta, "config"))) {
        snprintf(err, err_len, "%s: config_hash or config: missing", m->path);
        return 2;
    }
    m->profile = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(run, "profile"));
    const char *format = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(run, "format"));
    m->jsonl = format && strcmp(format, "jsonl") == 0;
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(run, "shard");
    const cJSON *index = cJSON_GetObjectItemCaseSensitive(s, "index");
    const cJSON *count = cJSON_GetObjectItemCaseSensitive(s, "count");
    m->count = cJSON_IsNumber(count) && cJSON_IsNumber(index) ? count->valueint : 0;
    m->index = m->count ? index->valueint : 0;
    return 0;
}

/* The shard's description for messages: "shard 1/3" or "the whole sweep". */
static void describe(const struct shard_meta *m, char *buf, size_t len) {
    if (m->count > 1)
        snprintf(buf, len, "shard %d/%d", m->index, m->count);
    else
        snprintf(buf, len, "the whole sweep");
}

/* Checks shard i against the first and the others before it. */
static int check_shard(const struct shard_meta *m, int i, const char *const *shards, char *err,
                       size_t err_len) {
    const struct shard_meta *first = &m[0];
    char a[64], b[64];
    if (strcmp(m[i].hash, first->hash) != 0) {
        snprintf(err, err_len,
                 "%s: config_hash: %s, but %s has %s: shards of different configs cannot be "
                 "merged",
                 m[i].path, m[i].hash, first->path, first->hash);
        return 2;
    }
    if (m[i].profile != first->profile || m[i].jsonl != first->jsonl) {
        snprintf(err, err_len, "%s: run: %s, but %s was run %s", m[i].path,
                 m[i].profile != first->profile ? "--profile differs" : "the format differs",
                 first->path, "otherwise");
        return 2;
    }
    describe(&m[i], a, sizeof a);
    describe(first, b, sizeof b);
    if ((m[i].count > 1 || first->count > 1) && m[i].count != first->count) {
        snprintf(err, err_len, "%s: run.shard: %s, but %s is %s", m[i].path, a, first->path, b);
        return 2;
    }
    for (int j = 0; j < i; j++) {
        if (m[j].count == m[i].count && m[j].index == m[i].index) {
            snprintf(err, err_len, "%s: run.shard: %s again (%s is %s too): overlapping shards",
                     m[i].path, a, shards[j], a);
            return 2;
        }
    }
    return 0;
}

static void add_merge_record(cJSON *meta, const struct shard_meta *m, const char *const *shards,
                             int nshards, int argc, char **argv) {
    cJSON *run = cJSON_GetObjectItemCaseSensitive(meta, "run");
    cJSON_DeleteItemFromObjectCaseSensitive(run, "shard");
    cJSON_DeleteItemFromObjectCaseSensitive(meta, "merged_from");
    cJSON_DeleteItemFromObjectCaseSensitive(meta, "merged");
    cJSON *from = cJSON_AddArrayToObject(meta, "merged_from");
    static const char *const kept[] = {"date",   "host",    "git_commit", "command",
                                       "device", "devices", "resumed"};
    for (int i = 0; i < nshards; i++) {
        cJSON *e = cJSON_CreateObject();
        char desc[64];
        describe(&m[i], desc, sizeof desc);
        cJSON_AddStringToObject(e, "file", shards[i]);
        cJSON_AddStringToObject(e, "part", desc);
        for (size_t k = 0; k < sizeof kept / sizeof kept[0]; k++) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(m[i].meta, kept[k]);
            if (v) cJSON_AddItemToObject(e, kept[k], cJSON_Duplicate(v, true));
        }
        cJSON_AddItemToArray(from, e);
    }
    cJSON *merged = cJSON_AddObjectToObject(meta, "merged");
    char date[64];
    time_t now = time(NULL);
    struct tm utc;
    gmtime_r(&now, &utc);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &utc);
    cJSON_AddStringToObject(merged, "date", date);
    cJSON_AddStringToObject(merged, "git_commit", PB_GIT_COMMIT);
    cJSON *cmd = cJSON_AddArrayToObject(merged, "command");
    for (int i = 0; i < argc; i++) cJSON_AddItemToArray(cmd, cJSON_CreateString(argv[i]));
}

static int write_meta(const char *out, cJSON *meta, char *err, size_t err_len) {
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s.meta.json", out);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    char *text = cJSON_Print(meta);
    FILE *f = text ? fopen(tmp, "w") : NULL;
    bool ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    if (f && fclose(f) != 0) ok = false;
    free(text);
    if (!ok || rename(tmp, path) != 0) {
        snprintf(err, err_len, "%s: cannot write: %s", path, strerror(errno));
        remove(tmp);
        return 2;
    }
    return 0;
}

/* Lists the shards of 0..count-1 that no file holds. */
static void missing_shards(const struct shard_meta *m, int nshards, char *warning, size_t len) {
    warning[0] = '\0';
    int count = m[0].count;
    if (count <= 1) return;
    size_t at = 0;
    int missing = 0;
    for (int s = 0; s < count && at + 16 < len; s++) {
        bool have = false;
        for (int i = 0; i < nshards; i++) have |= m[i].index == s;
        if (have) continue;
        at += (size_t)snprintf(warning + at, len - at, "%s%d/%d", missing++ ? ", " : "", s, count);
    }
    if (missing)
        snprintf(warning + at, len - at, ": not given, so the merged output lacks %s rows",
                 missing > 1 ? "their" : "its");
}

int pb_merge(const char *out, const char *const *shards, int nshards, bool force, int argc,
             char **argv, char *err, size_t err_len, char *warning, size_t warning_len) {
    warning[0] = '\0';
    struct stat st;
    if (!force && stat(out, &st) == 0) {
        snprintf(err, err_len, "%s: output exists; use --force to overwrite it", out);
        return 2;
    }
    struct shard_meta *m = calloc((size_t)nshards, sizeof *m);
    struct pb_config cfg = {0};
    bool have_cfg = false;
    struct pb_sweep sweep = {0};
    struct pb_row_order order = {0};
    struct pb_results_rows rows = {0};
    int rc = m ? 0 : 2;
    if (!m) snprintf(err, err_len, "out of memory");
    for (int i = 0; rc == 0 && i < nshards; i++) {
        rc = read_meta(shards[i], &m[i], err, err_len);
        if (rc == 0) rc = check_shard(m, i, shards, err, err_len);
    }
    if (rc == 0) {
        /* The sweep, from the config the first shard recorded (same hash in every one). */
        char *text = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(m[0].meta, "config"));
        char *errors = NULL;
        struct pb_config_options load = {.allow_huge_sweep = true};
        if (!text || pb_config_parse_with(m[0].path, text, strlen(text), &load, &cfg, &errors)) {
            snprintf(err, err_len, "%s: config: %s", m[0].path,
                     errors ? strtok(errors, "\n") : "out of memory");
            rc = 2;
        } else {
            have_cfg = true;
        }
        free(text);
        free(errors);
    }
    if (rc == 0 &&
        (pb_sweep_expand(&cfg, &sweep) != 0 || pb_row_order_build(&cfg, &sweep, &order))) {
        snprintf(err, err_len, "%s: cannot expand its sweep (out of memory)", m[0].path);
        rc = 2;
    }
    enum pb_format fmt = m && m[0].jsonl ? PB_FORMAT_JSON : PB_FORMAT_CSV;
    for (int i = 0; rc == 0 && i < nshards; i++)
        rc = pb_results_rows_load(shards[i], fmt, &order, i, &rows, err, err_len);
    if (rc == 0) {
        pb_results_rows_sort(&rows);
        for (size_t i = 1; i < rows.count; i++) {
            const struct pb_row_text *a = &rows.rows[i - 1], *b = &rows.rows[i];
            if (a->pos != b->pos) continue;
            snprintf(err, err_len, "%s: record %ld: the same case and backend as %s record %ld",
                     shards[b->file], b->record, shards[a->file], a->record);
            rc = 2;
            break;
        }
    }
    if (rc == 0 && pb_results_rows_write(out, &rows, err, err_len) != 0) rc = 2;
    if (rc == 0) {
        add_merge_record(m[0].meta, m, shards, nshards, argc, argv);
        rc = write_meta(out, m[0].meta, err, err_len);
        missing_shards(m, nshards, warning, warning_len);
    }
    for (int i = 0; m && i < nshards; i++) cJSON_Delete(m[i].meta);
    free(m);
    pb_results_rows_free(&rows);
    pb_row_order_free(&order);
    pb_sweep_free(&sweep);
    if (have_cfg) pb_config_free(&cfg);
    return rc;
}
