/* --resume: what an existing output already holds, so that a stopped sweep continues
 * where it stopped; and the provenance a resumed run adds to the metadata. */
#ifndef PB_RESUME_H
#define PB_RESUME_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "device.h"
#include "meta.h"
#include "results.h"
#include "shard.h"

struct pb_resume {
    bool exists;               /* there is an output to resume; false: start a fresh one */
    bool needs_header;         /* a CSV that is empty (stopped before its header) */
    long valid_bytes;          /* the output's length up to its last complete row */
    long file_bytes;           /* its length now: more than valid_bytes when a row was cut */
    size_t count;              /* rows held */
    char **keys;               /* their (case, backend) keys, sorted */
    bool any_failed;           /* some row held is wrong, error or timeout */
    struct pb_columns columns; /* the output's axis columns, which the keys hold */
};

/* Reads the output at out_path (in format fmt) and meta_path. Returns 0 (with
 * rs->exists false when there is no output), or 2 with one line in err naming the file
 * and field: metadata missing or not primbench's, a different config hash, a different
 * --profile setting, another shard, or an output that is not the config's CSV / JSON
 * Lines (its primitive's, or a suite's with the union of its parts' axis columns). */
int pb_resume_load(const struct pb_config *cfg, const char *out_path, const char *meta_path,
                   enum pb_format fmt, bool profile, const struct pb_shard *shard,
                   struct pb_resume *rs, char *err, size_t err_len);
/* True when the output already holds the row of (c, backend). */
bool pb_resume_has(const struct pb_resume *rs, const struct pb_case *c, const char *backend);
void pb_resume_free(struct pb_resume *rs);

/* Adds "run": {profile, time_limit_s, format, shard, devices} to a metadata file just
 * written. */
int pb_meta_add_run_options(const char *meta_path, const struct pb_meta_run *run, char *err,
                            size_t err_len);
/* Appends {date, git_commit, command, device, time_limit_s} to the metadata's "resumed"
 * list, keeping everything the first run recorded. */
int pb_meta_add_resumed(const char *meta_path, const struct pb_device_info *dev, int argc,
                        char **argv, double time_limit_s, char *err, size_t err_len);

#endif
