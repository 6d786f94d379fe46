/* The seed's k-way merge files (merge_files.h) and the commands on them: a round trip for
 * every key type, empty lists, and each refusal (truncated, too long, negative sizes,
 * sizes that do not add up, unsorted lists, NaN, files that are not regular files, names
 * holding a line break), each as one line naming the file; bench kway-gen's files read
 * back sorted and reproducible; the commands' exit codes, kway-merge exiting 1 with a
 * message where there is no GPU (and merging like the CPU where there is one). */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <cuda_runtime_api.h>

#include "commands.h"
#include "datagen.h"
#include "merge_files.h"
#include "read_file.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const enum pb_dtype merge_types[] = {PB_U32, PB_I32, PB_F32, PB_U64, PB_F64};

static char dir[64];

static const char *path_of(const char *name) {
    static char paths[8][512];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, sizeof paths[0], "%s/%s", dir, name);
    return p;
}

static void write_bytes(const char *path, const void *bytes, size_t len) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static void *slurp(const char *path, size_t *len) {
    char *bytes = read_whole_file(path, len);
    assert_non_null(bytes);
    return bytes;
}

static bool exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* sizes.dat by hand: little-endian int32. */
static void write_sizes(const char *path, const int32_t *sizes, size_t k) {
    unsigned char *raw = malloc(4 * k + 1);
    assert_non_null(raw);
    for (size_t i = 0; i < k; i++)
        for (int b = 0; b < 4; b++) raw[4 * i + b] = (unsigned char)((uint32_t)sizes[i] >> (8 * b));
    write_bytes(path, raw, 4 * k);
    free(raw);
}

/* Reading the pair must fail with one line "PATH: " + want (a prefix of what follows). */
static void expect_refused(const char *sizes, const char *elements, uint32_t k, enum pb_dtype t,
                           const char *path, const char *want) {
    struct pb_merge_lists l;
    char err[1024], expected[1024];
    assert_int_equal(pb_merge_read_files(sizes, elements, k, t, &l, err, sizeof err), -1);
    assert_null(l.keys);
    assert_null(l.offsets);
    assert_null(strchr(err, '\n'));
    snprintf(expected, sizeof expected, "%s: %s", path, want);
    if (strncmp(err, expected, strlen(expected)) != 0) {
        fail_msg("expected a message starting\n%s\ngot\n%s", expected, err);
    }
}

/* ---- the reader and writer ----------------------------------------------------------- */

/* Key j of a list, ascending in j, across the type's sign and (u64) beyond 2^53. */
static void put_key(enum pb_dtype t, void *keys, uint64_t at, uint64_t j) {
    switch (t) {
    case PB_U32:
        ((uint32_t *)keys)[at] = (uint32_t)(3 * j + 3000000000u);
        break;
    case PB_I32:
        ((int32_t *)keys)[at] = (int32_t)(3 * j) - 5;
        break;
    case PB_F32:
        ((float *)keys)[at] = (float)j * 0.25f - 1.0f;
        break;
    case PB_U64:
        ((uint64_t *)keys)[at] = ((uint64_t)1 << 60) + 3 * j + 1;
        break;
    default:
        ((double *)keys)[at] = (double)j * 0.1 - 0.3;
        break;
    }
}

/* Lists of these sizes (empty ones among them), written, read back, compared. */
static void round_trip(enum pb_dtype t, const uint64_t *sizes, uint32_t k) {
    size_t ks = pb_dtype_size(t);
    uint64_t offsets[16] = {0};
    for (uint32_t i = 0; i < k; i++) offsets[i + 1] = offsets[i] + sizes[i];
    uint64_t n = offsets[k];
    /* A whole key even when n = 0, so GCC's -O3 bounds check sees room for one. */
    void *keys = malloc(n * ks + 8);
    assert_non_null(keys);
    for (uint32_t i = 0; i < k; i++)
        for (uint64_t j = 0; j < sizes[i]; j++) put_key(t, keys, offsets[i] + j, j);
    struct pb_merge_lists out = {.dtype = t, .k = k, .n = n, .offsets = offsets, .keys = keys};
    char err[1024] = "";
    const char *s = path_of("rt-sizes.dat"), *e = path_of("rt-elements.dat");
    assert_int_equal(pb_merge_write_files(s, e, &out, err, sizeof err), 0);

    struct pb_merge_lists in;
    if (pb_merge_read_files(s, e, k, t, &in, err, sizeof err) != 0) fail_msg("%s", err);
    assert_int_equal(in.dtype, t);
    assert_int_equal(in.k, k);
    assert_int_equal(in.n, n);
    assert_memory_equal(in.offsets, offsets, (k + 1) * sizeof *offsets);
    if (n) assert_memory_equal(in.keys, keys, n * ks);

    /* results.dat holds the keys and nothing else. */
    const char *r = path_of("rt-results.dat");
    assert_int_equal(pb_merge_write_result(r, t, keys, n, err, sizeof err), 0);
    size_t len;
    void *bytes = slurp(r, &len);
    assert_int_equal(len, n * ks);
    if (n) assert_memory_equal(bytes, keys, n * ks);
    free(bytes);
    pb_merge_lists_free(&in);
    free(keys);
}

