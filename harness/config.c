/* Loading an experiment config: reading the file, and turning the document's keys into
 * struct pb_config, checked against the registry, with every problem reported at once. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config_internal.h"
#include "registry.h"

#define DEFAULT_REPS         100
#define DEFAULT_WARMUP       5
#define DEFAULT_SEED         1
#define DEFAULT_CPU_BUDGET_S 2.0
#define MAX_REPS             1000000
#define MAX_WARMUP           1000000

static const char *const top_keys[] = {
    "name",   "description", "primitive", "backends", "sweep",        "zip",    "reps",
    "warmup", "cache",       "seed",      "verify",   "cpu_budget_s", "output", NULL,
};
static const char *const cache_modes[] = {"cold", "hot", NULL};

void pb_config_check_keys(const cJSON *obj, const char *const *keys, struct pb_diag *d) {
    for (const cJSON *m = obj->child; m; m = m->next) {
        if (pb_name_index(keys, m->string) < 0 && !pb_json_key_seen_before(obj, m)) {
            char path[PB_PATH_LEN];
            pb_path_key(path, sizeof path, "", m->string);
            pb_diag_unknown(d, path, "unknown key", m->string, NULL, keys, pb_count_names(keys));
        }
    }
}

static char *copy_string(const char *s, struct pb_diag *d) {
    char *copy = strdup(s);
    if (!copy) {
        pb_diag_add(d, NULL, "out of memory");
    }
    return copy;
}

/* Names end up in file names and CSV rows, so they keep to a portable alphabet. */
static bool valid_name(const char *s) {
    if (!s[0]) {
        return false;
    }
    for (; *s; s++) {
        bool ok = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
                  (*s >= '0' && *s <= '9') || *s == '_' || *s == '.' || *s == '-';
        if (!ok) {
            return false;
        }
    }
    return true;
}

/* "configs/reduction.json" -> "reduction". */
static char *name_from_path(const char *path) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    if (len >= 5 && strcmp(base + len - 5, ".json") == 0) {
        len -= 5;
    }
    return strndup(base, len);
}

const cJSON *pb_config_string_member(const cJSON *root, const char *key, struct pb_diag *d) {
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, key);
    if (item && !cJSON_IsString(item)) {
        char shown[PB_SHOW_LEN];
        pb_json_show(item, shown, sizeof shown);
        pb_diag_add(d, key, "%s is not a string", shown);
        return NULL;
    }
    return item;
}

static void parse_name(const cJSON *root, struct pb_config *cfg, struct pb_diag *d) {
    char shown[PB_SHOW_LEN];
    const cJSON *item = pb_config_string_member(root, "name", d);
    if (item) {
        if (valid_name(item->valuestring)) {
            cfg->name = copy_string(item->valuestring, d);
        } else {
            pb_json_show(item, shown, sizeof shown);
            pb_diag_add(d, "name", "%s is not a valid name (use letters, digits, '_', '.' and '-')",
                        shown);
        }
        return;
    }
    if (cJSON_GetObjectItemCaseSensitive(root, "name")) {
        return; /* not a string: reported */
    }
    char *derived = name_from_path(cfg->path);
    if (!derived) {
        pb_diag_add(d, NULL, "out of memory");
    } else if (valid_name(derived)) {
        cfg->name = derived;
        derived = NULL;
    } else {
        pb_show_name(derived, shown, sizeof shown);
        pb_diag_add(d, "name",
                    "missing, and the file name gives '%s', which is not a valid name; "
                    "set \"name\" (letters, digits, '_', '.' and '-')",
                    shown);
    }
    free(derived);
}

static void parse_texts(const cJSON *root, struct pb_config *cfg, struct pb_diag *d) {
    const cJSON *description = pb_config_string_member(root, "description", d);
    if (description) {
        cfg->description = copy_string(description->valuestring, d);
    }
    const cJSON *output = pb_config_string_member(root, "output", d);
    if (output && !output->valuestring[0]) {
        pb_diag_add(d, "output", "an empty path (leave \"output\" out for results/<name>.csv)");
    } else if (output) {
        cfg->output = copy_string(output->valuestring, d);
    } else if (cfg->name && !cJSON_GetObjectItemCaseSensitive(root, "output")) {
        size_t len = strlen(cfg->name) + sizeof "results/.csv";
        cfg->output = malloc(len);
        if (cfg->output) {
            snprintf(cfg->output, len, "results/%s.csv", cfg->name);
        } else {
            pb_diag_add(d, NULL, "out of memory");
        }
    }
}

