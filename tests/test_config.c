/* Config loading: a good config read in full, defaults, and many bad configs, each
 * checked for the file and JSON path its message names, for suggestions, and for every
 * problem being reported in one pass. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
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

#include "config.h"

#define PATH "configs/x.json"

/* ---- helpers -------------------------------------------------------------- */

static int count_lines(const char *s) {
    int n = 0;
    for (; s && *s; s++) {
        n += *s == '\n';
    }
    return n;
}

/* True when some line starts with prefix and contains fragment. */
static bool has_line(const char *errors, const char *prefix, const char *fragment) {
    for (const char *line = errors; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (strncmp(line, prefix, strlen(prefix)) == 0) {
            char *copy = strndup(line, len);
            bool found = strstr(copy, fragment) != NULL;
            free(copy);
            if (found) {
                return true;
            }
        }
        line = end ? end + 1 : line + len;
    }
    return false;
}

static bool show_errors(const char *errors) {
    print_error("errors were:\n%s", errors ? errors : "(none)\n");
    return false;
}

#define assert_line(errors, prefix, fragment)                                                      \
    assert_true(has_line(errors, prefix, fragment) || show_errors(errors))
#define assert_lines(errors, n) assert_true(count_lines(errors) == (n) || show_errors(errors))

/* Parses text that must fail; returns the messages (the caller frees). */
static char *errors_of(const char *text) {
    struct pb_config cfg;
    char *errors = NULL;
    int rc = pb_config_parse(PATH, text, strlen(text), &cfg, &errors);
    if (rc != 2) {
        print_error("expected a failure for:\n%s\n", text);
    }
    assert_int_equal(rc, 2);
    assert_non_null(errors);
    /* A failed parse leaves the config empty. */
    assert_null(cfg.primitive);
    assert_null(cfg.name);
    assert_null(cfg.text);
    assert_int_equal(cfg.nbackends, 0);
    return errors;
}

/* Parses text that must succeed. */
static void parse_ok(const char *path, const char *text, struct pb_config *cfg) {
    char *errors = NULL;
    int rc = pb_config_parse(path, text, strlen(text), cfg, &errors);
    if (rc != 0) {
        show_errors(errors);
    }
    assert_int_equal(rc, 0);
    assert_null(errors);
}

/* One bad config, one expected line. */
static void expect_one(const char *text, const char *prefix, const char *fragment) {
    char *errors = errors_of(text);
    assert_line(errors, prefix, fragment);
    assert_lines(errors, 1);
    free(errors);
}

static const char *choice_at(const struct pb_config *cfg, int axis, int i) {
    return cfg->primitive->axes[axis].choices[cfg->axis[axis].values[i]];
}

/* Axis indices of the reduce primitive. */
enum { AX_N, AX_DTYPE, AX_DISTRIBUTION, AX_OP };

/* ---- good configs ---------------------------------------------------------- */

static void test_full_config_is_read(void **state) {
    (void)state;
    const char *text =
        "{\n"
        "  \"name\": \"reduction-1.x\",\n"
        "  \"description\": \"sums of many sizes\",\n"
        "  \"primitive\": \"reduce\",\n"
        "  \"backends\": [\"cpu\", \"reduce/butterfly\"],\n"
        "  \"sweep\": {\n"
        "    \"n\": {\"from\": 1024, \"to\": 8192, \"scale\": \"pow2\"},\n"
        "    \"dtype\": [\"f32\", \"u32\"],\n"
        "    \"op\": [\"sum\", \"min\", \"max\", \"argmin\"],\n"
        "    \"distribution\": \"sorted\"\n"
        "  },\n"
        "  \"zip\": [[\"n\", \"op\"]],\n"
        "  \"reps\": 7, \"warmup\": 0, \"cache\": \"hot\", \"seed\": 42, \"verify\": false,\n"
        "  \"cpu_budget_s\": 0.5,\n"
        "  \"output\": \"out/r.csv\"\n"
        "}\n";
    struct pb_config cfg;
    parse_ok(PATH, text, &cfg);
    assert_string_equal(cfg.path, PATH);
    assert_string_equal(cfg.name, "reduction-1.x");
    assert_string_equal(cfg.description, "sums of many sizes");
    assert_string_equal(cfg.primitive->name, "reduce");
    assert_int_equal(cfg.nbackends, 2);
    assert_string_equal(cfg.backends[0]->name, "reduce/butterfly"); /* registry order */
    assert_string_equal(cfg.backends[1]->name, "reduce/cpu");

    assert_int_equal(cfg.axis[AX_N].count, 4);
    assert_int_equal(cfg.axis[AX_N].values[0], 1024);
    assert_int_equal(cfg.axis[AX_N].values[3], 8192);
    assert_int_equal(cfg.axis[AX_DTYPE].count, 2);
    assert_string_equal(choice_at(&cfg, AX_DTYPE, 0), "f32"); /* config order */
    assert_string_equal(choice_at(&cfg, AX_DTYPE, 1), "u32");
    assert_int_equal(cfg.axis[AX_DISTRIBUTION].count, 1);
    assert_string_equal(choice_at(&cfg, AX_DISTRIBUTION, 0), "sorted");
    assert_int_equal(cfg.axis[AX_OP].count, 4);
    assert_string_equal(choice_at(&cfg, AX_OP, 3), "argmin");

    assert_int_equal(cfg.nzip, 1);
    assert_int_equal(cfg.zip_group[AX_N], 0);
    assert_int_equal(cfg.zip_group[AX_OP], 0);
    assert_int_equal(cfg.zip_group[AX_DTYPE], -1);
    assert_int_equal(cfg.zip_group[AX_DISTRIBUTION], -1);

    assert_int_equal(cfg.reps, 7);
    assert_int_equal(cfg.warmup, 0);
    assert_false(cfg.cold);
    assert_int_equal(cfg.seed, 42);
    assert_false(cfg.verify);
    assert_true(cfg.cpu_budget_s == 0.5);
    assert_string_equal(cfg.output, "out/r.csv");
    assert_string_equal(cfg.text, text);
    pb_config_free(&cfg);
    assert_null(cfg.name);
}

