/* bench compare BASE.csv NEW.csv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "compare.h"

static const char usage[] =
    "usage: bench compare [--threshold PCT] [--p ALPHA] BASE.csv NEW.csv\n"
    "\n"
    "Joins the rows of two result CSVs on their case (every axis) and backend, and prints a\n"
    "markdown table of the mean times with a verdict per row:\n"
    "  slower/faster  the mean moved by more than PCT percent and Welch's t-test on the two\n"
    "                 rows' mean, stddev and reps gives p < ALPHA\n"
    "  uncertain      moved by more than PCT percent, but not significantly\n"
    "  same           moved by PCT percent or less\n"
    "  failing        ok in BASE, wrong, error or timeout in NEW\n"
    "  not comparable not ok in BASE, or skipped in NEW\n"
    "Rows found in only one file are listed after the table.\n"
    "\n"
    "  --threshold PCT  the smallest change that counts, in percent (default 5)\n"
    "  --p ALPHA        the significance level (default 0.01)\n"
    "\n"
    "Exit codes: 0 nothing slower or failing (faster is fine), 1 some row slower or newly\n"
    "failing, 2 bad usage or a file that cannot be compared.\n";

/* The value of --threshold (at least 0) or --p (strictly between 0 and 1); 0, or 2 after an
 * error. */
static int number_option(const char *name, const char *text, double *out) {
    bool threshold = strcmp(name, "--threshold") == 0;
    if (!pb_parse_number(text, out) || (threshold ? *out < 0 : !(*out > 0 && *out < 1))) {
        fprintf(stderr, "bench compare: %s: '%s' is not %s\n", name, text,
                threshold ? "a percentage of 0 or more" : "a probability between 0 and 1");
        return 2;
    }
    return 0;
}

int pb_cmd_compare(int argc, char **argv) {
    if (pb_wants_help(argc, argv, usage)) return 0;
    struct pb_compare_options opt = {.threshold_pct = 5.0, .alpha = 0.01};
    const char *paths[2];
    int npaths = 0;
    for (int i = 1; i < argc; i++) {
        bool threshold = strcmp(argv[i], "--threshold") == 0;
        if (threshold || strcmp(argv[i], "--p") == 0) {
            if (i + 1 >= argc) return pb_usage_error(usage, "%s needs a value", argv[i]);
            if (number_option(argv[i], argv[i + 1], threshold ? &opt.threshold_pct : &opt.alpha))
                return 2;
            i++;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return pb_usage_error(usage, "unknown option '%s'", argv[i]);
        } else if (npaths == 2) {
            return pb_usage_error(usage, "two files only ('%s' is extra)", argv[i]);
        } else {
            paths[npaths++] = argv[i];
        }
    }
    if (npaths != 2) return pb_usage_error(usage, "%s", "compare needs BASE.csv and NEW.csv");
    struct pb_results_table base, next;
    char err[1024];
    if (pb_results_table_load(paths[0], &base, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    if (pb_results_table_load(paths[1], &next, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        pb_results_table_free(&base);
        return 2;
    }
    struct pb_compare_result result;
    int status = 2;
    if (pb_compare_tables(&base, &next, &opt, &result, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
    } else {
        pb_compare_print(stdout, &base, &next, &result, &opt);
        status = pb_compare_exit_code(&result);
        if (status != 0)
            fprintf(stderr, "bench compare: %zu slower, %zu failing in %s against %s\n",
                    result.count[PB_VERDICT_SLOWER], result.count[PB_VERDICT_FAILING], paths[1],
                    paths[0]);
        pb_compare_result_free(&result);
    }
    pb_results_table_free(&base);
    pb_results_table_free(&next);
    return status;
}