static void parse_primitive(const cJSON *root, struct pb_config *cfg, struct pb_diag *d) {
    int count = pb_registry_primitive_count();
    const char **names = malloc((size_t)(count + 1) * sizeof *names);
    if (!names) {
        pb_diag_add(d, NULL, "out of memory");
        return;
    }
    for (int i = 0; i < count; i++) {
        names[i] = pb_registry_primitive_at(i)->name;
    }
    names[count] = NULL;
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, "primitive");
    if (!item) {
        char list[PB_PATH_LEN];
        pb_join_names(names, list, sizeof list);
        pb_diag_add(d, "primitive", "missing (required; one of: %s)", list);
    } else if (!cJSON_IsString(item)) {
        char shown[PB_SHOW_LEN];
        pb_json_show(item, shown, sizeof shown);
        pb_diag_add(d, "primitive", "%s is not a string (expected a primitive name)", shown);
    } else {
        cfg->primitive = pb_registry_find_primitive(item->valuestring);
        if (!cfg->primitive) {
            pb_diag_unknown(d, "primitive", "unknown primitive", item->valuestring, NULL, names,
                            (size_t)count);
        } else if (cfg->primitive->naxes < 0 || cfg->primitive->naxes > PB_MAX_AXES) {
            pb_diag_add(d, "primitive",
                        "'%s' has %d axes; primbench supports at most %d (a bug in its definition)",
                        cfg->primitive->name, cfg->primitive->naxes, PB_MAX_AXES);
            cfg->primitive = NULL;
        }
    }
    free(names);
}

static bool backend_of(const struct pb_backend *b, const struct pb_primitive *p) {
    return strcmp(b->primitive, p->name) == 0;
}

/* The registry index of a backend named in the config, "cub" or "reduce/cub"; -1 after
 * reporting a name that is not one of the primitive's backends. */
static int resolve_backend(const struct pb_primitive *p, const char *name, const char *path,
                           struct pb_diag *d) {
    bool qualified = strchr(name, '/') != NULL;
    size_t full_len = strlen(p->name) + strlen(name) + 2;
    char *full = malloc(full_len);
    if (!full) {
        pb_diag_add(d, NULL, "out of memory");
        return -1;
    }
    if (qualified) {
        snprintf(full, full_len, "%s", name);
    } else {
        snprintf(full, full_len, "%s/%s", p->name, name);
    }
    int found = -1, count = pb_registry_backend_count(), ncandidates = 0;
    const char **candidates = malloc((size_t)(count > 0 ? count : 1) * sizeof *candidates);
    for (int i = 0; i < count; i++) {
        const struct pb_backend *b = pb_registry_backend_at(i);
        if (strcmp(b->name, full) == 0) {
            found = i;
        }
        if (candidates && backend_of(b, p)) {
            const char *slash = strchr(b->name, '/');
            candidates[ncandidates++] = qualified || !slash ? b->name : slash + 1;
        }
    }
    char context[PB_SHOW_LEN + 32];
    snprintf(context, sizeof context, " for primitive '%s'", p->name);
    if (found >= 0 && !backend_of(pb_registry_backend_at(found), p)) {
        pb_diag_add(d, path, "'%s' is a backend of primitive '%s', not '%s'", full,
                    pb_registry_backend_at(found)->primitive, p->name);
        found = -1;
    } else if (found < 0 && candidates) {
        pb_diag_unknown(d, path, "unknown backend", name, context, candidates, (size_t)ncandidates);
    } else if (found < 0) {
        pb_diag_add(d, NULL, "out of memory");
    }
    free(candidates);
    free(full);
    return found;
}

/* Marks one named backend; first_at remembers where each was first named. */
static void select_backend(const struct pb_primitive *p, const cJSON *item, int json_index,
                           const char *path, int *first_at, struct pb_diag *d) {
    char shown[PB_SHOW_LEN];
    if (!cJSON_IsString(item)) {
        pb_json_show(item, shown, sizeof shown);
        pb_diag_add(d, path, "%s is not a backend name", shown);
        return;
    }
    if (!p) {
        return; /* nothing to look names up in; the primitive's problem is reported */
    }
    int i = resolve_backend(p, item->valuestring, path, d);
    if (i >= 0 && first_at[i] >= 0) {
        pb_show_name(item->valuestring, shown, sizeof shown);
        pb_diag_add(d, path, "'%s' is already listed at backends[%d]", shown, first_at[i]);
    } else if (i >= 0) {
        first_at[i] = json_index;
    }
}

