/* bench plot RESULTS.csv */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "plot.h"

static const char usage[] =
    "usage: bench plot [--x AXIS] [--metric METRIC] [--baseline BACKEND] [--out DIR] "
    "RESULTS.csv\n"
    "\n"
    "Draws METRIC against the swept axis with gnuplot (PNG and SVG): a line per backend with\n"
    "its 95% interval as error bars, a figure per combination of the other axes that vary,\n"
    "and beside each a -speedup figure: every backend's speedup over the baseline. Each\n"
    "figure's gnuplot script (.gp) and data (.dat) are written beside it, and all.gp redraws\n"
    "them all, so a figure can be restyled and drawn again with `gnuplot all.gp`. A suite's\n"
    "output (rows of several primitives) gets a folder DIR/PRIMITIVE for each.\n"
    "\n"
    "  --x AXIS           the x axis (default n; a size axis is drawn on a log2 scale)\n"
    "  --metric METRIC    gelem_per_s (default), gbytes_per_s, bound_fraction, mean_ms or\n"
    "                     median_ms (no interval: the CSV holds none for the median)\n"
    "  --baseline BACKEND the speedup's baseline, e.g. reduce/cub or cub (default: a backend\n"
    "                     named */cub* if there is one, else no speedup figures)\n"
    "  --out DIR          where to write (default plots/NAME for NAME.csv)\n"
    "\n"
    "Without gnuplot the scripts and data are still written, and the exit code is 2.\n";

/* Writes and draws the figures of one table into dir. Returns 0, 1 when the figures
 * could not be written (the options do not fit the table: message on stderr, prefixed
 * with note), or 2 when they could not be drawn. */
static int plot_one(const struct pb_results_table *t, const struct pb_plot_options *opt,
                    const char *dir, const char *note) {
    char err[1024];
    struct pb_plot_files files;
    if (pb_plot_write(t, opt, dir, &files, err, sizeof err) != 0) {
        fprintf(stderr, "%s%s\n", note, err);
        return 1;
    }
    int status = 0;
    if (!pb_plot_have_gnuplot()) {
        fprintf(stderr,
                "bench plot: gnuplot is not installed (not on PATH); the scripts are written: "
                "run `gnuplot all.gp` in %s\n",
                dir);
        status = 2;
    } else if (pb_plot_render(dir, err, sizeof err) != 0) {
        fprintf(stderr, "bench plot: %s\n", err);
        status = 2;
    } else {
        for (int i = 0; i < files.nfigures; i++) printf("%s/%s.png\n", dir, files.stems[i]);
        fprintf(stderr, "bench plot: %d figures in %s (PNG, SVG, .gp and .dat each)%s%s\n",
                files.nfigures, dir, files.baseline ? "; speedups over " : "",
                files.baseline ? files.baseline : "");
    }
    pb_plot_files_free(&files);
    return status;
}

/* Appends a primitive's name as one folder name: the CSV's text, so anything but letters,
 * digits, '_', '-' and '.' becomes '_', and "." or ".." cannot climb out of DIR. */
static void append_folder_name(char *buf, size_t len, const char *name) {
    size_t at = strlen(buf);
    for (const char *p = name; *p && at + 1 < len; p++) {
        char c = *p;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '-' || c == '.';
        buf[at++] = ok ? c : '_';
    }
    buf[at] = '\0';
    const char *base = strrchr(buf, '/') + 1;
    if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
        snprintf(buf + (base - buf), len - (size_t)(base - buf), "_");
}

int pb_cmd_plot(int argc, char **argv) {
    if (pb_wants_help(argc, argv, usage)) return 0;
    struct pb_plot_options opt = {.metric = pb_metric_find("gelem_per_s")};
    const char *path = NULL, *out = NULL;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char **value = strcmp(arg, "--x") == 0          ? &opt.x
                             : strcmp(arg, "--baseline") == 0 ? &opt.baseline
                             : strcmp(arg, "--out") == 0      ? &out
                                                              : NULL;
        if (value || strcmp(arg, "--metric") == 0) {
            if (i + 1 >= argc) return pb_usage_error(usage, "%s needs a value", arg);
            if (value) {
                *value = argv[++i];
                continue;
            }
            opt.metric = pb_metric_find(argv[++i]);
            if (!opt.metric) {
                fprintf(stderr, "bench plot: --metric: '%s' is not one of %s\n", argv[i],
                        pb_metric_list());
                return 2;
            }
        } else if (arg[0] == '-' && arg[1]) {
            return pb_usage_error(usage, "unknown option '%s'", arg);
        } else if (path) {
            return pb_usage_error(usage, "one CSV at a time ('%s' is extra)", arg);
        } else {
            path = arg;
        }
    }
    if (!path) return pb_usage_error(usage, "%s", "no results CSV given");
    char dir[2048], err[1024];
    if (out)
        snprintf(dir, sizeof dir, "%s", out);
    else
        pb_plot_default_dir(path, dir, sizeof dir);
    struct pb_results_table t;
    if (pb_results_table_load(path, &t, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    const char **prims = NULL;
    int nprims = pb_results_table_primitives(&t, &prims);
    int status = 0;
    if (nprims <= 1) {
        status = plot_one(&t, &opt, dir, "") ? 2 : 0;
    } else {
        /* A suite's output: each primitive's figures in a folder of its own; a primitive
         * the options do not fit (--x names an axis it lacks) is left out with a note. */
        int written = 0;
        for (int i = 0; i < nprims; i++) {
            struct pb_results_table sub;
            char sub_dir[2300], note[128];
            snprintf(sub_dir, sizeof sub_dir, "%s/", dir);
            append_folder_name(sub_dir, sizeof sub_dir, prims[i]);
            snprintf(note, sizeof note, "bench plot: %.60s rows left out: ", prims[i]);
            if (pb_results_table_subset(&t, prims[i], &sub, err, sizeof err) != 0) {
                fprintf(stderr, "%s\n", err);
                status = 2;
                break;
            }
            int rc = plot_one(&sub, &opt, sub_dir, note);
            pb_results_table_free(&sub);
            written += rc != 1;
            if (rc == 2) status = 2;
        }
        if (written == 0) status = 2;
    }
    free(prims);
    pb_results_table_free(&t);
    return status;
}
