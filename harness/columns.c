/* One layout of axis columns for an output, shared by its writer and its readers. */
#include "columns.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "results.h"

static int column_index(const struct pb_columns *cols, const char *name) {
    for (int j = 0; j < cols->count; j++)
        if (strcmp(cols->name[j], name) == 0) return j;
    return -1;
}

int pb_columns_add_primitive(struct pb_columns *cols, const struct pb_primitive *p) {
    for (int i = 0; i < cols->nprimitives; i++)
        if (cols->primitive[i] == p) return 0;
    int added = 0;
    for (int a = 0; a < p->naxes; a++) added += column_index(cols, p->axes[a].name) < 0;
    if (cols->count + added > PB_MAX_AXIS_COLUMNS || cols->nprimitives == PB_MAX_OUTPUT_PRIMITIVES)
        return -1;
    for (int a = 0; a < p->naxes; a++)
        if (column_index(cols, p->axes[a].name) < 0) cols->name[cols->count++] = p->axes[a].name;
    cols->primitive[cols->nprimitives++] = p;
    return 0;
}

int pb_columns_from_config(const struct pb_config *cfg, struct pb_columns *cols) {
    memset(cols, 0, sizeof *cols);
    for (int i = 0; i < pb_config_part_count(cfg); i++) {
        const struct pb_primitive *p = pb_config_part(cfg, i)->primitive;
        if (p && pb_columns_add_primitive(cols, p) != 0) return -1;
    }
    return 0;
}

const struct pb_primitive *pb_columns_primitive(const struct pb_columns *cols, const char *name) {
    for (int i = 0; name && i < cols->nprimitives; i++)
        if (strcmp(cols->primitive[i]->name, name) == 0) return cols->primitive[i];
    return NULL;
}

int pb_columns_case_axis(const struct pb_columns *cols, const struct pb_case *c, int j) {
    for (int a = 0; a < c->naxes; a++)
        if (strcmp(c->axes[a].name, cols->name[j]) == 0) return a;
    return -1;
}

const char *pb_columns_case_text(const struct pb_columns *cols, const struct pb_case *c, int j,
                                 char *buf, size_t len) {
    int a = pb_columns_case_axis(cols, c, j);
    return a < 0 ? "" : pb_results_axis_text(c, a, buf, len);
}

static const struct pb_axis *primitive_axis(const struct pb_primitive *p, const char *name) {
    for (int a = 0; a < p->naxes; a++)
        if (strcmp(p->axes[a].name, name) == 0) return &p->axes[a];
    return NULL;
}

int pb_columns_json_texts(const struct pb_columns *cols, const cJSON *row, char (*bufs)[32],
                          const char **texts) {
    if (!cJSON_IsObject(row)) return -1;
    const char *prim = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "primitive"));
    const struct pb_primitive *p = pb_columns_primitive(cols, prim);
    if (!p) return -1;
    for (int j = 0; j < cols->count; j++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, cols->name[j]);
        const struct pb_axis *axis = primitive_axis(p, cols->name[j]);
        if (!axis) {
            if (v && !cJSON_IsNull(v)) return -1; /* a value where the primitive has no axis */
            texts[j] = "";
        } else if (axis->kind == PB_AXIS_INT) {
            if (!cJSON_IsNumber(v)) return -1;
            snprintf(bufs[j], sizeof bufs[j], "%" PRId64, (int64_t)llround(v->valuedouble));
            texts[j] = bufs[j];
        } else {
            if (!cJSON_IsString(v)) return -1;
            texts[j] = v->valuestring;
        }
    }
    return 0;
}