static void parse_backends(const cJSON *root, struct pb_config *cfg, struct pb_diag *d) {
    const struct pb_primitive *p = cfg->primitive;
    int count = pb_registry_backend_count();
    int *first_at = malloc((size_t)(count > 0 ? count : 1) * sizeof *first_at);
    if (!first_at) {
        pb_diag_add(d, NULL, "out of memory");
        return;
    }
    for (int i = 0; i < count; i++) {
        first_at[i] = -1;
    }
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, "backends");
    bool all = !item || (cJSON_IsString(item) && strcmp(item->valuestring, "all") == 0);
    if (all && p) {
        for (int i = 0; i < count; i++) {
            first_at[i] = backend_of(pb_registry_backend_at(i), p) ? 0 : -1;
        }
    } else if (cJSON_IsString(item) && !all) {
        select_backend(p, item, 0, "backends", first_at, d);
    } else if (cJSON_IsArray(item) && !item->child) {
        pb_diag_add(d, "backends", "an empty list (name at least one backend, or write \"all\")");
    } else if (cJSON_IsArray(item)) {
        int j = 0;
        for (const cJSON *m = item->child; m; m = m->next, j++) {
            char path[PB_PATH_LEN];
            pb_path_index(path, sizeof path, "backends", j);
            select_backend(p, m, j, path, first_at, d);
        }
    } else if (item && !all) {
        char shown[PB_SHOW_LEN];
        pb_json_show(item, shown, sizeof shown);
        pb_diag_add(d, "backends", "%s is not \"all\", a backend name, or a list of them", shown);
    }

    /* Registry order, whatever the config's order: rows then line up across configs. */
    int selected = 0;
    for (int i = 0; i < count; i++) {
        selected += first_at[i] >= 0;
    }
    if (p && all && selected == 0) {
        pb_diag_add(d, "backends", "primitive '%s' has no registered backends", p->name);
    }
    cfg->backends = malloc((size_t)(selected > 0 ? selected : 1) * sizeof *cfg->backends);
    if (!cfg->backends) {
        pb_diag_add(d, NULL, "out of memory");
    }
    for (int i = 0; i < count && cfg->backends; i++) {
        if (first_at[i] >= 0) {
            cfg->backends[cfg->nbackends++] = pb_registry_backend_at(i);
        }
    }
    free(first_at);
}

static void parse_int_setting(const cJSON *root, const char *key, int64_t min, int64_t max,
                              struct pb_diag *d, int *out) {
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, key);
    int64_t value;
    if (item && pb_value_int(item, key, min, max, d, &value)) {
        *out = (int)value;
    }
}

/* Seeds are 64-bit, but a JSON number holds integers exactly only to 2^53 - 1; larger
 * seeds are written as decimal strings. */
static void parse_seed(const cJSON *root, struct pb_config *cfg, struct pb_diag *d) {
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(root, "seed");
    char shown[PB_SHOW_LEN];
    if (!item) {
        return;
    }
    pb_json_show(item, shown, sizeof shown);
    if (cJSON_IsString(item)) {
        const char *s = item->valuestring;
        char *end;
        errno = 0;
        unsigned long long value = strtoull(s, &end, 10);
        bool digits_only = s[0] >= '0' && s[0] <= '9' && !*end;
        if (!digits_only || errno == ERANGE) {
            pb_diag_add(d, "seed",
                        "%s is not an integer (expected 0..18446744073709551615; write seeds "
                        "past 2^53 - 1 as a string of digits)",
                        shown);
            return;
        }
        cfg->seed = value;
        return;
    }
    double v = cJSON_IsNumber(item) ? item->valuedouble : NAN;
    if (isfinite(v) && v == floor(v) && v > (double)PB_JSON_MAX_SAFE_INT) {
        pb_diag_add(d, "seed",
                    "a number beyond 2^53 - 1 (read as %s) may not hold the integer written; "
                    "write a seed this large as a string of digits",
                    shown);
        return;
    }
    int64_t value;
    if (pb_value_int(item, "seed", 0, PB_JSON_MAX_SAFE_INT, d, &value)) {
        cfg->seed = (uint64_t)value;
    }
}