static void test_defaults(void **state) {
    (void)state;
    const char *text = "{\"primitive\": \"reduce\"}\n";
    struct pb_config cfg;
    parse_ok("configs/reduction.json", text, &cfg);
    assert_string_equal(cfg.name, "reduction");
    assert_string_equal(cfg.output, "results/reduction.csv");
    assert_null(cfg.description);
    assert_int_equal(cfg.nbackends, 3);
    assert_string_equal(cfg.backends[0]->name, "reduce/butterfly");
    assert_string_equal(cfg.backends[1]->name, "reduce/cub");
    assert_string_equal(cfg.backends[2]->name, "reduce/cpu");
    for (int a = 0; a < cfg.primitive->naxes; a++) {
        assert_int_equal(cfg.axis[a].count, 1);
        assert_int_equal(cfg.zip_group[a], -1);
    }
    assert_int_equal(cfg.axis[AX_N].values[0], 1048576);
    assert_string_equal(choice_at(&cfg, AX_DTYPE, 0), "u32");
    assert_string_equal(choice_at(&cfg, AX_DISTRIBUTION, 0), "uniform");
    assert_string_equal(choice_at(&cfg, AX_OP, 0), "sum");
    assert_int_equal(cfg.nzip, 0);
    assert_int_equal(cfg.reps, 100);
    assert_int_equal(cfg.warmup, 5);
    assert_true(cfg.cold);
    assert_int_equal(cfg.seed, 1);
    assert_true(cfg.verify);
    assert_true(cfg.cpu_budget_s == 2.0);
    assert_string_equal(cfg.text, text);
    /* FNV-1a 64 of the text, computed independently. */
    assert_true(cfg.hash == 0xdcd8700b2080aec6ULL);
    pb_config_free(&cfg);
}

static void test_name_from_path_without_json_suffix(void **state) {
    (void)state;
    struct pb_config cfg;
    parse_ok("plain_name", "{\"primitive\": \"reduce\"}", &cfg);
    assert_string_equal(cfg.name, "plain_name");
    assert_string_equal(cfg.output, "results/plain_name.csv");
    pb_config_free(&cfg);
}

static void test_backend_forms(void **state) {
    (void)state;
    struct pb_config cfg;
    parse_ok(PATH, "{\"primitive\": \"reduce\", \"backends\": \"all\"}", &cfg);
    assert_int_equal(cfg.nbackends, 3);
    pb_config_free(&cfg);

    parse_ok(PATH, "{\"primitive\": \"reduce\", \"backends\": \"cub\"}", &cfg);
    assert_int_equal(cfg.nbackends, 1);
    assert_string_equal(cfg.backends[0]->name, "reduce/cub");
    pb_config_free(&cfg);

    parse_ok(PATH, "{\"primitive\": \"reduce\", \"backends\": [\"reduce/cpu\", \"cub\"]}", &cfg);
    assert_int_equal(cfg.nbackends, 2);
    assert_string_equal(cfg.backends[0]->name, "reduce/cub");
    assert_string_equal(cfg.backends[1]->name, "reduce/cpu");
    pb_config_free(&cfg);
}

