/* gnuplot figures of a results CSV. The scripts are plain gnuplot that read tab-separated
 * data beside them, so a figure can be restyled without primbench. */
#include "plot.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int fail(char *err, size_t err_len, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
    return -1;
}

/* Where every row falls in the figures. */
struct layout {
    const struct pb_results_table *t;
    const struct pb_metric *m;
    int x;           /* the x axis' column */
    const char **xs; /* its values, in plotting order */
    int nx;
    double *xpos;        /* the x coordinate of each value */
    bool numeric, log2x; /* categorical x is plotted at 0, 1, ... with the values as tics */
    bool logx;           /* a log scale with plain labels: counts such as 40 .. 65536 bins */
    int *panel_axes;     /* the other axes that vary: one figure per combination */
    int npanel;
    const char **backends; /* in order of first appearance */
    int nb;
    int baseline; /* index into backends, -1 for no speedup figures */
    int *xi, *bi; /* per row: its x value's and backend's index */
};

static void free_layout(struct layout *l) {
    free(l->xs);
    free(l->xpos);
    free(l->panel_axes);
    free(l->backends);
    free(l->xi);
    free(l->bi);
}

static bool power_of_two(double v) {
    int e;
    return v > 0 && frexp(v, &e) == 0.5;
}

/* Numeric x values in ascending order, with a log2 scale for sizes that span a range. */
static void order_x(struct layout *l) {
    l->numeric = true;
    bool pow2 = true;
    for (int i = 0; i < l->nx; i++) {
        l->numeric = l->numeric && pb_parse_number(l->xs[i], &l->xpos[i]);
        if (l->numeric) pow2 = pow2 && power_of_two(l->xpos[i]);
    }
    if (!l->numeric) {
        for (int i = 0; i < l->nx; i++) l->xpos[i] = i;
        return;
    }
    for (int i = 1; i < l->nx; i++) /* insertion sort: a sweep has few values */
        for (int j = i; j > 0 && l->xpos[j - 1] > l->xpos[j]; j--) {
            double p = l->xpos[j];
            l->xpos[j] = l->xpos[j - 1];
            l->xpos[j - 1] = p;
            const char *s = l->xs[j];
            l->xs[j] = l->xs[j - 1];
            l->xs[j - 1] = s;
        }
    bool positive = l->nx > 0 && l->xpos[0] > 0;
    if (!positive && l->nx > 2 && l->xpos[1] > 0 && l->xpos[l->nx - 1] / l->xpos[1] >= 16) {
        /* Sizes with a 0 that means something else (segment 0: the whole array): no log
         * scale takes the 0, a linear one crowds the small sizes, so one slot per value. */
        l->numeric = false;
        for (int i = 0; i < l->nx; i++) l->xpos[i] = i;
        return;
    }
    bool spans = positive && l->xpos[l->nx - 1] / l->xpos[0] >= 16;
    const char *name = l->t->header.fields[l->x];
    l->log2x = spans && (pow2 || strcmp(name, "n") == 0);
    l->logx = spans && !l->log2x;
}

static int choose_x(const struct pb_results_table *t, const char *x, char *err, size_t err_len) {
    if (x) {
        int a = pb_results_table_axis(t, x);
        if (a < 0)
            return fail(err, err_len, "%s: --x: '%s' is not an axis of this file", t->path, x);
        return a;
    }
    int n = pb_results_table_axis(t, "n");
    if (n >= 0) return n;
    for (int a = t->naxes - 1; a >= 0; a--) {
        const char **v;
        int count = pb_results_table_distinct(t, a, &v);
        free(v);
        if (count > 1) return a;
    }
    if (t->naxes == 0) return fail(err, err_len, "%s: no axis columns to plot against", t->path);
    return 0;
}

static int choose_baseline(struct layout *l, const char *name, char *err, size_t err_len) {
    l->baseline = -1;
    if (name) {
        l->baseline = pb_results_backend_index(l->t->path, "--baseline", l->backends, l->nb, name,
                                               err, err_len);
        return l->baseline >= 0 ? 0 : -1;
    }
    for (int b = 0; b < l->nb && l->baseline < 0; b++) {
        const char *slash = strchr(l->backends[b], '/');
        if (slash && strncmp(slash + 1, "cub", 3) == 0) l->baseline = b;
    }
    return 0;
}

