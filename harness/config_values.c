/* Reading single values and axis sweeps (integers, lists, ranges, choices) from JSON. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_internal.h"

bool pb_value_int(const cJSON *item, const char *path, int64_t min, int64_t max, struct pb_diag *d,
                  int64_t *out) {
    char shown[PB_SHOW_LEN];
    pb_json_show(item, shown, sizeof shown);
    double v = cJSON_IsNumber(item) ? item->valuedouble : NAN;
    if (!isfinite(v) || v != floor(v)) {
        pb_diag_add(d, path, "%s is not an integer (expected an integer %lld..%lld)", shown,
                    (long long)min, (long long)max);
        return false;
    }
    if (v < (double)min || v > (double)max) {
        if (min >= 1 && v < 1) {
            pb_diag_add(d, path, "%s is not a positive integer (expected an integer %lld..%lld)",
                        shown, (long long)min, (long long)max);
        } else {
            pb_diag_add(d, path, "%s is outside the valid range %lld..%lld", shown, (long long)min,
                        (long long)max);
        }
        return false;
    }
    if (fabs(v) > (double)PB_JSON_MAX_SAFE_INT) {
        pb_diag_add(d, path,
                    "a number beyond 2^53 - 1 (read as %s) may not hold the integer written",
                    shown);
        return false;
    }
    *out = (int64_t)v;
    return true;
}

bool pb_value_choice(const cJSON *item, const char *path, const char *what,
                     const char *const *choices, struct pb_diag *d, int *out) {
    size_t count = pb_count_names(choices);
    if (!cJSON_IsString(item)) {
        char shown[PB_SHOW_LEN], names[PB_PATH_LEN];
        pb_json_show(item, shown, sizeof shown);
        pb_join_names(choices, names, sizeof names);
        pb_diag_add(d, path, "%s is not a string (expected one of: %s)", shown, names);
        return false;
    }
    int index = pb_name_index(choices, item->valuestring);
    if (index < 0) {
        char unknown[64];
        snprintf(unknown, sizeof unknown, "unknown %s", what);
        pb_diag_unknown(d, path, unknown, item->valuestring, NULL, choices, count);
        return false;
    }
    *out = index;
    return true;
}

static bool alloc_values(struct pb_axis_values *out, size_t count, struct pb_diag *d,
                         const char *path) {
    out->values = malloc((count ? count : 1) * sizeof *out->values);
    out->count = 0;
    if (!out->values) {
        pb_diag_add(d, path, "out of memory");
        return false;
    }
    return true;
}

static void drop_values(struct pb_axis_values *out) {
    free(out->values);
    out->values = NULL;
    out->count = 0;
}

static bool check_list_size(const cJSON *list, const char *path, struct pb_diag *d) {
    int count = cJSON_GetArraySize(list);
    if (count == 0) {
        pb_diag_add(d, path, "an empty list (give at least one value)");
        return false;
    }
    if (count > PB_AXIS_MAX_VALUES) {
        pb_diag_add(d, path, "a list of %d values (an axis may have at most %d)", count,
                    PB_AXIS_MAX_VALUES);
        return false;
    }
    return true;
}

static const char *const range_keys[] = {"from", "to", "scale", "step", NULL};
static const char *const range_scales[] = {"pow2", "linear", NULL};
enum { SCALE_POW2, SCALE_LINEAR };

static bool range_member_int(const struct pb_axis *axis, const cJSON *range, const char *key,
                             const char *path, struct pb_diag *d, int64_t *out) {
    char member_path[PB_PATH_LEN];
    pb_path_key(member_path, sizeof member_path, path, key);
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(range, key);
    if (!item) {
        pb_diag_add(d, member_path, "missing (a range needs \"from\", \"to\" and \"scale\")");
        return false;
    }
    return pb_value_int(item, member_path, axis->min, axis->max, d, out);
}

static bool range_bounds_valid(int64_t from, int64_t to, int scale, const char *path,
                               struct pb_diag *d) {
    if (from > to) {
        pb_diag_add(d, path, "\"from\" (%lld) is greater than \"to\" (%lld)", (long long)from,
                    (long long)to);
        return false;
    }
    if (scale == SCALE_POW2 && from < 1) {
        pb_diag_add(d, path, "\"from\" (%lld) must be at least 1 with \"scale\": \"pow2\"",
                    (long long)from);
        return false;
    }
    return true;
}

/* {"from": a, "to": b, "scale": "pow2"} or {..., "scale": "linear", "step": s}. */
static bool parse_int_range(const struct pb_axis *axis, const cJSON *range, const char *path,
                            struct pb_diag *d, struct pb_axis_values *out) {
    bool ok = true;
    for (const cJSON *m = range->child; m; m = m->next) {
        if (pb_name_index(range_keys, m->string) < 0 && !pb_json_key_seen_before(range, m)) {
            char member_path[PB_PATH_LEN];
            pb_path_key(member_path, sizeof member_path, path, m->string);
            pb_diag_unknown(d, member_path, "unknown key", m->string, " in a range", range_keys,
                            pb_count_names(range_keys));
            ok = false;
        }
    }
    int64_t from = 0, to = 0, step = 1;
    ok &= range_member_int(axis, range, "from", path, d, &from);
    ok &= range_member_int(axis, range, "to", path, d, &to);

    int scale = -1;
    char member_path[PB_PATH_LEN];
    pb_path_key(member_path, sizeof member_path, path, "scale");
    const cJSON *scale_item = cJSON_GetObjectItemCaseSensitive(range, "scale");
    if (!scale_item) {
        pb_diag_add(d, member_path,
                    "missing (a range needs \"from\", \"to\" and \"scale\": "
                    "\"pow2\" or \"linear\")");
        ok = false;
    } else if (!pb_value_choice(scale_item, member_path, "scale", range_scales, d, &scale)) {
        ok = false;
    }

    const cJSON *step_item = cJSON_GetObjectItemCaseSensitive(range, "step");
    if (step_item) {
        pb_path_key(member_path, sizeof member_path, path, "step");
        if (scale == SCALE_POW2) {
            pb_diag_add(d, member_path, "\"step\" applies only to \"scale\": \"linear\"");
            ok = false;
        } else if (!pb_value_int(step_item, member_path, 1, PB_JSON_MAX_SAFE_INT, d, &step)) {
            ok = false;
        }
    }
    if (!ok || !range_bounds_valid(from, to, scale, path, d)) {
        return false;
    }

    /* Unsigned arithmetic: to - from may not fit an int64 when the axis spans negatives. */
    uint64_t count = 0;
    if (scale == SCALE_LINEAR) {
        count = ((uint64_t)to - (uint64_t)from) / (uint64_t)step + 1;
    } else {
        for (int64_t v = from; v <= to; v *= 2) {
            count++;
            if (v > to / 2) {
                break;
            }
        }
    }
    if (count > PB_AXIS_MAX_VALUES) {
        pb_diag_add(d, path, "the range gives %llu values (an axis may have at most %d)",
                    (unsigned long long)count, PB_AXIS_MAX_VALUES);
        return false;
    }
    if (!alloc_values(out, (size_t)count, d, path)) {
        return false;
    }
    int64_t v = from;
    for (uint64_t i = 0; i < count; i++) {
        out->values[out->count++] = v;
        v = scale == SCALE_LINEAR ? v + step : v * 2;
    }
    return true;
}