static void test_value_forms(void **state) {
    (void)state;
    struct pb_config cfg;
    parse_ok(PATH,
             "{\"primitive\": \"reduce\", \"sweep\": {"
             "\"n\": {\"from\": 3, \"to\": 100, \"scale\": \"pow2\"},"
             "\"dtype\": \"all\", \"distribution\": [\"zipf\", \"all-equal\"], \"op\": \"max\"}}",
             &cfg);
    const int64_t pow2[] = {3, 6, 12, 24, 48, 96};
    assert_int_equal(cfg.axis[AX_N].count, 6);
    assert_memory_equal(cfg.axis[AX_N].values, pow2, sizeof pow2);
    assert_int_equal(cfg.axis[AX_DTYPE].count, 6);
    assert_string_equal(choice_at(&cfg, AX_DTYPE, 0), "u32");
    assert_string_equal(choice_at(&cfg, AX_DTYPE, 5), "f64");
    assert_string_equal(choice_at(&cfg, AX_DISTRIBUTION, 1), "all-equal");
    assert_string_equal(choice_at(&cfg, AX_OP, 0), "max");
    pb_config_free(&cfg);

    parse_ok(PATH,
             "{\"primitive\": \"reduce\", \"sweep\": {"
             "\"n\": {\"from\": 1, \"to\": 10, \"scale\": \"linear\", \"step\": 3}}}",
             &cfg);
    const int64_t linear[] = {1, 4, 7, 10};
    assert_int_equal(cfg.axis[AX_N].count, 4);
    assert_memory_equal(cfg.axis[AX_N].values, linear, sizeof linear);
    pb_config_free(&cfg);

    /* Integers written as 4096.0 or 4e3 have no fractional part, so they are integers. */
    parse_ok(PATH,
             "{\"primitive\": \"reduce\", \"sweep\": {\"n\": [4096.0, 4e3, 17179869184]},"
             "\"seed\": 9007199254740991}",
             &cfg);
    assert_int_equal(cfg.axis[AX_N].values[0], 4096);
    assert_int_equal(cfg.axis[AX_N].values[1], 4000);
    assert_int_equal(cfg.axis[AX_N].values[2], 17179869184LL);
    assert_true(cfg.seed == 9007199254740991ULL);
    pb_config_free(&cfg);

    /* Seeds past 2^53 - 1 travel as strings. */
    parse_ok(PATH, "{\"primitive\": \"reduce\", \"seed\": \"18446744073709551615\"}", &cfg);
    assert_true(cfg.seed == UINT64_MAX);
    pb_config_free(&cfg);

    /* Values may repeat within one zip axis while the tuples differ. */
    parse_ok(PATH,
             "{\"primitive\": \"reduce\", \"sweep\": {\"n\": [8, 8], "
             "\"dtype\": [\"u32\", \"f32\"]}, \"zip\": [[\"n\", \"dtype\"]]}",
             &cfg);
    assert_int_equal(cfg.axis[AX_N].count, 2);
    pb_config_free(&cfg);
}

static void test_utf8_text_is_accepted(void **state) {
    (void)state;
    struct pb_config cfg;
    parse_ok(PATH,
             "{\"primitive\": \"reduce\", \"description\": \"h\xc3\xa9llo \xe2\x82\xac "
             "\xf0\x9f\x98\x80 \\u00e9\"}",
             &cfg);
    assert_string_equal(cfg.description, "h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80 \xc3\xa9");
    pb_config_free(&cfg);
}

/* ---- every problem at once --------------------------------------------------- */

static void test_three_problems_three_lines(void **state) {
    (void)state;
    char *errors = errors_of("{\"primitive\": \"reduce\", \"reps\": \"ten\", "
                             "\"sweep\": {\"n\": [1024, 4096, -5]}, \"cache\": \"warm\"}");
    assert_lines(errors, 3);
    assert_line(errors,
                PATH ": reps: ", "\"ten\" is not an integer (expected an integer 1..1000000)");
    assert_line(errors, PATH ": sweep.n[2]: ", "-5 is not a positive integer");
    assert_line(errors, PATH ": cache: ", "unknown cache mode 'warm'");
    free(errors);
}

static void test_many_problems_all_reported(void **state) {
    (void)state;
    char *errors =
        errors_of("{\"primitve\": 1, \"primitive\": \"reduce\", \"name\": \"a b\",\n"
                  " \"backends\": [\"cubb\", \"cpu\", \"reduce/cpu\", 5],\n"
                  " \"sweep\": {\"nn\": 1, \"n\": [1.5, \"x\", 17179869185],\n"
                  "           \"dtype\": [\"u322\", \"all\"], \"op\": \"summ\",\n"
                  "           \"distribution\": {\"from\": 1}},\n"
                  " \"warmup\": -1, \"verify\": 1, \"cpu_budget_s\": 0, \"output\": \"\",\n"
                  " \"description\": 3}");
    assert_line(errors, PATH ": primitve: ", "unknown key 'primitve' (did you mean 'primitive'?)");
    assert_line(errors, PATH ": name: ", "\"a b\" is not a valid name");
    assert_line(errors, PATH ": backends[0]: ", "unknown backend 'cubb'");
    assert_line(errors, PATH ": backends[0]: ", "(did you mean 'cub'?)");
    assert_line(errors, PATH ": backends[2]: ", "'reduce/cpu' is already listed at backends[1]");
    assert_line(errors, PATH ": backends[3]: ", "5 is not a backend name");
    assert_line(errors, PATH ": sweep.nn: ",
                "unknown axis 'nn' of primitive 'reduce' "
                "(did you mean 'n'?)");
    assert_line(errors, PATH ": sweep.n[0]: ", "1.5 is not an integer");
    assert_line(errors, PATH ": sweep.n[1]: ", "\"x\" is not an integer");
    assert_line(errors, PATH ": sweep.n[2]: ",
                "17179869185 is outside the valid range "
                "1..17179869184");
    assert_line(errors, PATH ": sweep.dtype[0]: ", "unknown dtype 'u322' (did you mean 'u32'?)");
    assert_line(errors, PATH ": sweep.dtype[1]: ", "\"all\" cannot appear in a list");
    assert_line(errors, PATH ": sweep.op: ", "unknown op 'summ' (did you mean 'sum'?)");
    assert_line(errors,
                PATH ": sweep.distribution: ", "{...} is not a name, a list of names, or \"all\"");
    assert_line(errors, PATH ": warmup: ", "-1 is outside the valid range 0..1000000");
    assert_line(errors, PATH ": verify: ", "1 is not true or false");
    assert_line(errors, PATH ": cpu_budget_s: ", "0 is not a positive number of seconds");
    assert_line(errors, PATH ": output: ", "an empty path");
    assert_line(errors, PATH ": description: ", "3 is not a string");
    assert_lines(errors, 18);
    free(errors);
}