void pb_config_parse_run_settings(const cJSON *root, struct pb_config *cfg, struct pb_diag *d) {
    char shown[PB_SHOW_LEN];
    parse_int_setting(root, "reps", 1, MAX_REPS, d, &cfg->reps);
    parse_int_setting(root, "warmup", 0, MAX_WARMUP, d, &cfg->warmup);
    parse_seed(root, cfg, d);

    const cJSON *cache = cJSON_GetObjectItemCaseSensitive(root, "cache");
    int mode;
    if (cache && pb_value_choice(cache, "cache", "cache mode", cache_modes, d, &mode)) {
        cfg->cold = mode == 0;
    }

    const cJSON *verify = cJSON_GetObjectItemCaseSensitive(root, "verify");
    if (verify && !cJSON_IsBool(verify)) {
        pb_json_show(verify, shown, sizeof shown);
        pb_diag_add(d, "verify", "%s is not true or false", shown);
    } else if (verify) {
        cfg->verify = cJSON_IsTrue(verify);
    }

    const cJSON *budget = cJSON_GetObjectItemCaseSensitive(root, "cpu_budget_s");
    if (budget) {
        double v = cJSON_IsNumber(budget) ? budget->valuedouble : NAN;
        if (!isfinite(v) || v <= 0) {
            pb_json_show(budget, shown, sizeof shown);
            pb_diag_add(d, "cpu_budget_s", "%s is not a positive number of seconds", shown);
        } else {
            cfg->cpu_budget_s = v;
        }
    }
}

void pb_config_parse_body(const cJSON *obj, struct pb_config *cfg, bool allow_huge,
                          struct pb_diag *d) {
    parse_primitive(obj, cfg, d);
    parse_backends(obj, cfg, d);
    pb_config_parse_axes(obj, cfg, allow_huge, d);
    pb_config_parse_run_settings(obj, cfg, d);
}

static void set_defaults(struct pb_config *cfg) {
    cfg->reps = DEFAULT_REPS;
    cfg->warmup = DEFAULT_WARMUP;
    cfg->cold = true;
    cfg->seed = DEFAULT_SEED;
    cfg->verify = true;
    cfg->cpu_budget_s = DEFAULT_CPU_BUDGET_S;
}

static uint64_t fnv1a64(const char *text, size_t len) {
    uint64_t hash = 14695981039346656037ULL;
    for (size_t i = 0; i < len; i++) {
        hash ^= (unsigned char)text[i];
        hash *= 1099511628211ULL;
    }
    return hash;
}

int pb_config_parse_with(const char *path, const char *text, size_t len,
                         const struct pb_config_options *opt, struct pb_config *cfg,
                         char **errors) {
    bool allow_huge = opt && opt->allow_huge_sweep;
    struct pb_diag d = {.file = path};
    memset(cfg, 0, sizeof *cfg);
    set_defaults(cfg);
    if (errors) {
        *errors = NULL;
    }
    /* A private NUL-terminated copy: cJSON needs the NUL, and the metadata keeps the text. */
    cfg->path = strdup(path);
    cfg->text = malloc(len + 1);
    if (!cfg->path || !cfg->text) {
        pb_diag_add(&d, NULL, "out of memory");
    } else {
        memcpy(cfg->text, text, len);
        cfg->text[len] = '\0';
        cJSON *root = pb_json_parse(cfg->text, len, &d);
        if (root) {
            pb_json_check_duplicates(root, "", &d);
            /* "parts" makes a suite: ordinary configs run in order into one output. */
            bool suite = cJSON_GetObjectItemCaseSensitive(root, "parts") != NULL;
            if (!suite) {
                pb_config_check_keys(root, top_keys, &d);
            }
            parse_name(root, cfg, &d);
            parse_texts(root, cfg, &d);
            if (suite) {
                pb_config_parse_suite(root, cfg, allow_huge, &d);
            } else {
                pb_config_parse_body(root, cfg, allow_huge, &d);
            }
            cJSON_Delete(root);
        }
    }
    if (d.count == 0 && !d.out_of_memory) {
        cfg->hash = fnv1a64(cfg->text, len);
        return 0;
    }
    pb_config_free(cfg);
    char *lines = pb_diag_take(&d);
    if (errors) {
        *errors = lines;
    } else {
        free(lines);
    }
    return 2;
}

