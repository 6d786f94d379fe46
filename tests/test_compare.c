/* bench compare: the classification of one pair, the join of two fixture CSVs (planted
 * slowdown, noise, speedup, failures, missing rows), unusable inputs, and the exit codes of
 * the bench binary (argv[1]). Run from tests/, where data/compare holds the fixtures. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "compare.h"

#define DATA "data/compare/"

static const char *bench;
static const struct pb_compare_options defaults = {.threshold_pct = 5.0, .alpha = 0.01};

static void tight_slowdown_is_slower(void **state) {
    (void)state;
    struct pb_timing base = {0.0280, 0.00077, 100}, next = {0.0336, 0.00093, 100};
    double change, p;
    assert_int_equal(pb_compare_timings(&base, &next, &defaults, &change, &p), PB_VERDICT_SLOWER);
    assert_float_equal(change, 20.0, 1e-9);
    assert_true(p < 1e-50);
    /* the same pair, seen from the other side, is a speedup */
    assert_int_equal(pb_compare_timings(&next, &base, &defaults, &change, &p), PB_VERDICT_FASTER);
    assert_float_equal(change, -100.0 / 6.0, 1e-9);
}

static void small_or_noisy_changes_are_not_flagged(void **state) {
    (void)state;
    double change, p;
    /* 1%: significant with 100 tight repetitions, but below the threshold */
    struct pb_timing base = {0.0280, 0.00077, 100}, one_percent = {0.02828, 0.00078, 100};
    assert_int_equal(pb_compare_timings(&base, &one_percent, &defaults, &change, &p),
                     PB_VERDICT_SAME);
    assert_true(p < 0.05);
    /* 10% with three widely spread repetitions: beyond the threshold, not significant */
    struct pb_timing cpu = {0.0179, 0.0022, 100}, noisy = {0.0197, 0.0059, 3};
    assert_int_equal(pb_compare_timings(&cpu, &noisy, &defaults, &change, &p),
                     PB_VERDICT_UNCERTAIN);
    assert_true(p > 0.01 && p < 1);
    /* one repetition has no spread: no test is possible, so a big change is uncertain */
    struct pb_timing single = {0.0336, NAN, 1};
    assert_int_equal(pb_compare_timings(&base, &single, &defaults, &change, &p),
                     PB_VERDICT_UNCERTAIN);
    assert_true(isnan(p));
    /* a stricter level turns a borderline slowdown into uncertain */
    struct pb_timing a = {1.0, 0.2, 20}, b = {1.15, 0.2, 20};
    assert_int_equal(pb_compare_timings(&a, &b, &defaults, &change, &p), PB_VERDICT_UNCERTAIN);
    struct pb_compare_options loose = {.threshold_pct = 5.0, .alpha = 0.05};
    assert_int_equal(pb_compare_timings(&a, &b, &loose, &change, &p), PB_VERDICT_SLOWER);
}

struct pair_of_files {
    struct pb_results_table base, next;
    struct pb_compare_result result;
};

static void compare_files(const char *base, const char *next, struct pair_of_files *f) {
    char err[1024] = "";
    assert_int_equal(pb_results_table_load(base, &f->base, err, sizeof err), 0);
    assert_int_equal(pb_results_table_load(next, &f->next, err, sizeof err), 0);
    assert_int_equal(pb_compare_tables(&f->base, &f->next, &defaults, &f->result, err, sizeof err),
                     0);
}

static void free_files(struct pair_of_files *f) {
    pb_compare_result_free(&f->result);
    pb_results_table_free(&f->base);
    pb_results_table_free(&f->next);
}

/* The pair whose BASE row describes as `what` with `backend`. */
static const struct pb_compare_pair *find_pair(const struct pair_of_files *f, const char *what,
                                               const char *backend) {
    char text[512];
    for (size_t i = 0; i < f->result.npairs; i++) {
        size_t row = f->result.pairs[i].base_row;
        pb_results_table_describe(&f->base, row, text, sizeof text);
        if (strcmp(text, what) == 0 &&
            strcmp(pb_results_table_field(&f->base, row, f->base.backend), backend) == 0)
            return &f->result.pairs[i];
    }
    fail_msg("no pair %s %s", what, backend);
    return NULL;
}

