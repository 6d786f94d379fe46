/* bench --plugin, GPU-free: the fault plugin's backends join `bench list` and configs
 * may name them; a plugin that is missing, exports no pb_plugin_register, names an
 * unknown primitive or a taken backend name is refused with one line naming the file
 * and exit 2. Without a GPU, a run of the fault drills' config skips every GPU row and
 * exits 0 (with one, tests/gpu/test_faults_gpu.c runs the drills). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cuda_runtime_api.h>

#include "result_rows.h"
#include "shell.h"

static const char *bench, *fault_plugin, *no_entry, *unknown_primitive, *duplicate, *config;
static char work_dir[256];

static const char *const fault_names[] = {
    "reduce/fault-illegal-address",
    "reduce/fault-launch",
    "reduce/fault-wrong",
    "reduce/fault-oom",
    "reduce/fault-hang",
};

static void list_shows_the_plugin_backends(void **state) {
    (void)state;
    assert_int_equal(
        run_shell("'%s' list --plugin '%s' > '%s/list.txt'", bench, fault_plugin, work_dir), 0);
    for (size_t i = 0; i < sizeof fault_names / sizeof fault_names[0]; i++)
        assert_int_equal(
            run_shell("grep -Eq '^ +%s +gpu ' '%s/list.txt'", fault_names[i], work_dir), 0);
    /* Listed under reduce: after reduce's own backends, before the next primitive. */
    assert_int_equal(run_shell("awk '/^[a-z]+:/ {p=$1} /fault-/ && p != \"reduce:\" {bad=1} "
                               "END {exit bad}' '%s/list.txt'",
                               work_dir),
                     0);
    assert_int_equal(run_shell("'%s' list | grep -q fault-", bench), 1);
}

/* Runs `bench list --plugin PATH`, expecting exit 2 and one stderr line naming path
 * and holding `what` (double-quoted in the shell: it holds single quotes). */
static void refused(const char *path, const char *what) {
    assert_int_equal(
        run_shell("'%s' list --plugin '%s' >/dev/null 2>'%s/refused.txt'", bench, path, work_dir),
        2);
    assert_int_equal(run_shell("test $(wc -l < '%s/refused.txt') -eq 1", work_dir), 0);
    assert_int_equal(run_shell("grep -qF -- '%s' '%s/refused.txt'", path, work_dir), 0);
    assert_int_equal(run_shell("grep -qF -- \"%s\" '%s/refused.txt'", what, work_dir), 0);
}

static void bad_plugins_are_refused(void **state) {
    (void)state;
    char missing[300];
    snprintf(missing, sizeof missing, "%s/no-such-plugin.so", work_dir);
    refused(missing, "No such file");
    refused(no_entry, "no pb_plugin_register function");
    refused(unknown_primitive, "unknown primitive 'no-such-primitive'");
    refused(duplicate, "'reduce/butterfly' is already registered");
    /* The same plugin twice: its names are taken the second time. */
    assert_int_equal(run_shell("'%s' list --plugin '%s' --plugin '%s' >/dev/null 2>'%s/twice.txt'",
                               bench, fault_plugin, fault_plugin, work_dir),
                     2);
    assert_int_equal(run_shell("test $(wc -l < '%s/twice.txt') -eq 1 && grep -q "
                               "'already registered' '%s/twice.txt'",
                               work_dir, work_dir),
                     0);
    /* --plugin without a path, and the same refusals from run and validate. */
    assert_int_equal(run_shell("'%s' list --plugin 2>/dev/null", bench), 2);
    assert_int_equal(
        run_shell("'%s' run --plugin '%s' '%s' >/dev/null 2>&1", bench, duplicate, config), 2);
    assert_int_equal(
        run_shell("'%s' validate --plugin '%s' '%s' >/dev/null 2>&1", bench, no_entry, config), 2);
}

static void configs_name_plugin_backends(void **state) {
    (void)state;
    assert_int_equal(run_shell("'%s' validate '%s' >/dev/null 2>&1", bench, config), 2);
    assert_int_equal(run_shell("'%s' validate --plugin '%s' '%s' > '%s/validate.txt'", bench,
                               fault_plugin, config, work_dir),
                     0);
    assert_int_equal(
        run_shell("grep -q '6 backends, 2 cases, 12 rows' '%s/validate.txt'", work_dir), 0);
    int devices = 0;
    if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) {
        print_message("a GPU is here: the drills themselves are test_faults_gpu's\n");
        return;
    }
    char out[400];
    snprintf(out, sizeof out, "%s/faults.csv", work_dir);
    assert_int_equal(run_shell("'%s' run --no-progress --plugin '%s' --output '%s' '%s' "
                               ">/dev/null 2>&1",
                               bench, fault_plugin, out, config),
                     0);
    struct result_row rows[RESULT_ROWS_MAX];
    assert_int_equal(read_result_rows(out, rows), 12);
    for (int i = 0; i < 12; i++) assert_string_equal(rows[i].status, "skipped");
    assert_non_null(find_result_row(rows, 12, "1048576", "reduce/fault-illegal-address"));
}

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr,
                "usage: %s BENCH FAULT_PLUGIN NO_ENTRY UNKNOWN_PRIMITIVE DUPLICATE CONFIG\n",
                argv[0]);
        return 2;
    }
    bench = argv[1];
    fault_plugin = argv[2];
    no_entry = argv[3];
    unknown_primitive = argv[4];
    duplicate = argv[5];
    config = argv[6];
    snprintf(work_dir, sizeof work_dir, "/tmp/pb-plugins-XXXXXX");
    if (!mkdtemp(work_dir)) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(list_shows_the_plugin_backends),
        cmocka_unit_test(bad_plugins_are_refused),
        cmocka_unit_test(configs_name_plugin_backends),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    if (!failed) run_shell("rm -rf '%s'", work_dir);
    return failed;
}