static bool parse_int_axis(const struct pb_axis *axis, const cJSON *item, const char *path,
                           struct pb_diag *d, struct pb_axis_values *out) {
    if (cJSON_IsObject(item)) {
        return parse_int_range(axis, item, path, d, out);
    }
    if (cJSON_IsArray(item)) {
        if (!check_list_size(item, path, d) ||
            !alloc_values(out, (size_t)cJSON_GetArraySize(item), d, path)) {
            return false;
        }
        bool ok = true;
        int i = 0;
        for (const cJSON *m = item->child; m; m = m->next, i++) {
            char element_path[PB_PATH_LEN];
            pb_path_index(element_path, sizeof element_path, path, i);
            ok &=
                pb_value_int(m, element_path, axis->min, axis->max, d, &out->values[out->count++]);
        }
        return ok;
    }
    if (cJSON_IsString(item) && strcmp(item->valuestring, "all") == 0) {
        pb_diag_add(d, path,
                    "\"all\" applies only to axes with named values; give an integer, "
                    "a list of integers, or a range");
        return false;
    }
    if (!cJSON_IsNumber(item)) {
        char shown[PB_SHOW_LEN];
        pb_json_show(item, shown, sizeof shown);
        pb_diag_add(d, path,
                    "%s is not an integer, a list of integers, or a range (expected e.g. 1024, "
                    "[1024, 4096], or {\"from\": 1024, \"to\": 4096, \"scale\": \"pow2\"})",
                    shown);
        return false;
    }
    if (!alloc_values(out, 1, d, path)) {
        return false;
    }
    return pb_value_int(item, path, axis->min, axis->max, d, &out->values[out->count++]);
}

