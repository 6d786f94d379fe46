/* bench report: the table's layout (default and chosen axes, one table per value of the
 * remaining axes), cells with their intervals, rows that are not ok, speedups over a
 * baseline, bad options, and the bench binary's exit codes (argv[1]). Run from tests/. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "report_table.h"

#define DATA "data/compare/"

static const char *bench;

/* The report of path with o, as a string the caller frees; NULL (message in err) on -1. */
static char *report(const char *path, const struct pb_report_options *o, char *err, size_t len) {
    struct pb_results_table t;
    assert_int_equal(pb_results_table_load(path, &t, err, len), 0);
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    assert_non_null(out);
    int rc = pb_report_table(out, &t, o, err, len);
    fclose(out);
    pb_results_table_free(&t);
    if (rc != 0) {
        free(text);
        return NULL;
    }
    return text;
}

static void assert_holds(const char *text, const char *expected) {
    if (!text)
        fail_msg("no report (it failed) where one holding\n%s\nwas expected", expected);
    else if (!strstr(text, expected))
        fail_msg("no\n%s\nin\n%s", expected, text);
}

static void decimals_keep_four_significant_digits(void **state) {
    (void)state;
    assert_int_equal(pb_report_decimals(361.234), 1);
    assert_int_equal(pb_report_decimals(0.2193), 4);
    assert_int_equal(pb_report_decimals(0.000248595), 7);
    assert_int_equal(pb_report_decimals(12345.6), 0);
    assert_int_equal(pb_report_decimals(1.0), 3);
    assert_int_equal(pb_report_decimals(0.0), 0);
}

static void default_layout_puts_the_last_varying_axis_in_columns(void **state) {
    (void)state;
    char err[512];
    struct pb_report_options o = {.metric = pb_metric_find("gelem_per_s")};
    char *text = report(DATA "base.csv", &o, err, sizeof err);
    assert_non_null(text);
    /* op is the last axis that varies; distribution does not, so it is in the caption */
    assert_holds(text, "**reduce: gelem_per_s (Gelem/s), 95% interval in parentheses**, from " DATA
                       "base.csv; for distribution=uniform\n");
    assert_holds(text, "| n | dtype | backend | op=sum | op=min |\n|---|---|---|---:|---:|\n");
    /* 16777216 / 0.0280022 ms = 599.138 Gelem/s, the interval from the CSV's own columns */
    assert_holds(
        text, "| 16777216 | u32 | reduce/butterfly | 599.1 (595.9-602.4) | 598.7 (595.5-601.9) |");
    assert_holds(text, "| 1024 | u32 | reduce/butterfly | 0.2193 (0.2152-0.2236) |");
    assert_null(strstr(text, "###")); /* every varying axis is a row or the column */
    int lines = 0;
    for (const char *p = text; *p; p++) lines += *p == '\n';
    assert_int_equal(lines, 2 + 2 + 36 / 2); /* caption, blank, header, rule, rows */
    free(text);
}

static void chosen_axes_split_the_rest_into_tables(void **state) {
    (void)state;
    char err[512];
    const char *rows[] = {"dtype"};
    struct pb_report_options o = {
        .rows = rows, .nrows = 1, .cols = "n", .metric = pb_metric_find("mean_ms")};
    char *text = report(DATA "failing.csv", &o, err, sizeof err);
    assert_non_null(text);
    const char *sum = strstr(text, "\n### op=sum\n"), *min = strstr(text, "\n### op=min\n");
    assert_non_null(sum);
    assert_non_null(min);
    assert_true(sum < min); /* the CSV's order */
    assert_holds(sum, "| dtype | backend | n=1024 | n=1048576 | n=16777216 |\n");
    /* mean_ms with ci95_low_ms .. ci95_high_ms; the rows that are not ok say so */
    assert_holds(sum, "| u32 | reduce/butterfly | 0.004669 (0.004579-0.004759) |");
    assert_holds(sum, "| f32 | reduce/cub | 0.005621 (0.005517-0.005725) | skipped |");
    assert_holds(min, "| u32 | reduce/butterfly | wrong | 0.008371 (0.008266-0.008475) |");
    free(text);
}

static void metrics_without_an_interval_show_the_value_alone(void **state) {
    (void)state;
    char err[512];
    const char *rows[] = {"op", "dtype"};
    struct pb_report_options o = {.rows = rows, .nrows = 2, .metric = pb_metric_find("median_ms")};
    char *text = report(DATA "base.csv", &o, err, sizeof err);
    assert_non_null(text);
    assert_holds(text, "| op | dtype | backend | n=1024 | n=1048576 | n=16777216 |\n");
    assert_holds(text, "| sum | u32 | reduce/butterfly | 0.004640 | 0.008144 | 0.02774 |\n");
    free(text);
    /* a CPU row has no bound_fraction (no copy bound for the host): n/a, not a number */
    o.metric = pb_metric_find("bound_fraction");
    text = report(DATA "base.csv", &o, err, sizeof err);
    assert_non_null(text);
    assert_holds(text, "| sum | u32 | reduce/cpu | n/a | n/a | n/a |\n");
    assert_holds(text, "| sum | u32 | reduce/butterfly | 0.0002067 (0.0002028-0.0002108) |");
    free(text);
}

