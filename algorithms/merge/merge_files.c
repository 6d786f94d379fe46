/* Reading, checking and writing the seed's k-way merge files (the format: merge_files.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "merge_files.h"

/* Keys go between memory and the files as they are; the files are little-endian. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "merge_files.c copies keys as they lie in memory: it needs a little-endian host"
#endif

/* read() and write() move at most about 2 GiB a call on Linux; ask for less. */
#define IO_CHUNK      ((size_t)1 << 30)
#define TEMP_PATH_MAX 4200

bool pb_merge_files_dtype_ok(enum pb_dtype t) {
    return t == PB_U32 || t == PB_I32 || t == PB_F32 || t == PB_U64 || t == PB_F64;
}

void pb_merge_show_path(const char *path, char *out, size_t cap) {
    size_t o = 0;
    if (cap == 0) return;
    for (const unsigned char *p = (const unsigned char *)path; *p && o + 5 < cap; p++) {
        if (*p < 0x20 || *p == 0x7f) {
            o += (size_t)snprintf(out + o, cap - o, "\\x%02x", *p);
        } else {
            out[o++] = (char)*p;
        }
    }
    out[o] = '\0';
}

/* "PATH: message" (or the message alone when path is NULL) into err; returns -1. */
static int fail(char *err, size_t err_len, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t err_len, const char *path, const char *fmt, ...) {
    if (err_len == 0) return -1;
    size_t o = 0;
    err[0] = '\0';
    if (path) {
        pb_merge_show_path(path, err, err_len);
        o = strlen(err);
        o += (size_t)snprintf(err + o, err_len - o, ": ");
        if (o >= err_len) return -1;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + o, err_len - o, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- reading ------------------------------------------------------------------------ */

/* Opens a regular file for reading and gives its length. O_NONBLOCK: opening a FIFO would
 * otherwise wait for a writer forever; it is refused as not a regular file, and regular
 * files ignore the flag. */
static int open_input(const char *path, int *fd, uint64_t *bytes, char *err, size_t err_len) {
    *fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (*fd < 0) return fail(err, err_len, path, "cannot open: %s", strerror(errno));
    struct stat st;
    const char *problem = NULL;
    if (fstat(*fd, &st) != 0) {
        problem = strerror(errno);
    } else if (S_ISDIR(st.st_mode)) {
        problem = "is a directory, not a data file";
    } else if (!S_ISREG(st.st_mode)) {
        problem = "is not a regular file";
    }
    if (problem) {
        close(*fd);
        return fail(err, err_len, path, "%s", problem);
    }
    *bytes = (uint64_t)st.st_size;
    return 0;
}

/* Reads len bytes; -1 with err when the file ends early (it changed since fstat) or fails. */
static int read_exactly(int fd, const char *path, void *buf, uint64_t len, char *err,
                        size_t err_len) {
    uint64_t done = 0;
    while (done < len) {
        size_t want = len - done < IO_CHUNK ? (size_t)(len - done) : IO_CHUNK;
        ssize_t got = read(fd, (char *)buf + done, want);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return fail(err, err_len, path, "cannot read: %s", strerror(errno));
        if (got == 0) {
            return fail(err, err_len, path,
                        "truncated while reading: %" PRIu64 " of %" PRIu64 " bytes", done, len);
        }
        done += (uint64_t)got;
    }
    return 0;
}

/* sizes.dat: exactly k little-endian int32 sizes, none negative, into l->offsets. */
static int read_sizes(const char *path, struct pb_merge_lists *l, char *err, size_t err_len) {
    int fd;
    uint64_t bytes, need = 4 * (uint64_t)l->k;
    if (open_input(path, &fd, &bytes, err, err_len) != 0) return -1;
    if (bytes != need) {
        close(fd);
        if (bytes < need) {
            return fail(err, err_len, path,
                        "truncated: %" PRIu64 " bytes, but k = %" PRIu32 " lists need %" PRIu64
                        " (a 4-byte size each)",
                        bytes, l->k, need);
        }
        return fail(err, err_len, path,
                    "%" PRIu64 " bytes, more than the %" PRIu64 " of k = %" PRIu32
                    " sizes (4 bytes each): is k right?",
                    bytes, need, l->k);
    }
    unsigned char *raw = malloc(need ? need : 1);
    l->offsets = malloc(((uint64_t)l->k + 1) * sizeof *l->offsets);
    int rc = raw && l->offsets
                 ? read_exactly(fd, path, raw, need, err, err_len)
                 : fail(err, err_len, path, "out of memory for %" PRIu32 " sizes", l->k);
    close(fd);
    if (rc == 0) l->offsets[0] = 0;
    for (uint32_t i = 0; rc == 0 && i < l->k; i++) {
        const unsigned char *b = raw + 4 * (uint64_t)i;
        int32_t size = (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                                 (uint32_t)b[3] << 24);
        if (size < 0) {
            rc = fail(err, err_len, path, "list %" PRIu32 " has a negative size (%" PRId32 ")", i,
                      size);
        } else {
            l->offsets[i + 1] = l->offsets[i] + (uint64_t)size; /* <= 2^32 x 2^31: no overflow */
        }
    }
    free(raw);
    if (rc == 0) l->n = l->offsets[l->k];
    return rc;
}

/* elements.dat: exactly n keys, n being what the sizes add up to. */
static int read_elements(const char *path, const char *sizes_path, struct pb_merge_lists *l,
                         char *err, size_t err_len) {
    int fd;
    uint64_t bytes, ks = pb_dtype_size(l->dtype);
    if (open_input(path, &fd, &bytes, err, err_len) != 0) return -1;
    if (bytes % ks != 0 || bytes / ks != l->n) {
        close(fd);
        char have[128], sizes_shown[1024];
        const char *name = pb_dtype_name(l->dtype);
        if (bytes % ks == 0) {
            snprintf(have, sizeof have, "%" PRIu64 " bytes (%" PRIu64 " %s keys)", bytes,
                     bytes / ks, name);
        } else {
            snprintf(have, sizeof have,
                     "%" PRIu64 " bytes (not a whole number of %" PRIu64 "-byte %s keys)", bytes,
                     ks, name);
        }
        pb_merge_show_path(sizes_path, sizes_shown, sizeof sizes_shown);
        /* n x ks may pass 2^64 (k sizes near 2^31): then no file can be long enough. */
        bool truncated = l->n > UINT64_MAX / ks || bytes < l->n * ks;
        char need[64] = "more than 2^64 bytes";
        if (l->n <= UINT64_MAX / ks) snprintf(need, sizeof need, "%" PRIu64 " bytes", l->n * ks);
        return fail(err, err_len, path, "%s%s, but the sizes in %s add up to %" PRIu64 " keys (%s)",
                    truncated ? "truncated: " : "", have, sizes_shown, l->n, need);
    }
    if (bytes > SIZE_MAX) {
        close(fd);
        return fail(err, err_len, path, "%" PRIu64 " bytes do not fit in memory", bytes);
    }
    l->keys = malloc(bytes ? (size_t)bytes : 1);
    int rc = l->keys ? read_exactly(fd, path, l->keys, bytes, err, err_len)
                     : fail(err, err_len, path, "out of memory for %" PRIu64 " keys", l->n);
    close(fd);
    return rc;
}

int pb_merge_read_files(const char *sizes_path, const char *elements_path, uint32_t k,
                        enum pb_dtype t, struct pb_merge_lists *out, char *err, size_t err_len) {
    memset(out, 0, sizeof *out);
    if ((unsigned)t >= PB_DTYPE_COUNT || !pb_merge_files_dtype_ok(t)) {
        return fail(err, err_len, NULL, "%s is not a merge key type (u32, i32, f32, u64, f64)",
                    (unsigned)t < PB_DTYPE_COUNT ? pb_dtype_name(t) : "?");
    }
    struct pb_merge_lists l = {.dtype = t, .k = k};
    if (read_sizes(sizes_path, &l, err, err_len) != 0 ||
        read_elements(elements_path, sizes_path, &l, err, err_len) != 0 ||
        pb_merge_check_lists(&l, elements_path, err, err_len) != 0) {
        pb_merge_lists_free(&l);
        return -1;
    }
    *out = l;
    return 0;
}

void pb_merge_lists_free(struct pb_merge_lists *l) {
    free(l->offsets);
    free(l->keys);
    l->offsets = NULL;
    l->keys = NULL;
}

/* ---- checking ----------------------------------------------------------------------- */

/* The position of the first NaN or descent in keys[begin, end), or end. Compared by value,
 * as the merge compares: -0.0 and +0.0 are equal, so either order is sorted. */
typedef uint64_t (*scan_fn)(const void *keys, uint64_t begin, uint64_t end, bool *nan);
#define NEVER_NAN(x) ((void)(x), false)
#define DEFINE_SCAN(NAME, T, IS_NAN)                                                               \
    static uint64_t NAME(const void *keys, uint64_t begin, uint64_t end, bool *nan) {              \
        const T *a = (const T *)keys;                                                              \
        for (uint64_t i = begin; i < end; i++) {                                                   \
            if (IS_NAN(a[i])) {                                                                    \
                *nan = true;                                                                       \
                return i;                                                                          \
            }                                                                                      \
            if (i > begin && a[i] < a[i - 1]) return i;                                            \
        }                                                                                          \
        return end;                                                                                \
    }
DEFINE_SCAN(scan_u32, uint32_t, NEVER_NAN)
DEFINE_SCAN(scan_i32, int32_t, NEVER_NAN)
DEFINE_SCAN(scan_u64, uint64_t, NEVER_NAN)
DEFINE_SCAN(scan_f32, float, isnan)
DEFINE_SCAN(scan_f64, double, isnan)

static scan_fn scan_of(enum pb_dtype t) {
    switch (t) {
    case PB_U32:
        return scan_u32;
    case PB_I32:
        return scan_i32;
    case PB_U64:
        return scan_u64;
    case PB_F32:
        return scan_f32;
    case PB_F64:
        return scan_f64;
    default:
        return NULL;
    }
}

int pb_merge_check_lists(const struct pb_merge_lists *l, const char *what, char *err,
                         size_t err_len) {
    scan_fn scan = scan_of(l->dtype);
    if (!scan)
        return fail(err, err_len, what, "%s is not a merge key type", pb_dtype_name(l->dtype));
    for (uint32_t i = 0; i < l->k; i++) {
        uint64_t begin = l->offsets[i], end = l->offsets[i + 1];
        bool nan = false;
        uint64_t at = scan(l->keys, begin, end, &nan);
        if (at == end) continue;
        if (nan) {
            return fail(err, err_len, what,
                        "list %" PRIu32 ", element %" PRIu64 " is NaN (float keys must not be NaN)",
                        i, at - begin);
        }
        char here[64], before[64];
        pb_merge_format_key(l->dtype, l->keys, at, here, sizeof here);
        pb_merge_format_key(l->dtype, l->keys, at - 1, before, sizeof before);
        return fail(err, err_len, what,
                    "list %" PRIu32 " is not sorted: element %" PRIu64 " (%s) < element %" PRIu64
                    " (%s)",
                    i, at - begin, here, at - 1 - begin, before);
    }
    return 0;
}

void pb_merge_format_key(enum pb_dtype t, const void *keys, uint64_t i, char *buf, size_t len) {
    /* The guard also keeps GCC 12's -O3 UBSan build from warning of a null destination. */
    if (!buf || len == 0) return;
    switch (t) {
    case PB_U8:
        snprintf(buf, len, "%u", (unsigned)((const uint8_t *)keys)[i]);
        break;
    case PB_U16:
        snprintf(buf, len, "%u", (unsigned)((const uint16_t *)keys)[i]);
        break;
    case PB_U32:
        snprintf(buf, len, "%" PRIu32, ((const uint32_t *)keys)[i]);
        break;
    case PB_U64:
        snprintf(buf, len, "%" PRIu64, ((const uint64_t *)keys)[i]);
        break;
    case PB_I8:
        snprintf(buf, len, "%d", (int)((const int8_t *)keys)[i]);
        break;
    case PB_I16:
        snprintf(buf, len, "%d", (int)((const int16_t *)keys)[i]);
        break;
    case PB_I32:
        snprintf(buf, len, "%" PRId32, ((const int32_t *)keys)[i]);
        break;
    case PB_I64:
        snprintf(buf, len, "%" PRId64, ((const int64_t *)keys)[i]);
        break;
    case PB_F32: {
        float v = ((const float *)keys)[i];
        for (int digits = 1; digits <= 9; digits++) {
            snprintf(buf, len, "%.*g", digits, (double)v);
            if (strtof(buf, NULL) == v) break;
        }
        break;
    }
    case PB_F64: {
        double v = ((const double *)keys)[i];
        for (int digits = 1; digits <= 17; digits++) {
            snprintf(buf, len, "%.*g", digits, v);
            if (strtod(buf, NULL) == v) break;
        }
        break;
    }
    default:
        snprintf(buf, len, "?");
        break;
    }
}

/* ---- writing ------------------------------------------------------------------------ */

/* Writes bytes to a new file beside path (same directory, so the rename stays on one file
 * system), named in tmp. The data is synced before the caller renames it: after a crash the
 * name holds the old file or the whole new one, never a rename whose data was lost. */
static int write_temp(const char *path, const void *bytes, uint64_t len, char *tmp, size_t tmp_len,
                      char *err, size_t err_len) {
    int fd = -1;
    for (int attempt = 0; fd < 0 && attempt < 100; attempt++) {
        int w = snprintf(tmp, tmp_len, "%s.tmp-%ld-%d", path, (long)getpid(), attempt);
        if (w < 0 || (size_t)w >= tmp_len) return fail(err, err_len, path, "the path is too long");
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST) {
            return fail(err, err_len, path, "cannot create a file beside it: %s", strerror(errno));
        }
    }
    if (fd < 0) return fail(err, err_len, path, "cannot create a file beside it: 100 names taken");
    uint64_t done = 0;
    int problem = 0;
    while (done < len && !problem) {
        size_t want = len - done < IO_CHUNK ? (size_t)(len - done) : IO_CHUNK;
        ssize_t put = write(fd, (const char *)bytes + done, want);
        if (put < 0 && errno == EINTR) continue;
        if (put <= 0) problem = put < 0 ? errno : ENOSPC;
        if (put > 0) done += (uint64_t)put;
    }
    if (!problem && fsync(fd) != 0) problem = errno;
    if (close(fd) != 0 && !problem) problem = errno;
    if (problem) {
        unlink(tmp);
        return fail(err, err_len, path, "cannot write: %s", strerror(problem));
    }
    return 0;
}

static int commit_temp(const char *tmp, const char *path, char *err, size_t err_len) {
    if (rename(tmp, path) == 0) return 0;
    int problem = errno;
    unlink(tmp);
    return fail(err, err_len, path, "cannot replace: %s", strerror(problem));
}

int pb_merge_write_result(const char *path, enum pb_dtype t, const void *keys, uint64_t n,
                          char *err, size_t err_len) {
    uint64_t ks = pb_dtype_size(t);
    if (n > UINT64_MAX / ks) return fail(err, err_len, path, "%" PRIu64 " keys is too many", n);
    char tmp[TEMP_PATH_MAX];
    if (write_temp(path, keys, n * ks, tmp, sizeof tmp, err, err_len) != 0) return -1;
    return commit_temp(tmp, path, err, err_len);
}

int pb_merge_write_files(const char *sizes_path, const char *elements_path,
                         const struct pb_merge_lists *l, char *err, size_t err_len) {
    uint64_t ks = pb_dtype_size(l->dtype);
    if (l->n > UINT64_MAX / ks) {
        return fail(err, err_len, elements_path, "%" PRIu64 " keys is too many", l->n);
    }
    unsigned char *raw = malloc(l->k ? 4 * (size_t)l->k : 1);
    if (!raw) return fail(err, err_len, sizes_path, "out of memory for %" PRIu32 " sizes", l->k);
    for (uint32_t i = 0; i < l->k; i++) {
        uint64_t size = l->offsets[i + 1] - l->offsets[i];
        if (size > INT32_MAX) {
            free(raw);
            return fail(err, err_len, sizes_path,
                        "list %" PRIu32 " has %" PRIu64
                        " keys, more than a 32-bit size holds (2147483647)",
                        i, size);
        }
        for (int b = 0; b < 4; b++) raw[4 * (size_t)i + b] = (unsigned char)(size >> (8 * b));
    }
    /* Both files whole on disk before either name changes, so a failure leaves the pair
     * as it was. */
    char sizes_tmp[TEMP_PATH_MAX], elements_tmp[TEMP_PATH_MAX];
    int rc =
        write_temp(sizes_path, raw, 4 * (uint64_t)l->k, sizes_tmp, sizeof sizes_tmp, err, err_len);
    free(raw);
    if (rc != 0) return -1;
    if (write_temp(elements_path, l->keys, l->n * ks, elements_tmp, sizeof elements_tmp, err,
                   err_len) != 0) {
        unlink(sizes_tmp);
        return -1;
    }
    if (commit_temp(sizes_tmp, sizes_path, err, err_len) != 0) {
        unlink(elements_tmp);
        return -1;
    }
    return commit_temp(elements_tmp, elements_path, err, err_len);
}