static bool parse_choice_axis(const struct pb_axis *axis, const cJSON *item, const char *path,
                              struct pb_diag *d, struct pb_axis_values *out) {
    size_t nchoices = pb_count_names(axis->choices);
    if (cJSON_IsString(item) && strcmp(item->valuestring, "all") == 0) {
        if (!alloc_values(out, nchoices, d, path)) {
            return false;
        }
        for (size_t i = 0; i < nchoices; i++) {
            out->values[out->count++] = (int64_t)i;
        }
        return true;
    }
    if (cJSON_IsString(item)) {
        int index;
        if (!pb_value_choice(item, path, axis->name, axis->choices, d, &index) ||
            !alloc_values(out, 1, d, path)) {
            return false;
        }
        out->values[out->count++] = index;
        return true;
    }
    if (!cJSON_IsArray(item)) {
        char shown[PB_SHOW_LEN], names[PB_PATH_LEN];
        pb_json_show(item, shown, sizeof shown);
        pb_join_names(axis->choices, names, sizeof names);
        pb_diag_add(d, path, "%s is not a name, a list of names, or \"all\" (%s takes: %s)", shown,
                    axis->name, names);
        return false;
    }
    if (!check_list_size(item, path, d) ||
        !alloc_values(out, (size_t)cJSON_GetArraySize(item), d, path)) {
        return false;
    }
    bool ok = true;
    int i = 0;
    for (const cJSON *m = item->child; m; m = m->next, i++) {
        char element_path[PB_PATH_LEN];
        pb_path_index(element_path, sizeof element_path, path, i);
        int index = -1;
        if (cJSON_IsString(m) && strcmp(m->valuestring, "all") == 0) {
            pb_diag_add(d, element_path,
                        "\"all\" cannot appear in a list; write \"all\" "
                        "in place of the list");
            ok = false;
        } else if (pb_value_choice(m, element_path, axis->name, axis->choices, d, &index)) {
            out->values[out->count++] = index;
        } else {
            ok = false;
        }
    }
    return ok;
}

bool pb_axis_values_parse(const struct pb_axis *axis, const cJSON *item, const char *path,
                          struct pb_diag *d, struct pb_axis_values *out) {
    out->count = 0;
    out->values = NULL;
    bool ok = axis->kind == PB_AXIS_INT ? parse_int_axis(axis, item, path, d, out)
                                        : parse_choice_axis(axis, item, path, d, out);
    if (!ok) {
        drop_values(out);
    }
    return ok;
}

bool pb_axis_values_default(const struct pb_axis *axis, const char *path, struct pb_diag *d,
                            struct pb_axis_values *out) {
    out->count = 0;
    out->values = NULL;
    if (!axis->default_value) {
        pb_diag_add(d, path, "missing (the primitive has no default for this axis)");
        return false;
    }
    /* Read the default as if the config had written it, so it is checked the same way:
     * a number for an integer axis, a name (or "all") for a choice axis. */
    const char *end;
    cJSON *item = axis->kind == PB_AXIS_INT ? cJSON_ParseWithOpts(axis->default_value, &end, true)
                                            : cJSON_CreateString(axis->default_value);
    char default_path[PB_PATH_LEN];
    snprintf(default_path, sizeof default_path, "%s (the primitive's default)", path);
    if (!item) {
        pb_diag_add(d, default_path, "\"%s\" is not a valid value", axis->default_value);
        return false;
    }
    bool ok = pb_axis_values_parse(axis, item, default_path, d, out);
    cJSON_Delete(item);
    return ok;
}

void pb_axis_show_value(const struct pb_axis *axis, int64_t value, char *out, size_t cap) {
    if (axis->kind == PB_AXIS_INT) {
        snprintf(out, cap, "%lld", (long long)value);
    } else {
        snprintf(out, cap, "\"%s\"", axis->choices[value]);
    }
}
