/* libFuzzer target: pb_merge_read_files (the k-way merge's sizes.dat and elements.dat).
 *
 * The input is split into the two files and the reader's parameters:
 *   byte 0      k = 1 + byte % 64
 *   byte 1      the key type: u32, i32, f32, u64, f64 (byte % 5)
 *   bytes 2-3   S, little-endian: the next min(S, rest) bytes are sizes.dat
 *   the rest    elements.dat
 * Lists read are checked independently (offsets, sorted, no NaN), merged by both CPU merges
 * (which must give what a stable sort of the concatenation gives), and written back and
 * read again (the same offsets and keys). A refusal must be one non-empty line that starts
 * with one of the two paths. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "merge.h"
#include "merge_files.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const enum pb_dtype dtypes[] = {PB_U32, PB_I32, PB_F32, PB_U64, PB_F64};

/* One directory per process, so that parallel jobs (-jobs, -fork) do not share files. */
static char dir[256], sizes_path[300], elements_path[300], sizes2_path[300], elements2_path[300];

static void remove_dir(void) {
    unlink(sizes_path);
    unlink(elements_path);
    unlink(sizes2_path);
    unlink(elements2_path);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    /* tmpfs where there is one: the writer fsyncs every file it writes. */
    struct stat st;
    const char *base = getenv("TMPDIR");
    if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0)
        base = "/dev/shm";
    if (!base || !*base) base = "/tmp";
    snprintf(dir, sizeof dir, "%s/pb-fuzz-merge-XXXXXX", base);
    if (!mkdtemp(dir)) {
        perror("fuzz_merge_files: mkdtemp");
        abort();
    }
    snprintf(sizes_path, sizeof sizes_path, "%s/sizes.dat", dir);
    snprintf(elements_path, sizeof elements_path, "%s/elements.dat", dir);
    snprintf(sizes2_path, sizeof sizes2_path, "%s/sizes2.dat", dir);
    snprintf(elements2_path, sizeof elements2_path, "%s/elements2.dat", dir);
    atexit(remove_dir);
    return 0;
}

static void write_file(const char *path, const uint8_t *bytes, size_t len) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) abort();
    size_t done = 0;
    while (done < len) {
        ssize_t put = write(fd, bytes + done, len - done);
        if (put <= 0) abort();
        done += (size_t)put;
    }
    if (close(fd) != 0) abort();
}

/* Keys compared by value, as the merge must order them (-0.0 == +0.0); NaN-free. */
static int key_cmp(enum pb_dtype t, const void *keys, uint64_t i, uint64_t j) {
    switch (t) {
    case PB_U32: {
        uint32_t a = ((const uint32_t *)keys)[i], b = ((const uint32_t *)keys)[j];
        return (a > b) - (a < b);
    }
    case PB_I32: {
        int32_t a = ((const int32_t *)keys)[i], b = ((const int32_t *)keys)[j];
        return (a > b) - (a < b);
    }
    case PB_U64: {
        uint64_t a = ((const uint64_t *)keys)[i], b = ((const uint64_t *)keys)[j];
        return (a > b) - (a < b);
    }
    case PB_F32: {
        float a = ((const float *)keys)[i], b = ((const float *)keys)[j];
        return (a > b) - (a < b);
    }
    case PB_F64: {
        double a = ((const double *)keys)[i], b = ((const double *)keys)[j];
        return (a > b) - (a < b);
    }
    default:
        abort();
    }
}

static bool key_is_nan(enum pb_dtype t, const void *keys, uint64_t i) {
    if (t == PB_F32) return ((const float *)keys)[i] != ((const float *)keys)[i];
    if (t == PB_F64) return ((const double *)keys)[i] != ((const double *)keys)[i];
    return false;
}

/* What a stable merge of the lists must give: the concatenation stably sorted by value
 * (bottom-up merge sort of positions), as bytes. */
static void *stable_sorted(enum pb_dtype t, const void *keys, uint64_t n) {
    size_t ks = pb_dtype_size(t);
    uint32_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    unsigned char *out = malloc(n * ks);
    if (!a || !b || !out) abort();
    for (uint64_t i = 0; i < n; i++) a[i] = (uint32_t)i;
    for (uint64_t width = 1; width < n; width *= 2) {
        for (uint64_t lo = 0; lo < n; lo += 2 * width) {
            uint64_t mid = lo + width < n ? lo + width : n;
            uint64_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            uint64_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi) b[o++] = key_cmp(t, keys, a[j], a[i]) < 0 ? a[j++] : a[i++];
            while (i < mid) b[o++] = a[i++];
            while (j < hi) b[o++] = a[j++];
        }
        uint32_t *swap = a;
        a = b;
        b = swap;
    }
    for (uint64_t i = 0; i < n; i++)
        memcpy(out + i * ks, (const unsigned char *)keys + (size_t)a[i] * ks, ks);
    free(a);
    free(b);
    return out;
}