/* ---- names and suggestions -------------------------------------------------- */

static void test_unknown_primitive(void **state) {
    (void)state;
    expect_one("{\"primitive\": \"reduc\"}",
               PATH ": primitive: ", "unknown primitive 'reduc' (did you mean 'reduce'?)");
    /* Nothing close: the valid names are listed instead. */
    expect_one("{\"primitive\": \"histogram\"}", PATH ": primitive: ",
               "unknown primitive 'histogram' (expected one of: reduce, multisplit");
    expect_one("{}", PATH ": primitive: ", "missing (required; one of: reduce, multisplit");
    expect_one("{\"primitive\": 3}", PATH ": primitive: ", "3 is not a string");
}

static void test_unknown_keys_and_values(void **state) {
    (void)state;
    expect_one("{\"primitive\": \"reduce\", \"Reps\": 3}",
               PATH ": Reps: ", "unknown key 'Reps' (did you mean 'reps'?)");
    expect_one("{\"primitive\": \"reduce\", \"colour\": 3}", PATH ": colour: ",
               "unknown key 'colour' (expected one of: name, description, primitive,");
    expect_one("{\"primitive\": \"reduce\", \"sweep\": {\"dtypes\": \"u32\"}}",
               PATH ": sweep.dtypes: ",
               "unknown axis 'dtypes' of primitive 'reduce' "
               "(did you mean 'dtype'?)");
    expect_one("{\"primitive\": \"reduce\", \"sweep\": {\"distribution\": \"zipff\"}}",
               PATH ": sweep.distribution: ",
               "unknown distribution 'zipff' "
               "(did you mean 'zipf'?)");
    expect_one("{\"primitive\": \"reduce\", \"sweep\": {\"dtype\": \"q\"}}", PATH ": sweep.dtype: ",
               "unknown dtype 'q' (expected one of: u32, i32, u64, "
               "i64, f32, f64)");
    expect_one("{\"primitive\": \"reduce\", \"backends\": [\"reduce/cubb\"]}",
               PATH ": backends[0]: ",
               "unknown backend 'reduce/cubb' for primitive 'reduce' "
               "(did you mean 'reduce/cub'?)");
    expect_one("{\"primitive\": \"reduce\", \"backends\": \"thrust\"}", PATH ": backends: ",
               "unknown backend 'thrust' for primitive 'reduce' "
               "(expected one of: butterfly, cub, cpu)");
    /* A key holding a newline is escaped, so the message stays one line. */
    expect_one("{\"primitive\": \"reduce\", \"a\\nb\": 1}",
               PATH ": a\\u000ab: ", "unknown key 'a\\u000ab'");
    expect_one("{\"primitive\": \"reduce\", \"cache\": \"colde\"}",
               PATH ": cache: ", "unknown cache mode 'colde' (did you mean 'cold'?)");
    expect_one("{\"primitive\": \"reduce\", \"cache\": true}",
               PATH ": cache: ", "true is not a string (expected one of: cold, hot)");
}

static void test_names(void **state) {
    (void)state;
    expect_one("{\"primitive\": \"reduce\", \"name\": \"r/x\"}", PATH ": name: ",
               "\"r/x\" is not a valid name (use letters, digits, '_', '.' and '-')");
    expect_one("{\"primitive\": \"reduce\", \"name\": \"\"}",
               PATH ": name: ", "\"\" is not a valid name");
    expect_one("{\"primitive\": \"reduce\", \"name\": 5}", PATH ": name: ", "5 is not a string");

    /* Without "name", the file name must make a valid one. */
    struct pb_config cfg;
    char *errors = NULL;
    const char *text = "{\"primitive\": \"reduce\"}";
    assert_int_equal(pb_config_parse("configs/my config.json", text, strlen(text), &cfg, &errors),
                     2);
    assert_line(errors, "configs/my config.json: name: ",
                "missing, and the file name gives 'my config', which is not a valid name");
    assert_lines(errors, 1);
    free(errors);
}

/* ---- JSON text -------------------------------------------------------------- */

static void test_malformed_json(void **state) {
    (void)state;
    expect_one("{\n  \"primitive\": \"reduce\"\n  \"reps\": 5\n}\n",
               PATH ": line 3, column 3: ", "malformed JSON");
    expect_one("{\"primitive\": \"reduce\"} trailing", PATH ": line 1, column ", "malformed JSON");
    expect_one("{\"primitive\": \"reduce\",\n \"sweep\": {\"n\": [1, 2", PATH ": line 2, column ",
               "malformed JSON");
    expect_one("{\"primitive\": 'reduce'}", PATH ": line 1, column 15: ", "malformed JSON");
    /* A lone surrogate escape is not a character. */
    expect_one("{\"primitive\": \"reduce\", \"description\": \"\\ud800\"}",
               PATH ": line 1, column 41: ", "\\ud800 is half of a UTF-16 surrogate pair");
}

