/* End to end, GPU-free: bench run stopped by SIGINT / SIGTERM keeps only complete rows
 * and says how to resume; --resume completes the sweep with every row exactly once and
 * refuses another config; --format json holds the CSV's rows; --time-limit and
 * --profile on the CPU backend. Runs the built bench binary on configs/tests/slow-cpu.json
 * (32 CPU rows of at least 0.1 s each, so over 3 s in all on any machine). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "read_file.h"
#include "shell.h"

#include "csv.h"

#define SLOW_ROWS 32 /* 4 n x 2 dtypes x 4 ops, one backend */

static const char *bench, *slow_config, *smoke_config;
static char work_dir[256];

/* Starts `bench run --no-progress [format...] --output OUT CONFIG` with stderr to
 * err_path, sends sig after delay_s, and returns the exit code. */
static int run_and_signal(const char *out, const char *format, const char *config,
                          const char *err_path, int sig, double delay_s) {
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout) || !freopen(err_path, "w", stderr)) _exit(99);
        if (format)
            execl(bench, bench, "run", "--no-progress", "--format", format, "--output", out, config,
                  (char *)NULL);
        else
            execl(bench, bench, "run", "--no-progress", "--output", out, config, (char *)NULL);
        _exit(98);
    }
    struct timespec ts = {(time_t)delay_s, (long)((delay_s - (time_t)delay_s) * 1e9)};
    nanosleep(&ts, NULL);
    kill(pid, sig);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static char *slurp(const char *path) {
    char *text = read_whole_file(path, NULL);
    assert_non_null(text);
    return text;
}

/* Reads a result CSV: asserts every row has the header's field count and ends its line,
 * and that no (case, backend) appears twice. Returns the row count. */
static int complete_rows(const char *path) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    struct pb_csv_record header, row;
    char err[256];
    assert_int_equal(pb_csv_read_record(f, &header, err, sizeof err), 1);
    char keys[256][128];
    int rows = 0;
    int got;
    while ((got = pb_csv_read_record(f, &row, err, sizeof err)) == 1) {
        assert_int_equal(row.count, header.count);
        assert_true(rows < 256);
        /* n, dtype, distribution, op, primitive, backend */
        snprintf(keys[rows], sizeof keys[rows], "%s,%s,%s,%s,%s", row.fields[0], row.fields[1],
                 row.fields[2], row.fields[3], row.fields[5]);
        for (int i = 0; i < rows; i++) assert_string_not_equal(keys[i], keys[rows]);
        rows++;
        pb_csv_record_free(&row);
    }
    assert_int_equal(got, 0);
    pb_csv_record_free(&header);
    fclose(f);
    char *text = slurp(path);
    size_t len = strlen(text);
    assert_true(len >= 2 && text[len - 2] == '\r' && text[len - 1] == '\n');
    free(text);
    return rows;
}

/* The command line bench printed after "to resume: ". */
static void resume_line(const char *err_path, char *cmd, size_t len) {
    char *text = slurp(err_path);
    const char *at = strstr(text, "to resume: ");
    assert_non_null(at);
    at += strlen("to resume: ");
    size_t n = strcspn(at, "\n");
    assert_true(n < len);
    memcpy(cmd, at, n);
    cmd[n] = '\0';
    free(text);
    assert_non_null(strstr(cmd, " --resume "));
    assert_null(strstr(cmd, "--force"));
}

static void sigint_keeps_complete_rows_and_resume_finishes(void **state) {
    (void)state;
    char out[512], err[512], cmd[4096];
    snprintf(out, sizeof out, "%s/slow.csv", work_dir);
    snprintf(err, sizeof err, "%s/sigint.txt", work_dir);
    assert_int_equal(run_and_signal(out, NULL, slow_config, err, SIGINT, 1.0), 130);
    int rows = complete_rows(out);
    assert_true(rows < SLOW_ROWS);
    resume_line(err, cmd, sizeof cmd);
    assert_int_equal(run_shell("grep -q 'interrupted by SIGINT' '%s'", err), 0);
    /* The printed command itself, through the shell, finishes the sweep. */
    assert_int_equal(run_shell("%s >/dev/null 2>'%s/resume.txt'", cmd, work_dir), 0);
    assert_int_equal(complete_rows(out), SLOW_ROWS);
    char meta[600];
    snprintf(meta, sizeof meta, "%s.meta.json", out);
    char *text = slurp(meta);
    cJSON *m = cJSON_Parse(text);
    free(text);
    assert_non_null(m);
    /* The first run's provenance stays; the resume is added to it. */
    assert_non_null(cJSON_GetObjectItem(m, "date"));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(m, "resumed")), 1);
    cJSON_Delete(m);
    /* A second resume has nothing left to do and changes nothing. */
    char *before = slurp(out);
    assert_int_equal(run_shell("%s >/dev/null 2>&1", cmd), 0);
    char *after = slurp(out);
    assert_string_equal(before, after);
    free(before);
    free(after);
}

