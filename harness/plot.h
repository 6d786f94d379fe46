/* Figures of a results CSV with gnuplot: a metric against one swept axis, a line per backend
 * with 95% interval error bars, a figure per combination of the other axes that vary, and
 * the speedup over a baseline backend. Every figure's gnuplot script and data are written
 * beside it, so a user can restyle it and run gnuplot again. */
#ifndef PB_PLOT_H
#define PB_PLOT_H

#include <stdbool.h>
#include <stddef.h>

#include "metric.h"
#include "results_read.h"

struct pb_plot_options {
    const char *x; /* the swept axis; NULL: n if there is one, else the last that varies */
    const struct pb_metric *metric;
    const char
        *baseline; /* a backend ("reduce/cub" or "cub"); NULL: one named like reduce/cub, if any */
};

/* What pb_plot_write wrote. */
struct pb_plot_files {
    int nfigures;   /* metric figures, plus the speedup figures */
    char **stems;   /* each figure's name: STEM.gp, STEM.dat, STEM.png, STEM.svg */
    char *baseline; /* the speedup's baseline backend, NULL for none */
};

/* Writes into dir (created with its parents) a .gp script and a .dat file per figure, and
 * all.gp, which loads every script. Returns 0, or -1 with one line in err. */
int pb_plot_write(const struct pb_results_table *t, const struct pb_plot_options *o,
                  const char *dir, struct pb_plot_files *files, char *err, size_t err_len);
void pb_plot_files_free(struct pb_plot_files *files);

/* True when a gnuplot executable is on PATH. */
bool pb_plot_have_gnuplot(void);
/* Runs gnuplot on all.gp in dir (PNG via pngcairo and SVG). Returns 0, or -1 with err. */
int pb_plot_render(const char *dir, char *err, size_t err_len);

/* plots/NAME for results/.../NAME.csv */
void pb_plot_default_dir(const char *csv_path, char *buf, size_t len);

#endif
