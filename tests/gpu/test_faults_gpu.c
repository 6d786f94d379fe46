/* The fault drills on a real GPU (skipped, 77, without one), through the bench binary
 * and the fault plugin (tests/fault_plugin.c); README "Fault drills" says what each
 * shows.
 *
 * recovery (configs/tests/faults-recovery.json; rows in registry order per case:
 *   butterfly, cub, then the plugin's illegal-address, launch, wrong, oom):
 *   the illegal address is an error row with the CUDA message, the device is reset, and
 *   every later row is what it would have been: the failed launch an error, the wrong
 *   sum `wrong` without a time, the oversized allocation an error with the driver's
 *   message, the next case's butterfly and cub ok with times. Exit 1 (rows failed).
 * hang (faults-hang.json, --time-limit 2): butterfly ok, then fault-hang `timeout`, and
 *   the sweep stops there: exit 1 within 60 s, both rows and the metadata on disk.
 * memory (faults-memory.json): select of 3 x 2^31 u8 keys needs 150 GiB of device
 *   memory by its estimate: the row is skipped with "needs X GiB, Y GiB free". */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "gpu_skip.h"
#include "result_rows.h"
#include "shell.h"

static const char *bench, *plugin, *recovery_config, *hang_config, *memory_config;
static char work_dir[256];

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static const struct result_row *row_of(const struct result_row *rows, int count, const char *n,
                                       const char *backend) {
    static const struct result_row missing = {.status = "missing"};
    const struct result_row *r = find_result_row(rows, count, n, backend);
    if (r) return r;
    fail_msg("no row of %s at n=%s", backend, n);
    return &missing; /* not reached: fail_msg ends the test */
}

static void assert_ok_with_time(const struct result_row *r) {
    if (strcmp(r->status, "ok") != 0)
        fail_msg("%s n=%s: %s (%s), expected ok", r->backend, r->n, r->status, r->reason);
    assert_true(r->mean_ms[0] != '\0' && atof(r->mean_ms) > 0);
}

static void assert_status(const struct result_row *r, const char *status, const char *reason_has) {
    if (strcmp(r->status, status) != 0 || !strstr(r->reason, reason_has))
        fail_msg("%s n=%s: %s (%s), expected %s with '%s'", r->backend, r->n, r->status, r->reason,
                 status, reason_has);
    assert_string_equal(r->mean_ms, ""); /* a failed row never has a time */
}

static void sticky_error_recovers_and_the_sweep_goes_on(void **state) {
    (void)state;
    char out[400];
    snprintf(out, sizeof out, "%s/recovery.csv", work_dir);
    assert_int_equal(run_shell("'%s' run --no-progress --plugin '%s' --output '%s' '%s' "
                               ">/dev/null 2>'%s/recovery.txt'",
                               bench, plugin, out, recovery_config, work_dir),
                     1);
    struct result_row rows[RESULT_ROWS_MAX];
    int count = read_result_rows(out, rows);
    if (count != 12) {
        run_shell("cat '%s/recovery.txt'", work_dir); /* the harness's account, for the log */
        fail_msg("%d rows, expected 12", count);
    }
    const char *ns[] = {"1024", "1048576"};
    for (int i = 0; i < 2; i++) {
        const char *n = ns[i];
        assert_ok_with_time(row_of(rows, count, n, "reduce/butterfly"));
        assert_ok_with_time(row_of(rows, count, n, "reduce/cub"));
        assert_status(row_of(rows, count, n, "reduce/fault-illegal-address"), "error",
                      "an illegal memory access was encountered");
        /* Its own message, not the dead context's: the reset came before it. */
        assert_status(row_of(rows, count, n, "reduce/fault-launch"), "error",
                      "launch with 4096 threads a block: ");
        assert_status(row_of(rows, count, n, "reduce/fault-wrong"), "wrong", ", expected ");
        assert_status(row_of(rows, count, n, "reduce/fault-oom"), "error", "cuMemAlloc of ");
        assert_true(strstr(row_of(rows, count, n, "reduce/fault-oom")->reason, "out of memory"));
    }
    /* The wrong sum is off by exactly one. */
    const struct result_row *w = row_of(rows, count, "1024", "reduce/fault-wrong");
    long long got = 0, expected = 0;
    assert_int_equal(sscanf(w->reason, "sum %lld, expected %lld", &got, &expected), 2);
    assert_int_equal(got, expected + 1);
    /* One recovery per case, each said on stderr: a device reset in the process, or (CUDA
     * keeps sticky errors for the process's life) the run continued in a fresh one. */
    assert_int_equal(run_shell("test $(grep -c -e 'poisoned the GPU context; the device was reset' "
                               "-e 'continuing in a fresh process' '%s/recovery.txt') -eq 2",
                               work_dir),
                     0);
}

