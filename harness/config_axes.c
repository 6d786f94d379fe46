/* A config's "sweep" and "zip": the values of every axis of the primitive, which axes
 * advance together, and the checks that need both (equal zip lengths, repeated cases,
 * the size of the whole sweep). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_internal.h"
#include "sweep.h"
#include "registry.h"

/* What the later checks need to know about the earlier ones. */
struct axes_state {
    bool axis_ok[PB_MAX_AXES];
    bool zip_ok;
    int zip_json_index[PB_MAX_AXES + 1]; /* zip group number -> its index in "zip" */
};

static void axis_names(const struct pb_primitive *p, const char **names) {
    for (int a = 0; a < p->naxes; a++) {
        names[a] = p->axes[a].name;
    }
}

static void report_unknown_axis(const struct pb_primitive *p, const char *path, const char *name,
                                struct pb_diag *d) {
    const char *names[PB_MAX_AXES];
    char context[PB_SHOW_LEN + 32];
    axis_names(p, names);
    snprintf(context, sizeof context, " of primitive '%s'", p->name);
    pb_diag_unknown(d, path, "unknown axis", name, context, names, (size_t)p->naxes);
}

static void parse_sweep(const cJSON *root, struct pb_config *cfg, struct axes_state *st,
                        struct pb_diag *d) {
    const struct pb_primitive *p = cfg->primitive;
    const cJSON *sweep = cJSON_GetObjectItemCaseSensitive(root, "sweep");
    if (sweep && !cJSON_IsObject(sweep)) {
        char shown[PB_SHOW_LEN];
        pb_json_show(sweep, shown, sizeof shown);
        pb_diag_add(d, "sweep", "%s is not an object (expected e.g. {\"n\": [1024, 4096]})", shown);
        return;
    }
    if (!p) {
        return;
    }
    for (const cJSON *m = sweep ? sweep->child : NULL; m; m = m->next) {
        if (pb_primitive_axis_index(p, m->string) < 0 && !pb_json_key_seen_before(sweep, m)) {
            char path[PB_PATH_LEN];
            pb_path_key(path, sizeof path, "sweep", m->string);
            report_unknown_axis(p, path, m->string, d);
        }
    }
    for (int a = 0; a < p->naxes; a++) {
        const struct pb_axis *axis = &p->axes[a];
        char path[PB_PATH_LEN];
        pb_path_key(path, sizeof path, "sweep", axis->name);
        const cJSON *item = sweep ? cJSON_GetObjectItemCaseSensitive(sweep, axis->name) : NULL;
        st->axis_ok[a] = item ? pb_axis_values_parse(axis, item, path, d, &cfg->axis[a])
                              : pb_axis_values_default(axis, path, d, &cfg->axis[a]);
    }
}

static bool check_zip_lengths(const struct pb_config *cfg, const int *members, int nmembers,
                              const char *path, struct pb_diag *d) {
    bool equal = true;
    for (int i = 1; i < nmembers; i++) {
        equal &= cfg->axis[members[i]].count == cfg->axis[members[0]].count;
    }
    if (equal) {
        return true;
    }
    char lengths[PB_PATH_LEN] = "";
    size_t used = 0;
    for (int i = 0; i < nmembers && used < sizeof lengths; i++) {
        int n = snprintf(lengths + used, sizeof lengths - used, "%s%s: %d", i ? ", " : "",
                         cfg->primitive->axes[members[i]].name, cfg->axis[members[i]].count);
        used += n > 0 ? (size_t)n : 0;
    }
    pb_diag_add(d, path, "the axes of a zip group need equal numbers of values (%s)", lengths);
    return false;
}

/* One member of a zip group; gives the group's axis index, or -1 for a problem
 * already reported. */
static int zip_member(const struct pb_config *cfg, const cJSON *item, const char *path,
                      const struct axes_state *st, struct pb_diag *d) {
    if (!cJSON_IsString(item)) {
        char shown[PB_SHOW_LEN];
        pb_json_show(item, shown, sizeof shown);
        pb_diag_add(d, path, "%s is not an axis name", shown);
        return -1;
    }
    if (!cfg->primitive) {
        return -1;
    }
    int a = pb_primitive_axis_index(cfg->primitive, item->valuestring);
    if (a < 0) {
        report_unknown_axis(cfg->primitive, path, item->valuestring, d);
        return -1;
    }
    if (cfg->zip_group[a] >= 0) {
        pb_diag_add(d, path, "axis '%s' is already in zip[%d] (an axis may be in one group)",
                    item->valuestring, st->zip_json_index[cfg->zip_group[a]]);
        return -1;
    }
    return a;
}

