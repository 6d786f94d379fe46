/* Hostile configs through the built bench binary: malformed JSON, wrong types, values out
 * of range, duplicate and unknown names, empty, missing, special and oversized files,
 * bytes that are not UTF-8, deep nesting, a sweep too large to run by accident. Each must
 * give exit code 2, one line per problem, each naming the file (and the JSON path or the
 * position), nothing on stdout, and no output file created or touched, from both
 * `bench validate` and `bench run`. Bad k-way merge files (truncated, unsorted, negative
 * sizes, NaN, not regular files) the same way through `bench kway-merge` and `kway-gen`. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "read_file.h"
#include "shell.h"

static char bench[1024], hostile_dir[1024], work_dir[256];
static int tried; /* hostile inputs run through the binary */

static char *slurp(const char *path, size_t *len) {
    char *text = read_whole_file(path, len);
    assert_non_null(text);
    return text;
}

static void write_bytes(const char *path, const char *bytes, size_t len) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* The path as the messages show it: control characters escaped as \xNN. */
static void shown_path(const char *path, char *out, size_t cap) {
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)path; *p && o + 5 < cap; p++) {
        if (*p < 0x20 || *p == 0x7f) {
            o += (size_t)snprintf(out + o, cap - o, "\\x%02x", *p);
        } else {
            out[o++] = (char)*p;
        }
    }
    out[o] = '\0';
}

/* Checks stderr: exactly nlines lines, each "PATH: ...", and one line starting
 * "PATH: expect[i]" for each expected line. */
static void check_messages(const char *path, const char *err_file, int nlines,
                           const char *const *expect) {
    char *text = slurp(err_file, NULL);
    char prefix[1200];
    shown_path(path, prefix, sizeof prefix - 2);
    strcat(prefix, ": ");
    size_t plen = strlen(prefix);
    int lines = 0;
    for (const char *line = text; *line; lines++) {
        const char *end = strchr(line, '\n');
        if (!end || strncmp(line, prefix, plen) != 0) {
            fail_msg("%s: not a line naming the file: %s", path, line);
        }
        line = end + 1;
    }
    if (lines != nlines) fail_msg("%s: %d lines, expected %d:\n%s", path, lines, nlines, text);
    for (int i = 0; i < nlines; i++) {
        if (!expect[i]) continue; /* a line whose text is not pinned */
        char want[2400];
        snprintf(want, sizeof want, "%s%s", prefix, expect[i]);
        bool found = strncmp(text, want, strlen(want)) == 0;
        for (const char *p = strchr(text, '\n'); p && !found; p = strchr(p + 1, '\n')) {
            found = strncmp(p + 1, want, strlen(want)) == 0;
        }
        if (!found) fail_msg("%s: no line starting\n%s\nin:\n%s", path, want, text);
    }
    free(text);
}

static bool exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* Runs both commands on one hostile config and checks everything the README promises.
 * with_force: also bench run --force, which must refuse it all the same (not for a sweep
 * over the soft limit, which --force exists to let through). */
