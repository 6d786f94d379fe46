/* The axis columns of an output: for an ordinary config its primitive's axes; for a suite
 * the union of its parts' axes, in order of first appearance (part by part, each
 * primitive's axes in its order). A row fills the columns its case has and leaves the
 * others empty (JSON Lines: null). Both the writer and every reader of the output's rows
 * (--resume, the row order of --devices and bench merge) go through this one layout. */
#ifndef PB_COLUMNS_H
#define PB_COLUMNS_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "primbench.h"

struct pb_config;

/* Room for every axis of every primitive with names to spare: the registry's primitives
 * share n, dtype and distribution, and have fewer than 30 distinct axes in all. */
#define PB_MAX_AXIS_COLUMNS 48
/* The most distinct primitives one output holds (a suite's parts'). */
#define PB_MAX_OUTPUT_PRIMITIVES 64

struct pb_columns {
    int count;
    const char *name[PB_MAX_AXIS_COLUMNS];
    int nprimitives; /* the primitives whose rows the output holds, in order */
    const struct pb_primitive *primitive[PB_MAX_OUTPUT_PRIMITIVES];
};

/* Adds p's axes that are not columns yet, and p to the primitives. Returns 0, or -1
 * when the columns or primitives would overflow (then cols is unchanged). */
int pb_columns_add_primitive(struct pb_columns *cols, const struct pb_primitive *p);
/* The columns of cfg's output. Returns 0, or -1 on overflow (only a suite can). */
int pb_columns_from_config(const struct pb_config *cfg, struct pb_columns *cols);
/* The primitive of that name among cols' primitives, NULL when it is not one. */
const struct pb_primitive *pb_columns_primitive(const struct pb_columns *cols, const char *name);

/* Column j of case c's row: the axis value as written ("1024", "u32"), or "" when c's
 * primitive has no such axis. buf holds integers. */
const char *pb_columns_case_text(const struct pb_columns *cols, const struct pb_case *c, int j,
                                 char *buf, size_t len);
/* The index in c of the axis that column j names, -1 when c has none. */
int pb_columns_case_axis(const struct pb_columns *cols, const struct pb_case *c, int j);

/* The axis columns of one JSON Lines row, as CSV text: texts[j] points into the row or
 * into bufs[j]. The row must be an object of one of cols' primitives, with every axis of
 * that primitive (a number for an integer axis, a string for a choice) and null or
 * nothing for the other columns. Returns 0, or -1 when it is not such a row. */
int pb_columns_json_texts(const struct pb_columns *cols, const cJSON *row, char (*bufs)[32],
                          const char **texts);

#endif