static void test_empty_and_non_object_text(void **state) {
    (void)state;
    expect_one("", PATH ": ", "the file is empty");
    expect_one(" \n\t\r\n", PATH ": ", "the file is empty");
    expect_one("[1, 2]", PATH ": ", "the top level is an array; a config is a JSON object");
    expect_one("\"reduce\"", PATH ": ", "the top level is a string");
}

/* "{" repeated, then a matching tail: depth counts the top-level object. */
static char *nested(int depth) {
    const char *head = "{\"primitive\": \"reduce\", \"description\": ";
    size_t len = strlen(head) + 2 * (size_t)depth + 2;
    char *text = malloc(len);
    strcpy(text, head);
    memset(text + strlen(head), '[', (size_t)depth - 1);
    memset(text + strlen(head) + depth - 1, ']', (size_t)depth - 1);
    strcpy(text + strlen(head) + 2 * (depth - 1), "}");
    return text;
}

static void test_nesting_limit(void **state) {
    (void)state;
    /* 64 levels are read (and then fail as a description, which must be a string). */
    char *text = nested(64);
    char *errors = errors_of(text);
    assert_line(errors, PATH ": description: ", "[...] is not a string");
    assert_lines(errors, 1);
    free(errors);
    free(text);

    text = nested(65);
    expect_one(text, PATH ": line 1, column ", "nesting deeper than 64 levels");
    free(text);

    /* Past cJSON's own limit too: one line, not a parse failure. */
    text = nested(5000);
    expect_one(text, PATH ": line 1, column 103: ", "nesting deeper than 64 levels");
    free(text);
}

static void test_encoding(void **state) {
    (void)state;
    char *errors = errors_of("{\"primitive\": \"reduce\",\n"
                             " \"description\": \"caf\xe9 \xff\"}");
    assert_line(errors, PATH ": line 2, column 21: ", "invalid UTF-8 byte 0xe9 in a string");
    assert_line(errors, PATH ": line 2, column 23: ", "invalid UTF-8 byte 0xff in a string");
    assert_lines(errors, 2);
    free(errors);
    /* Overlong "/" and an encoded surrogate are not UTF-8 either. */
    expect_one("{\"primitive\": \"reduce\", \"description\": \"\xc0\xaf\"}",
               PATH ": line 1, column 41: ", "invalid UTF-8 byte 0xc0");
    expect_one("{\"primitive\": \"reduce\", \"description\": \"\xed\xa0\x80\"}",
               PATH ": line 1, column 41: ", "invalid UTF-8 byte 0xed");
    expect_one("{\"primitive\": \"reduce\", \"description\": \"a\tb\"}",
               PATH ": line 1, column 42: ", "control character 0x09 in a string");
    expect_one("{\"primitive\": \"reduce\", \"description\": \"a\\u0000b\"}",
               PATH ": line 1, column 42: ", "\\u0000 is not allowed in a string");

    /* An embedded NUL byte ends nothing early: it is reported where it is. */
    const char text[] = "{\"primitive\": \"reduce\"}\0{}";
    struct pb_config cfg;
    errors = NULL;
    assert_int_equal(pb_config_parse(PATH, text, sizeof text - 1, &cfg, &errors), 2);
    assert_line(errors, PATH ": line 1, column 24: ", "control character 0x00");
    free(errors);
}

static void test_duplicate_keys(void **state) {
    (void)state;
    expect_one("{\"primitive\": \"reduce\", \"reps\": 3, \"reps\": 4}",
               PATH ": reps: ", "duplicate key");
    expect_one("{\"primitive\": \"reduce\", \"sweep\": {\"n\": 8, \"dtype\": \"u32\", \"n\": 16}}",
               PATH ": sweep.n: ", "duplicate key");
    expect_one("{\"primitive\": \"reduce\", \"sweep\": {\"n\": "
               "{\"from\": 1, \"to\": 8, \"scale\": \"pow2\", \"to\": 4}}}",
               PATH ": sweep.n.to: ", "duplicate key");
    /* Inside arrays too, and an unknown key that repeats is unknown once. */
    char *errors = errors_of("{\"primitive\": \"reduce\", \"zip\": [{\"a\": 1, \"a\": 2}],"
                             " \"x\": 1, \"x\": 2}");
    assert_line(errors, PATH ": zip[0].a: ", "duplicate key");
    assert_line(errors, PATH ": x: ", "duplicate key");
    assert_line(errors, PATH ": x: ", "unknown key 'x'");
    assert_line(errors, PATH ": zip[0]: ", "is not a list of axis names");
    assert_lines(errors, 4);
    free(errors);
}

/* ---- numbers ---------------------------------------------------------------- */

