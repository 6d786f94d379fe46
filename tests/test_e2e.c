/* End to end: the bench binary on the smoke config, on whatever machine this is (GPU
 * rows are ok with a GPU, skipped with the reason without one), its exit codes on bad
 * input, and the NVTX ranges it opens, recorded through an injection library. */
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
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "csv.h"
#include "gpu_skip.h"
#include "shell.h"

static const char *bench, *smoke_config, *nvtx_recorder;
static char work_dir[256];

static int column(const struct pb_csv_record *header, const char *name) {
    for (int i = 0; i < header->count; i++)
        if (strcmp(header->fields[i], name) == 0) return i;
    fail_msg("no column %s", name);
    return -1;
}

static void smoke_run_writes_verified_rows(void **state) {
    (void)state;
    char out[512], meta[600];
    snprintf(out, sizeof out, "%s/smoke.csv", work_dir);
    snprintf(meta, sizeof meta, "%s.meta.json", out);
    assert_int_equal(run_shell("'%s' run --no-progress --output '%s' '%s' > '%s/summary.md'", bench,
                               out, smoke_config, work_dir),
                     0);
    FILE *f = fopen(out, "r");
    assert_non_null(f);
    struct pb_csv_record header, row;
    char err[256];
    assert_int_equal(pb_csv_read_record(f, &header, err, sizeof err), 1);
    const char *const leading[] = {"n",         "dtype",   "distribution", "op",
                                   "primitive", "backend", "target"};
    for (int i = 0; i < 7; i++) assert_string_equal(header.fields[i], leading[i]);
    int backend = column(&header, "backend"), status = column(&header, "status"),
        reason = column(&header, "reason");
    int reps = column(&header, "reps"), mean = column(&header, "mean_ms"),
        low = column(&header, "ci95_low_ms");
    int high = column(&header, "ci95_high_ms"), gelem = column(&header, "gelem_per_s");
    int rows = 0, cpu_ok = 0, gpu_rows = 0;
    bool gpu = have_gpu();
    while (pb_csv_read_record(f, &row, err, sizeof err) == 1) {
        assert_int_equal(row.count, header.count);
        rows++;
        const char *s = row.fields[status];
        if (strcmp(row.fields[backend], "reduce/cpu") == 0) {
            assert_string_equal(s, "ok");
            assert_true(atoi(row.fields[reps]) >= 1);
            double m = atof(row.fields[mean]);
            assert_true(m > 0);
            assert_true(atof(row.fields[gelem]) > 0);
            if (atoi(row.fields[reps]) >= 2)
                assert_true(atof(row.fields[low]) <= m && m <= atof(row.fields[high]));
            cpu_ok++;
        } else {
            gpu_rows++;
            if (gpu) {
                assert_string_equal(s, "ok");
                assert_int_equal(atoi(row.fields[reps]), 5);
            } else {
                assert_string_equal(s, "skipped");
                assert_non_null(strstr(row.fields[reason], "no CUDA device"));
                assert_string_equal(row.fields[mean], "");
            }
        }
        pb_csv_record_free(&row);
    }
    pb_csv_record_free(&header);
    fclose(f);
    /* 3 n x 3 dtypes x 2 distributions x 4 ops = 72 cases, 3 backends each */
    assert_int_equal(rows, 216);
    assert_int_equal(cpu_ok, 72);
    assert_int_equal(gpu_rows, 144);
    assert_int_equal(
        run_shell("grep -q '\"config_hash\"' '%s' && grep -q '\"git_commit\"' '%s'", meta, meta),
        0);
    assert_int_equal(run_shell("grep -q '| reduce/cpu | ok |' '%s/summary.md'", work_dir), 0);
}

static void existing_output_is_not_overwritten_without_force(void **state) {
    (void)state;
    char out[512];
    snprintf(out, sizeof out, "%s/kept.csv", work_dir);
    FILE *f = fopen(out, "w");
    fputs("precious\n", f);
    fclose(f);
    assert_int_equal(run_shell("'%s' run --no-progress --output '%s' '%s' 2>/dev/null", bench, out,
                               smoke_config),
                     2);
    assert_int_equal(run_shell("grep -qx precious '%s'", out), 0);
}

