/* bench report RESULTS.csv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "report_table.h"

static const char usage[] =
    "usage: bench report [--rows AXIS,...] [--cols AXIS] [--metric METRIC] [--baseline BACKEND]\n"
    "                    RESULTS.csv\n"
    "\n"
    "Prints a paper-style markdown table of one metric: a row per value of the row axes and\n"
    "backend, a column per value of the column axis, each cell the metric with its 95%\n"
    "interval, e.g. \"361.2 (360.8-361.5)\". A row that is not ok shows its status. A suite's\n"
    "output gets a section per primitive, over that primitive's axes.\n"
    "\n"
    "  --rows AXIS,...  the axes that key the rows, outermost first (backend follows); axes\n"
    "                   that vary but are neither rows nor the column give one table per\n"
    "                   combination of their values (default: every other axis that varies)\n"
    "  --cols AXIS      the axis whose values are the columns (default: the last axis with\n"
    "                   more than one value)\n"
    "  --metric METRIC  gelem_per_s (default), gbytes_per_s, bound_fraction, mean_ms or\n"
    "                   median_ms (the CSV holds no interval for the median)\n"
    "  --baseline BACKEND  each other backend's cell is its speedup over BACKEND in the same\n"
    "                   case (a ratio of throughputs, or of times: above 1 is better), the\n"
    "                   interval from the ends of both intervals; BACKEND's own rows are left\n"
    "                   out. Its full name or the part after the slash: cub-sort\n";

#define MAX_ROW_AXES 32

/* One table, or for a suite's output (rows of several primitives) a section per primitive,
 * each over the axes of that primitive; a primitive the options do not fit (an axis it
 * does not have) is left out with a note. Returns the exit status. */
static int report(const struct pb_results_table *t, const struct pb_report_options *opt) {
    char err[1024];
    const char **prims = NULL;
    int nprims = pb_results_table_primitives(t, &prims);
    if (nprims <= 1) {
        free(prims);
        if (pb_report_table(stdout, t, opt, err, sizeof err) == 0) return 0;
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    int shown = 0;
    for (int i = 0; i < nprims; i++) {
        struct pb_results_table sub;
        if (pb_results_table_subset(t, prims[i], &sub, err, sizeof err) != 0) {
            fprintf(stderr, "%s\n", err);
            break;
        }
        printf("%s## %s\n\n", shown ? "\n" : "", prims[i]);
        fflush(stdout);
        if (pb_report_table(stdout, &sub, opt, err, sizeof err) == 0)
            shown++;
        else
            fprintf(stderr, "bench report: %s rows left out: %s\n", prims[i], err);
        pb_results_table_free(&sub);
    }
    free(prims);
    return shown > 0 ? 0 : 2;
}

int pb_cmd_report(int argc, char **argv) {
    if (pb_wants_help(argc, argv, usage)) return 0;
    struct pb_report_options opt = {.metric = pb_metric_find("gelem_per_s")};
    const char *path = NULL;
    const char *rows[MAX_ROW_AXES];
    char *rows_text = NULL;
    int status = 2;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        bool takes_value = strcmp(arg, "--rows") == 0 || strcmp(arg, "--cols") == 0 ||
                           strcmp(arg, "--metric") == 0 || strcmp(arg, "--baseline") == 0;
        if (takes_value && i + 1 >= argc) {
            status = pb_usage_error(usage, "%s needs a value", arg);
            goto done;
        }
        if (strcmp(arg, "--rows") == 0) {
            free(rows_text);
            rows_text = strdup(argv[++i]);
            if (!rows_text) goto done;
            opt.nrows = 0;
            for (char *save = NULL, *s = strtok_r(rows_text, ",", &save); s;
                 s = strtok_r(NULL, ",", &save)) {
                if (opt.nrows == MAX_ROW_AXES) {
                    status = pb_usage_error(usage, "--rows: more than %s axes", "32");
                    goto done;
                }
                rows[opt.nrows++] = s;
            }
            opt.rows = rows;
        } else if (strcmp(arg, "--cols") == 0) {
            opt.cols = argv[++i];
        } else if (strcmp(arg, "--baseline") == 0) {
            opt.baseline = argv[++i];
        } else if (strcmp(arg, "--metric") == 0) {
            opt.metric = pb_metric_find(argv[++i]);
            if (!opt.metric) {
                fprintf(stderr, "bench report: --metric: '%s' is not one of %s\n", argv[i],
                        pb_metric_list());
                goto done;
            }
        } else if (arg[0] == '-' && arg[1]) {
            status = pb_usage_error(usage, "unknown option '%s'", arg);
            goto done;
        } else if (path) {
            status = pb_usage_error(usage, "one CSV at a time ('%s' is extra)", arg);
            goto done;
        } else {
            path = arg;
        }
    }
    if (!path) {
        status = pb_usage_error(usage, "%s", "no results CSV given");
        goto done;
    }
    struct pb_results_table t;
    char err[1024];
    if (pb_results_table_load(path, &t, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        goto done;
    }
    status = report(&t, &opt);
    pb_results_table_free(&t);
done:
    free(rows_text);
    return status;
}
