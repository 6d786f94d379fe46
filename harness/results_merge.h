/* bench merge: the outputs of the shards of one config joined into one output, in sweep
 * order, with one metadata file. */
#ifndef PB_RESULTS_MERGE_H
#define PB_RESULTS_MERGE_H

#include <stdbool.h>
#include <stddef.h>

/* Joins shards[0..nshards) (each with its .meta.json) into out and out.meta.json. Refused,
 * with one line in err naming the file, when out exists and !force, when a shard's
 * metadata is missing or records another config (config_hash), another --profile or
 * format, or the same shard as an earlier file, and when a row is in two files or not in
 * the config's sweep. Shards missing from the set are reported in `warning` (empty when
 * none). argc/argv: the command line, for the metadata. Returns 0 or 2. */
int pb_merge(const char *out, const char *const *shards, int nshards, bool force, int argc,
             char **argv, char *err, size_t err_len, char *warning, size_t warning_len);

#endif