static void test_integers(void **state) {
    (void)state;
    expect_one("{\"primitive\": \"reduce\", \"sweep\": {\"n\": 1024.5}}",
               PATH ": sweep.n: ", "1024.5 is not an integer (expected an integer 1..17179869184)");
    expect_one("{\"primitive\": \"reduce\", \"sweep\": {\"n\": [1, 2, -5]}}", PATH ": sweep.n[2]: ",
               "-5 is not a positive integer (expected an integer "
               "1..17179869184)");
    expect_one("{\"primitive\": \"reduce\", \"sweep\": {\"n\": 0}}",
               PATH ": sweep.n: ", "0 is not a positive integer");
    expect_one("{\"primitive\": \"reduce\", \"sweep\": {\"n\": 17179869185}}",
               PATH ": sweep.n: ", "17179869185 is outside the valid range 1..17179869184");
    expect_one("{\"primitive\": \"reduce\", \"reps\": \"ten\"}",
               PATH ": reps: ", "\"ten\" is not an integer (expected an integer 1..1000000)");
    expect_one("{\"primitive\": \"reduce\", \"reps\": 0}",
               PATH ": reps: ", "0 is not a positive integer (expected an integer 1..1000000)");
    expect_one("{\"primitive\": \"reduce\", \"reps\": null}",
               PATH ": reps: ", "null is not an integer");
    expect_one("{\"primitive\": \"reduce\", \"warmup\": 2.25}",
               PATH ": warmup: ", "2.25 is not an integer");
    expect_one("{\"primitive\": \"reduce\", \"reps\": 1e999}",
               PATH ": reps: ", "a number too large for a double is not an integer");
    expect_one("{\"primitive\": \"reduce\", \"cpu_budget_s\": -1}",
               PATH ": cpu_budget_s: ", "-1 is not a positive number of seconds");
    expect_one("{\"primitive\": \"reduce\", \"cpu_budget_s\": \"2\"}",
               PATH ": cpu_budget_s: ", "\"2\" is not a positive number of seconds");
}

static void test_integers_past_2_to_53(void **state) {
    (void)state;
    /* 2^53 + 1 reads as 2^53: past 2^53 - 1 a JSON number cannot be trusted. */
    expect_one("{\"primitive\": \"reduce\", \"seed\": 9007199254740993}", PATH ": seed: ",
               "a number beyond 2^53 - 1 (read as 9007199254740992) may not hold the integer "
               "written; write a seed this large as a string of digits");
    expect_one("{\"primitive\": \"reduce\", \"seed\": 9007199254740992}",
               PATH ": seed: ", "beyond 2^53 - 1");
    expect_one("{\"primitive\": \"reduce\", \"seed\": \"18446744073709551616\"}",
               PATH ": seed: ", "is not an integer (expected 0..18446744073709551615");
    expect_one("{\"primitive\": \"reduce\", \"seed\": \"12a\"}",
               PATH ": seed: ", "\"12a\" is not an integer");
    expect_one("{\"primitive\": \"reduce\", \"seed\": \"-1\"}",
               PATH ": seed: ", "\"-1\" is not an integer");
    expect_one("{\"primitive\": \"reduce\", \"seed\": -1}",
               PATH ": seed: ", "-1 is outside the valid range 0..9007199254740991");
}

/* ---- sweep values ----------------------------------------------------------- */

static void test_bad_ranges(void **state) {
    (void)state;
    expect_one("{\"primitive\": \"reduce\", \"sweep\": {\"n\": "
               "{\"from\": 4096, \"to\": 1024, \"scale\": \"pow2\"}}}",
               PATH ": sweep.n: ", "\"from\" (4096) is greater than \"to\" (1024)");
    expect_one("{\"primitive\": \"reduce\", \"sweep\": {\"n\": "
               "{\"from\": 0, \"to\": 1024, \"scale\": \"pow2\"}}}",
               PATH ": sweep.n.from: ", "0 is not a positive integer");
    expect_one("{\"primitive\": \"reduce\", \"sweep\": {\"n\": "
               "{\"from\": 1, \"to\": 17179869185, \"scale\": \"pow2\"}}}",
               PATH ": sweep.n.to: ", "17179869185 is outside the valid range 1..17179869184");
    expect_one("{\"primitive\": \"reduce\", \"sweep\": {\"n\": "
               "{\"from\": 1, \"to\": 1024, \"scale\": \"pow2\", \"step\": 2}}}",
               PATH ": sweep.n.step: ", "\"step\" applies only to \"scale\": \"linear\"");
    expect_one("{\"primitive\": \"reduce\", \"sweep\": {\"n\": "
               "{\"from\": 1, \"to\": 1024, \"scale\": \"linear\", \"step\": 0}}}",
               PATH ": sweep.n.step: ", "0 is not a positive integer");
    expect_one("{\"primitive\": \"reduce\", \"sweep\": {\"n\": {\"from\": 1, \"to\": 1024}}}",
               PATH ": sweep.n.scale: ", "missing");
    expect_one("{\"primitive\": \"reduce\", \"sweep\": {\"n\": "
               "{\"from\": 1, \"to\": 1024, \"scale\": \"pow3\"}}}",
               PATH ": sweep.n.scale: ", "unknown scale 'pow3' (did you mean 'pow2'?)");
    expect_one("{\"primitive\": \"reduce\", \"sweep\": {\"n\": "
               "{\"fro\": 1, \"from\": 1, \"to\": 8, \"scale\": \"pow2\"}}}",
               PATH ": sweep.n.fro: ", "unknown key 'fro' in a range (did you mean 'from'?)");
    expect_one("{\"primitive\": \"reduce\", \"sweep\": {\"n\": "
               "{\"from\": 1, \"to\": 1000000000, \"scale\": \"linear\"}}}",
               PATH ": sweep.n: ",
               "the range gives 1000000000 values (an axis may have at "
               "most 100000)");
    /* A range with everything missing reports each missing part. */
    char *errors = errors_of("{\"primitive\": \"reduce\", \"sweep\": {\"n\": {}}}");
    assert_line(errors, PATH ": sweep.n.from: ", "missing");
    assert_line(errors, PATH ": sweep.n.to: ", "missing");
    assert_line(errors, PATH ": sweep.n.scale: ", "missing");
    assert_lines(errors, 3);
    free(errors);
}