static int make_layout(struct layout *l, const struct pb_plot_options *o, char *err,
                       size_t err_len) {
    const struct pb_results_table *t = l->t;
    l->x = choose_x(t, o->x, err, err_len);
    if (l->x < 0) return -1;
    size_t rows = t->nrows ? t->nrows : 1;
    l->nx = pb_results_table_distinct(t, l->x, &l->xs);
    l->nb = pb_results_table_distinct(t, t->backend, &l->backends);
    l->xpos = malloc((size_t)(l->nx > 0 ? l->nx : 1) * sizeof *l->xpos);
    l->panel_axes = malloc((size_t)(t->naxes ? t->naxes : 1) * sizeof *l->panel_axes);
    l->xi = malloc(rows * sizeof *l->xi);
    l->bi = malloc(rows * sizeof *l->bi);
    if (l->nx < 0 || l->nb < 0 || !l->xpos || !l->panel_axes || !l->xi || !l->bi)
        return fail(err, err_len, "%s: out of memory", t->path);
    order_x(l);
    for (size_t r = 0; r < t->nrows; r++) {
        l->xi[r] = pb_results_value_index(l->xs, l->nx, pb_results_table_field(t, r, l->x));
        l->bi[r] =
            pb_results_value_index(l->backends, l->nb, pb_results_table_field(t, r, t->backend));
    }
    for (int a = 0; a < t->naxes; a++) {
        if (a == l->x) continue;
        const char **v;
        int count = pb_results_table_distinct(t, a, &v);
        free(v);
        if (count < 0) return fail(err, err_len, "%s: out of memory", t->path);
        if (count > 1) l->panel_axes[l->npanel++] = a;
    }
    return choose_baseline(l, o->baseline, err, err_len);
}

static bool same_panel(const struct layout *l, size_t a, size_t b) {
    for (int i = 0; i < l->npanel; i++)
        if (strcmp(pb_results_table_field(l->t, a, l->panel_axes[i]),
                   pb_results_table_field(l->t, b, l->panel_axes[i])) != 0)
            return false;
    return true;
}

/* A figure's points: value and 95% interval per (backend, x), NAN where there is none. */
struct points {
    int nb, nx;
    double *v, *lo, *hi;
};

static double *at(const struct points *p, double *a, int b, int x) {
    return &a[(size_t)b * (size_t)p->nx + (size_t)x];
}

static int points_init(struct points *p, int nb, int nx) {
    size_t n = (size_t)(nb ? nb : 1) * (size_t)(nx ? nx : 1);
    *p = (struct points){.nb = nb, .nx = nx};
    p->v = malloc(3 * n * sizeof *p->v);
    if (!p->v) return -1;
    p->lo = p->v + n;
    p->hi = p->lo + n;
    for (size_t i = 0; i < 3 * n; i++) p->v[i] = NAN;
    return 0;
}

static bool backend_has_points(const struct points *p, int b) {
    for (int x = 0; x < p->nx; x++)
        if (isfinite(*at(p, p->v, b, x))) return true;
    return false;
}

/* Each backend's speedup over the baseline where both have a point (pb_metric_speedup). */
static void speedups(const struct points *p, int base, const struct pb_metric *m,
                     struct points *s) {
    for (int b = 0; b < p->nb; b++) {
        if (b == base) continue;
        for (int x = 0; x < p->nx; x++) {
            const struct pb_estimate e = pb_metric_speedup(
                m,
                (struct pb_estimate){*at(p, p->v, b, x), *at(p, p->lo, b, x), *at(p, p->hi, b, x)},
                (struct pb_estimate){*at(p, p->v, base, x), *at(p, p->lo, base, x),
                                     *at(p, p->hi, base, x)});
            *at(s, s->v, b, x) = e.value;
            *at(s, s->lo, b, x) = e.low;
            *at(s, s->hi, b, x) = e.high;
        }
    }
}

/* File names keep to letters, digits, '.', '_' and '-'. */
static void append_clean(char *buf, size_t len, const char *s) {
    size_t used = strlen(buf);
    for (; *s && used + 1 < len; s++) {
        char c = *s;
        bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
        buf[used++] = safe ? c : '-';
    }
    buf[used] = '\0';
}

/* A gnuplot single-quoted string: a quote is doubled. */
static void put_quoted(FILE *f, const char *s) {
    putc('\'', f);
    for (; *s; s++) {
        if (*s == '\'') putc('\'', f);
        putc(*s, f);
    }
    putc('\'', f);
}

