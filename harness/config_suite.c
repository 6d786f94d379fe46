/* A suite: a config whose "parts" are ordinary configs (each its own primitive, backends,
 * sweep and, optionally, run settings) that run in order into one output. The suite's
 * own run settings are the parts' defaults. Every problem of a part is reported under its
 * JSON path ("parts[2].sweep.k: ..."), and the whole suite's sweep is held to the same
 * case limits as one config's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "config_internal.h"
#include "sweep.h"

static const char *const suite_keys[] = {
    "name", "description", "parts",        "reps",   "warmup", "cache",
    "seed", "verify",      "cpu_budget_s", "output", NULL,
};
static const char *const part_keys[] = {
    "description", "primitive", "backends", "sweep",        "zip",    "reps",
    "warmup",      "cache",     "seed",     "cpu_budget_s", "verify", NULL,
};
/* Keys of an ordinary config that say what to run: in a suite, each part has its own. */
static const char *const part_only_keys[] = {"primitive", "backends", "sweep", "zip", NULL};
/* Keys of the suite as a whole: it writes one output under one name. */
static const char *const suite_only_keys[] = {"name", "output", NULL};

static void check_suite_keys(const cJSON *root, struct pb_diag *d) {
    for (const cJSON *m = root->child; m; m = m->next) {
        if (pb_json_key_seen_before(root, m) || pb_name_index(suite_keys, m->string) >= 0) {
            continue;
        }
        char path[PB_PATH_LEN];
        pb_path_key(path, sizeof path, "", m->string);
        if (pb_name_index(part_only_keys, m->string) >= 0) {
            pb_diag_add(d, path,
                        "a suite (a config with \"parts\") has no %s of its own: each part "
                        "names its own",
                        m->string);
        } else {
            pb_diag_unknown(d, path, "unknown key", m->string, " of a suite", suite_keys,
                            pb_count_names(suite_keys));
        }
    }
}

static void check_part_keys(const cJSON *part, struct pb_diag *d) {
    for (const cJSON *m = part->child; m; m = m->next) {
        if (pb_json_key_seen_before(part, m) || pb_name_index(part_keys, m->string) >= 0) {
            continue;
        }
        char path[PB_PATH_LEN];
        pb_path_key(path, sizeof path, "", m->string);
        if (strcmp(m->string, "parts") == 0) {
            pb_diag_add(d, path, "a part cannot itself be a suite (suites do not nest)");
        } else if (pb_name_index(suite_only_keys, m->string) >= 0) {
            pb_diag_add(d, path,
                        "belongs to the suite, not to a part (the suite writes one output "
                        "under one name)");
        } else {
            pb_diag_unknown(d, path, "unknown key", m->string, " of a suite's part", part_keys,
                            pb_count_names(part_keys));
        }
    }
}

/* A part starts from the suite's settings, which its own keys then override. */
static void inherit(struct pb_config *part, const struct pb_config *suite, struct pb_diag *d) {
    part->reps = suite->reps;
    part->warmup = suite->warmup;
    part->cold = suite->cold;
    part->seed = suite->seed;
    part->verify = suite->verify;
    part->cpu_budget_s = suite->cpu_budget_s;
    part->path = strdup(suite->path);
    if (!part->path) {
        pb_diag_add(d, NULL, "out of memory");
    }
}

static void parse_part(const cJSON *item, int index, struct pb_config *suite, bool allow_huge,
                       struct pb_diag *d) {
    char path[PB_PATH_LEN];
    pb_path_index(path, sizeof path, "parts", index);
    struct pb_config *part = &suite->parts[index];
    inherit(part, suite, d);
    if (!cJSON_IsObject(item)) {
        char shown[PB_SHOW_LEN];
        pb_json_show(item, shown, sizeof shown);
        pb_diag_add(d, path, "%s is not an object (expected a config: primitive, sweep, ...)",
                    shown);
        return;
    }
    d->prefix = path;
    check_part_keys(item, d);
    const cJSON *description = pb_config_string_member(item, "description", d);
    if (description) {
        part->description = strdup(description->valuestring);
        if (!part->description) {
            pb_diag_add(d, NULL, "out of memory");
        }
    }
    pb_config_parse_body(item, part, allow_huge, d);
    d->prefix = NULL;
}

/* The whole suite against the case limits, and its output's columns against theirs. */
static void check_whole(const struct pb_config *suite, bool allow_huge, struct pb_diag *d) {
    double cases = 0;
    for (int i = 0; i < suite->nparts; i++) {
        if (!suite->parts[i].primitive) {
            return; /* a part's problem is reported; the total would mean nothing */
        }
        cases += (double)pb_sweep_count(&suite->parts[i]);
    }
    pb_config_check_cases(d, "parts", "the parts expand to", " in all", cases, allow_huge);
    struct pb_columns cols;
    if (pb_columns_from_config(suite, &cols) != 0) {
        pb_diag_add(d, "parts",
                    "the parts' primitives have more than %d distinct axes in all, more "
                    "than an output's columns can hold",
                    PB_MAX_AXIS_COLUMNS);
    }
}

void pb_config_parse_suite(const cJSON *root, struct pb_config *cfg, bool allow_huge,
                           struct pb_diag *d) {
    check_suite_keys(root, d);
    pb_config_parse_run_settings(root, cfg, d);
    const cJSON *parts = cJSON_GetObjectItemCaseSensitive(root, "parts");
    char shown[PB_SHOW_LEN];
    if (!cJSON_IsArray(parts)) {
        pb_json_show(parts, shown, sizeof shown);
        pb_diag_add(d, "parts", "%s is not a list of configs", shown);
        return;
    }
    int count = cJSON_GetArraySize(parts);
    if (count == 0) {
        pb_diag_add(d, "parts", "an empty list (a suite needs at least one part)");
        return;
    }
    if (count > PB_CONFIG_MAX_PARTS) {
        pb_diag_add(d, "parts", "%d parts (at most %d)", count, PB_CONFIG_MAX_PARTS);
        return;
    }
    cfg->parts = calloc((size_t)count, sizeof *cfg->parts);
    if (!cfg->parts) {
        pb_diag_add(d, NULL, "out of memory");
        return;
    }
    cfg->nparts = count;
    int i = 0;
    for (const cJSON *item = parts->child; item; item = item->next, i++) {
        parse_part(item, i, cfg, allow_huge, d);
    }
    if (d->count == 0 && !d->out_of_memory) {
        check_whole(cfg, allow_huge, d);
    }
}