static void test_bad_axis_values(void **state) {
    (void)state;
    expect_one("{\"primitive\": \"reduce\", \"sweep\": {\"n\": \"all\"}}",
               PATH ": sweep.n: ", "\"all\" applies only to axes with named values");
    expect_one("{\"primitive\": \"reduce\", \"sweep\": {\"n\": []}}",
               PATH ": sweep.n: ", "an empty list");
    expect_one("{\"primitive\": \"reduce\", \"sweep\": {\"dtype\": []}}",
               PATH ": sweep.dtype: ", "an empty list");
    expect_one("{\"primitive\": \"reduce\", \"sweep\": {\"n\": true}}",
               PATH ": sweep.n: ", "true is not an integer, a list of integers, or a range");
    expect_one("{\"primitive\": \"reduce\", \"sweep\": {\"op\": 3}}", PATH ": sweep.op: ",
               "3 is not a name, a list of names, or \"all\" (op takes: sum, min, max, argmin)");
    expect_one("{\"primitive\": \"reduce\", \"sweep\": {\"dtype\": [\"u32\", 7]}}",
               PATH ": sweep.dtype[1]: ", "7 is not a string (expected one of: u32,");
    expect_one("{\"primitive\": \"reduce\", \"sweep\": [1]}",
               PATH ": sweep: ", "[...] is not an object");
}

static void test_repeated_cases(void **state) {
    (void)state;
    char *errors = errors_of("{\"primitive\": \"reduce\", \"sweep\": "
                             "{\"n\": [1, 2, 1, 3, 2], \"dtype\": [\"u32\", \"u32\"]}}");
    assert_line(errors, PATH ": sweep.n[2]: ", "1 is already listed at sweep.n[0]");
    assert_line(errors, PATH ": sweep.n[4]: ", "2 is already listed at sweep.n[1]");
    assert_line(errors, PATH ": sweep.dtype[1]: ", "\"u32\" is already listed at sweep.dtype[0]");
    assert_lines(errors, 3);
    free(errors);
    expect_one("{\"primitive\": \"reduce\", \"sweep\": {\"n\": [1, 2, 1], "
               "\"dtype\": [\"u32\", \"i32\", \"u32\"]}, \"zip\": [[\"dtype\", \"n\"]]}",
               PATH ": zip[0]: ", "entry 2 (n=1 dtype=\"u32\") repeats entry 0");
}

static void test_sweep_size_limit(void **state) {
    (void)state;
    expect_one(
        "{\"primitive\": \"reduce\", \"sweep\": {\"n\": "
        "{\"from\": 1, \"to\": 100000, \"scale\": \"linear\"}, \"dtype\": \"all\", "
        "\"distribution\": \"all\"}}",
        PATH ": sweep: ",
        "expands to 6600000 cases (over the limit of 1000000; use --force to run it anyway)");
}

/* ---- zip -------------------------------------------------------------------- */

static void test_bad_zip(void **state) {
    (void)state;
    expect_one("{\"primitive\": \"reduce\", \"sweep\": {\"n\": [1, 2, 3], "
               "\"dtype\": [\"u32\", \"f32\"]}, \"zip\": [[\"n\", \"dtype\"]]}",
               PATH ": zip[0]: ",
               "the axes of a zip group need equal numbers of values "
               "(n: 3, dtype: 2)");
    /* An omitted axis has one value, its default. */
    expect_one("{\"primitive\": \"reduce\", \"sweep\": {\"n\": [1, 2]}, "
               "\"zip\": [[\"n\", \"op\"]]}",
               PATH ": zip[0]: ", "(n: 2, op: 1)");
    expect_one("{\"primitive\": \"reduce\", \"zip\": [[\"n\", \"dtyp\"]]}", PATH ": zip[0][1]: ",
               "unknown axis 'dtyp' of primitive 'reduce' (did you mean 'dtype'?)");
    expect_one("{\"primitive\": \"reduce\", \"zip\": [[\"n\", \"dtype\"], [\"op\", \"n\"]]}",
               PATH ": zip[1][1]: ", "axis 'n' is already in zip[0]");
    expect_one("{\"primitive\": \"reduce\", \"zip\": [[\"op\", \"op\"]]}",
               PATH ": zip[0][1]: ", "axis 'op' is already in zip[0]");
    expect_one("{\"primitive\": \"reduce\", \"zip\": [[\"n\"]]}",
               PATH ": zip[0]: ", "a zip group needs at least two axes");
    char *errors = errors_of("{\"primitive\": \"reduce\", \"zip\": [\"n\", \"dtype\"]}");
    assert_line(errors, PATH ": zip[0]: ", "\"n\" is not a list of axis names");
    assert_line(errors, PATH ": zip[1]: ", "\"dtype\" is not a list of axis names");
    assert_lines(errors, 2);
    free(errors);
    expect_one("{\"primitive\": \"reduce\", \"zip\": {\"n\": \"dtype\"}}",
               PATH ": zip: ", "{...} is not a list of axis groups");
    expect_one("{\"primitive\": \"reduce\", \"zip\": [[\"n\", 4]]}",
               PATH ": zip[0][1]: ", "4 is not an axis name");
}

