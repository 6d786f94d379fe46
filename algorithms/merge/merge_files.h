/* The seed's k-way merge files, as `./k_way_merge k sizes.dat elements.dat results.dat`
 * reads and writes them (bench kway-merge, bench kway-gen).
 *
 *   sizes.dat     k list sizes: 32-bit signed little-endian integers, no header. Exactly
 *                 4 x k bytes for the k given on the command line (the file does not
 *                 record k). A size is >= 0; 0 is an empty list.
 *   elements.dat  the k lists one after another, each sorted ascending: little-endian keys,
 *                 no header. 64-bit doubles (f64) by default, the seed's type; --dtype
 *                 u32|i32|f32|u64|f64 picks another. Exactly (sum of sizes) x key size
 *                 bytes. Float lists hold no NaN; -0.0 and +0.0 are equal keys.
 *   results.dat   the merged list: n keys of the same type, no header.
 *
 * Readers refuse, with one line naming the file and what is wrong: a length that does not
 * fit k or the sizes (both numbers given), a negative size (which list), an unsorted list
 * (which list and where, positions counted within the list), a NaN. Writers write a temp
 * file beside the target and rename it over, so a target is either untouched or whole. */
#ifndef PB_MERGE_FILES_H
#define PB_MERGE_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "merge.h"

#ifdef __cplusplus
extern "C" {
#endif

/* k sorted lists in memory, as read from or written to the files. */
struct pb_merge_lists {
    enum pb_dtype dtype;
    uint32_t k;
    uint64_t n;        /* keys in all lists */
    uint64_t *offsets; /* k + 1 entries: list i is keys[offsets[i] .. offsets[i + 1]) */
    void *keys;        /* n keys of dtype, the lists concatenated */
};

/* True for the key types the merge takes: u32, i32, f32, u64, f64. */
bool pb_merge_files_dtype_ok(enum pb_dtype t);

/* Reads and checks k lists of type t. 0, or -1 with one line in err ("PATH: what is wrong")
 * and *out zeroed; on success the caller frees out with pb_merge_lists_free. */
int pb_merge_read_files(const char *sizes_path, const char *elements_path, uint32_t k,
                        enum pb_dtype t, struct pb_merge_lists *out, char *err, size_t err_len);
void pb_merge_lists_free(struct pb_merge_lists *l);

/* Checks that no list holds a NaN and every list is ascending. 0, or -1 with the list and
 * the positions within it in err, after "what: " (a file name, for the reader). */
int pb_merge_check_lists(const struct pb_merge_lists *l, const char *what, char *err,
                         size_t err_len);

/* Writes l as sizes.dat and elements.dat (both to temps first, then both renamed over).
 * Refused when a list has more keys than a 32-bit size holds. 0, or -1 with err. */
int pb_merge_write_files(const char *sizes_path, const char *elements_path,
                         const struct pb_merge_lists *l, char *err, size_t err_len);
/* Writes n keys of type t as results.dat (temp, then rename). 0, or -1 with err. */
int pb_merge_write_result(const char *path, enum pb_dtype t, const void *keys, uint64_t n,
                          char *err, size_t err_len);

/* Key i of keys, as the messages show it: integers in decimal, floats in the fewest digits
 * that read back to the same value ("0.7", not "0.69999999999999996"). */
void pb_merge_format_key(enum pb_dtype t, const void *keys, uint64_t i, char *buf, size_t len);
/* A path as the messages show it: control characters as \xNN, so that a name holding a
 * line break cannot split a one-line message. */
void pb_merge_show_path(const char *path, char *out, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