static void a_baseline_turns_cells_into_speedups(void **state) {
    (void)state;
    char err[512];
    const char *rows[] = {"op", "dtype"};
    struct pb_report_options o = {
        .rows = rows, .nrows = 2, .metric = pb_metric_find("gelem_per_s"), .baseline = "cub"};
    char *text = report(DATA "base.csv", &o, err, sizeof err);
    assert_non_null(text);
    assert_holds(text, "**reduce: speedup over reduce/cub in gelem_per_s (Gelem/s; above 1 is "
                       "better), in parentheses from the ends of both 95% intervals**, from " DATA
                       "base.csv; for distribution=uniform\n");
    /* 0.219298 / 0.180059 Gelem/s; the ends 0.21515 / 0.183141 and 0.22361 / 0.177078 */
    assert_holds(text, "| sum | u32 | reduce/butterfly | 1.218 (1.175-1.263) |");
    assert_null(strstr(text, "reduce/cub |")); /* the baseline's own rows are left out */
    free(text);
    /* in time, the baseline's over the row's: the same ratio, the same interval */
    o.metric = pb_metric_find("mean_ms");
    o.baseline = "reduce/cub";
    text = report(DATA "base.csv", &o, err, sizeof err);
    assert_holds(text, "| sum | u32 | reduce/butterfly | 1.218 (1.175-1.263) |");
    free(text);
    /* a row that is not ok says so; one whose case the baseline lacks a number for is n/a */
    const char *dtype[] = {"dtype"};
    o = (struct pb_report_options){.rows = dtype,
                                   .nrows = 1,
                                   .cols = "n",
                                   .metric = pb_metric_find("mean_ms"),
                                   .baseline = "cub"};
    text = report(DATA "failing.csv", &o, err, sizeof err);
    const char *min = text ? strstr(text, "\n### op=min\n") : NULL;
    assert_non_null(min);
    assert_holds(text,
                 "| f32 | reduce/butterfly | 1.224 (1.178-1.271) | n/a | 1.032 (1.019-1.044) |");
    assert_holds(min, "| u32 | reduce/butterfly | wrong | 1.123 (1.094-1.153) |");
    free(text);
    /* an unknown baseline names the backends there are */
    o.baseline = "thrust";
    assert_null(report(DATA "base.csv", &o, err, sizeof err));
    assert_string_equal(err, DATA "base.csv: --baseline: no backend 'thrust' (backends: "
                                  "reduce/butterfly, reduce/cub, reduce/cpu)");
}

static void bad_axes_are_reported(void **state) {
    (void)state;
    char err[512];
    const char *rows[] = {"dtype", "bogus"};
    struct pb_report_options o = {.rows = rows, .nrows = 2, .metric = pb_metric_find("mean_ms")};
    assert_null(report(DATA "base.csv", &o, err, sizeof err));
    assert_string_equal(err, DATA "base.csv: --rows: 'bogus' is not an axis of this file (axes: "
                                  "n, dtype, distribution, op)");
    const char *twice[] = {"n"};
    o = (struct pb_report_options){
        .rows = twice, .nrows = 1, .cols = "n", .metric = pb_metric_find("mean_ms")};
    assert_null(report(DATA "base.csv", &o, err, sizeof err));
    assert_string_equal(err, DATA "base.csv: 'n' cannot be both in --rows and --cols");
    o = (struct pb_report_options){.cols = "status", .metric = pb_metric_find("mean_ms")};
    assert_null(report(DATA "base.csv", &o, err, sizeof err));
    assert_holds(err, "--cols: 'status' is not an axis");
}

static int run(const char *args) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' report %s > /dev/null 2>&1", bench, args);
    int status = system(cmd);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static void cli_exit_codes(void **state) {
    (void)state;
    assert_int_equal(run(DATA "base.csv"), 0);
    assert_int_equal(run("--rows dtype,op --cols n --metric gbytes_per_s " DATA "base.csv"), 0);
    assert_int_equal(run("--metric speed " DATA "base.csv"), 2);
    assert_int_equal(run("--cols nope " DATA "base.csv"), 2);
    assert_int_equal(run("--baseline cub " DATA "base.csv"), 0);
    assert_int_equal(run("--baseline nope " DATA "base.csv"), 2);
    assert_int_equal(run("--baseline"), 2);
    assert_int_equal(run(DATA "bad_number.csv"), 2);
    assert_int_equal(run(DATA "no_such_file.csv"), 2);
    assert_int_equal(run(""), 2);
    assert_int_equal(run("--help"), 0);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: test_report_table BENCH\n");
        return 2;
    }
    bench = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(decimals_keep_four_significant_digits),
        cmocka_unit_test(default_layout_puts_the_last_varying_axis_in_columns),
        cmocka_unit_test(chosen_axes_split_the_rest_into_tables),
        cmocka_unit_test(metrics_without_an_interval_show_the_value_alone),
        cmocka_unit_test(a_baseline_turns_cells_into_speedups),
        cmocka_unit_test(bad_axes_are_reported),
        cmocka_unit_test(cli_exit_codes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