static void expect_rejected_n(const char *path, int nlines, const char *const *expect,
                              bool with_force) {
    char err[512], out[512], csv[512], kept[512];
    snprintf(err, sizeof err, "%s/stderr", work_dir);
    snprintf(out, sizeof out, "%s/stdout", work_dir);
    snprintf(csv, sizeof csv, "%s/out/new.csv", work_dir);
    snprintf(kept, sizeof kept, "%s/out/kept.csv", work_dir);
    tried++;

    /* timeout: a FIFO or device must be refused, not waited on */
    assert_int_equal(run_shell("timeout 60 '%s' validate '%s' >'%s' 2>'%s'", bench, path, out, err),
                     2);
    check_messages(path, err, nlines, expect);
    size_t len;
    free(slurp(out, &len));
    assert_int_equal(len, 0);

    assert_int_equal(run_shell("timeout 60 '%s' run --no-progress --output '%s' '%s' >'%s' 2>'%s'",
                               bench, csv, path, out, err),
                     2);
    check_messages(path, err, nlines, expect);
    free(slurp(out, &len));
    assert_int_equal(len, 0);
    assert_false(exists(csv));
    char meta[600];
    snprintf(meta, sizeof meta, "%s.meta.json", csv);
    assert_false(exists(meta));
    /* The config's own output (results/NAME.csv, relative to here) is not made either. */
    assert_false(exists("results"));

    if (!with_force) return;
    /* --force allows overwriting, but a bad config still leaves the file as it was. */
    struct stat before, after;
    assert_int_equal(stat(kept, &before), 0);
    assert_int_equal(run_shell("timeout 60 '%s' run --force --no-progress --output '%s' '%s' >'%s' "
                               "2>'%s'",
                               bench, kept, path, out, err),
                     2);
    check_messages(path, err, nlines, expect);
    assert_int_equal(stat(kept, &after), 0);
    assert_true(before.st_size == after.st_size && before.st_mtim.tv_sec == after.st_mtim.tv_sec &&
                before.st_mtim.tv_nsec == after.st_mtim.tv_nsec);
    char *text = slurp(kept, NULL);
    assert_string_equal(text, "precious\n");
    free(text);
}

#define expect_rejected(path, ...)                                                                 \
    do {                                                                                           \
        const char *const expect_[] = {__VA_ARGS__};                                               \
        expect_rejected_n(path, (int)(sizeof expect_ / sizeof expect_[0]), expect_, true);         \
    } while (0)

static void corpus(char *out, size_t cap, const char *name) {
    snprintf(out, cap, "%s/%s", hostile_dir, name);
}

/* A committed file, rejected with the given lines. */
#define expect_file(name, ...)                                                                     \
    do {                                                                                           \
        char path_[1200];                                                                          \
        corpus(path_, sizeof path_, name);                                                         \
        expect_rejected(path_, __VA_ARGS__);                                                       \
    } while (0)

/* A file made here from bytes that do not belong in the repository. */
static void make_file(char *path, size_t cap, const char *name, const char *bytes, size_t len) {
    snprintf(path, cap, "%s/%s", work_dir, name);
    write_bytes(path, bytes, len);
}

/* ---- the committed corpus (tests/data/hostile) ------------------------------- */

static void malformed_json(void **state) {
    (void)state;
    expect_file("malformed-trailing-comma.json", "line 1, column 25: malformed JSON");
    expect_file("malformed-missing-brace.json",
                "line 2, column 1: malformed JSON: the file ends inside a value");
    expect_file("malformed-unterminated-string.json",
                "line 1, column 22: a line break inside a string (a missing closing quote?)");
    expect_file("malformed-two-documents.json", "line 1, column 25: malformed JSON");
    expect_file("malformed-single-quotes.json", "line 1, column 3: malformed JSON");
    expect_file("malformed-comment.json", "line 1, column 1: malformed JSON");
    expect_file("malformed-leading-zero.json", "line 1, column 33: '01' is not a JSON number");
    expect_file("malformed-nan.json", "line 1, column 33: malformed JSON");
    expect_file("top-level-array.json", "the top level is an array; a config is a JSON object");
    expect_file("top-level-number.json", "the top level is a number; a config is a JSON object");
    expect_file("top-level-null.json", "the top level is null; a config is a JSON object");
}

static void empty_files(void **state) {
    (void)state;
    expect_file("empty.json", "the file is empty (expected a JSON object)");
    expect_file("blank.json", "the file is empty (expected a JSON object)");
}

