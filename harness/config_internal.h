/* Internals shared by config.c, config_json.c and config_values.c; not part of the API. */
#ifndef PB_CONFIG_INTERNAL_H
#define PB_CONFIG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "config.h"

/* Far deeper than any config needs, far shallower than cJSON's own limit (1000). */
#define PB_CONFIG_MAX_DEPTH 64
/* A config is a page of JSON; anything this large is the wrong file. */
#define PB_CONFIG_MAX_BYTES (1 << 20)
/* Bounds that keep a typo ("step": 1 over 1..2^30) from allocating gigabytes. */
#define PB_AXIS_MAX_VALUES 100000
/* The largest integer a JSON number can carry without rounding on the way through a
 * double: above it, two different texts read as the same value. */
#define PB_JSON_MAX_SAFE_INT 9007199254740991LL
/* Room for a JSON path such as "sweep.n.from" or "zip[1][0]"; longer paths are cut. */
#define PB_PATH_LEN 256
/* Room for a value shown in a message; longer values are cut with "...". */
#define PB_SHOW_LEN 64

/* Every problem found in one config, as "file: json.path: message\n" lines. */
struct pb_diag {
    const char *file;
    const char *prefix; /* JSON path of the object being read ("parts[2]"), or NULL */
    char *text;
    size_t len, cap;
    int count;
    bool out_of_memory;
};

/* Adds one line; where is a JSON path ("sweep.n[2]", under d->prefix when that is set:
 * "parts[2].sweep.n[2]"), a position ("line 3, column 5"), or NULL for a problem with the
 * file as a whole. */
void pb_diag_add(struct pb_diag *d, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* For a name that matched nothing: "<what> 'word'<context> (did you mean 'x'?)", or the
 * list of valid names when none is close. */
void pb_diag_unknown(struct pb_diag *d, const char *where, const char *what, const char *word,
                     const char *context, const char *const *candidates, size_t count);
/* Hands over the lines (the caller frees), or NULL when there are none or memory ran out. */
char *pb_diag_take(struct pb_diag *d);

/* JSON paths: "parent.key" ("key" at the top level) and "parent[index]". */
void pb_path_key(char *out, size_t cap, const char *parent, const char *key);
void pb_path_index(char *out, size_t cap, const char *parent, int index);

/* A value as it appears in a message: "ten" (quoted), -5, true, [...], {...}. */
void pb_json_show(const cJSON *item, char *out, size_t cap);
/* A name for a message, cut to fit. */
void pb_show_name(const char *s, char *out, size_t cap);

/* Checks the raw text (encoding, control characters, nesting) and parses it; text must
 * have a NUL at text[len]. Returns the root object, or NULL with the problems in d. */
cJSON *pb_json_parse(const char *text, size_t len, struct pb_diag *d);
/* Reports every key that repeats an earlier key of the same object, at any depth. */
void pb_json_check_duplicates(const cJSON *node, const char *path, struct pb_diag *d);
/* True when key appears in obj before the member item (so it was already looked at). */
bool pb_json_key_seen_before(const cJSON *obj, const cJSON *item);

size_t pb_count_names(const char *const *names);
/* "a, b, c", cut to fit. */
void pb_join_names(const char *const *names, char *out, size_t cap);
/* Index of name in a NULL-terminated list, or -1. */
int pb_name_index(const char *const *names, const char *name);

/* An integer in [min, max]; reports and returns false otherwise. */
bool pb_value_int(const cJSON *item, const char *path, int64_t min, int64_t max, struct pb_diag *d,
                  int64_t *out);
/* One of a NULL-terminated list of names; what names the kind ("cache mode"). */
bool pb_value_choice(const cJSON *item, const char *path, const char *what,
                     const char *const *choices, struct pb_diag *d, int *out);
/* The values of one axis from its sweep entry. */
bool pb_axis_values_parse(const struct pb_axis *axis, const cJSON *item, const char *path,
                          struct pb_diag *d, struct pb_axis_values *out);
/* The single value of an axis the sweep omits, from the primitive's default_value. */
bool pb_axis_values_default(const struct pb_axis *axis, const char *path, struct pb_diag *d,
                            struct pb_axis_values *out);
/* Reads "sweep" and "zip" into cfg->axis, zip_group and nzip; needs cfg->primitive
 * (when it is NULL only the shapes of both are checked). allow_huge lifts the soft limit
 * on the number of cases. */
/* Refuses a sweep of more cases than the limits allow (the soft one unless allow_huge):
 * "<verb> N cases<scope> (over the ... limit ...)" under path. */
void pb_config_check_cases(struct pb_diag *d, const char *path, const char *verb, const char *scope,
                           double cases, bool allow_huge);
void pb_config_parse_axes(const cJSON *root, struct pb_config *cfg, bool allow_huge,
                          struct pb_diag *d);

/* The keys of an ordinary config that describe what to run: "primitive", "backends",
 * "sweep" and "zip" and the run settings ("reps" ... "cpu_budget_s"), read from obj into
 * cfg (whose settings hold the defaults). config.c reads a whole config with them;
 * config_suite.c each part of a suite. */
void pb_config_parse_body(const cJSON *obj, struct pb_config *cfg, bool allow_huge,
                          struct pb_diag *d);
/* Only the run settings ("reps", "warmup", "cache", "seed", "verify", "cpu_budget_s"). */
void pb_config_parse_run_settings(const cJSON *obj, struct pb_config *cfg, struct pb_diag *d);
/* A string member, or NULL (a member that is not a string is reported). */
const cJSON *pb_config_string_member(const cJSON *obj, const char *key, struct pb_diag *d);
/* A suite: a config with "parts" (config_suite.c). Reads everything but the name and the
 * texts, which config.c reads as for any config. */
void pb_config_parse_suite(const cJSON *root, struct pb_config *cfg, bool allow_huge,
                           struct pb_diag *d);
/* Reports every member of obj whose key is not in keys (with a suggestion). */
void pb_config_check_keys(const cJSON *obj, const char *const *keys, struct pb_diag *d);

/* An axis value for a message: the integer, or the choice name. */
void pb_axis_show_value(const struct pb_axis *axis, int64_t value, char *out, size_t cap);

#endif