static void identical_files_are_all_same(void **state) {
    (void)state;
    struct pair_of_files f;
    compare_files(DATA "base.csv", DATA "base.csv", &f);
    assert_int_equal(f.result.npairs, 36);
    assert_int_equal(f.result.count[PB_VERDICT_SAME], 36);
    assert_int_equal(f.result.nonly_base + f.result.nonly_new, 0);
    assert_int_equal(pb_compare_exit_code(&f.result), 0);
    free_files(&f);
}

static void planted_slowdown_is_caught(void **state) {
    (void)state;
    struct pair_of_files f;
    compare_files(DATA "base.csv", DATA "slower.csv", &f);
    assert_int_equal(f.result.count[PB_VERDICT_SLOWER], 1);
    assert_int_equal(f.result.count[PB_VERDICT_SAME], 35);
    const struct pb_compare_pair *p =
        find_pair(&f, "n=16777216 dtype=u32 distribution=uniform op=sum", "reduce/butterfly");
    assert_int_equal(p->verdict, PB_VERDICT_SLOWER);
    assert_float_equal(p->change_pct, 20.0, 0.01);
    assert_int_equal(pb_compare_exit_code(&f.result), 1);
    /* the report names it */
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    pb_compare_print(out, &f.base, &f.next, &f.result, &defaults);
    fclose(out);
    assert_non_null(strstr(text, "| n=16777216 dtype=u32 distribution=uniform op=sum | "
                                 "reduce/butterfly | 0.028 | 0.0336 | +20.0 |"));
    assert_non_null(strstr(text, "| slower |\n"));
    assert_non_null(strstr(text, "36 pairs: 35 same, 0 faster, 1 slower,"));
    free(text);
    free_files(&f);
}

static void slowdown_inside_noise_is_not_flagged(void **state) {
    (void)state;
    struct pair_of_files f;
    compare_files(DATA "base.csv", DATA "noise.csv", &f);
    assert_int_equal(f.result.count[PB_VERDICT_SLOWER], 0);
    const struct pb_compare_pair *p =
        find_pair(&f, "n=16777216 dtype=u32 distribution=uniform op=sum", "reduce/butterfly");
    assert_int_equal(p->verdict, PB_VERDICT_SAME);
    assert_float_equal(p->change_pct, 1.0, 0.01);
    p = find_pair(&f, "n=1048576 dtype=f32 distribution=uniform op=sum", "reduce/cpu");
    assert_int_equal(p->verdict, PB_VERDICT_UNCERTAIN);
    assert_float_equal(p->change_pct, 10.0, 0.01);
    assert_int_equal(pb_compare_exit_code(&f.result), 0);
    free_files(&f);
}

static void speedup_never_fails(void **state) {
    (void)state;
    struct pair_of_files f;
    compare_files(DATA "base.csv", DATA "faster.csv", &f);
    const struct pb_compare_pair *p =
        find_pair(&f, "n=1048576 dtype=u32 distribution=uniform op=min", "reduce/cub");
    assert_int_equal(p->verdict, PB_VERDICT_FASTER);
    assert_float_equal(p->change_pct, -25.0, 0.01);
    assert_int_equal(f.result.count[PB_VERDICT_FASTER], 1);
    assert_int_equal(pb_compare_exit_code(&f.result), 0);
    free_files(&f);
}

