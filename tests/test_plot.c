/* bench plot: figures of a fixture rendered into a temporary folder (script, data, PNG and
 * SVG, all non-empty and what they claim to be), the data behind them, a categorical x axis,
 * a bad baseline, and the bench binary (argv[1]) without gnuplot and with its default
 * folder. Skipped (77) without gnuplot. Run from tests/. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "plot.h"
#include "read_file.h"

#define DATA "data/compare/"

static const char *bench;

/* The whole of dir/name as a string the caller frees; fails the test when missing or empty. */
static char *slurp(const char *dir, const char *name, size_t *size) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t len = 0;
    char *text = read_whole_file(path, &len);
    if (!text) fail_msg("%s is missing", path);
    if (len == 0) fail_msg("%s is empty", path);
    if (size) *size = len;
    return text;
}

static void assert_figure(const char *dir, const char *stem) {
    char name[512];
    size_t size;
    snprintf(name, sizeof name, "%s.png", stem);
    char *png = slurp(dir, name, &size);
    assert_true(size > 1000);
    assert_memory_equal(png, "\x89PNG\r\n\x1a\n", 8);
    free(png);
    snprintf(name, sizeof name, "%s.svg", stem);
    char *svg = slurp(dir, name, NULL);
    assert_non_null(strstr(svg, "<svg"));
    assert_non_null(strstr(svg, "</svg>"));
    free(svg);
    snprintf(name, sizeof name, "%s.gp", stem);
    free(slurp(dir, name, NULL));
    snprintf(name, sizeof name, "%s.dat", stem);
    free(slurp(dir, name, NULL));
}

static void make_temp_dir(char *dir, size_t len) {
    snprintf(dir, len, "/tmp/pb_plot_XXXXXX");
    assert_non_null(mkdtemp(dir));
}