static void resume_refuses_another_config(void **state) {
    (void)state;
    char out[512], cfg[512];
    snprintf(out, sizeof out, "%s/refused.csv", work_dir);
    snprintf(cfg, sizeof cfg, "%s/changed.json", work_dir);
    assert_int_equal(
        run_shell("'%s' run --no-progress --time-limit 1e-6 --output '%s' '%s' >/dev/null 2>&1",
                  bench, out, slow_config),
        1);
    assert_int_equal(
        run_shell("sed 's/\"warmup\": 1/\"warmup\": 2/' '%s' > '%s'", slow_config, cfg), 0);
    char *before = slurp(out);
    assert_int_equal(
        run_shell("'%s' run --no-progress --resume --output '%s' '%s' 2>'%s/refused.txt'", bench,
                  out, cfg, work_dir),
        2);
    assert_int_equal(
        run_shell("grep -q 'meta.json: config_hash: .*different config' '%s/refused.txt'",
                  work_dir),
        0);
    char *after = slurp(out);
    assert_string_equal(before, after);
    free(before);
    free(after);
    /* Not a primbench CSV: refused, untouched. */
    assert_int_equal(run_shell("printf 'precious\\n' > '%s'", out), 0);
    assert_int_equal(run_shell("'%s' run --no-progress --resume --output '%s' '%s' 2>/dev/null",
                               bench, out, slow_config),
                     2);
    assert_int_equal(run_shell("grep -qx precious '%s'", out), 0);
    assert_int_equal(run_shell("'%s' run --force --resume '%s' 2>/dev/null", bench, slow_config),
                     2);
}

/* Each line of a JSON Lines output as a cJSON object, asserted; returns the count. */
static int json_rows(const char *path, cJSON **rows, int cap) {
    char *text = slurp(path);
    int n = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        assert_true(n < cap);
        rows[n] = cJSON_Parse(line);
        assert_non_null(rows[n]);
        assert_true(cJSON_IsObject(rows[n]));
        n++;
    }
    free(text);
    return n;
}

static void sigterm_on_json_then_resume(void **state) {
    (void)state;
    char out[512], err[512], cmd[4096];
    snprintf(out, sizeof out, "%s/slow.jsonl", work_dir);
    snprintf(err, sizeof err, "%s/sigterm.txt", work_dir);
    assert_int_equal(run_and_signal(out, "json", slow_config, err, SIGTERM, 1.0), 143);
    assert_int_equal(run_shell("grep -q 'interrupted by SIGTERM' '%s'", err), 0);
    resume_line(err, cmd, sizeof cmd);
    cJSON *rows[64];
    int before = json_rows(out, rows, 64);
    for (int i = 0; i < before; i++) cJSON_Delete(rows[i]);
    assert_true(before < SLOW_ROWS);
    assert_int_equal(run_shell("%s >/dev/null 2>/dev/null", cmd), 0);
    int n = json_rows(out, rows, 64);
    assert_int_equal(n, SLOW_ROWS);
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < i; j++) {
            bool same = true;
            const char *keys[] = {"n", "dtype", "op", "backend"};
            for (int k = 0; k < 4; k++)
                same &= cJSON_Compare(cJSON_GetObjectItem(rows[i], keys[k]),
                                      cJSON_GetObjectItem(rows[j], keys[k]), true);
            assert_false(same);
        }
    }
    for (int i = 0; i < n; i++) cJSON_Delete(rows[i]);
}

/* The same run as CSV and as JSON Lines: the same rows, fields and order; numbers as
 * numbers, missing numbers as null. */