static FILE *open_in(const char *dir, const char *stem, const char *ext, char *err,
                     size_t err_len) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s%s", dir, stem, ext);
    FILE *f = fopen(path, "w");
    if (!f) fail(err, err_len, "%s: cannot write: %s", path, strerror(errno));
    return f;
}

static int close_checked(FILE *f, const char *dir, const char *stem, const char *ext, char *err,
                         size_t err_len) {
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0 || bad) return fail(err, err_len, "%s/%s%s: write error", dir, stem, ext);
    return 0;
}

/* STEM.dat: one block per backend with points (gnuplot's index 0, 1, ...). Sets which[b] to
 * the block of backend b, -1 for none. */
static int write_data(const struct layout *l, const struct points *p, const char *dir,
                      const char *stem, const char *value_name, int *which, char *err,
                      size_t err_len) {
    FILE *f = open_in(dir, stem, ".dat", err, err_len);
    if (!f) return -1;
    int blocks = 0;
    for (int b = 0; b < p->nb; b++) {
        which[b] = -1;
        if (!backend_has_points(p, b)) continue;
        which[b] = blocks;
        fprintf(f, "%s# %s\n# %s\tx\t%s\tci95_low\tci95_high\n", blocks++ ? "\n\n" : "",
                l->backends[b], l->t->header.fields[l->x], value_name);
        for (int x = 0; x < p->nx; x++) {
            double v = *at(p, p->v, b, x);
            if (!isfinite(v)) continue;
            /* no interval (one repetition, the median): a bar of no length */
            double lo = *at(p, p->lo, b, x), hi = *at(p, p->hi, b, x);
            if (!isfinite(lo)) lo = hi = v;
            fprintf(f, "\"%s\"\t%.10g\t%.10g\t%.10g\t%.10g\n", l->xs[x], l->xpos[x], v, lo, hi);
        }
    }
    return close_checked(f, dir, stem, ".dat", err, err_len);
}

/* Log y when the values span more than a factor of 20, as throughput over n does. */
static bool wants_log_y(const struct points *p) {
    double low = INFINITY, high = 0;
    size_t n = (size_t)p->nb * (size_t)p->nx;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(p->v[i])) continue;
        if (p->v[i] <= 0) return false;
        low = fmin(low, isfinite(p->lo[i]) && p->lo[i] > 0 ? p->lo[i] : p->v[i]);
        high = fmax(high, p->v[i]);
    }
    return high > 0 && high / low > 20;
}

static int write_script(const struct layout *l, const struct points *p, const char *dir,
                        const char *stem, const char *title, const char *ylabel, const int *which,
                        bool speedup, char *err, size_t err_len) {
    FILE *f = open_in(dir, stem, ".gp", err, err_len);
    if (!f) return -1;
    const char *xname = l->t->header.fields[l->x];
    fprintf(f,
            "# Made by `bench plot` from %s; edit freely, then run\n"
            "# `gnuplot %s.gp` here to redraw the PNG and SVG. The .dat file holds a block per\n"
            "# backend (index 0, 1, ...): the %s value, its x coordinate, the value, its 95%%\n"
            "# interval.\nreset\n",
            l->t->path, stem, xname);
    fputs("set title ", f);
    put_quoted(f, title);
    fputs(" noenhanced\nset xlabel ", f);
    put_quoted(f, xname);
    fputs(" noenhanced\nset ylabel ", f);
    put_quoted(f, ylabel);
    fputs(" noenhanced\n", f);
    if (l->log2x) fputs("set logscale x 2\nset format x '2^{%L}'\n", f);
    if (l->logx) fputs("set logscale x 2\n", f);
    if (!l->numeric) fprintf(f, "set xrange [-0.5:%d.5]\n", l->nx - 1);
    if (wants_log_y(p)) fputs("set logscale y\n", f);
    if (speedup) fputs("set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2\n", f);
    /* The key outside, under the plot: lines of many backends never hide behind it. */
    fputs("set grid\nset key below noenhanced\nset bars small\n"
          "set terminal pngcairo size 960,600\n",
          f);
    fprintf(f, "set output '%s.png'\nplot", stem);
    int lines = 0;
    for (int b = 0; b < p->nb; b++) {
        if (which[b] < 0) continue;
        fprintf(f, "%s '%s.dat' index %d using 2:3:4:5%s with yerrorlines lw 1.5 title ",
                lines++ ? ", \\\n    " : "", stem, which[b], l->numeric ? "" : ":xtic(1)");
        put_quoted(f, l->backends[b]);
    }
    fprintf(f,
            "\nset terminal svg size 960,600 dynamic\nset output '%s.svg'\nreplot\n"
            "unset output\n",
            stem);
    return close_checked(f, dir, stem, ".gp", err, err_len);
}