static void rows_on_one_side_are_listed(void **state) {
    (void)state;
    struct pair_of_files f;
    compare_files(DATA "base.csv", DATA "missing.csv", &f);
    assert_int_equal(f.result.npairs, 35);
    assert_int_equal(f.result.nonly_base, 1);
    assert_int_equal(f.result.nonly_new, 1);
    char text[512];
    pb_results_table_describe(&f.base, f.result.only_base[0], text, sizeof text);
    assert_string_equal(text, "n=1024 dtype=f32 distribution=uniform op=min");
    assert_string_equal(pb_results_table_field(&f.base, f.result.only_base[0], f.base.backend),
                        "reduce/cpu");
    pb_results_table_describe(&f.next, f.result.only_new[0], text, sizeof text);
    assert_string_equal(text, "n=4096 dtype=u32 distribution=uniform op=sum");
    assert_int_equal(pb_compare_exit_code(&f.result), 0);
    char *out_text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&out_text, &len);
    pb_compare_print(out, &f.base, &f.next, &f.result, &defaults);
    fclose(out);
    assert_non_null(strstr(out_text, "Only in BASE (" DATA "base.csv): 1 row\n\n- n=1024 "
                                     "dtype=f32 distribution=uniform op=min reduce/cpu (ok)\n"));
    assert_non_null(strstr(out_text, "Only in NEW (" DATA "missing.csv): 1 row\n\n- n=4096 "
                                     "dtype=u32 distribution=uniform op=sum reduce/butterfly"));
    free(out_text);
    free_files(&f);
}

static void new_failures_fail_and_skips_do_not(void **state) {
    (void)state;
    struct pair_of_files f;
    compare_files(DATA "base.csv", DATA "failing.csv", &f);
    const struct pb_compare_pair *p =
        find_pair(&f, "n=1024 dtype=u32 distribution=uniform op=min", "reduce/butterfly");
    assert_int_equal(p->verdict, PB_VERDICT_FAILING);
    assert_true(isnan(p->change_pct));
    p = find_pair(&f, "n=1048576 dtype=f32 distribution=uniform op=sum", "reduce/cub");
    assert_int_equal(p->verdict, PB_VERDICT_NOT_COMPARABLE);
    assert_int_equal(pb_compare_exit_code(&f.result), 1);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    pb_compare_print(out, &f.base, &f.next, &f.result, &defaults);
    fclose(out);
    assert_non_null(strstr(text, "| failing: wrong in NEW |"));
    assert_non_null(strstr(text, "| not comparable: skipped in NEW |"));
    free(text);
    free_files(&f);
    /* the other way round, the broken rows are in BASE: nothing to hold against NEW */
    compare_files(DATA "failing.csv", DATA "base.csv", &f);
    assert_int_equal(f.result.count[PB_VERDICT_NOT_COMPARABLE], 2);
    assert_int_equal(pb_compare_exit_code(&f.result), 0);
    free_files(&f);
}

static void assert_load_fails(const char *path, const char *expected) {
    struct pb_results_table t;
    char err[1024] = "";
    assert_int_equal(pb_results_table_load(path, &t, err, sizeof err), -1);
    if (!strstr(err, expected)) fail_msg("'%s' does not hold '%s'", err, expected);
    assert_non_null(strstr(err, path));
    assert_null(strchr(err, '\n'));
}

static void unusable_files_are_rejected(void **state) {
    (void)state;
    assert_load_fails(DATA "short_row.csv", "line 5: 26 fields, but the header has 28");
    assert_load_fails(DATA "bad_number.csv", "line 7: mean_ms: 'fast' is not a number");
    assert_load_fails(DATA "unterminated.csv", "line 3: malformed CSV record, field 10");
    assert_load_fails(DATA "not_primbench.csv",
                      "not a primbench CSV: the header has no 'primitive'");
    assert_load_fails(DATA "empty.csv", "empty, not a primbench CSV");
    assert_load_fails(DATA "no_such_file.csv", "cannot open");
}

