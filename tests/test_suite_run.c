/* End to end, GPU-free: a suite (configs/tests/suite-cpu.json: reduce, sort, sssp and merge
 * parts, CPU backends and one GPU backend, skipped here) run by the bench binary into one
 * CSV with the union of the parts' axis columns, and everything that reads such an
 * output: compare against itself, --resume of a cut output, --shard parts joined by merge,
 * --format json (null for an axis a primitive lacks), report and plot (a section and a
 * folder per primitive), and the metadata (the config's hash, each part's settings). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "csv.h"
#include "gpu_skip.h"
#include "read_file.h"
#include "shell.h"

static const char *bench, *config;
static char work_dir[256];

#define NROWS 26 /* reduce 8 cases x 2, sort 2 x 1, sssp 2 x 2, merge 2 x 2 */
#define NAXES 15 /* the union of reduce's, sort's, sssp's and merge's axes */

static char *slurp(const char *path) {
    char *text = read_whole_file(path, NULL);
    assert_non_null(text);
    return text;
}

static void path_in(char *out, size_t len, const char *name) {
    snprintf(out, len, "%s/%s", work_dir, name);
}

/* The CSV's records; the caller frees them with free_csv. */
struct table {
    struct pb_csv_record header;
    int nrows;
    struct pb_csv_record rows[64];
};

static void read_csv(const char *path, struct table *t) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char err[256];
    assert_int_equal(pb_csv_read_record(f, &t->header, err, sizeof err), 1);
    t->nrows = 0;
    while (t->nrows < 64 && pb_csv_read_record(f, &t->rows[t->nrows], err, sizeof err) == 1)
        t->nrows++;
    fclose(f);
}

static void free_csv(struct table *t) {
    pb_csv_record_free(&t->header);
    for (int i = 0; i < t->nrows; i++) pb_csv_record_free(&t->rows[i]);
}

static int column(const struct table *t, const char *name) {
    for (int i = 0; i < t->header.count; i++)
        if (strcmp(t->header.fields[i], name) == 0) return i;
    fail_msg("no column %s", name);
    return -1;
}

/* Row i's axis columns, primitive, backend and status, as one line: what a run decides
 * (the times differ from run to run). */
static void row_key(const struct table *t, int i, char *out, size_t len) {
    int status = column(t, "status");
    size_t at = 0;
    for (int c = 0; c <= NAXES + 1; c++)
        at += (size_t)snprintf(out + at, len - at, "%s,", t->rows[i].fields[c]);
    snprintf(out + at, len - at, "%s", t->rows[i].fields[status]);
}

static void assert_same_rows(const char *a_path, const char *b_path) {
    struct table a, b;
    read_csv(a_path, &a);
    read_csv(b_path, &b);
    assert_int_equal(a.nrows, b.nrows);
    assert_int_equal(a.header.count, b.header.count);
    for (int c = 0; c < a.header.count; c++)
        assert_string_equal(a.header.fields[c], b.header.fields[c]);
    for (int i = 0; i < a.nrows; i++) {
        char ka[1024], kb[1024];
        row_key(&a, i, ka, sizeof ka);
        row_key(&b, i, kb, sizeof kb);
        assert_string_equal(ka, kb);
    }
    free_csv(&a);
    free_csv(&b);
}

static char full[512];

static int setup(void **state) {
    (void)state;
    snprintf(work_dir, sizeof work_dir, "/tmp/pb-suite-run-XXXXXX");
    if (!mkdtemp(work_dir)) return -1;
    path_in(full, sizeof full, "full.csv");
    return run_shell("'%s' run --no-progress --output '%s' '%s' >'%s/full.out' 2>/dev/null", bench,
                     full, config, work_dir);
}

static int teardown(void **state) {
    (void)state;
    return run_shell("rm -rf '%s'", work_dir) == 0 ? 0 : -1;
}