static void remove_tree(const char *dir) {
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static int write_figures(const char *csv, const struct pb_plot_options *o, const char *dir,
                         struct pb_plot_files *files, char *err, size_t len) {
    struct pb_results_table t;
    assert_int_equal(pb_results_table_load(csv, &t, err, len), 0);
    int rc = pb_plot_write(&t, o, dir, files, err, len);
    pb_results_table_free(&t);
    return rc;
}

static void renders_a_figure_per_panel_with_speedups(void **state) {
    (void)state;
    char tmp[64], dir[128], err[512];
    make_temp_dir(tmp, sizeof tmp);
    snprintf(dir, sizeof dir, "%s/new/folder", tmp); /* made with its parents */
    struct pb_plot_options o = {.metric = pb_metric_find("gelem_per_s")};
    struct pb_plot_files files;
    assert_int_equal(write_figures(DATA "base.csv", &o, dir, &files, err, sizeof err), 0);
    assert_int_equal(pb_plot_render(dir, err, sizeof err), 0);
    /* dtype and op vary besides n: four panels, each with a speedup over reduce/cub */
    assert_int_equal(files.nfigures, 8);
    assert_string_equal(files.baseline, "reduce/cub");
    const char *const stems[] = {"gelem_per_s_u32_sum", "gelem_per_s_u32_min",
                                 "gelem_per_s_f32_sum", "gelem_per_s_f32_min"};
    for (int i = 0; i < 4; i++) {
        char speedup[128];
        assert_figure(dir, stems[i]);
        snprintf(speedup, sizeof speedup, "%s-speedup", stems[i]);
        assert_figure(dir, speedup);
    }
    char *all = slurp(dir, "all.gp", NULL);
    assert_non_null(strstr(all, "load 'gelem_per_s_u32_sum.gp'\n"));
    assert_non_null(strstr(all, "load 'gelem_per_s_f32_min-speedup.gp'\n"));
    free(all);
    /* the data: a block per backend, the CSV's rate and interval at each n */
    char *dat = slurp(dir, "gelem_per_s_u32_sum.dat", NULL);
    assert_non_null(strstr(dat, "# reduce/butterfly\n# n\tx\tgelem_per_s\tci95_low\tci95_high\n"
                                "\"1024\"\t1024\t0.219298\t0.21515\t0.22361\n"));
    assert_non_null(strstr(dat, "\"16777216\"\t16777216\t599.138\t595.873\t602.44\n"));
    assert_non_null(strstr(dat, "\n\n\n# reduce/cub\n"));
    assert_non_null(strstr(dat, "\n\n\n# reduce/cpu\n"));
    free(dat);
    char *gp = slurp(dir, "gelem_per_s_u32_sum.gp", NULL);
    assert_non_null(strstr(gp, "set logscale x 2\n"));
    assert_non_null(strstr(gp, "'gelem_per_s_u32_sum.dat' index 2 using 2:3:4:5 with "
                               "yerrorlines lw 1.5 title 'reduce/cpu'"));
    assert_non_null(strstr(gp, "set output 'gelem_per_s_u32_sum.svg'\n"));
    free(gp);
    /* speedup: butterfly over cub = 599.138 / 563.8 at 2^24; the baseline itself is no line */
    char *speed = slurp(dir, "gelem_per_s_u32_sum-speedup.dat", NULL);
    assert_null(strstr(speed, "# reduce/cub"));
    const char *row = strstr(speed, "\"16777216\"\t16777216\t1.06");
    assert_non_null(row);
    free(speed);
    pb_plot_files_free(&files);
    remove_tree(tmp);
}

static void rows_that_are_not_ok_have_no_point(void **state) {
    (void)state;
    char dir[64], err[512];
    make_temp_dir(dir, sizeof dir);
    struct pb_plot_options o = {.metric = pb_metric_find("mean_ms"), .baseline = "butterfly"};
    struct pb_plot_files files;
    assert_int_equal(write_figures(DATA "failing.csv", &o, dir, &files, err, sizeof err), 0);
    assert_string_equal(files.baseline, "reduce/butterfly");
    char *dat = slurp(dir, "mean_ms_u32_min.dat", NULL);
    const char *butterfly = strstr(dat, "# reduce/butterfly\n"), *cub = strstr(dat, "# reduce/cub");
    assert_non_null(butterfly);
    assert_non_null(cub);
    /* the wrong row at n=1024 is left out; the next point is n=2^20 */
    assert_non_null(strstr(butterfly, "ci95_high\n\"1048576\""));
    free(dat);
    pb_plot_files_free(&files);
    remove_tree(dir);
}

static void a_choice_axis_is_categorical(void **state) {
    (void)state;
    char dir[64], err[512];
    make_temp_dir(dir, sizeof dir);
    struct pb_plot_options o = {.x = "dtype", .metric = pb_metric_find("gelem_per_s")};
    struct pb_plot_files files;
    assert_int_equal(write_figures(DATA "base.csv", &o, dir, &files, err, sizeof err), 0);
    assert_int_equal(files.nfigures, 12); /* n (3) x op (2), each with a speedup */
    assert_int_equal(pb_plot_render(dir, err, sizeof err), 0);
    assert_figure(dir, "gelem_per_s_1048576_min");
    char *gp = slurp(dir, "gelem_per_s_1048576_min.gp", NULL);
    assert_null(strstr(gp, "logscale x"));
    assert_non_null(strstr(gp, "set xrange [-0.5:1.5]\n"));
    assert_non_null(strstr(gp, "using 2:3:4:5:xtic(1)"));
    free(gp);
    pb_plot_files_free(&files);
    remove_tree(dir);
}

/* A size axis holding 0 besides sizes spanning a range (sort's segment 0, the whole array):
 * one slot per value, in numeric order. */
static void sizes_with_a_zero_are_categorical(void **state) {
    (void)state;
    char dir[64], err[512], csv[128];
    make_temp_dir(dir, sizeof dir);
    snprintf(csv, sizeof csv, "%s/zero.csv", dir);
    char *text = slurp(DATA, "base.csv", NULL);
    FILE *f = fopen(csv, "w");
    assert_non_null(f);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "1024,", 5) == 0)
            fprintf(f, "0%s\n", line + 4); /* n 1024 becomes 0 */
        else
            fprintf(f, "%s\n", line);
    }
    fclose(f);
    free(text);
    struct pb_plot_options o = {.metric = pb_metric_find("gelem_per_s")};
    struct pb_plot_files files;
    assert_int_equal(write_figures(csv, &o, dir, &files, err, sizeof err), 0);
    char *gp = slurp(dir, "gelem_per_s_u32_sum.gp", NULL);
    assert_null(strstr(gp, "logscale x"));
    assert_non_null(strstr(gp, "set xrange [-0.5:2.5]\n"));
    free(gp);
    char *dat = slurp(dir, "gelem_per_s_u32_sum.dat", NULL);
    const char *zero = strstr(dat, "\n\"0\"\t0\t"), *big = strstr(dat, "\n\"16777216\"\t2\t");
    assert_non_null(zero);
    assert_non_null(big);
    free(dat);
    pb_plot_files_free(&files);
    remove_tree(dir);
}