/* Refusals are "PATH: what", on one line. */
static void check_refusal(const char *err) {
    size_t ls = strlen(sizes_path), le = strlen(elements_path);
    bool named = (strncmp(err, sizes_path, ls) == 0 && strncmp(err + ls, ": ", 2) == 0) ||
                 (strncmp(err, elements_path, le) == 0 && strncmp(err + le, ": ", 2) == 0);
    if (!named) abort();
    size_t len = strlen(err);
    if (len <= (ls < le ? ls : le) + 2 || strchr(err, '\n')) abort();
}

static void check_lists(const struct pb_merge_lists *l, uint32_t k, enum pb_dtype t,
                        const uint8_t *sizes, const uint8_t *elements, size_t elements_len) {
    size_t ks = pb_dtype_size(t);
    if (l->k != k || l->dtype != t || !l->offsets || !l->keys) abort();
    if (l->offsets[0] != 0 || l->offsets[k] != l->n) abort();
    for (uint32_t i = 0; i < k; i++) {
        if (l->offsets[i + 1] < l->offsets[i]) abort();
        /* Each list's size is the file's little-endian int32. */
        uint32_t size = (uint32_t)sizes[4 * i] | (uint32_t)sizes[4 * i + 1] << 8 |
                        (uint32_t)sizes[4 * i + 2] << 16 | (uint32_t)sizes[4 * i + 3] << 24;
        if (l->offsets[i + 1] - l->offsets[i] != size) abort();
    }
    if (l->n * ks != elements_len) abort();
    if (elements_len && memcmp(l->keys, elements, elements_len) != 0) abort();
    for (uint32_t i = 0; i < k; i++)
        for (uint64_t e = l->offsets[i]; e < l->offsets[i + 1]; e++) {
            if (key_is_nan(t, l->keys, e)) abort();
            if (e > l->offsets[i] && key_cmp(t, l->keys, e - 1, e) > 0) abort();
        }
}

static void check_merges(const struct pb_merge_lists *l) {
    size_t ks = pb_dtype_size(l->dtype);
    void *want = stable_sorted(l->dtype, l->keys, l->n);
    void *got = malloc(l->n * ks);
    if (!got) abort();
    for (int heap = 0; heap < 2; heap++) {
        memset(got, 0xA5, l->n * ks);
        int rc = (heap ? pb_merge_cpu_heap : pb_merge_cpu_2way)(l->dtype, l->keys, NULL, l->offsets,
                                                                l->k, got, NULL);
        if (rc != 0) abort();
        for (uint64_t i = 1; i < l->n; i++)
            if (key_cmp(l->dtype, got, i - 1, i) > 0) abort();
        if (memcmp(got, want, l->n * ks) != 0) abort();
    }
    free(got);
    free(want);
}

static void check_round_trip(const struct pb_merge_lists *l) {
    char err[1024];
    if (pb_merge_write_files(sizes2_path, elements2_path, l, err, sizeof err) != 0) abort();
    struct pb_merge_lists again;
    if (pb_merge_read_files(sizes2_path, elements2_path, l->k, l->dtype, &again, err, sizeof err) !=
        0)
        abort();
    if (again.n != l->n || again.k != l->k || again.dtype != l->dtype) abort();
    if (memcmp(again.offsets, l->offsets, ((size_t)l->k + 1) * sizeof *l->offsets) != 0) abort();
    if (l->n && memcmp(again.keys, l->keys, l->n * pb_dtype_size(l->dtype)) != 0) abort();
    pb_merge_lists_free(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 4) return 0;
    uint32_t k = 1 + data[0] % 64;
    enum pb_dtype t = dtypes[data[1] % 5];
    size_t split = (size_t)data[2] | (size_t)data[3] << 8;
    const uint8_t *rest = data + 4;
    size_t rest_len = size - 4;
    size_t sizes_len = split < rest_len ? split : rest_len;
    write_file(sizes_path, rest, sizes_len);
    write_file(elements_path, rest + sizes_len, rest_len - sizes_len);

    struct pb_merge_lists l;
    char err[1024];
    memset(err, 0, sizeof err);
    if (pb_merge_read_files(sizes_path, elements_path, k, t, &l, err, sizeof err) != 0) {
        if (l.offsets || l.keys || l.n) abort(); /* *out zeroed */
        check_refusal(err);
        return 0;
    }
    if (sizes_len != 4 * (size_t)k) abort(); /* accepted sizes.dat is exactly k sizes */
    check_lists(&l, k, t, rest, rest + sizes_len, rest_len - sizes_len);
    if (l.n > 0) check_merges(&l);
    check_round_trip(&l);
    pb_merge_lists_free(&l);
    return 0;
}