static void different_columns_or_duplicates_cannot_be_compared(void **state) {
    (void)state;
    struct pb_results_table base, other;
    struct pb_compare_result r;
    char err[1024] = "";
    assert_int_equal(pb_results_table_load(DATA "base.csv", &base, err, sizeof err), 0);
    assert_int_equal(pb_results_table_load(DATA "columns.csv", &other, err, sizeof err), 0);
    assert_int_equal(pb_compare_tables(&base, &other, &defaults, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, DATA "columns.csv: column 'cache' is not in " DATA "base.csv"));
    assert_int_equal(pb_compare_tables(&other, &base, &defaults, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "no column 'cache'"));
    pb_results_table_free(&other);
    /* a case twice in one file: which row to compare would be a guess */
    char path[] = "/tmp/pb_compare_dup_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    FILE *in = fopen(DATA "base.csv", "rb");
    assert_non_null(in);
    char line[4096];
    int lines = 0;
    while (fgets(line, sizeof line, in)) {
        fputs(line, f);
        if (++lines == 3) fputs(line, f); /* line 3 again, as line 4 */
    }
    fclose(in);
    fclose(f);
    assert_int_equal(pb_results_table_load(path, &other, err, sizeof err), 0);
    assert_int_equal(pb_compare_tables(&base, &other, &defaults, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "line 4: n=1024 dtype=u32 distribution=uniform op=sum "
                                "reduce/cub appears again (first on line 3)"));
    pb_results_table_free(&other);
    remove(path);
    pb_results_table_free(&base);
}

static int run_compare_lines(const char *args, char *err_line, size_t len, bool *more_lines);
static int run_compare(const char *args, char *err_line, size_t len);

/* A suite's output (tests/data/compare/make_suite_fixtures.py): every primitive in one CSV,
 * each row's axis columns blank where its primitive has no such axis. */
static void suite_rows_join_on_blank_axes(void **state) {
    (void)state;
    struct pair_of_files f;
    compare_files(DATA "suite_base.csv", DATA "suite_base.csv", &f);
    /* 21 axis columns, the union of the six primitives' axes */
    assert_int_equal(f.base.naxes, 21);
    assert_int_equal(f.result.npairs, 133);
    assert_int_equal(f.result.nonly_base + f.result.nonly_new, 0);
    assert_int_equal(f.result.count[PB_VERDICT_SLOWER] + f.result.count[PB_VERDICT_FASTER] +
                         f.result.count[PB_VERDICT_FAILING] + f.result.count[PB_VERDICT_UNCERTAIN],
                     0);
    /* every pair joins a row with itself: the same primitive, the same blanks */
    for (size_t i = 0; i < f.result.npairs; i++) {
        const struct pb_compare_pair *p = &f.result.pairs[i];
        assert_int_equal(p->base_row, p->new_row);
    }
    /* descriptions leave the blank columns out */
    const struct pb_compare_pair *p =
        find_pair(&f, "graph=rmat vertices=16384 density=10 weights=int source=0", "sssp/cpu-heap");
    assert_int_equal(p->verdict, PB_VERDICT_SAME);
    p = find_pair(&f, "n=16777216 dtype=f32 distribution=uniform op=sum", "reduce/cpu");
    assert_int_equal(p->verdict, PB_VERDICT_SAME);
    assert_int_equal(pb_compare_exit_code(&f.result), 0);
    free_files(&f);
}

static void suite_planted_slowdown_is_caught(void **state) {
    (void)state;
    struct pair_of_files f;
    compare_files(DATA "suite_base.csv", DATA "suite_slower.csv", &f);
    assert_int_equal(f.result.npairs, 133);
    assert_int_equal(f.result.count[PB_VERDICT_SLOWER], 1);
    assert_int_equal(f.result.count[PB_VERDICT_FAILING], 0);
    const struct pb_compare_pair *p =
        find_pair(&f, "graph=rmat vertices=16384 density=10 weights=int source=0", "sssp/cpu-heap");
    assert_int_equal(p->verdict, PB_VERDICT_SLOWER);
    assert_float_equal(p->change_pct, 20.0, 0.01);
    /* the grid row of the same backend, and the other primitives' rows, are untouched */
    p = find_pair(&f, "graph=grid vertices=16384 density=10 weights=int source=0", "sssp/cpu-heap");
    assert_int_equal(p->verdict, PB_VERDICT_SAME);
    assert_int_equal(pb_compare_exit_code(&f.result), 1);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    pb_compare_print(out, &f.base, &f.next, &f.result, &defaults);
    fclose(out);
    assert_non_null(strstr(text, "| graph=rmat vertices=16384 density=10 weights=int source=0 | "
                                 "sssp/cpu-heap | 2.168 | 2.601 | +20.0 |"));
    free(text);
    free_files(&f);
}

