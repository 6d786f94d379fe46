/* Sweep partition for --shard and Slurm job arrays. */
#include <stdio.h>
#include <stdlib.h>

#include "shard.h"

#define MAX_SHARDS 100000

/* A whole-string decimal in [0, MAX_SHARDS]; -1 otherwise. */
static long parse_count(const char *s, const char *end) {
    if (s == end) return -1;
    long v = 0;
    for (const char *p = s; p < end; p++) {
        if (*p < '0' || *p > '9') return -1;
        v = v * 10 + (*p - '0');
        if (v > MAX_SHARDS) return -1;
    }
    return v;
}

int pb_shard_parse(const char *text, struct pb_shard *s, char *err, size_t err_len) {
    const char *slash = text;
    while (*slash && *slash != '/') slash++;
    const char *end = slash;
    while (*end) end++;
    long index = parse_count(text, slash);
    long count = *slash ? parse_count(slash + 1, end) : -1;
    if (index < 0 || count < 1 || index >= count) {
        snprintf(err, err_len,
                 "--shard: '%s' is not I/N with 0 <= I < N <= %d (shards count from 0)", text,
                 MAX_SHARDS);
        return -1;
    }
    s->index = (int)index;
    s->count = (int)count;
    s->source = "option";
    return 0;
}

static long env_number(const char *name, bool *present, bool *bad) {
    const char *v = getenv(name);
    *present = v != NULL;
    if (!v) return 0;
    const char *end = v;
    while (*end) end++;
    long n = parse_count(v, end);
    if (n < 0) *bad = true;
    return n;
}

int pb_shard_from_env(struct pb_shard *s, char *err, size_t err_len) {
    bool has_id, has_count, has_min, bad = false;
    long id = env_number("SLURM_ARRAY_TASK_ID", &has_id, &bad);
    long count = env_number("SLURM_ARRAY_TASK_COUNT", &has_count, &bad);
    long min = env_number("SLURM_ARRAY_TASK_MIN", &has_min, &bad);
    if (!has_id || !has_count) return 0;
    if (bad || count < 1 || id < min || id - min >= count) {
        snprintf(err, err_len,
                 "SLURM_ARRAY_TASK_ID=%s, SLURM_ARRAY_TASK_MIN=%s, SLURM_ARRAY_TASK_COUNT=%s: "
                 "not a shard (use a contiguous --array range, or --shard I/N)",
                 getenv("SLURM_ARRAY_TASK_ID"), has_min ? getenv("SLURM_ARRAY_TASK_MIN") : "unset",
                 getenv("SLURM_ARRAY_TASK_COUNT"));
        return -1;
    }
    s->index = (int)(id - min);
    s->count = (int)count;
    s->source = "slurm";
    return 1;
}

size_t pb_sweep_input_groups(const struct pb_sweep *sw, size_t *group) {
    size_t g = 0;
    for (size_t i = 0; i < sw->count; i++) {
        if (i > 0 && !pb_case_same_input(&sw->cases[i - 1], &sw->cases[i])) g++;
        group[i] = g;
    }
    return sw->count ? g + 1 : 0;
}

bool pb_shard_owns(const struct pb_shard *s, size_t g) {
    return s->count <= 1 || g % (size_t)s->count == (size_t)s->index;
}