static void parse_zip_group(const cJSON *group, int json_index, struct pb_config *cfg,
                            struct axes_state *st, struct pb_diag *d) {
    char path[PB_PATH_LEN];
    pb_path_index(path, sizeof path, "zip", json_index);
    if (!cJSON_IsArray(group)) {
        char shown[PB_SHOW_LEN];
        pb_json_show(group, shown, sizeof shown);
        pb_diag_add(d, path, "%s is not a list of axis names (expected e.g. [\"n\", \"dtype\"])",
                    shown);
        st->zip_ok = false;
        return;
    }
    bool group_ok = true;
    if (cJSON_GetArraySize(group) < 2) {
        pb_diag_add(d, path, "a zip group needs at least two axes");
        group_ok = false;
    }
    int members[PB_MAX_AXES], nmembers = 0;
    st->zip_json_index[cfg->nzip] = json_index; /* named by its own repeated members */
    int i = 0;
    for (const cJSON *m = group->child; m; m = m->next, i++) {
        char member_path[PB_PATH_LEN];
        pb_path_index(member_path, sizeof member_path, path, i);
        int a = zip_member(cfg, m, member_path, st, d);
        if (a < 0) {
            group_ok = false;
            continue;
        }
        cfg->zip_group[a] = cfg->nzip;
        members[nmembers++] = a;
    }
    if (nmembers > 0) {
        cfg->nzip++;
    }
    for (int k = 0; k < nmembers; k++) {
        group_ok &= st->axis_ok[members[k]];
    }
    if (group_ok) {
        group_ok = check_zip_lengths(cfg, members, nmembers, path, d);
    }
    st->zip_ok &= group_ok;
}

static void parse_zip(const cJSON *root, struct pb_config *cfg, struct axes_state *st,
                      struct pb_diag *d) {
    const cJSON *zip = cJSON_GetObjectItemCaseSensitive(root, "zip");
    st->zip_ok = true;
    if (!zip) {
        return;
    }
    if (!cJSON_IsArray(zip)) {
        char shown[PB_SHOW_LEN];
        pb_json_show(zip, shown, sizeof shown);
        pb_diag_add(d, "zip",
                    "%s is not a list of axis groups (expected e.g. [[\"n\", \"dtype\"]])", shown);
        st->zip_ok = false;
        return;
    }
    int g = 0;
    for (const cJSON *group = zip->child; group; group = group->next, g++) {
        parse_zip_group(group, g, cfg, st, d);
    }
}

/* One entry of a group (a crossed axis is a group of one), for sorting. */
struct entry_ref {
    const struct pb_config *cfg;
    const int *members;
    int nmembers;
    int index;
};

static int compare_entries(const void *x, const void *y) {
    const struct entry_ref *a = x, *b = y;
    for (int k = 0; k < a->nmembers; k++) {
        const int64_t *values = a->cfg->axis[a->members[k]].values;
        if (values[a->index] != values[b->index]) {
            return values[a->index] < values[b->index] ? -1 : 1;
        }
    }
    return (a->index > b->index) - (a->index < b->index);
}

static bool same_entry(const struct entry_ref *a, const struct entry_ref *b) {
    for (int k = 0; k < a->nmembers; k++) {
        const int64_t *values = a->cfg->axis[a->members[k]].values;
        if (values[a->index] != values[b->index]) {
            return false;
        }
    }
    return true;
}