static void one_csv_with_the_union_of_the_axes(void **state) {
    (void)state;
    struct table t;
    read_csv(full, &t);
    assert_int_equal(t.nrows, NROWS);
    const char *const axes[NAXES] = {
        "n",        "dtype",   "distribution", "op",     "values", "segment",  "order", "graph",
        "vertices", "density", "weights",      "source", "k",      "max_size", "sizes"};
    for (int c = 0; c < NAXES; c++) assert_string_equal(t.header.fields[c], axes[c]);
    assert_string_equal(t.header.fields[NAXES], "primitive");
    const bool gpu = have_gpu();
    int prim = column(&t, "primitive"), status = column(&t, "status"), reps = column(&t, "reps");
    int counts[4] = {0};
    const char *const order[4] = {"reduce", "sort", "sssp", "merge"};
    int part = 0;
    for (int i = 0; i < t.nrows; i++) {
        const char *const *f = (const char *const *)t.rows[i].fields;
        /* the parts in order, each a run of rows */
        while (part < 4 && strcmp(f[prim], order[part]) != 0) part++;
        assert_true(part < 4);
        counts[part]++;
        if (strcmp(f[prim], "reduce") == 0) {
            assert_true(f[3][0] && !f[5][0] && !f[7][0] &&
                        !f[12][0]); /* op; no segment, graph, k */
        } else if (strcmp(f[prim], "sort") == 0) {
            assert_true(!f[3][0] && f[5][0] && !f[7][0]);
            assert_string_equal(f[reps], "2"); /* the part's own "reps" */
        } else if (strcmp(f[prim], "sssp") == 0) {
            for (int c = 0; c < 7; c++) assert_string_equal(f[c], ""); /* no n, dtype, ... */
            assert_true(f[7][0] && f[8][0]);
        } else {
            assert_true(f[0][0] && f[12][0] && !f[3][0] && !f[7][0]);
        }
        bool cpu = strcmp(f[column(&t, "target")], "cpu") == 0;
        assert_string_equal(f[status], cpu || gpu ? "ok" : "skipped");
    }
    assert_int_equal(counts[0], 16);
    assert_int_equal(counts[1], 2);
    assert_int_equal(counts[2], 4);
    assert_int_equal(counts[3], 4);
    free_csv(&t);
    /* the summary on stdout: a table per part's primitive */
    char out[512];
    path_in(out, sizeof out, "full.out");
    char *text = slurp(out);
    assert_non_null(strstr(text, "| n | dtype | distribution | op | backend |"));
    assert_non_null(strstr(text, "| graph | vertices | density | weights | source | backend |"));
    assert_non_null(strstr(text, "| k | n | max_size | sizes | dtype | distribution | values |"));
    free(text);
}

static void metadata_names_the_suite(void **state) {
    (void)state;
    char meta[600];
    snprintf(meta, sizeof meta, "%s.meta.json", full);
    char *text = slurp(meta);
    cJSON *m = cJSON_Parse(text);
    free(text);
    assert_non_null(m);
    const cJSON *hash = cJSON_GetObjectItemCaseSensitive(m, "config_hash");
    assert_true(cJSON_IsString(hash) && strlen(hash->valuestring) == 16);
    const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(m, "config");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(cfg, "parts")), 4);
    const cJSON *parts = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(m, "measurement"), "parts");
    assert_int_equal(cJSON_GetArraySize(parts), 4);
    const cJSON *sort = cJSON_GetArrayItem(parts, 1);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(sort, "primitive")->valuestring, "sort");
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(sort, "reps")->valueint, 2);
    assert_int_equal(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(parts, 0), "reps")->valueint, 3);
    cJSON_Delete(m);
}

static void compare_report_and_plot_read_it(void **state) {
    (void)state;
    char out[512];
    path_in(out, sizeof out, "compare.out");
    assert_int_equal(run_shell("'%s' compare '%s' '%s' >'%s' 2>&1", bench, full, full, out), 0);
    char *text = slurp(out);
    assert_non_null(strstr(text, "26 pairs: "));
    assert_non_null(strstr(text, "| graph=random vertices=1024 density=10 weights=int source=0 | "
                                 "sssp/cpu-heap |"));
    free(text);
    path_in(out, sizeof out, "report.out");
    assert_int_equal(run_shell("'%s' report '%s' >'%s' 2>&1", bench, full, out), 0);
    text = slurp(out);
    const char *reduce = strstr(text, "## reduce\n"), *sort = strstr(text, "## sort\n");
    const char *sssp = strstr(text, "## sssp\n"), *merge = strstr(text, "## merge\n");
    assert_true(reduce && sort && sssp && merge && reduce < sort && sort < sssp && sssp < merge);
    /* each section over its own primitive's axes: no empty-axis columns */
    assert_null(strstr(text, "graph=|"));
    assert_non_null(strstr(sssp, "for vertices=1024 density=10 weights=int source=0\n\n| backend | "
                                 "graph=grid | graph=random |"));
    free(text);
    /* an axis one primitive lacks: that primitive is left out, with a note */
    assert_int_equal(run_shell("'%s' report --cols k '%s' >'%s' 2>&1", bench, full, out), 0);
    text = slurp(out);
    assert_non_null(strstr(text, "bench report: reduce rows left out: "));
    assert_non_null(strstr(text, "| k=4 | k=64 |"));
    free(text);
    /* plot: a folder per primitive (the scripts are written even without gnuplot) */
    char dir[512], gp[600];
    path_in(dir, sizeof dir, "plots");
    run_shell("'%s' plot --out '%s' '%s' >/dev/null 2>&1", bench, dir, full);
    const char *const prims[] = {"reduce", "sort", "sssp", "merge"};
    for (int i = 0; i < 4; i++) {
        struct stat st;
        snprintf(gp, sizeof gp, "%s/%s/all.gp", dir, prims[i]);
        if (stat(gp, &st) != 0) fail_msg("no %s", gp);
    }
}

