/* bench run --devices all on the GPUs there are (skipped, 77, without one): the rows equal
 * a single-device run's (case, backend, status, in sweep order), every GPU row names one
 * of the devices, and the metadata lists them. With two GPUs or more this runs the worker
 * threads for real; with one it checks that --devices all is then a plain run. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "csv.h"
#include "gpu_skip.h"
#include "shell.h"

static const char *bench, *config;
static char work_dir[256];

/* "axes..,backend,status" of every row, in file order; *device_ok false when a GPU row
 * names no device below `devices`. Returns the row count. */
static int read_rows(const char *path, char (*lines)[200], int max, int devices, bool *device_ok) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    struct pb_csv_record header, row;
    char err[256];
    assert_int_equal(pb_csv_read_record(f, &header, err, sizeof err), 1);
    int naxes = -1, backend = -1, status = -1, target = -1, device = -1;
    for (int i = 0; i < header.count; i++) {
        const char *h = header.fields[i];
        if (strcmp(h, "primitive") == 0) naxes = i;
        if (strcmp(h, "backend") == 0) backend = i;
        if (strcmp(h, "status") == 0) status = i;
        if (strcmp(h, "target") == 0) target = i;
        if (strcmp(h, "device") == 0) device = i;
    }
    int n = 0;
    *device_ok = true;
    while (pb_csv_read_record(f, &row, err, sizeof err) == 1) {
        assert_true(n < max);
        size_t at = 0;
        for (int i = 0; i < naxes; i++)
            at += (size_t)snprintf(lines[n] + at, 200 - at, "%s,", row.fields[i]);
        snprintf(lines[n] + at, 200 - at, "%s,%s", row.fields[backend], row.fields[status]);
        if (strcmp(row.fields[target], "gpu") == 0 && strcmp(row.fields[status], "skipped") != 0) {
            char *end = NULL;
            long d = strtol(row.fields[device], &end, 10);
            if (end == row.fields[device] || *end || d < 0 || d >= devices) *device_ok = false;
        }
        n++;
        pb_csv_record_free(&row);
    }
    pb_csv_record_free(&header);
    fclose(f);
    return n;
}

static void devices_all_gives_the_single_device_rows(void **state) {
    (void)state;
    int devices = 0;
    assert_int_equal(cudaGetDeviceCount(&devices), cudaSuccess);
    assert_int_equal(run_shell("%s run --no-progress --force --output '%s/one.csv' '%s' "
                               ">/dev/null 2>&1",
                               bench, work_dir, config),
                     0);
    assert_int_equal(run_shell("%s run --no-progress --force --devices all --output "
                               "'%s/all.csv' '%s' >/dev/null 2>&1",
                               bench, work_dir, config),
                     0);
    static char one[1024][200], all[1024][200];
    char path[600];
    bool ok_one, ok_all;
    snprintf(path, sizeof path, "%s/one.csv", work_dir);
    int n_one = read_rows(path, one, 1024, 1, &ok_one);
    snprintf(path, sizeof path, "%s/all.csv", work_dir);
    int n_all = read_rows(path, all, 1024, devices, &ok_all);
    assert_true(n_one > 0);
    assert_int_equal(n_one, n_all);
    for (int i = 0; i < n_one; i++) assert_string_equal(one[i], all[i]);
    assert_true(ok_one && ok_all);
    if (devices > 1) {
        /* Every device took part, and the metadata lists them. */
        for (int d = 0; d < devices && d < 8; d++)
            assert_int_equal(run_shell("grep -q ',gpu,%d,' '%s/all.csv'", d, work_dir), 0);
        assert_int_equal(run_shell("grep -q '\"devices\"' '%s/all.csv.meta.json'", work_dir), 0);
    }
}

int main(int argc, char **argv) {
    skip_without_gpu();
    if (argc != 3) {
        fprintf(stderr, "usage: %s BENCH CONFIG\n", argv[0]);
        return 2;
    }
    bench = argv[1];
    config = argv[2];
    snprintf(work_dir, sizeof work_dir, "/tmp/pb-devices-XXXXXX");
    if (!mkdtemp(work_dir)) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(devices_all_gives_the_single_device_rows),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    if (!failed) run_shell("rm -rf '%s'", work_dir);
    return failed;
}