static void bad_options_are_reported(void **state) {
    (void)state;
    char dir[64], err[512];
    make_temp_dir(dir, sizeof dir);
    struct pb_plot_options o = {.metric = pb_metric_find("gelem_per_s"), .baseline = "thrust"};
    struct pb_plot_files files;
    assert_int_equal(write_figures(DATA "base.csv", &o, dir, &files, err, sizeof err), -1);
    assert_string_equal(err, DATA "base.csv: --baseline: no backend 'thrust' (backends: "
                                  "reduce/butterfly, reduce/cub, reduce/cpu)");
    o = (struct pb_plot_options){.x = "k", .metric = pb_metric_find("gelem_per_s")};
    assert_int_equal(write_figures(DATA "base.csv", &o, dir, &files, err, sizeof err), -1);
    assert_string_equal(err, DATA "base.csv: --x: 'k' is not an axis of this file");
    remove_tree(dir);
}

static int run(const char *fmt, ...) {
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int status = system(cmd);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static void cli_without_gnuplot_writes_scripts_and_exits_2(void **state) {
    (void)state;
    char dir[64];
    make_temp_dir(dir, sizeof dir);
    assert_int_equal(run("PATH=/nonexistent '%s' plot --out '%s/out' " DATA "base.csv "
                         "> /dev/null 2> '%s/err'",
                         bench, dir, dir),
                     2);
    char out[128];
    snprintf(out, sizeof out, "%s/out", dir);
    free(slurp(out, "all.gp", NULL));
    free(slurp(out, "gelem_per_s_u32_sum.gp", NULL));
    free(slurp(out, "gelem_per_s_u32_sum.dat", NULL));
    char *err = slurp(dir, "err", NULL);
    assert_non_null(strstr(err, "gnuplot is not installed"));
    free(err);
    remove_tree(dir);
}

static void cli_writes_to_plots_name_by_default(void **state) {
    (void)state;
    char dir[64], csv[PATH_MAX];
    make_temp_dir(dir, sizeof dir);
    assert_non_null(realpath(DATA "base.csv", csv));
    assert_int_equal(
        run("cd '%s' && '%s' plot --metric bound_fraction '%s' > list", dir, bench, csv), 0);
    char plots[128];
    snprintf(plots, sizeof plots, "%s/plots/base", dir);
    assert_figure(plots, "bound_fraction_f32_min");
    char *list = slurp(dir, "list", NULL);
    assert_non_null(strstr(list, "plots/base/bound_fraction_u32_sum.png\n"));
    free(list);
    assert_int_equal(run("'%s' plot --metric speed " DATA "base.csv 2> /dev/null", bench), 2);
    assert_int_equal(run("'%s' plot " DATA "short_row.csv 2> /dev/null", bench), 2);
    remove_tree(dir);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: test_plot BENCH\n");
        return 2;
    }
    /* absolute, since one test runs it from another folder */
    static char bench_path[PATH_MAX];
    if (!realpath(argv[1], bench_path)) {
        fprintf(stderr, "test_plot: %s: not found\n", argv[1]);
        return 2;
    }
    bench = bench_path;
    if (!pb_plot_have_gnuplot()) {
        fprintf(stderr, "test_plot: skipped: gnuplot is not installed\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(renders_a_figure_per_panel_with_speedups),
        cmocka_unit_test(rows_that_are_not_ok_have_no_point),
        cmocka_unit_test(a_choice_axis_is_categorical),
        cmocka_unit_test(sizes_with_a_zero_are_categorical),
        cmocka_unit_test(bad_options_are_reported),
        cmocka_unit_test(cli_without_gnuplot_writes_scripts_and_exits_2),
        cmocka_unit_test(cli_writes_to_plots_name_by_default),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