static void round_trip_every_type(void **state) {
    (void)state;
    static const uint64_t sizes[] = {5, 0, 1, 17, 0, 3};
    static const uint64_t all_empty[] = {0, 0, 0};
    static const uint64_t one[] = {100};
    for (size_t i = 0; i < COUNT(merge_types); i++) {
        round_trip(merge_types[i], sizes, COUNT(sizes));
        round_trip(merge_types[i], all_empty, COUNT(all_empty));
        round_trip(merge_types[i], one, COUNT(one));
    }
}

/* The temp files the writers make beside their targets are gone afterwards. */
static void no_temp_files_left(void **state) {
    (void)state;
    double keys[] = {1, 2, 3};
    char err[1024];
    const char *r = path_of("results.dat");
    write_bytes(r, "old", 3);
    assert_int_equal(pb_merge_write_result(r, PB_F64, keys, 3, err, sizeof err), 0);
    DIR *d = opendir(dir);
    assert_non_null(d);
    for (struct dirent *ent; (ent = readdir(d));) {
        if (strstr(ent->d_name, ".tmp-")) fail_msg("left behind: %s", ent->d_name);
    }
    closedir(d);
    /* A missing directory: refused, nothing made. */
    const char *nowhere = path_of("missing/results.dat");
    assert_int_equal(pb_merge_write_result(nowhere, PB_F64, keys, 3, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot create a file beside it"));
    assert_false(exists(nowhere));
}

/* A list too long for a 32-bit size cannot be written, and nothing is. The keys are not
 * read before the sizes are checked, so none need exist. */
static void size_beyond_int32(void **state) {
    (void)state;
    uint64_t offsets[] = {0, 1, (uint64_t)1 << 31 | 1};
    double one = 0;
    struct pb_merge_lists l = {
        .dtype = PB_F64, .k = 2, .n = offsets[2], .offsets = offsets, .keys = &one};
    char err[1024];
    const char *s = path_of("big-sizes.dat"), *e = path_of("big-elements.dat");
    assert_int_equal(pb_merge_write_files(s, e, &l, err, sizeof err), -1);
    assert_non_null(strstr(err, "list 1 has 2147483648 keys, more than a 32-bit size holds"));
    assert_false(exists(s));
    assert_false(exists(e));
}

static void sizes_file_length(void **state) {
    (void)state;
    const char *s = path_of("sizes.dat"), *e = path_of("elements.dat");
    static const int32_t three[] = {1, 2, 3};
    static const double keys[] = {0, 0, 1, 0, 1, 2};
    write_bytes(e, keys, sizeof keys);
    write_sizes(s, three, 3);
    expect_refused(s, e, 4, PB_F64, s, "truncated: 12 bytes, but k = 4 lists need 16");
    expect_refused(s, e, 2, PB_F64, s, "12 bytes, more than the 8 of k = 2 sizes");
    write_bytes(s, three, 10);
    expect_refused(s, e, 3, PB_F64, s, "truncated: 10 bytes, but k = 3 lists need 12");
    write_bytes(s, "", 0);
    expect_refused(s, e, 1, PB_F64, s, "truncated: 0 bytes, but k = 1 lists need 4");
}

static void negative_size(void **state) {
    (void)state;
    const char *s = path_of("sizes.dat"), *e = path_of("elements.dat");
    static const int32_t sizes[] = {2, 0, -3, 1};
    write_sizes(s, sizes, 4);
    write_bytes(e, "", 0);
    expect_refused(s, e, 4, PB_U32, s, "list 2 has a negative size (-3)");
    static const int32_t most_negative[] = {INT32_MIN};
    write_sizes(s, most_negative, 1);
    expect_refused(s, e, 1, PB_U32, s, "list 0 has a negative size (-2147483648)");
}

/* The elements file must hold exactly what the sizes add up to; both numbers are given. */
static void sizes_do_not_add_up(void **state) {
    (void)state;
    const char *s = path_of("sizes.dat"), *e = path_of("elements.dat");
    char want[1024];
    static const int32_t sizes[] = {1, 3};
    static const double keys[] = {5, 1, 2, 3, 4};
    write_sizes(s, sizes, 2);
    write_bytes(e, keys, 3 * sizeof(double));
    snprintf(want, sizeof want,
             "truncated: 24 bytes (3 f64 keys), but the sizes in %s add up to 4 keys (32 bytes)",
             s);
    expect_refused(s, e, 2, PB_F64, e, want);
    write_bytes(e, keys, sizeof keys);
    snprintf(want, sizeof want,
             "40 bytes (5 f64 keys), but the sizes in %s add up to 4 keys (32 bytes)", s);
    expect_refused(s, e, 2, PB_F64, e, want);
    write_bytes(e, keys, 30);
    snprintf(want, sizeof want,
             "truncated: 30 bytes (not a whole number of 8-byte f64 keys), but the sizes in %s "
             "add up to 4 keys (32 bytes)",
             s);
    expect_refused(s, e, 2, PB_F64, e, want);
    /* The same bytes are 8 u32 keys: still not 4. */
    write_bytes(e, keys, 32);
    snprintf(want, sizeof want,
             "32 bytes (8 u32 keys), but the sizes in %s add up to 4 keys (16 bytes)", s);
    expect_refused(s, e, 2, PB_U32, e, want);
    /* Sizes near 2^31: n far past what the file holds. */
    static const int32_t huge[] = {INT32_MAX, INT32_MAX};
    write_sizes(s, huge, 2);
    snprintf(want, sizeof want,
             "truncated: 32 bytes (4 f64 keys), but the sizes in %s add up to 4294967294 keys "
             "(34359738352 bytes)",
             s);
    expect_refused(s, e, 2, PB_F64, e, want);
}

/* The brief's example, exactly: which list, and positions within it. */
static void unsorted_list(void **state) {
    (void)state;
    const char *s = path_of("sizes.dat"), *e = path_of("elements.dat");
    int32_t sizes[18];
    double keys[18 * 4];
    for (int i = 0; i < 18; i++) {
        sizes[i] = 4;
        for (int j = 0; j < 4; j++) keys[4 * i + j] = j;
    }
    keys[4 * 17 + 0] = 0.1;
    keys[4 * 17 + 1] = 0.2;
    keys[4 * 17 + 2] = 0.7;
    keys[4 * 17 + 3] = 0.5;
    write_sizes(s, sizes, 18);
    write_bytes(e, keys, sizeof keys);
    expect_refused(s, e, 18, PB_F64, e, "list 17 is not sorted: element 3 (0.5) < element 2 (0.7)");
    /* Integer keys, and a descent right at a list's start does not count across lists. */
    static const int32_t two[] = {2, 2};
    static const int32_t ints[] = {5, 9, -1, -7};
    write_sizes(s, two, 2);
    write_bytes(e, ints, sizeof ints);
    expect_refused(s, e, 2, PB_I32, e, "list 1 is not sorted: element 1 (-7) < element 0 (-1)");
}

static void nan_and_signed_zero(void **state) {
    (void)state;
    const char *s = path_of("sizes.dat"), *e = path_of("elements.dat");
    static const int32_t sizes[] = {3};
    float keys[] = {-1.0f, NAN, 2.0f};
    write_sizes(s, sizes, 1);
    write_bytes(e, keys, sizeof keys);
    expect_refused(s, e, 1, PB_F32, e, "list 0, element 1 is NaN");
    keys[1] = 1.0f;
    keys[2] = NAN; /* the last element, after a sorted run */
    write_bytes(e, keys, sizeof keys);
    expect_refused(s, e, 1, PB_F32, e, "list 0, element 2 is NaN");
    /* -0.0 and +0.0 are equal keys: both orders are sorted. */
    double zeros[] = {-1.0, 0.0, -0.0, 0.0, INFINITY};
    static const int32_t five[] = {5};
    write_sizes(s, five, 1);
    write_bytes(e, zeros, sizeof zeros);
    struct pb_merge_lists l;
    char err[1024];
    if (pb_merge_read_files(s, e, 1, PB_F64, &l, err, sizeof err) != 0) fail_msg("%s", err);
    pb_merge_lists_free(&l);
}

static void not_regular_files(void **state) {
    (void)state;
    const char *s = path_of("sizes.dat"), *e = path_of("elements.dat");
    static const int32_t sizes[] = {0};
    write_sizes(s, sizes, 1);
    write_bytes(e, "", 0);
    const char *missing = path_of("absent.dat");
    expect_refused(missing, e, 1, PB_F64, missing, "cannot open: No such file or directory");
    expect_refused(s, missing, 1, PB_F64, missing, "cannot open: No such file or directory");
    const char *sub = path_of("a-directory");
    assert_int_equal(mkdir(sub, 0700), 0);
    expect_refused(sub, e, 1, PB_F64, sub, "is a directory, not a data file");
    /* A FIFO would block a plain open until a writer came. */
    const char *fifo = path_of("fifo.dat");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    expect_refused(s, fifo, 1, PB_F64, fifo, "is not a regular file");
    expect_refused(s, "/dev/null", 1, PB_F64, "/dev/null", "is not a regular file");
    /* A name with a line break stays on one line. */
    const char *two_lines = path_of("two\nlines.dat");
    write_bytes(two_lines, "ab", 2);
    char shown[600];
    snprintf(shown, sizeof shown, "%s/two\\x0alines.dat", dir);
    expect_refused(two_lines, e, 1, PB_F64, shown, "truncated: 2 bytes");
}

static void key_types(void **state) {
    (void)state;
    const char *s = path_of("sizes.dat"), *e = path_of("elements.dat");
    static const int32_t sizes[] = {0};
    write_sizes(s, sizes, 1);
    write_bytes(e, "", 0);
    struct pb_merge_lists l;
    char err[1024];
    assert_int_equal(pb_merge_read_files(s, e, 1, PB_I64, &l, err, sizeof err), -1);
    assert_string_equal(err, "i64 is not a merge key type (u32, i32, f32, u64, f64)");
    for (size_t i = 0; i < COUNT(merge_types); i++)
        assert_true(pb_merge_files_dtype_ok(merge_types[i]));
    assert_false(pb_merge_files_dtype_ok(PB_U8));

    char buf[64];
    double d[] = {0.7, 0.1 + 0.2, -0.0, 1e300};
    pb_merge_format_key(PB_F64, d, 0, buf, sizeof buf);
    assert_string_equal(buf, "0.7");
    pb_merge_format_key(PB_F64, d, 1, buf, sizeof buf);
    assert_string_equal(buf, "0.30000000000000004");
    pb_merge_format_key(PB_F64, d, 2, buf, sizeof buf);
    assert_string_equal(buf, "-0");
    pb_merge_format_key(PB_F64, d, 3, buf, sizeof buf);
    assert_string_equal(buf, "1e+300");
    float f[] = {0.1f};
    pb_merge_format_key(PB_F32, f, 0, buf, sizeof buf);
    assert_string_equal(buf, "0.1");
    uint64_t u[] = {UINT64_MAX};
    pb_merge_format_key(PB_U64, u, 0, buf, sizeof buf);
    assert_string_equal(buf, "18446744073709551615");
    int32_t i32[] = {INT32_MIN};
    pb_merge_format_key(PB_I32, i32, 0, buf, sizeof buf);
    assert_string_equal(buf, "-2147483648");
}

/* ---- the commands, in-process ------------------------------------------------------- */

static char cmd_out[8192], cmd_err[8192];

static void read_capture(const char *path, char *text, size_t cap) {
    size_t len;
    char *bytes = slurp(path, &len);
    snprintf(text, cap, "%s", bytes);
    free(bytes);
}

/* Runs a command with argv {name, args..., NULL}, stdout and stderr captured in cmd_out
 * and cmd_err. */
static int run_cmd(int (*cmd)(int, char **), const char *name, ...) {
    char *argv[32];
    int argc = 0;
    argv[argc++] = (char *)name;
    va_list ap;
    va_start(ap, name);
    for (const char *a; (a = va_arg(ap, const char *));) argv[argc++] = (char *)a;
    va_end(ap);
    argv[argc] = NULL;
    char out_path[512], err_path[512];
    snprintf(out_path, sizeof out_path, "%s/captured-stdout", dir);
    snprintf(err_path, sizeof err_path, "%s/captured-stderr", dir);
    fflush(stdout);
    fflush(stderr);
    int saved_out = dup(1), saved_err = dup(2);
    int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(saved_out >= 0 && saved_err >= 0 && out >= 0 && err >= 0);
    dup2(out, 1);
    dup2(err, 2);
    close(out);
    close(err);
    int rc = cmd(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    read_capture(out_path, cmd_out, sizeof cmd_out);
    read_capture(err_path, cmd_err, sizeof cmd_err);
    return rc;
}

#define GEN(...)   run_cmd(pb_cmd_kway_gen, "kway-gen", __VA_ARGS__, (const char *)NULL)
#define MERGE(...) run_cmd(pb_cmd_kway_merge, "kway-merge", __VA_ARGS__, (const char *)NULL)

static bool has_gpu(void) {
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

static void expect_usage_error(int rc, const char *want) {
    assert_int_equal(rc, 2);
    if (!strstr(cmd_err, want)) fail_msg("expected '%s' in:\n%s", want, cmd_err);
    assert_non_null(strstr(cmd_err, "usage: bench kway-"));
    assert_string_equal(cmd_out, "");
}

static void gen_usage(void **state) {
    (void)state;
    const char *s = path_of("g-sizes.dat"), *e = path_of("g-elements.dat");
    assert_int_equal(GEN("--help"), 0);
    assert_non_null(strstr(cmd_out, "usage: bench kway-gen"));
    expect_usage_error(GEN("3", "5", s), "K, MAX_N, SIZES and ELEMENTS are needed (3 given)");
    expect_usage_error(GEN("0", "5", s, e), "K: '0' is not a number of lists");
    expect_usage_error(GEN("-1", "5", s, e), "unknown option '-1'");
    expect_usage_error(GEN("3x", "5", s, e), "K: '3x' is not a number of lists");
    expect_usage_error(GEN("4294967296", "5", s, e), "K: '4294967296' is not a number of lists");
    expect_usage_error(GEN("3", "0", s, e), "MAX_N: '0' is not a list size (1..2147483647)");
    expect_usage_error(GEN("3", "2147483648", s, e), "MAX_N: '2147483648' is not a list size");
    expect_usage_error(GEN("--dtype", "i64", "3", "5", s, e),
                       "--dtype: 'i64' is not a merge key type (u32, i32, f32, u64, f64)");
    expect_usage_error(GEN("--sizes", "zipp", "3", "5", s, e),
                       "--sizes: unknown sizes mode 'zipp' (did you mean 'zipf'?)");
    expect_usage_error(GEN("--distribution", "unifrom", "3", "5", s, e),
                       "--distribution: unknown distribution 'unifrom' (did you mean 'uniform'?)");
    expect_usage_error(GEN("--seed", "-4", "3", "5", s, e), "--seed: '-4' is not a non-negative");
    expect_usage_error(GEN("3", "5", s, e, "--seed"), "--seed needs a value");
    expect_usage_error(GEN("3", "5", s, e, "extra"), "one argument too many ('extra')");
    assert_int_equal(GEN("3", "5", s, s), 2);
    assert_non_null(strstr(cmd_err, "is also the sizes file"));
    assert_false(exists(s));
}

/* Files read back sorted, sized as asked, the same for the same seed. */
static void gen_reads_back(void **state) {
    (void)state;
    const char *modes[] = {"uniform", "equal", "zipf", "empty"};
    const char *s = path_of("g-sizes.dat"), *e = path_of("g-elements.dat");
    const char *s2 = path_of("g2-sizes.dat"), *e2 = path_of("g2-elements.dat");
    for (size_t ti = 0; ti < COUNT(merge_types); ti++) {
        enum pb_dtype t = merge_types[ti];
        const char *tn = pb_dtype_name(t);
        for (size_t m = 0; m < COUNT(modes); m++) {
            if (GEN("--dtype", tn, "--sizes", modes[m], "--seed", "7", "40", "50", s, e) != 0) {
                fail_msg("kway-gen --dtype %s --sizes %s: %s", tn, modes[m], cmd_err);
            }
            assert_non_null(strstr(cmd_err, "bench: kway-gen: wrote 40 lists"));
            struct pb_merge_lists l;
            char err[1024];
            if (pb_merge_read_files(s, e, 40, t, &l, err, sizeof err) != 0) fail_msg("%s", err);
            uint32_t empty = 0;
            for (uint32_t i = 0; i < 40; i++) {
                uint64_t size = l.offsets[i + 1] - l.offsets[i];
                if (m == 0) assert_true(size >= 1 && size <= 50);
                empty += size == 0;
            }
            if (m != 0) assert_int_equal(l.n, 40 * 50 / 2);
            if (m == 3) assert_true(empty >= 1);
            pb_merge_lists_free(&l);

            /* Reproducible: the same arguments give the same bytes. */
            assert_int_equal(
                GEN("--dtype", tn, "--sizes", modes[m], "--seed", "7", "40", "50", s2, e2), 0);
            size_t a_len, b_len;
            void *a = slurp(e, &a_len), *b = slurp(e2, &b_len);
            assert_int_equal(a_len, b_len);
            assert_memory_equal(a, b, a_len);
            free(a);
            free(b);
        }
    }
    /* The default is the seed's f64, uniform sizes in 1..max_n; another seed, other lists. */
    assert_int_equal(GEN("100", "1000", s, e), 0);
    assert_int_equal(GEN("--seed", "2", "100", "1000", s2, e2), 0);
    size_t a_len, b_len;
    void *a = slurp(s, &a_len), *b = slurp(s2, &b_len);
    assert_int_equal(a_len, 400);
    assert_int_equal(b_len, 400);
    assert_true(memcmp(a, b, 400) != 0);
    free(a);
    free(b);
    struct pb_merge_lists l;
    char err[1024];
    if (pb_merge_read_files(s, e, 100, PB_F64, &l, err, sizeof err) != 0) fail_msg("%s", err);
    pb_merge_lists_free(&l);
    /* Every distribution makes sorted, NaN-free lists. */
    for (int d = 0; pb_dist_names[d]; d++) {
        if (GEN("--dtype", "f32", "--distribution", pb_dist_names[d], "9", "300", s, e) != 0) {
            fail_msg("--distribution %s: %s", pb_dist_names[d], cmd_err);
        }
        if (pb_merge_read_files(s, e, 9, PB_F32, &l, err, sizeof err) != 0) fail_msg("%s", err);
        pb_merge_lists_free(&l);
    }
}

static void merge_usage(void **state) {
    (void)state;
    const char *s = path_of("m-sizes.dat"), *e = path_of("m-elements.dat");
    const char *r = path_of("m-results.dat");
    assert_int_equal(MERGE("--help"), 0);
    assert_non_null(strstr(cmd_out, "usage: bench kway-merge"));
    expect_usage_error(MERGE("3", s, e), "K, SIZES, ELEMENTS and RESULTS are needed (3 given)");
    expect_usage_error(MERGE("three", s, e, r), "K: 'three' is not a number of lists");
    expect_usage_error(MERGE("0", s, e, r), "K: '0' is not a number of lists");
    expect_usage_error(MERGE("--dtype", "u8", "3", s, e, r), "--dtype: 'u8' is not a merge key");
    expect_usage_error(MERGE("--device", "x", "3", s, e, r), "--device: 'x' is not a device");
    expect_usage_error(MERGE("--chek", "3", s, e, r), "unknown option '--chek'");
    expect_usage_error(MERGE("3", s, e, r, r), "one argument too many");
    assert_false(exists(r));
}

/* Bad input is exit 2 with one line, GPU or not; results.dat is left as it was. */
static void merge_bad_input(void **state) {
    (void)state;
    const char *s = path_of("m-sizes.dat"), *e = path_of("m-elements.dat");
    const char *r = path_of("m-results.dat");
    assert_int_equal(GEN("5", "20", s, e), 0);
    write_bytes(r, "precious", 8);
    char want[1024];
    assert_int_equal(MERGE("6", s, e, r), 2);
    snprintf(want, sizeof want, "bench: kway-merge: %s: truncated: 20 bytes, but k = 6 lists", s);
    if (strncmp(cmd_err, want, strlen(want)) != 0) fail_msg("expected\n%s\ngot\n%s", want, cmd_err);
    assert_non_null(strchr(cmd_err, '\n'));
    assert_string_equal(strchr(cmd_err, '\n'), "\n"); /* one line */
    assert_string_equal(cmd_out, "");
    assert_int_equal(MERGE("--dtype", "u32", "5", s, e, r), 2);
    assert_non_null(strstr(cmd_err, "u32 keys), but the sizes in"));
    size_t len;
    char *kept = slurp(r, &len);
    assert_string_equal(kept, "precious");
    free(kept);
    /* The results may not replace an input, by its name or another one. */
    assert_int_equal(MERGE("5", s, e, e), 2);
    assert_non_null(strstr(cmd_err, "is also the elements file; it would be replaced"));
    char other[600];
    snprintf(other, sizeof other, "%s/./m-sizes.dat", dir);
    assert_int_equal(MERGE("5", s, e, other), 2);
    assert_non_null(strstr(cmd_err, "is also the sizes file"));
}

/* Good input: without a GPU, exit 1 with a message and no results.dat; with one, the
 * merged list, as the CPU merges it. */
static void merge_runs(void **state) {
    (void)state;
    const char *s = path_of("m-sizes.dat"), *e = path_of("m-elements.dat");
    const char *r = path_of("m-new-results.dat");
    for (size_t ti = 0; ti < COUNT(merge_types); ti++) {
        const char *tn = pb_dtype_name(merge_types[ti]);
        assert_int_equal(GEN("--dtype", tn, "--distribution", "few-unique", "33", "700", s, e), 0);
        unlink(r);
        int rc = MERGE("--dtype", tn, "--check", "33", s, e, r);
        if (!has_gpu()) {
            assert_int_equal(rc, 1);
            assert_non_null(strstr(cmd_err, "bench: kway-merge: no CUDA device"));
            assert_string_equal(cmd_out, "");
            assert_false(exists(r));
            continue;
        }
        if (rc != 0) fail_msg("kway-merge --dtype %s: %s", tn, cmd_err);
        assert_non_null(strstr(cmd_out, " k=33 "));
        assert_non_null(strstr(cmd_out, "check=ok"));
        struct pb_merge_lists l;
        char err[1024];
        assert_int_equal(pb_merge_read_files(s, e, 33, merge_types[ti], &l, err, sizeof err), 0);
        size_t ks = pb_dtype_size(l.dtype), len;
        void *cpu = malloc(l.n * ks);
        assert_non_null(cpu);
        assert_int_equal(pb_merge_cpu_heap(l.dtype, l.keys, NULL, l.offsets, l.k, cpu, NULL), 0);
        void *got = slurp(r, &len);
        assert_int_equal(len, l.n * ks);
        assert_memory_equal(got, cpu, len);
        free(got);
        free(cpu);
        pb_merge_lists_free(&l);
        assert_int_equal(MERGE("--dtype", tn, "--device", "1000", "33", s, e, r), 1);
        assert_non_null(strstr(cmd_err, "no device with that ordinal"));
    }
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/pb-merge-files-XXXXXX");
    if (!mkdtemp(dir)) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip_every_type),
        cmocka_unit_test(no_temp_files_left),
        cmocka_unit_test(size_beyond_int32),
        cmocka_unit_test(sizes_file_length),
        cmocka_unit_test(negative_size),
        cmocka_unit_test(sizes_do_not_add_up),
        cmocka_unit_test(unsorted_list),
        cmocka_unit_test(nan_and_signed_zero),
        cmocka_unit_test(not_regular_files),
        cmocka_unit_test(key_types),
        cmocka_unit_test(gen_usage),
        cmocka_unit_test(gen_reads_back),
        cmocka_unit_test(merge_usage),
        cmocka_unit_test(merge_bad_input),
        cmocka_unit_test(merge_runs),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (!failed && system(cmd) != 0) return 1;
    return failed;
}