static void resume_completes_a_cut_output(void **state) {
    (void)state;
    char cut[512], meta[600], full_meta[600];
    path_in(cut, sizeof cut, "cut.csv");
    snprintf(meta, sizeof meta, "%s.meta.json", cut);
    snprintf(full_meta, sizeof full_meta, "%s.meta.json", full);
    /* the header and 19 rows (into the sort part), then half of the 20th */
    char *text = slurp(full);
    const char *p = text;
    for (int line = 0; line < 20; line++) p = strchr(p, '\n') + 1;
    size_t keep = (size_t)(p - text) + 12;
    FILE *f = fopen(cut, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, keep, f), keep);
    fclose(f);
    free(text);
    assert_int_equal(run_shell("cp '%s' '%s'", full_meta, meta), 0);
    assert_int_equal(run_shell("'%s' run --no-progress --resume --output '%s' '%s' >/dev/null "
                               "2>/dev/null",
                               bench, cut, config),
                     0);
    assert_same_rows(full, cut);
}

static void shards_merge_into_the_whole(void **state) {
    (void)state;
    char s0[512], s1[512], s2[512], merged[512];
    path_in(s0, sizeof s0, "s0.csv");
    path_in(s1, sizeof s1, "s1.csv");
    path_in(s2, sizeof s2, "s2.csv");
    path_in(merged, sizeof merged, "merged.csv");
    const char *shards[] = {s0, s1, s2};
    for (int i = 0; i < 3; i++)
        assert_int_equal(run_shell("'%s' run --no-progress --shard %d/3 --output '%s' '%s' "
                                   ">/dev/null 2>/dev/null",
                                   bench, i, shards[i], config),
                         0);
    assert_int_equal(run_shell("'%s' merge '%s' '%s' '%s' '%s' >/dev/null 2>/dev/null", bench,
                               merged, s0, s1, s2),
                     0);
    assert_same_rows(full, merged);
}

static void json_lines_write_null_for_absent_axes(void **state) {
    (void)state;
    char jsonl[512];
    path_in(jsonl, sizeof jsonl, "full.jsonl");
    assert_int_equal(run_shell("'%s' run --no-progress --format json --output '%s' '%s' "
                               ">/dev/null 2>/dev/null",
                               bench, jsonl, config),
                     0);
    char *text = slurp(jsonl);
    int rows = 0, sssp = 0;
    for (char *line = text, *end; (end = strchr(line, '\n')); line = end + 1, rows++) {
        *end = '\0';
        cJSON *row = cJSON_Parse(line);
        assert_non_null(row);
        const char *prim = cJSON_GetObjectItemCaseSensitive(row, "primitive")->valuestring;
        if (strcmp(prim, "sssp") == 0) {
            sssp++;
            assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(row, "n")));
            assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(row, "dtype")));
            assert_true(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(row, "vertices")));
        } else {
            assert_true(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(row, "n")));
            assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(row, "graph")));
        }
        cJSON_Delete(row);
    }
    free(text);
    assert_int_equal(rows, NROWS);
    assert_int_equal(sssp, 4);
    /* a second run resumes it: every row is there already */
    assert_int_equal(run_shell("'%s' run --no-progress --format json --resume --output '%s' '%s' "
                               ">/dev/null 2>/dev/null",
                               bench, jsonl, config),
                     0);
    text = slurp(jsonl);
    int again = 0;
    for (char *p = text; (p = strchr(p, '\n')); p++) again++;
    free(text);
    assert_int_equal(again, NROWS);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: test_suite_run BENCH SUITE.json\n");
        return 2;
    }
    bench = argv[1];
    config = argv[2];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_csv_with_the_union_of_the_axes),
        cmocka_unit_test(metadata_names_the_suite),
        cmocka_unit_test(compare_report_and_plot_read_it),
        cmocka_unit_test(resume_completes_a_cut_output),
        cmocka_unit_test(shards_merge_into_the_whole),
        cmocka_unit_test(json_lines_write_null_for_absent_axes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