int pb_config_parse(const char *path, const char *text, size_t len, struct pb_config *cfg,
                    char **errors) {
    return pb_config_parse_with(path, text, len, NULL, cfg, errors);
}

/* The failure of one file-level step, as the single line of *errors. */
static int load_failure(const char *path, struct pb_config *cfg, char **errors, const char *what,
                        const char *detail) {
    struct pb_diag d = {.file = path};
    memset(cfg, 0, sizeof *cfg);
    pb_diag_add(&d, NULL, "%s%s", what, detail);
    char *lines = pb_diag_take(&d);
    if (errors) {
        *errors = lines;
    } else {
        free(lines);
    }
    return 2;
}

int pb_config_load_with(const char *path, const struct pb_config_options *opt,
                        struct pb_config *cfg, char **errors) {
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever;
     * it is refused below as not a regular file, and regular files ignore the flag. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        return load_failure(path, cfg, errors, "cannot open: ", strerror(errno));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int err = errno;
        close(fd);
        return load_failure(path, cfg, errors, "cannot read: ", strerror(err));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return load_failure(path, cfg, errors, "is a directory, not a config file", "");
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return load_failure(path, cfg, errors, "is not a regular file", "");
    }
    if (st.st_size > PB_CONFIG_MAX_BYTES) {
        close(fd);
        return load_failure(path, cfg, errors, "is larger than 1 MiB; not a config file", "");
    }
    size_t cap = (size_t)st.st_size, len = 0;
    char *text = malloc(cap + 1);
    ssize_t got = 1;
    /* The file may change between fstat and read; read what is there, within the cap. */
    while (text && len < cap && (got = read(fd, text + len, cap - len)) > 0) {
        len += (size_t)got;
    }
    int err = errno;
    close(fd);
    if (!text) {
        return load_failure(path, cfg, errors, "out of memory", "");
    }
    if (got < 0) {
        free(text);
        return load_failure(path, cfg, errors, "cannot read: ", strerror(err));
    }
    int rc = pb_config_parse_with(path, text, len, opt, cfg, errors);
    free(text);
    return rc;
}

int pb_config_load(const char *path, struct pb_config *cfg, char **errors) {
    return pb_config_load_with(path, NULL, cfg, errors);
}

int pb_config_part_count(const struct pb_config *cfg) { return cfg->nparts > 0 ? cfg->nparts : 1; }

const struct pb_config *pb_config_part(const struct pb_config *cfg, int i) {
    return cfg->nparts > 0 ? &cfg->parts[i] : cfg;
}

void pb_config_describe(const struct pb_config *cfg, char *buf, size_t len) {
    if (!buf || len == 0) {
        return;
    }
    if (cfg->nparts == 0) {
        snprintf(buf, len, "primitive %s", cfg->primitive ? cfg->primitive->name : "(none)");
        return;
    }
    int at = snprintf(buf, len, "suite %s (", cfg->name ? cfg->name : "");
    for (int i = 0; i < cfg->nparts && at >= 0 && (size_t)at < len; i++) {
        const struct pb_primitive *p = cfg->parts[i].primitive;
        bool again = false; /* a primitive of two parts is named once */
        for (int j = 0; j < i && p; j++) {
            again |= cfg->parts[j].primitive == p;
        }
        if (p && !again) {
            at += snprintf(buf + at, len - (size_t)at, "%s%s",
                           at > 0 && buf[at - 1] != '(' ? ", " : "", p->name);
        }
    }
    if (at >= 0 && (size_t)at < len) {
        snprintf(buf + at, len - (size_t)at, ")");
    }
}

void pb_config_free(struct pb_config *cfg) {
    for (int i = 0; i < cfg->nparts && cfg->parts; i++) {
        pb_config_free(&cfg->parts[i]);
    }
    free(cfg->parts);
    free(cfg->path);
    free(cfg->name);
    free(cfg->description);
    free(cfg->backends);
    for (int a = 0; a < PB_MAX_AXES; a++) {
        free(cfg->axis[a].values);
    }
    free(cfg->output);
    free(cfg->text);
    memset(cfg, 0, sizeof *cfg);
}