static void wrong_types(void **state) {
    (void)state;
    expect_file("wrong-types.json", "name: 5 is not a string", "output: [...] is not a string",
                "backends: 7 is not \"all\", a backend name, or a list of them",
                "sweep.n: true is not an integer, a list of integers, or a range",
                "sweep.dtype: 3 is not a name, a list of names, or \"all\"",
                "sweep.op[1]: null is not a string (expected one of: sum, min, max, argmin)",
                "zip: \"n\" is not a list of axis groups", "reps: \"ten\" is not an integer",
                "warmup: 1.5 is not an integer", "seed: \"-1\" is not an integer",
                "cache: false is not a string (expected one of: cold, hot)",
                "verify: 1 is not true or false",
                "cpu_budget_s: \"2\" is not a positive number of seconds");
}

static void out_of_range(void **state) {
    (void)state;
    expect_file("out-of-range.json", "reps_note: unknown key 'reps_note'",
                "sweep.n[0]: -5 is not a positive integer",
                "sweep.n[1]: 0 is not a positive integer",
                "sweep.n[2]: 1099511627776 is outside the valid range 1..",
                "reps: 0 is not a positive integer (expected an integer 1..1000000)",
                "warmup: -1 is outside the valid range 0..1000000",
                "seed: a number beyond 2^53 - 1 (read as 9007199254740992)",
                "cpu_budget_s: -2 is not a positive number of seconds");
    expect_file("out-of-range-huge-number.json",
                "reps: a number too large for a double is not an integer");
    expect_file("bad-range.json", "sweep.n.stride: unknown key 'stride' in a range",
                "sweep.n.scale: unknown scale 'pow3' (did you mean 'pow2'?)");
    expect_file("zip-unequal.json",
                "zip[0]: the axes of a zip group need equal numbers of values (n: 3, dtype: 2)");
    expect_file("empty-output.json", "output: an empty path");
    expect_file("bad-name.json", "name: \"../../etc/x\" is not a valid name");
}

static void duplicate_keys(void **state) {
    (void)state;
    expect_file("duplicate-keys.json", "reps: duplicate key", "sweep.n: duplicate key");
}

static void unknown_names(void **state) {
    (void)state;
    expect_file("unknown-primitive.json",
                "primitive: unknown primitive 'reduc' (did you mean 'reduce'?)");
    expect_file("unknown-backend.json",
                "backends[1]: unknown backend 'cubb' for primitive 'reduce' (did you mean 'cub'?)");
    expect_file("unknown-axis.json",
                "sweep.dtyp: unknown axis 'dtyp' of primitive 'reduce' (did you mean 'dtype'?)");
    expect_file("unknown-key.json", "rep: unknown key 'rep' (did you mean 'reps'?)");
    expect_file("unknown-choice.json", "sweep.dtype[1]: unknown dtype 'u31' (did you mean 'u32'?)",
                "sweep.op: unknown op 'summ' (did you mean 'sum'?)");
}

static void text_encoding(void **state) {
    (void)state;
    expect_file("byte-order-mark.json", "line 1, column 1: a UTF-8 byte-order mark");
    expect_file("control-character-in-string.json",
                "line 1, column 35: control character 0x09 in a string");
    expect_file("control-character.json", "line 1, column 24: control character 0x01");
    expect_file("escaped-nul.json", "line 1, column 42: \\u0000 is not allowed in a string");
    expect_file("lone-surrogate.json",
                "line 1, column 41: \\ud800 is half of a UTF-16 surrogate pair");
    expect_file("latin1.json", "line 1, column 44: invalid UTF-8 byte 0xe9 in a string");
}

/* A corpus config over the case limit: refused without --force with the count (the
 * usual one-line checks), accepted by bench validate with it; returns what validate
 * printed (the caller frees). A real run of 1.2 million cases is not a unit test. */
static char *expect_over_limit_then_forced(const char *name, const char *refusal) {
    char path[1200], out[512];
    corpus(path, sizeof path, name);
    const char *const expect[] = {refusal};
    expect_rejected_n(path, 1, expect, false);
    snprintf(out, sizeof out, "%s/stdout", work_dir);
    assert_int_equal(run_shell("'%s' validate --force '%s' >'%s'", bench, path, out), 0);
    return slurp(out, NULL);
}