static void test_bad_backends(void **state) {
    (void)state;
    expect_one("{\"primitive\": \"reduce\", \"backends\": []}",
               PATH ": backends: ", "an empty list");
    expect_one("{\"primitive\": \"reduce\", \"backends\": 2}",
               PATH ": backends: ", "2 is not \"all\", a backend name, or a list of them");
    expect_one("{\"primitive\": \"reduce\", \"backends\": [\"cub\", \"reduce/cub\"]}",
               PATH ": backends[1]: ", "'reduce/cub' is already listed at backends[0]");
    expect_one("{\"primitive\": \"reduce\", \"backends\": [\"scan/cub\"]}",
               PATH ": backends[0]: ", "unknown backend 'scan/cub' for primitive 'reduce'");
}

/* ---- files ------------------------------------------------------------------ */

struct scratch {
    char dir[64];
    char path[128];
};

static int make_scratch(void **state) {
    struct scratch *s = calloc(1, sizeof *s);
    if (!s) {
        return -1;
    }
    strcpy(s->dir, "/tmp/pb_test_config_XXXXXX");
    if (!mkdtemp(s->dir)) {
        free(s);
        return -1;
    }
    *state = s;
    return 0;
}

static int remove_scratch(void **state) {
    struct scratch *s = *state;
    char path[160];
    const char *names[] = {"empty.json", "good.json", "sub.json"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", s->dir, names[i]);
        if (strcmp(names[i], "sub.json") == 0) {
            rmdir(path);
        } else {
            unlink(path);
        }
    }
    rmdir(s->dir);
    free(s);
    return 0;
}

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}

static void expect_load_failure(const char *path, const char *message) {
    struct pb_config cfg;
    char *errors = NULL;
    assert_int_equal(pb_config_load(path, &cfg, &errors), 2);
    char prefix[200];
    snprintf(prefix, sizeof prefix, "%s: ", path);
    assert_line(errors, prefix, message);
    assert_lines(errors, 1);
    assert_null(cfg.text);
    free(errors);
}

static void test_load_missing_file(void **state) {
    struct scratch *s = *state;
    snprintf(s->path, sizeof s->path, "%s/absent.json", s->dir);
    char message[128];
    snprintf(message, sizeof message, "cannot open: %s", strerror(ENOENT));
    expect_load_failure(s->path, message);
}

static void test_load_directory(void **state) {
    struct scratch *s = *state;
    snprintf(s->path, sizeof s->path, "%s/sub.json", s->dir);
    assert_int_equal(mkdir(s->path, 0700), 0);
    expect_load_failure(s->path, "is a directory, not a config file");
}

static void test_load_empty_file(void **state) {
    struct scratch *s = *state;
    snprintf(s->path, sizeof s->path, "%s/empty.json", s->dir);
    write_file(s->path, "");
    expect_load_failure(s->path, "the file is empty (expected a JSON object)");
}

static void test_load_good_file(void **state) {
    struct scratch *s = *state;
    snprintf(s->path, sizeof s->path, "%s/good.json", s->dir);
    const char *text = "{\"primitive\": \"reduce\"}\n";
    write_file(s->path, text);
    struct pb_config cfg;
    char *errors = NULL;
    assert_int_equal(pb_config_load(s->path, &cfg, &errors), 0);
    assert_null(errors);
    assert_string_equal(cfg.path, s->path);
    assert_string_equal(cfg.name, "good");
    assert_string_equal(cfg.text, text);
    assert_true(cfg.hash == 0xdcd8700b2080aec6ULL);
    pb_config_free(&cfg);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_config_is_read),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_name_from_path_without_json_suffix),
        cmocka_unit_test(test_backend_forms),
        cmocka_unit_test(test_value_forms),
        cmocka_unit_test(test_utf8_text_is_accepted),
        cmocka_unit_test(test_three_problems_three_lines),
        cmocka_unit_test(test_many_problems_all_reported),
        cmocka_unit_test(test_unknown_primitive),
        cmocka_unit_test(test_unknown_keys_and_values),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_malformed_json),
        cmocka_unit_test(test_empty_and_non_object_text),
        cmocka_unit_test(test_nesting_limit),
        cmocka_unit_test(test_encoding),
        cmocka_unit_test(test_duplicate_keys),
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_integers_past_2_to_53),
        cmocka_unit_test(test_bad_ranges),
        cmocka_unit_test(test_bad_axis_values),
        cmocka_unit_test(test_repeated_cases),
        cmocka_unit_test(test_sweep_size_limit),
        cmocka_unit_test(test_bad_zip),
        cmocka_unit_test(test_bad_backends),
        cmocka_unit_test_setup_teardown(test_load_missing_file, make_scratch, remove_scratch),
        cmocka_unit_test_setup_teardown(test_load_directory, make_scratch, remove_scratch),
        cmocka_unit_test_setup_teardown(test_load_empty_file, make_scratch, remove_scratch),
        cmocka_unit_test_setup_teardown(test_load_good_file, make_scratch, remove_scratch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