static int add_stem(struct pb_plot_files *files, const char *stem) {
    char **stems = realloc(files->stems, (size_t)(files->nfigures + 1) * sizeof *stems);
    if (!stems) return -1;
    files->stems = stems;
    stems[files->nfigures] = strdup(stem);
    if (!stems[files->nfigures]) return -1;
    files->nfigures++;
    return 0;
}

static int write_figure(const struct layout *l, const struct points *p, const char *dir,
                        const char *stem, const char *title, const char *ylabel, bool speedup,
                        const char *value_name, struct pb_plot_files *files, char *err,
                        size_t err_len) {
    int *which = malloc((size_t)(p->nb ? p->nb : 1) * sizeof *which);
    if (!which) return fail(err, err_len, "%s: out of memory", dir);
    int rc = write_data(l, p, dir, stem, value_name, which, err, err_len);
    if (rc == 0) rc = write_script(l, p, dir, stem, title, ylabel, which, speedup, err, err_len);
    if (rc == 0 && add_stem(files, stem) != 0) rc = fail(err, err_len, "%s: out of memory", dir);
    free(which);
    return rc;
}

/* The figures of the panel whose first row is `first`. */
static int write_panel(const struct layout *l, size_t first, const char *dir,
                       struct pb_plot_files *files, char *err, size_t err_len) {
    const struct pb_results_table *t = l->t;
    struct points p, s = {0};
    if (points_init(&p, l->nb, l->nx) != 0) return fail(err, err_len, "%s: out of memory", dir);
    bool any = false;
    for (size_t r = first; r < t->nrows; r++) {
        if (!same_panel(l, r, first) || isfinite(*at(&p, p.v, l->bi[r], l->xi[r]))) continue;
        double v, lo, hi;
        if (!pb_metric_value(t, r, l->m, &v, &lo, &hi)) continue;
        *at(&p, p.v, l->bi[r], l->xi[r]) = v;
        *at(&p, p.lo, l->bi[r], l->xi[r]) = lo;
        *at(&p, p.hi, l->bi[r], l->xi[r]) = hi;
        any = true;
    }
    char stem[1024], title[2048], label[256];
    snprintf(stem, sizeof stem, "%s", l->m->name);
    snprintf(title, sizeof title, "%s:", pb_results_table_field(t, first, t->naxes));
    for (int a = 0; a < t->naxes; a++) {
        if (a == l->x) continue;
        snprintf(title + strlen(title), sizeof title - strlen(title), " %s=%s", t->header.fields[a],
                 pb_results_table_field(t, first, a));
    }
    for (int i = 0; i < l->npanel; i++) {
        append_clean(stem, sizeof stem, "_");
        append_clean(stem, sizeof stem, pb_results_table_field(t, first, l->panel_axes[i]));
    }
    int rc = 0;
    if (any)
        rc = write_figure(l, &p, dir, stem, title, l->m->label, false, l->m->name, files, err,
                          err_len);
    if (rc == 0 && any && l->baseline >= 0 && backend_has_points(&p, l->baseline)) {
        if (points_init(&s, l->nb, l->nx) != 0) {
            rc = fail(err, err_len, "%s: out of memory", dir);
        } else {
            speedups(&p, l->baseline, l->m, &s);
            bool others = false;
            for (int b = 0; b < l->nb; b++) others = others || backend_has_points(&s, b);
            append_clean(stem, sizeof stem, "-speedup");
            snprintf(label, sizeof label, "speedup over %s (from %s)", l->backends[l->baseline],
                     l->m->name);
            if (others)
                rc = write_figure(l, &s, dir, stem, title, label, true, "speedup", files, err,
                                  err_len);
        }
    }
    free(p.v);
    free(s.v);
    return rc;
}