static void report_repeat(const struct pb_config *cfg, const int *members, int nmembers,
                          int zip_index, int entry, int first, struct pb_diag *d) {
    const struct pb_primitive *p = cfg->primitive;
    char path[PB_PATH_LEN], shown[PB_PATH_LEN] = "";
    if (zip_index < 0) {
        const struct pb_axis *axis = &p->axes[members[0]];
        char axis_path[PB_PATH_LEN];
        pb_path_key(axis_path, sizeof axis_path, "sweep", axis->name);
        pb_path_index(path, sizeof path, axis_path, entry);
        pb_axis_show_value(axis, cfg->axis[members[0]].values[entry], shown, sizeof shown);
        pb_diag_add(d, path, "%s is already listed at %s[%d] (each case runs once)", shown,
                    axis_path, first);
        return;
    }
    size_t used = 0;
    for (int k = 0; k < nmembers && used < sizeof shown; k++) {
        char value[PB_SHOW_LEN];
        pb_axis_show_value(&p->axes[members[k]], cfg->axis[members[k]].values[entry], value,
                           sizeof value);
        int n = snprintf(shown + used, sizeof shown - used, "%s%s=%s", k ? " " : "",
                         p->axes[members[k]].name, value);
        used += n > 0 ? (size_t)n : 0;
    }
    pb_path_index(path, sizeof path, "zip", zip_index);
    pb_diag_add(d, path, "entry %d (%s) repeats entry %d (each case runs once)", entry, shown,
                first);
}

/* Reports each entry of a group that repeats an earlier one, in the config's order. */
static void check_group_repeats(const struct pb_config *cfg, const int *members, int nmembers,
                                int zip_index, struct pb_diag *d) {
    int count = cfg->axis[members[0]].count;
    struct entry_ref *refs = malloc((size_t)count * sizeof *refs);
    int *first_of = malloc((size_t)count * sizeof *first_of);
    if (!refs || !first_of) {
        pb_diag_add(d, NULL, "out of memory");
        free(refs);
        free(first_of);
        return;
    }
    for (int i = 0; i < count; i++) {
        refs[i] = (struct entry_ref){cfg, members, nmembers, i};
        first_of[i] = -1;
    }
    qsort(refs, (size_t)count, sizeof *refs, compare_entries);
    int run_start = 0;
    for (int i = 1; i < count; i++) {
        if (same_entry(&refs[i], &refs[run_start])) {
            first_of[refs[i].index] = refs[run_start].index;
        } else {
            run_start = i;
        }
    }
    for (int i = 0; i < count; i++) {
        if (first_of[i] >= 0) {
            report_repeat(cfg, members, nmembers, zip_index, i, first_of[i], d);
        }
    }
    free(refs);
    free(first_of);
}

static void check_sweep(const struct pb_config *cfg, const struct axes_state *st, bool allow_huge,
                        struct pb_diag *d) {
    struct pb_sweep_dimension dims[PB_MAX_AXES];
    int ndims = pb_sweep_dimensions(cfg, dims);
    double cases = 1;
    for (int k = 0; k < ndims; k++) {
        int zip_index = dims[k].zip >= 0 ? st->zip_json_index[dims[k].zip] : -1;
        check_group_repeats(cfg, dims[k].axes, dims[k].naxes, zip_index, d);
        cases *= dims[k].length;
    }
    pb_config_check_cases(d, "sweep", "expands to", "", cases, allow_huge);
}

/* cases is a double: the product of several axes of 10^5 values overflows 64 bits. */
void pb_config_check_cases(struct pb_diag *d, const char *path, const char *verb, const char *scope,
                           double cases, bool allow_huge) {
    if (cases > PB_CONFIG_SWEEP_HARD_LIMIT) {
        pb_diag_add(d, path, "%s %.0f cases%s (over the hard limit of %d, even with --force)", verb,
                    cases, scope, PB_CONFIG_SWEEP_HARD_LIMIT);
    } else if (cases > PB_CONFIG_SWEEP_LIMIT && !allow_huge) {
        pb_diag_add(d, path, "%s %.0f cases%s (over the limit of %d; use --force to run it anyway)",
                    verb, cases, scope, PB_CONFIG_SWEEP_LIMIT);
    }
}

void pb_config_parse_axes(const cJSON *root, struct pb_config *cfg, bool allow_huge,
                          struct pb_diag *d) {
    struct axes_state st;
    memset(&st, 0, sizeof st);
    for (int a = 0; a < PB_MAX_AXES; a++) {
        cfg->zip_group[a] = -1;
    }
    cfg->nzip = 0;
    parse_sweep(root, cfg, &st, d);
    parse_zip(root, cfg, &st, d);
    if (!cfg->primitive || !st.zip_ok) {
        return;
    }
    for (int a = 0; a < cfg->primitive->naxes; a++) {
        if (!st.axis_ok[a]) {
            return;
        }
    }
    check_sweep(cfg, &st, allow_huge, d);
}