static void hung_kernel_times_out_and_the_run_ends(void **state) {
    (void)state;
    char out[400];
    snprintf(out, sizeof out, "%s/hang.csv", work_dir);
    double start = now_s();
    int rc = run_shell("'%s' run --no-progress --time-limit 2 --plugin '%s' --output '%s' '%s' "
                       ">/dev/null 2>'%s/hang.txt'",
                       bench, plugin, out, hang_config, work_dir);
    double took = now_s() - start;
    assert_int_equal(rc, 1);
    if (took > 60) fail_msg("bench took %.1f s to end after a 2 s time limit", took);
    struct result_row rows[RESULT_ROWS_MAX];
    int count = read_result_rows(out, rows);
    /* Registry order: butterfly, cub, then the plugin's fault-hang; nothing after it. */
    assert_int_equal(count, 3);
    assert_ok_with_time(row_of(rows, count, "1024", "reduce/butterfly"));
    assert_ok_with_time(row_of(rows, count, "1024", "reduce/cub"));
    assert_status(row_of(rows, count, "1024", "reduce/fault-hang"), "timeout",
                  "did not finish within the time limit of 2 s");
    assert_int_equal(run_shell("grep -q 'the GPU may be hung, so the sweep stops here' "
                               "'%s/hang.txt' && grep -q 'to resume: .* --resume' '%s/hang.txt'",
                               work_dir, work_dir),
                     0);
    assert_int_equal(run_shell("grep -q '\"device\"' '%s.meta.json'", out), 0);
}

static void too_large_for_the_device_is_skipped(void **state) {
    (void)state;
    size_t free_bytes = 0, total = 0;
    assert_int_equal(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
    /* select's estimate for the config's case: 25 bytes a key, and 64 MiB. */
    double needed = 3.0 * 2147483648.0 * 25 + 64.0 * 1048576;
    if (needed <= (double)free_bytes) {
        print_message("skipped: this GPU has %.1f GiB free, the drill needs more than %.1f\n",
                      free_bytes / 1073741824.0, needed / 1073741824.0);
        return;
    }
    char out[400];
    snprintf(out, sizeof out, "%s/memory.csv", work_dir);
    assert_int_equal(run_shell("'%s' run --no-progress --output '%s' '%s' >/dev/null 2>&1", bench,
                               out, memory_config),
                     0);
    struct result_row rows[RESULT_ROWS_MAX];
    assert_int_equal(read_result_rows(out, rows), 1);
    assert_status(&rows[0], "skipped", "needs 150.06 GiB, ");
    assert_true(strstr(rows[0].reason, " GiB free"));
}

int main(int argc, char **argv) {
    skip_without_gpu();
    if (getenv("PB_TEST_SMALL")) {
        /* Set under compute-sanitizer: these faults are deliberate, nothing to check. */
        printf("skipped: the fault drills fault on purpose (PB_TEST_SMALL is set)\n");
        return 77;
    }
    if (argc != 6) {
        fprintf(stderr, "usage: %s BENCH PLUGIN RECOVERY_CONFIG HANG_CONFIG MEMORY_CONFIG\n",
                argv[0]);
        return 2;
    }
    bench = argv[1];
    plugin = argv[2];
    recovery_config = argv[3];
    hang_config = argv[4];
    memory_config = argv[5];
    snprintf(work_dir, sizeof work_dir, "/tmp/pb-faults-XXXXXX");
    if (!mkdtemp(work_dir)) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sticky_error_recovers_and_the_sweep_goes_on),
        cmocka_unit_test(too_large_for_the_device_is_skipped),
        /* Last: should the GPU not recover from it, the other drills have run. */
        cmocka_unit_test(hung_kernel_times_out_and_the_run_ends),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    if (!failed) run_shell("rm -rf '%s'", work_dir);
    return failed;
}