/* mkdir -p */
static int make_dirs(const char *dir, char *err, size_t err_len) {
    char path[4096];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
        return fail(err, err_len, "%s: path too long", dir);
    for (char *p = path + 1;; p++) {
        bool end = *p == '\0';
        if (*p == '/' || end) {
            *p = '\0';
            if (mkdir(path, 0777) != 0 && errno != EEXIST)
                return fail(err, err_len, "%s: cannot create: %s", path, strerror(errno));
            if (end) break;
            *p = '/';
        }
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return fail(err, err_len, "%s: not a directory", dir);
    return 0;
}

int pb_plot_write(const struct pb_results_table *t, const struct pb_plot_options *o,
                  const char *dir, struct pb_plot_files *files, char *err, size_t err_len) {
    *files = (struct pb_plot_files){0};
    struct layout l = {.t = t, .m = o->metric};
    int rc = make_layout(&l, o, err, err_len);
    if (rc == 0) rc = make_dirs(dir, err, err_len);
    size_t *panels = rc == 0 ? malloc((t->nrows ? t->nrows : 1) * sizeof *panels) : NULL;
    if (rc == 0 && !panels) rc = fail(err, err_len, "%s: out of memory", t->path);
    size_t npanels = 0;
    for (size_t r = 0; rc == 0 && r < t->nrows; r++) {
        size_t i = 0;
        while (i < npanels && !same_panel(&l, panels[i], r)) i++;
        if (i < npanels) continue;
        panels[npanels++] = r;
        rc = write_panel(&l, r, dir, files, err, err_len);
    }
    free(panels);
    if (rc == 0 && files->nfigures == 0)
        rc = fail(err, err_len, "%s: no ok row has a %s to plot", t->path, o->metric->name);
    if (rc == 0 && l.baseline >= 0) {
        files->baseline = strdup(l.backends[l.baseline]);
        if (!files->baseline) rc = fail(err, err_len, "%s: out of memory", t->path);
    }
    if (rc == 0) {
        FILE *f = open_in(dir, "all", ".gp", err, err_len);
        if (!f) {
            rc = -1;
        } else {
            fputs("# Redraws every figure here: gnuplot all.gp\n", f);
            for (int i = 0; i < files->nfigures; i++) fprintf(f, "load '%s.gp'\n", files->stems[i]);
            rc = close_checked(f, dir, "all", ".gp", err, err_len);
        }
    }
    free_layout(&l);
    if (rc != 0) pb_plot_files_free(files);
    return rc;
}

void pb_plot_files_free(struct pb_plot_files *files) {
    for (int i = 0; i < files->nfigures; i++) free(files->stems[i]);
    free(files->stems);
    free(files->baseline);
    *files = (struct pb_plot_files){0};
}

bool pb_plot_have_gnuplot(void) {
    const char *path = getenv("PATH");
    if (!path) return false;
    char dir[4096];
    while (*path) {
        size_t len = strcspn(path, ":");
        /* an empty PATH entry means the current directory */
        if (len == 0)
            snprintf(dir, sizeof dir, "./gnuplot");
        else
            snprintf(dir, sizeof dir, "%.*s/gnuplot", (int)len, path);
        if (access(dir, X_OK) == 0) return true;
        path += len + (path[len] == ':');
    }
    return false;
}

int pb_plot_render(const char *dir, char *err, size_t err_len) {
    fflush(NULL); /* the child must not write our buffered output a second time */
    pid_t pid = fork();
    if (pid < 0) return fail(err, err_len, "cannot start gnuplot: %s", strerror(errno));
    if (pid == 0) {
        if (chdir(dir) != 0) _exit(126);
        execlp("gnuplot", "gnuplot", "all.gp", (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return fail(err, err_len, "gnuplot: %s", strerror(errno));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return fail(err, err_len, "gnuplot could not be started (not on PATH?)");
    return fail(err, err_len, "%s/all.gp: gnuplot failed (%s %d)", dir,
                WIFEXITED(status) ? "exit" : "signal",
                WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

void pb_plot_default_dir(const char *csv_path, char *buf, size_t len) {
    const char *base = strrchr(csv_path, '/');
    base = base ? base + 1 : csv_path;
    size_t n = strlen(base);
    if (n > 4 && strcmp(base + n - 4, ".csv") == 0) n -= 4;
    snprintf(buf, len, "plots/%.*s", (int)n, base);
}