/* Refused without --force, with the count; accepted with it. */
static void huge_sweep(void **state) {
    (void)state;
    char *text = expect_over_limit_then_forced(
        "huge-sweep.json", "sweep: expands to 1200000 cases (over the limit of 1000000; use "
                           "--force to run it anyway)");
    assert_non_null(
        strstr(text, ": ok: primitive reduce, 3 backends, 1200000 cases, 3600000 rows"));
    free(text);
}

/* Suites (a config with "parts"): a part's problems under parts[i], every problem of every
 * part in one pass, nested suites, keys in the wrong place, no parts, and the case limit
 * on the whole suite. */
static void suites(void **state) {
    (void)state;
    expect_file("suite-bad-part.json",
                "parts[1].sweep.bins: 0 is not a positive integer (expected an integer 1..65536)",
                "parts[2].backends[0]: unknown backend 'pth' for primitive 'merge' (did you mean "
                "'path'?)",
                "parts[2].sweep.k[1]: \"x\" is not an integer",
                "parts[3].sweep.segmnt: unknown axis 'segmnt' of primitive 'sort' (did you mean "
                "'segment'?)",
                "parts[3].cache: unknown cache mode 'warm'", "parts[4]: \"sort\" is not an object");
    expect_file("suite-nested.json",
                "parts[1].parts: a part cannot itself be a suite (suites do not nest)");
    expect_file("suite-misplaced-keys.json",
                "primitive: a suite (a config with \"parts\") has no primitive of its own",
                "sweep: a suite (a config with \"parts\") has no sweep of its own",
                "parts[0].output: belongs to the suite, not to a part");
    expect_file("suite-empty.json", "parts: an empty list (a suite needs at least one part)");

    char *text = expect_over_limit_then_forced(
        "suite-huge.json", "parts: the parts expand to 1200000 cases in all (over the limit of "
                           "1000000; use --force to run it anyway)");
    assert_non_null(strstr(text, ": ok: suite of 3 parts, 1200000 cases, 3600000 rows"));
    assert_non_null(strstr(text, "\n  parts[2]: primitive reduce, 3 backends, 400000 cases"));
    free(text);

    /* A suite whose parts are sound but whose JSON is cut: the position, as for any file. */
    char cut[512];
    const char bytes[] = "{\"parts\": [{\"primitive\": \"reduce\"}";
    make_file(cut, sizeof cut, "suite-cut.json", bytes, sizeof bytes - 1);
    expect_rejected(cut, "line 1, column 35: malformed JSON: the file ends inside a value");
}

/* ---- generated here --------------------------------------------------------- */

static void not_utf8(void **state) {
    (void)state;
    char path[512];
    /* 0xff never appears in UTF-8; c0 af is an overlong '/'; ed a0 80 a UTF-16 surrogate;
     * e2 82 a sequence cut short by the end of the file. */
    static const char bytes[] = "{\"primitive\": \"re\xffuce\",\n"
                                "\"name\": \"a\xc0\xafz\",\n"
                                "\"description\": \"\xed\xa0\x80\"}\xe2\x82";
    make_file(path, sizeof path, "not-utf8.json", bytes, sizeof bytes - 1);
    expect_rejected(path, "line 1, column 18: invalid UTF-8 byte 0xff in a string",
                    "line 2, column 11: invalid UTF-8 byte 0xc0 in a string",
                    "line 3, column 17: invalid UTF-8 byte 0xed in a string",
                    "line 3, column 20: invalid UTF-8 byte 0xe2");
    /* Binary noise: the first ten problems, then one line saying it stopped. */
    char noise[4096];
    for (size_t i = 0; i < sizeof noise; i++) noise[i] = (char)(0xf8 | (i & 7)); /* no UTF-8 */
    make_file(path, sizeof path, "noise.json", noise, sizeof noise);
    expect_rejected(path, "line 1, column 1: invalid UTF-8 byte", NULL, NULL, NULL, NULL, NULL,
                    NULL, NULL, NULL, NULL, "too many encoding problems; stopped looking");
    static const char nul[] = "{\"primitive\": \"reduce\",\0 \"reps\": 2}";
    make_file(path, sizeof path, "nul.json", nul, sizeof nul - 1);
    expect_rejected(path, "line 1, column 24: control character 0x00");
}