static void bad_config_exits_2_and_writes_nothing(void **state) {
    (void)state;
    char cfg[512], out[512];
    snprintf(cfg, sizeof cfg, "%s/bad.json", work_dir);
    snprintf(out, sizeof out, "%s/bad.csv", work_dir);
    FILE *f = fopen(cfg, "w");
    fputs("{\"primitive\": \"reduc\", \"sweep\": {\"n\": [-5]}}", f);
    fclose(f);
    assert_int_equal(
        run_shell("'%s' run --output '%s' '%s' 2>'%s/err.txt'", bench, out, cfg, work_dir), 2);
    assert_int_equal(
        run_shell("grep -q 'bad.json: primitive: .*did you mean .reduce.' '%s/err.txt'", work_dir),
        0);
    assert_int_equal(run_shell("'%s' validate '%s' 2>/dev/null", bench, cfg), 2);
    struct stat st;
    assert_int_not_equal(stat(out, &st), 0);
    assert_int_equal(run_shell("'%s' validate '%s' >/dev/null", bench, smoke_config), 0);
    assert_int_equal(run_shell("'%s' frobnicate 2>/dev/null", bench), 2);
    assert_int_equal(run_shell("'%s' list | grep -q 'reduce/butterfly'", bench), 0);
}

/* The ranges Nsight would show: one per case and backend, one per repetition, setup and
 * verification; every push popped. */
static void nvtx_ranges_name_every_case(void **state) {
    (void)state;
    char out[512], log[512];
    snprintf(out, sizeof out, "%s/nvtx.csv", work_dir);
    snprintf(log, sizeof log, "%s/nvtx.log", work_dir);
    assert_int_equal(run_shell("NVTX_INJECTION64_PATH='%s' PB_NVTX_LOG='%s' '%s' run --no-progress "
                               "--output '%s' '%s' >/dev/null",
                               nvtx_recorder, log, bench, out, smoke_config),
                     0);
    FILE *f = fopen(log, "r");
    assert_non_null(f);
    char line[1024];
    int depth = 0, max_depth = 0, case_ranges = 0;
    bool saw_rep = false, saw_setup = false, saw_verify = false, saw_named = false;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (strcmp(line, "pop") == 0) {
            depth--;
            assert_true(depth >= 0);
            continue;
        }
        assert_memory_equal(line, "push ", 5);
        depth++;
        max_depth = depth > max_depth ? depth : max_depth;
        const char *name = line + 5;
        if (strncmp(name, "reduce:", 7) == 0) case_ranges++;
        saw_named |=
            strcmp(name, "reduce:cpu n=1000 dtype=f32 distribution=all-equal op=argmin") == 0;
        saw_rep |= strcmp(name, "rep 0") == 0;
        saw_setup |= strcmp(name, "setup: input") == 0;
        saw_verify |= strcmp(name, "verify") == 0;
    }
    fclose(f);
    assert_int_equal(depth, 0);
    assert_true(max_depth >= 2);
    assert_true(saw_named && saw_rep && saw_setup && saw_verify);
    /* the CPU backend's 72 cases at least; with a GPU, every backend's */
    assert_true(case_ranges >= (have_gpu() ? 216 : 72));
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s BENCH SMOKE_CONFIG NVTX_RECORDER\n", argv[0]);
        return 2;
    }
    bench = argv[1];
    smoke_config = argv[2];
    nvtx_recorder = argv[3];
    snprintf(work_dir, sizeof work_dir, "/tmp/pb-e2e-XXXXXX");
    if (!mkdtemp(work_dir)) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(smoke_run_writes_verified_rows),
        cmocka_unit_test(existing_output_is_not_overwritten_without_force),
        cmocka_unit_test(bad_config_exits_2_and_writes_nothing),
        cmocka_unit_test(nvtx_ranges_name_every_case),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    if (!failed) run_shell("rm -rf '%s'", work_dir);
    return failed;
}