static void json_lines_hold_the_csv_rows(void **state) {
    (void)state;
    char csv[512], json[512];
    snprintf(csv, sizeof csv, "%s/smoke.csv", work_dir);
    snprintf(json, sizeof json, "%s/smoke.jsonl", work_dir);
    assert_int_equal(run_shell("'%s' run --no-progress --output '%s' '%s' >/dev/null 2>&1", bench,
                               csv, smoke_config),
                     0);
    assert_int_equal(
        run_shell("'%s' run --no-progress --format json --output '%s' '%s' >/dev/null 2>&1", bench,
                  json, smoke_config),
        0);
    static cJSON *rows[512];
    int n = json_rows(json, rows, 512);
    FILE *f = fopen(csv, "rb");
    assert_non_null(f);
    struct pb_csv_record header, rec;
    char err[256];
    assert_int_equal(pb_csv_read_record(f, &header, err, sizeof err), 1);
    int csv_rows = 0;
    while (pb_csv_read_record(f, &rec, err, sizeof err) == 1) {
        assert_true(csv_rows < n);
        cJSON *row = rows[csv_rows++];
        assert_int_equal(cJSON_GetArraySize(row), header.count);
        int i = 0;
        for (cJSON *v = row->child; v; v = v->next, i++) {
            assert_string_equal(v->string, header.fields[i]);
            const char *text = rec.fields[i];
            const char *name = header.fields[i];
            /* setup and wall times differ between the two runs, and so may whether a rate's
             * upper end is bounded (empty where the time interval reaches zero) */
            size_t len = strlen(name);
            bool timing = strcmp(name, "setup_ms") == 0 || strcmp(name, "wall_ms") == 0;
            if (len > 8 && strcmp(name + len - 8, "_ci_high") == 0)
                assert_true(cJSON_IsNumber(v) || cJSON_IsNull(v));
            else if (cJSON_IsString(v))
                assert_string_equal(v->valuestring, text);
            else if (cJSON_IsNull(v))
                assert_string_equal(text, "");
            else if (!timing)
                assert_true(cJSON_IsNumber(v) && text[0] != '\0');
        }
        if (strcmp(cJSON_GetObjectItem(row, "status")->valuestring, "ok") == 0)
            assert_true(cJSON_IsNumber(cJSON_GetObjectItem(row, "mean_ms")));
        assert_true(cJSON_IsNumber(cJSON_GetObjectItem(row, "n")));
        assert_true(cJSON_IsNumber(cJSON_GetObjectItem(row, "reps")));
        pb_csv_record_free(&rec);
    }
    pb_csv_record_free(&header);
    fclose(f);
    assert_int_equal(csv_rows, n);
    assert_int_equal(n, 216);
    for (int i = 0; i < n; i++) cJSON_Delete(rows[i]);
}

/* A CPU row cannot be preempted: with a limit no repetition can meet, every row is a
 * timeout without a time, the sweep goes on to the end, and the exit code is 1. */
static void cpu_time_limit_marks_timeout(void **state) {
    (void)state;
    char out[512];
    snprintf(out, sizeof out, "%s/timeout.csv", work_dir);
    assert_int_equal(
        run_shell("'%s' run --no-progress --time-limit 1e-6 --output '%s' '%s' >/dev/null 2>&1",
                  bench, out, slow_config),
        1);
    assert_int_equal(complete_rows(out), SLOW_ROWS);
    assert_int_equal(
        run_shell("test $(grep -c ',timeout,.*time limit of 1e-06 s.*,0,,' '%s') -eq %d", out,
                  SLOW_ROWS),
        0);
}

static void profile_runs_each_case_once(void **state) {
    (void)state;
    char out[512];
    snprintf(out, sizeof out, "%s/profile.csv", work_dir);
    assert_int_equal(
        run_shell("'%s' run --no-progress --profile --output '%s' '%s' >/dev/null 2>&1", bench, out,
                  smoke_config),
        0);
    FILE *f = fopen(out, "rb");
    assert_non_null(f);
    struct pb_csv_record header, rec;
    char err[256];
    assert_int_equal(pb_csv_read_record(f, &header, err, sizeof err), 1);
    int ok = 0;
    while (pb_csv_read_record(f, &rec, err, sizeof err) == 1) {
        if (strcmp(rec.fields[8], "ok") == 0) {       /* status */
            assert_string_equal(rec.fields[10], "1"); /* reps */
            assert_string_equal(rec.fields[12], "");  /* stddev of one repetition */
            ok++;
        }
        pb_csv_record_free(&rec);
    }
    pb_csv_record_free(&header);
    fclose(f);
    assert_true(ok >= 72);
    char meta[600];
    snprintf(meta, sizeof meta, "%s.meta.json", out);
    assert_int_equal(run_shell("grep -q '\"profile\":.*true' '%s'", meta), 0);
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s BENCH SLOW_CPU_CONFIG SMOKE_CONFIG\n", argv[0]);
        return 2;
    }
    bench = argv[1];
    slow_config = argv[2];
    smoke_config = argv[3];
    snprintf(work_dir, sizeof work_dir, "/tmp/pb-interrupt-XXXXXX");
    if (!mkdtemp(work_dir)) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sigint_keeps_complete_rows_and_resume_finishes),
        cmocka_unit_test(resume_refuses_another_config),
        cmocka_unit_test(sigterm_on_json_then_resume),
        cmocka_unit_test(json_lines_hold_the_csv_rows),
        cmocka_unit_test(cpu_time_limit_marks_timeout),
        cmocka_unit_test(profile_runs_each_case_once),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    if (!failed) run_shell("rm -rf '%s'", work_dir);
    return failed;
}