/* A row's blank is a value of its own: a blank never matches a filled column. */
static void suite_blank_does_not_match_a_value(void **state) {
    (void)state;
    char path[] = "/tmp/pb_compare_blank_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    FILE *in = fopen(DATA "suite_base.csv", "rb");
    assert_non_null(in);
    char line[4096];
    bool changed = false;
    while (fgets(line, sizeof line, in)) {
        /* the RMAT sssp/cpu-heap row gets an n, which its primitive does not have */
        if (strstr(line, ",rmat,") && strstr(line, ",sssp/cpu-heap,")) {
            assert_int_equal(line[0], ',');
            fputs("1024", f);
            changed = true;
        }
        fputs(line, f);
    }
    assert_true(changed);
    fclose(in);
    fclose(f);
    struct pair_of_files pf;
    compare_files(DATA "suite_base.csv", path, &pf);
    assert_int_equal(pf.result.npairs, 132);
    assert_int_equal(pf.result.nonly_base, 1);
    assert_int_equal(pf.result.nonly_new, 1);
    char text[512];
    pb_results_table_describe(&pf.next, pf.result.only_new[0], text, sizeof text);
    assert_string_equal(text, "n=1024 graph=rmat vertices=16384 density=10 weights=int source=0");
    free_files(&pf);
    remove(path);
}

/* The old single-primitive gate's baseline against a suite's output: refused, saying why. */
static void suite_against_single_primitive_baseline_is_refused(void **state) {
    (void)state;
    struct pb_results_table base, suite;
    struct pb_compare_result r;
    char err[1024] = "";
    assert_int_equal(pb_results_table_load(DATA "base.csv", &base, err, sizeof err), 0);
    assert_int_equal(pb_results_table_load(DATA "suite_base.csv", &suite, err, sizeof err), 0);
    assert_int_equal(pb_compare_tables(&base, &suite, &defaults, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, DATA "suite_base.csv: column 'values' is not in " DATA
                                     "base.csv: the column sets differ"));
    assert_non_null(strstr(err, DATA "base.csv holds reduce; " DATA
                                     "suite_base.csv holds reduce, multisplit, select, sort, sssp, "
                                     "merge"));
    assert_null(strchr(err, '\n'));
    pb_results_table_free(&suite);
    pb_results_table_free(&base);
    char line[1024];
    bool more;
    assert_int_equal(
        run_compare_lines(DATA "base.csv " DATA "suite_base.csv", line, sizeof line, &more), 2);
    assert_non_null(strstr(line, "the column sets differ"));
    assert_false(more);
    assert_int_equal(run_compare(DATA "suite_base.csv " DATA "suite_slower.csv", line, sizeof line),
                     1);
    assert_int_equal(run_compare(DATA "suite_base.csv " DATA "suite_base.csv", line, sizeof line),
                     0);
}

/* Runs bench compare; returns its exit code, with stderr's first line in err_line and whether
 * there were more in *more. */
