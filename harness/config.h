/* An experiment config: JSON loaded with cJSON, validated against the registry. */
#ifndef PB_CONFIG_H
#define PB_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "primbench.h"

/* The values one axis takes, in config order (CHOICE axes: indices into choices). */
struct pb_axis_values {
    int count;
    int64_t *values;
};

struct pb_config {
    char *path;        /* as given, for messages */
    char *name;        /* "name", default: file name without .json */
    char *description; /* optional, may be NULL */
    const struct pb_primitive *primitive;
    int nbackends;
    const struct pb_backend **backends;      /* in registry order */
    struct pb_axis_values axis[PB_MAX_AXES]; /* by primitive axis index; never empty after load */
    int zip_group[PB_MAX_AXES]; /* -1: crossed with the rest; g >= 0: varies with group g */
    int nzip;
    int reps;            /* default 100 */
    int warmup;          /* default 5 */
    bool cold;           /* "cache": "cold" (default) or "hot" */
    uint64_t seed;       /* default 1 */
    bool verify;         /* default true */
    double cpu_budget_s; /* per-case wall budget for CPU backends, default 2 */
    char *output;        /* "output", default results/<name>.csv */
    char *text;          /* the file's bytes, for the metadata */
    uint64_t hash;       /* FNV-1a 64 of text */
    /* A suite ("parts" instead of "primitive"): ordinary configs run in order into one
     * output. nparts is 0 for an ordinary config. A suite's own primitive is NULL and its
     * nbackends 0; its reps, warmup, cache, seed, verify and cpu_budget_s are what its
     * parts inherit unless they set their own. A part has a path (the suite's) and an
     * optional description, but no name, output or text. */
    int nparts;
    struct pb_config *parts;
};

/* The most parts a suite may have. */
#define PB_CONFIG_MAX_PARTS 64

/* The configs a run makes cases of: a suite's parts, or an ordinary config itself. */
int pb_config_part_count(const struct pb_config *cfg);
const struct pb_config *pb_config_part(const struct pb_config *cfg, int i);
/* "primitive reduce" or "suite ci (reduce, sort)", for messages; cut to fit. */
void pb_config_describe(const struct pb_config *cfg, char *buf, size_t len);

/* A sweep (a suite's: all its parts together) expanding to more cases than this is refused unless
 * the options allow it (bench run --force): it is almost always a typo, such as a linear range with
 * step 1. */
#define PB_CONFIG_SWEEP_LIMIT 1000000
/* Past this no option helps: the case list alone would not fit in memory. */
#define PB_CONFIG_SWEEP_HARD_LIMIT 100000000

struct pb_config_options {
    bool allow_huge_sweep; /* accept a sweep of up to PB_CONFIG_SWEEP_HARD_LIMIT cases */
};

/* Loads and validates path. Returns 0, or 2 with every problem found, one per line
 * ("configs/x.json: sweep.n[2]: -5 is not a positive integer"), in *errors (malloc'd,
 * the caller frees). cfg is left empty on failure. */
int pb_config_load(const char *path, struct pb_config *cfg, char **errors);
/* The same from text already in memory; path names it in messages. */
int pb_config_parse(const char *path, const char *text, size_t len, struct pb_config *cfg,
                    char **errors);
/* The same with options; opt may be NULL (the defaults: every limit enforced). */
int pb_config_load_with(const char *path, const struct pb_config_options *opt,
                        struct pb_config *cfg, char **errors);
int pb_config_parse_with(const char *path, const char *text, size_t len,
                         const struct pb_config_options *opt, struct pb_config *cfg, char **errors);
void pb_config_free(struct pb_config *cfg);

#endif
