/* End to end, GPU-free: `bench run --shard I/N` parts of a CPU-only config merged by
 * `bench merge` hold the unsharded run's rows (case, backend, status; the times differ),
 * in its order; merge refuses shards of another config, overlapping shards and an
 * existing output; the Slurm array variables choose the shard; --devices all without a
 * GPU falls back to one worker with the same rows; and the sweep-order sort that
 * --devices applies puts shuffled rows back in place. */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h> /* realpath: _DEFAULT_SOURCE, defined by the build */
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "config.h"
#include "csv.h"
#include "row_order.h"
#include "shell.h"
#include "sweep.h"

static const char *bench, *config;
static char work_dir[256];

#define MAX_ROWS 512

/* The rows of a result CSV as "axes..,backend,status" lines, in file order. */
struct keys {
    int count;
    char line[MAX_ROWS][160];
};

static void read_keys(const char *path, struct keys *k) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    struct pb_csv_record header, row;
    char err[256];
    assert_int_equal(pb_csv_read_record(f, &header, err, sizeof err), 1);
    int backend = -1, status = -1, naxes = -1;
    for (int i = 0; i < header.count; i++) {
        if (strcmp(header.fields[i], "primitive") == 0) naxes = i;
        if (strcmp(header.fields[i], "backend") == 0) backend = i;
        if (strcmp(header.fields[i], "status") == 0) status = i;
    }
    assert_true(naxes > 0 && backend > 0 && status > 0);
    k->count = 0;
    while (pb_csv_read_record(f, &row, err, sizeof err) == 1) {
        assert_true(k->count < MAX_ROWS);
        char *at = k->line[k->count];
        size_t left = sizeof k->line[0];
        for (int i = 0; i < naxes; i++) {
            int w = snprintf(at, left, "%s,", row.fields[i]);
            at += w;
            left -= (size_t)w;
        }
        snprintf(at, left, "%s,%s", row.fields[backend], row.fields[status]);
        k->count++;
        pb_csv_record_free(&row);
    }
    pb_csv_record_free(&header);
    fclose(f);
}

static void assert_same_rows(const char *a, const char *b) {
    static struct keys ka, kb;
    read_keys(a, &ka);
    read_keys(b, &kb);
    assert_int_equal(ka.count, kb.count);
    for (int i = 0; i < ka.count; i++) assert_string_equal(ka.line[i], kb.line[i]);
}

static int rows_in(const char *path) {
    static struct keys k;
    read_keys(path, &k);
    return k.count;
}

/* Runs bench run with extra options to WORK/name.csv; returns its exit code. */
static int run_to(const char *name, const char *options) {
    return run_shell("%s run --no-progress --force %s --output '%s/%s.csv' '%s' >/dev/null "
                     "2>'%s/%s.err'",
                     bench, options, work_dir, name, config, work_dir, name);
}

static int setup(void **state) {
    (void)state;
    /* The unsharded run every test compares with. */
    return run_to("whole", "") == 0 ? 0 : -1;
}

static void shards_merge_to_the_unsharded_rows(void **state) {
    (void)state;
    char path[600];
    int total = 0;
    for (int i = 0; i < 3; i++) {
        char name[32], opt[32];
        snprintf(name, sizeof name, "part%d", i);
        snprintf(opt, sizeof opt, "--shard %d/3", i);
        assert_int_equal(run_to(name, opt), 0);
        snprintf(path, sizeof path, "%s/%s.csv", work_dir, name);
        int rows = rows_in(path);
        assert_true(rows > 0);
        total += rows;
    }
    snprintf(path, sizeof path, "%s/whole.csv", work_dir);
    assert_int_equal(total, rows_in(path)); /* disjoint parts that cover the sweep */
    /* Given out of order: merge puts the rows in sweep order. */
    assert_int_equal(run_shell("cd '%s' && %s merge merged.csv part2.csv part0.csv part1.csv "
                               "2>merge.err",
                               work_dir, bench),
                     0);
    char merged[600];
    snprintf(merged, sizeof merged, "%s/merged.csv", work_dir);
    assert_same_rows(path, merged);
    /* The metadata: no shard left, the three inputs listed. */
    assert_int_equal(run_shell("cd '%s' && grep -q '\"merged_from\"' merged.csv.meta.json && "
                               "! grep -q '\"shard\"' merged.csv.meta.json && "
                               "[ $(grep -c '\"part\":' merged.csv.meta.json) = 3 ]",
                               work_dir),
                     0);
    /* A merged output is the whole sweep: resuming it finds nothing to do. */
    assert_int_equal(run_shell("%s run --no-progress --resume --output '%s' '%s' >/dev/null "
                               "2>&1",
                               bench, merged, config),
                     0);
    assert_same_rows(path, merged);
}