static int run_compare_lines(const char *args, char *err_line, size_t len, bool *more_lines) {
    char cmd[2048], err_path[] = "/tmp/pb_compare_err_XXXXXX";
    int fd = mkstemp(err_path);
    assert_true(fd >= 0);
    snprintf(cmd, sizeof cmd, "'%s' compare %s > /dev/null 2> '%s'", bench, args, err_path);
    int status = system(cmd);
    FILE *f = fdopen(fd, "r");
    err_line[0] = '\0';
    if (!fgets(err_line, (int)len, f)) err_line[0] = '\0';
    char extra[256];
    *more_lines = fgets(extra, sizeof extra, f) != NULL;
    fclose(f);
    remove(err_path);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static int run_compare(const char *args, char *err_line, size_t len) {
    bool more;
    return run_compare_lines(args, err_line, len, &more);
}

/* An unusable file: exit 2 and one line that names it. */
static void assert_rejected(const char *args, const char *name) {
    char err[1024];
    bool more;
    assert_int_equal(run_compare_lines(args, err, sizeof err, &more), 2);
    if (!strstr(err, name)) fail_msg("'%s' does not name %s", err, name);
    assert_false(more);
}

static void cli_exit_codes(void **state) {
    (void)state;
    char err[1024];
    assert_int_equal(run_compare(DATA "base.csv " DATA "base.csv", err, sizeof err), 0);
    assert_int_equal(run_compare(DATA "base.csv " DATA "slower.csv", err, sizeof err), 1);
    assert_non_null(strstr(err, "1 slower, 0 failing in " DATA "slower.csv"));
    assert_int_equal(
        run_compare("--threshold 25 " DATA "base.csv " DATA "slower.csv", err, sizeof err), 0);
    assert_int_equal(run_compare(DATA "base.csv " DATA "noise.csv", err, sizeof err), 0);
    assert_int_equal(run_compare(DATA "base.csv " DATA "faster.csv", err, sizeof err), 0);
    assert_int_equal(run_compare(DATA "base.csv " DATA "missing.csv", err, sizeof err), 0);
    assert_int_equal(run_compare(DATA "base.csv " DATA "failing.csv", err, sizeof err), 1);
    const char *const unusable[] = {"short_row", "bad_number", "unterminated", "not_primbench",
                                    "empty",     "columns",    "no_such_file"};
    for (size_t i = 0; i < sizeof unusable / sizeof unusable[0]; i++) {
        char args[256], name[128];
        snprintf(name, sizeof name, DATA "%s.csv", unusable[i]);
        snprintf(args, sizeof args, DATA "base.csv %s", name);
        assert_rejected(args, name);
        /* BASE is checked as carefully as NEW */
        snprintf(args, sizeof args, "%s " DATA "base.csv", name);
        assert_rejected(args, name);
    }
    assert_int_equal(run_compare("--p 2 " DATA "base.csv " DATA "base.csv", err, sizeof err), 2);
    assert_non_null(strstr(err, "--p: '2'"));
    assert_int_equal(
        run_compare("--threshold -1 " DATA "base.csv " DATA "base.csv", err, sizeof err), 2);
    assert_int_equal(run_compare(DATA "base.csv", err, sizeof err), 2);
    assert_int_equal(run_compare("--help", err, sizeof err), 0);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: test_compare BENCH\n");
        return 2;
    }
    bench = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tight_slowdown_is_slower),
        cmocka_unit_test(small_or_noisy_changes_are_not_flagged),
        cmocka_unit_test(identical_files_are_all_same),
        cmocka_unit_test(planted_slowdown_is_caught),
        cmocka_unit_test(slowdown_inside_noise_is_not_flagged),
        cmocka_unit_test(speedup_never_fails),
        cmocka_unit_test(rows_on_one_side_are_listed),
        cmocka_unit_test(new_failures_fail_and_skips_do_not),
        cmocka_unit_test(unusable_files_are_rejected),
        cmocka_unit_test(different_columns_or_duplicates_cannot_be_compared),
        cmocka_unit_test(cli_exit_codes),
        cmocka_unit_test(suite_rows_join_on_blank_axes),
        cmocka_unit_test(suite_planted_slowdown_is_caught),
        cmocka_unit_test(suite_blank_does_not_match_a_value),
        cmocka_unit_test(suite_against_single_primitive_baseline_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