static void deep_nesting(void **state) {
    (void)state;
    char path[512];
    size_t depth = 200000;
    const char *head = "{\"primitive\": \"reduce\", \"description\": ";
    size_t hlen = strlen(head);
    char *text = malloc(hlen + 2 * depth + 2);
    assert_non_null(text);
    memcpy(text, head, hlen);
    memset(text + hlen, '[', depth);
    memset(text + hlen + depth, ']', depth);
    text[hlen + 2 * depth] = '}';
    make_file(path, sizeof path, "deep.json", text, hlen + 2 * depth + 1);
    free(text);
    /* 64 levels are allowed; the top object is level 1, so the 64th '[' (column 40 + 63)
     * is the 65th. */
    expect_rejected(path, "line 1, column 103: nesting deeper than 64 levels");
}

static void oversized_file(void **state) {
    (void)state;
    char path[512];
    size_t len = (1u << 20) + 1;
    char *text = malloc(len);
    assert_non_null(text);
    memset(text, ' ', len);
    memcpy(text, "{\"primitive\": \"reduce\"}", 23);
    make_file(path, sizeof path, "large.json", text, len);
    free(text);
    expect_rejected(path, "is larger than 1 MiB; not a config file");
}

static void not_a_config_file(void **state) {
    (void)state;
    char path[512], message[256];
    snprintf(path, sizeof path, "%s/absent.json", work_dir);
    expect_rejected(path, "cannot open: No such file or directory");
    snprintf(path, sizeof path, "%s/dir.json", work_dir);
    assert_int_equal(mkdir(path, 0700), 0);
    expect_rejected(path, "is a directory, not a config file");
    /* Opening a FIFO for reading waits for a writer, unless the loader guards against it. */
    snprintf(path, sizeof path, "%s/fifo.json", work_dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    expect_rejected(path, "is not a regular file");
    expect_rejected("/dev/null", "is not a regular file");
    /* A file name with a line break must not split the message. */
    static const char named[] = "{\"name\": \"x\", \"primitive\": \"reduc\"}";
    make_file(path, sizeof path, "two\nlines.json", named, sizeof named - 1);
    expect_rejected(path, "primitive: unknown primitive 'reduc'");
    if (geteuid() != 0) { /* root reads a file whatever its mode */
        make_file(path, sizeof path, "unreadable.json", "{}", 2);
        assert_int_equal(chmod(path, 0), 0);
        snprintf(message, sizeof message, "cannot open: Permission denied");
        expect_rejected(path, message);
    }
}

/* ---- the seed's k-way merge files (bench kway-merge, bench kway-gen) ------------ */

/* Runs `bench ARGS` and checks a refusal of bad files: exit 2 (before any GPU is looked
 * for, so the same on every machine), nothing on stdout, one line on stderr starting
 * "bench: CMD: " + want, and the results file that was there left as it was. */
static void expect_kway_refused(const char *cmd, const char *args, const char *want) {
    char err[512], out[512], results[512], line[2400];
    snprintf(err, sizeof err, "%s/stderr", work_dir);
    snprintf(out, sizeof out, "%s/stdout", work_dir);
    snprintf(results, sizeof results, "%s/kway/results.dat", work_dir);
    write_bytes(results, "precious\n", 9);
    tried++;
    assert_int_equal(run_shell("timeout 60 '%s' %s %s >'%s' 2>'%s'", bench, cmd, args, out, err),
                     2);
    size_t len;
    free(slurp(out, &len));
    assert_int_equal(len, 0);
    char *text = slurp(err, &len);
    snprintf(line, sizeof line, "bench: %s: %s", cmd, want);
    if (strncmp(text, line, strlen(line)) != 0)
        fail_msg("expected a line starting\n%s\ngot\n%s", line, text);
    const char *end = strchr(text, '\n');
    if (!end || end[1] != '\0') fail_msg("%s %s: not one line:\n%s", cmd, args, text);
    free(text);
    text = slurp(results, NULL);
    assert_string_equal(text, "precious\n");
    free(text);
}

/* sizes.dat by hand: k little-endian int32. */
static void write_kway_sizes(const char *path, const int32_t *sizes, size_t k) {
    unsigned char raw[64];
    assert_true(4 * k <= sizeof raw);
    for (size_t i = 0; i < k; i++)
        for (int b = 0; b < 4; b++) raw[4 * i + b] = (unsigned char)((uint32_t)sizes[i] >> (8 * b));
    write_bytes(path, (const char *)raw, 4 * k);
}

static void kway_merge_files(void **state) {
    (void)state;
    char d[300], s[400], e[400], args[2000], want[1200];
    snprintf(d, sizeof d, "%s/kway", work_dir);
    assert_int_equal(mkdir(d, 0700), 0);
    snprintf(s, sizeof s, "%s/sizes.dat", d);
    snprintf(e, sizeof e, "%s/elements.dat", d);
    static const int32_t sizes[] = {2, 0, 3};
    static const double keys[] = {1, 2, -1, 0.7, 0.5};
    write_kway_sizes(s, sizes, 3);
    write_bytes(e, (const char *)keys, sizeof keys);
#define KWAY_ARGS(k, sizes_path, elements_path, opts)                                              \
    snprintf(args, sizeof args, "%s %s '%s' '%s' '%s/results.dat'", opts, k, sizes_path,           \
             elements_path, d)

    KWAY_ARGS("4", s, e, "");
    snprintf(want, sizeof want, "%s: truncated: 12 bytes, but k = 4 lists need 16", s);
    expect_kway_refused("kway-merge", args, want);
    KWAY_ARGS("2", s, e, "");
    snprintf(want, sizeof want, "%s: 12 bytes, more than the 8 of k = 2 sizes", s);
    expect_kway_refused("kway-merge", args, want);
    KWAY_ARGS("3", s, e, "--dtype f32");
    snprintf(want, sizeof want,
             "%s: 40 bytes (10 f32 keys), but the sizes in %s add up to 5 keys (20 bytes)", e, s);
    expect_kway_refused("kway-merge", args, want);
    KWAY_ARGS("3", s, e, "");
    snprintf(want, sizeof want, "%s: list 2 is not sorted: element 2 (0.5) < element 1 (0.7)", e);
    expect_kway_refused("kway-merge", args, want);

    write_bytes(e, (const char *)keys, 4 * sizeof(double));
    snprintf(
        want, sizeof want,
        "%s: truncated: 32 bytes (4 f64 keys), but the sizes in %s add up to 5 keys (40 bytes)", e,
        s);
    expect_kway_refused("kway-merge", args, want);
    write_bytes(e, (const char *)keys, 4 * sizeof(double) + 3);
    snprintf(want, sizeof want, "%s: truncated: 35 bytes (not a whole number of 8-byte f64 keys)",
             e);
    expect_kway_refused("kway-merge", args, want);

    static const int32_t negative[] = {2, -1, 3};
    write_kway_sizes(s, negative, 3);
    snprintf(want, sizeof want, "%s: list 1 has a negative size (-1)", s);
    expect_kway_refused("kway-merge", args, want);

    static const float with_nan[] = {1, 2, 3, NAN, 4};
    write_kway_sizes(s, sizes, 3);
    write_bytes(e, (const char *)with_nan, sizeof with_nan);
    KWAY_ARGS("3", s, e, "--dtype f32");
    snprintf(want, sizeof want, "%s: list 2, element 1 is NaN", e);
    expect_kway_refused("kway-merge", args, want);

    /* Not regular files: a FIFO must be refused, not waited on. */
    char other[400];
    snprintf(other, sizeof other, "%s/fifo.dat", d);
    assert_int_equal(mkfifo(other, 0600), 0);
    KWAY_ARGS("3", other, e, "");
    snprintf(want, sizeof want, "%s: is not a regular file", other);
    expect_kway_refused("kway-merge", args, want);
    KWAY_ARGS("3", s, "/dev/null", "");
    expect_kway_refused("kway-merge", args, "/dev/null: is not a regular file");
    KWAY_ARGS("3", s, d, "");
    snprintf(want, sizeof want, "%s: is a directory, not a data file", d);
    expect_kway_refused("kway-merge", args, want);
    snprintf(other, sizeof other, "%s/absent.dat", d);
    KWAY_ARGS("3", other, e, "");
    snprintf(want, sizeof want, "%s: cannot open: No such file or directory", other);
    expect_kway_refused("kway-merge", args, want);
    /* A name holding a line break is shown escaped, on one line. */
    snprintf(other, sizeof other, "%s/two\nlines.dat", d);
    write_bytes(other, "ab", 2);
    KWAY_ARGS("3", other, e, "");
    snprintf(want, sizeof want, "%s/two\\x0alines.dat: truncated: 2 bytes", d);
    expect_kway_refused("kway-merge", args, want);

    /* The results may not replace an input. */
    snprintf(args, sizeof args, "3 '%s' '%s' '%s'", s, e, e);
    snprintf(want, sizeof want, "%s: is also the elements file", e);
    expect_kway_refused("kway-merge", args, want);
    /* kway-gen into a folder that is not there: refused, nothing made. */
    snprintf(args, sizeof args, "3 5 '%s/no/sizes.dat' '%s/no/elements.dat'", d, d);
    snprintf(want, sizeof want, "%s/no/sizes.dat: cannot create a file beside it", d);
    expect_kway_refused("kway-gen", args, want);
#undef KWAY_ARGS
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s BENCH HOSTILE_DIR\n", argv[0]);
        return 2;
    }
    /* Absolute, because the tests run in a scratch directory: a stray results/ made by a
     * config's default output would show up there. */
    if (!realpath(argv[1], bench) || !realpath(argv[2], hostile_dir)) {
        perror("realpath");
        return 2;
    }
    snprintf(work_dir, sizeof work_dir, "/tmp/pb-hostile-XXXXXX");
    if (!mkdtemp(work_dir) || chdir(work_dir) != 0) return 1;
    char kept[512];
    snprintf(kept, sizeof kept, "%s/out", work_dir);
    if (mkdir(kept, 0700) != 0) return 1;
    snprintf(kept, sizeof kept, "%s/out/kept.csv", work_dir);
    write_bytes(kept, "precious\n", 9);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(malformed_json),   cmocka_unit_test(empty_files),
        cmocka_unit_test(wrong_types),      cmocka_unit_test(out_of_range),
        cmocka_unit_test(duplicate_keys),   cmocka_unit_test(unknown_names),
        cmocka_unit_test(text_encoding),    cmocka_unit_test(huge_sweep),
        cmocka_unit_test(not_utf8),         cmocka_unit_test(deep_nesting),
        cmocka_unit_test(oversized_file),   cmocka_unit_test(not_a_config_file),
        cmocka_unit_test(kway_merge_files), cmocka_unit_test(suites),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    printf("hostile inputs tried: %d\n", tried);
    if (chdir("/") == 0 && !failed) run_shell("rm -rf '%s'", work_dir);
    return failed;
}