static void merge_refuses_what_does_not_belong_together(void **state) {
    (void)state;
    assert_int_equal(run_to("p0", "--shard 0/2"), 0);
    assert_int_equal(run_to("p1", "--shard 1/2"), 0);
    assert_int_equal(run_to("q1", "--shard 1/3"), 0);
    /* Another config: the same sweep with other repetitions has another hash. */
    assert_int_equal(run_shell("sed 's/\"reps\": 3/\"reps\": 2/' '%s' > '%s/other.json' && "
                               "%s run --no-progress --force --shard 1/2 --output '%s/o1.csv' "
                               "'%s/other.json' >/dev/null 2>&1",
                               config, work_dir, bench, work_dir, work_dir),
                     0);
    assert_int_equal(run_shell("cd '%s' && cp p1.csv fake0.csv && cp p0.csv.meta.json "
                               "fake0.csv.meta.json",
                               work_dir),
                     0);
    struct {
        const char *files, *message;
    } refused[] = {
        {"p0.csv o1.csv", "o1.csv.meta.json: config_hash: .*different configs"},
        {"p0.csv p0.csv", "p0.csv.meta.json: run.shard: shard 0/2 again"},
        {"p0.csv q1.csv", "q1.csv.meta.json: run.shard: shard 1/3, but .* is shard 0/2"},
        {"whole.csv p1.csv", "p1.csv.meta.json: run.shard: shard 1/2, but .* is the whole sweep"},
        /* Shard 1's rows under shard 0's metadata: caught by the rows themselves. */
        {"p1.csv fake0.csv", "fake0.csv: record 2: the same case and backend as p1.csv record 2"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        assert_int_equal(run_shell("cd '%s' && %s merge --force bad.csv %s 2>bad.err", work_dir,
                                   bench, refused[i].files),
                         2);
        /* One line, naming the file. */
        assert_int_equal(run_shell("cd '%s' && [ $(wc -l < bad.err) = 1 ] && grep -q "
                                   "'^bench: merge: %s' bad.err",
                                   work_dir, refused[i].message),
                         0);
    }
    /* An existing output is never overwritten without --force. */
    assert_int_equal(run_shell("cd '%s' && %s merge pq.csv p0.csv p1.csv 2>/dev/null && "
                               "cp pq.csv pq.before && %s merge pq.csv p1.csv 2>pq.err",
                               work_dir, bench, bench),
                     2);
    assert_int_equal(run_shell("cd '%s' && cmp -s pq.csv pq.before && "
                               "grep -q 'pq.csv: output exists; use --force' pq.err",
                               work_dir),
                     0);
    assert_int_equal(
        run_shell("cd '%s' && %s merge --force pq.csv p0.csv p1.csv 2>/dev/null", work_dir, bench),
        0);
    char whole[600], pq[600];
    snprintf(whole, sizeof whole, "%s/whole.csv", work_dir);
    snprintf(pq, sizeof pq, "%s/pq.csv", work_dir);
    assert_same_rows(whole, pq);
    /* A missing shard is reported, not refused. */
    assert_int_equal(run_shell("cd '%s' && %s merge --force half.csv p1.csv 2>half.err && "
                               "grep -q 'shards 0/2: not given' half.err",
                               work_dir, bench),
                     0);
    /* --resume of another shard's output is refused. */
    assert_int_equal(run_shell("%s run --no-progress --resume --shard 1/2 --output '%s/p0.csv' "
                               "'%s' >/dev/null 2>'%s/resume.err'",
                               bench, work_dir, config, work_dir),
                     2);
    assert_int_equal(run_shell("grep -q 'run.shard: the output holds shard 0/2, this run is shard "
                               "1/2' '%s/resume.err'",
                               work_dir),
                     0);
}

static void slurm_array_variables_choose_the_shard(void **state) {
    (void)state;
    assert_int_equal(run_to("opt1", "--shard 1/3"), 0);
    assert_int_equal(run_shell("cd '%s' && SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=3 "
                               "%s run --no-progress --force --output env1.csv '%s' >/dev/null "
                               "2>&1",
                               work_dir, bench, config),
                     0);
    char a[600], b[600];
    snprintf(a, sizeof a, "%s/opt1.csv", work_dir);
    snprintf(b, sizeof b, "%s/env1.csv", work_dir);
    assert_same_rows(a, b);
    assert_int_equal(run_shell("cd '%s' && grep -q '\"source\":[[:space:]]*\"slurm\"' "
                               "env1.csv.meta.json",
                               work_dir),
                     0);
    /* An array numbered from 1 (--array=1-3): task 2 is shard 1. */
    assert_int_equal(run_shell("cd '%s' && SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_MIN=1 "
                               "SLURM_ARRAY_TASK_COUNT=3 %s run --no-progress --force --output "
                               "env2.csv '%s' >/dev/null 2>&1",
                               work_dir, bench, config),
                     0);
    snprintf(b, sizeof b, "%s/env2.csv", work_dir);
    assert_same_rows(a, b);
    /* --shard wins over the environment. */
    assert_int_equal(run_shell("cd '%s' && SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_TASK_COUNT=3 "
                               "%s run --no-progress --force --shard 1/3 --output env3.csv '%s' "
                               ">/dev/null 2>&1",
                               work_dir, bench, config),
                     0);
    snprintf(b, sizeof b, "%s/env3.csv", work_dir);
    assert_same_rows(a, b);
    /* A stepped array (--array=0-6:2: ids 0, 2, 4, 6 of 4) is refused, as are bad shards. */
    assert_int_equal(run_shell("SLURM_ARRAY_TASK_ID=6 SLURM_ARRAY_TASK_COUNT=4 %s run "
                               "--no-progress --force --output '%s/x.csv' '%s' 2>'%s/step.err' "
                               ">/dev/null",
                               bench, work_dir, config, work_dir),
                     2);
    assert_int_equal(
        run_shell("grep -q 'SLURM_ARRAY_TASK_ID=6.*contiguous' '%s/step.err'", work_dir), 0);
    const char *bad[] = {"3/3", "1", "a/2", "-1/2", "0/0", "1/2x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char opt[64];
        snprintf(opt, sizeof opt, "--shard %s", bad[i]);
        assert_int_equal(run_to("bad", opt), 2);
    }
}

static void devices_all_without_a_gpu_runs_as_one_worker(void **state) {
    (void)state;
    /* Where there is a GPU, test_devices_gpu checks the multi-GPU rows instead. */
    int rc = run_to("devices", "--devices all");
    assert_int_equal(rc, 0);
    char a[600], b[600];
    snprintf(a, sizeof a, "%s/whole.csv", work_dir);
    snprintf(b, sizeof b, "%s/devices.csv", work_dir);
    assert_same_rows(a, b);
    assert_int_equal(run_to("devices-bad", "--devices 0,0"), 2);
    assert_int_equal(run_to("devices-bad", "--devices 1,x"), 2);
}

/* The rows reversed, then sorted back by the sweep order --devices uses. */
static void sort_restores_the_sweep_order(void **state) {
    (void)state;
    assert_int_equal(run_shell("cd '%s' && head -n 1 whole.csv > shuffled.csv && tail -n +2 "
                               "whole.csv | tac >> shuffled.csv && ! cmp -s whole.csv shuffled.csv",
                               work_dir),
                     0);
    struct pb_config cfg;
    char *errors = NULL;
    assert_int_equal(pb_config_load(config, &cfg, &errors), 0);
    struct pb_sweep sweep;
    assert_int_equal(pb_sweep_expand(&cfg, &sweep), 0);
    struct pb_row_order order;
    assert_int_equal(pb_row_order_build(&cfg, &sweep, &order), 0);
    char path[600], err[512];
    snprintf(path, sizeof path, "%s/shuffled.csv", work_dir);
    assert_int_equal(pb_results_file_sort(path, PB_FORMAT_CSV, &order, err, sizeof err), 0);
    assert_int_equal(run_shell("cd '%s' && cmp whole.csv shuffled.csv", work_dir), 0);
    /* A row of another sweep is refused, and the file left as it was. */
    assert_int_equal(run_shell("cd '%s' && cp whole.csv foreign.csv && tail -n 1 whole.csv | "
                               "sed 's/^[0-9]*,/12345,/' >> foreign.csv && cp foreign.csv "
                               "foreign.before",
                               work_dir),
                     0);
    snprintf(path, sizeof path, "%s/foreign.csv", work_dir);
    assert_int_not_equal(pb_results_file_sort(path, PB_FORMAT_CSV, &order, err, sizeof err), 0);
    assert_non_null(strstr(err, "not in the config's sweep"));
    assert_int_equal(run_shell("cd '%s' && cmp foreign.csv foreign.before", work_dir), 0);
    pb_row_order_free(&order);
    pb_sweep_free(&sweep);
    pb_config_free(&cfg);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s BENCH CPU_CONFIG\n", argv[0]);
        return 2;
    }
    /* Absolute, since some commands run in the work folder. */
    static char bench_path[4096], config_path[4096];
    if (!realpath(argv[1], bench_path) || !realpath(argv[2], config_path)) return 2;
    bench = bench_path;
    config = config_path;
    snprintf(work_dir, sizeof work_dir, "/tmp/pb-shard-XXXXXX");
    if (!mkdtemp(work_dir)) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shards_merge_to_the_unsharded_rows),
        cmocka_unit_test(merge_refuses_what_does_not_belong_together),
        cmocka_unit_test(slurm_array_variables_choose_the_shard),
        cmocka_unit_test(devices_all_without_a_gpu_runs_as_one_worker),
        cmocka_unit_test(sort_restores_the_sweep_order),
    };
    int failed = cmocka_run_group_tests(tests, setup, NULL);
    if (!failed) run_shell("rm -rf '%s'", work_dir);
    return failed;
}
