/* The runner's device-memory decision: a GPU row is skipped, with "needs X GiB, Y GiB
 * free", when the case needs more than is free plus what its input already holds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "runner.h"

#define GIB ((size_t)1 << 30)

static void fits_when_free_memory_suffices(void **state) {
    (void)state;
    char why[128] = "";
    assert_true(pb_device_memory_fits(4 * GIB, 8 * GIB, 0, why, sizeof why));
    assert_true(pb_device_memory_fits(8 * GIB, 8 * GIB, 0, why, sizeof why)); /* exactly */
    assert_true(pb_device_memory_fits(0, 0, 0, why, sizeof why));
    assert_string_equal(why, ""); /* untouched when it fits */
}

static void skips_with_the_amounts_when_not(void **state) {
    (void)state;
    char why[128] = "";
    assert_false(pb_device_memory_fits(12 * GIB, 8 * GIB, 0, why, sizeof why));
    assert_string_equal(why, "needs 12.00 GiB, 8.00 GiB free");
    assert_false(pb_device_memory_fits(8 * GIB + 1, 8 * GIB, 0, why, sizeof why));
}

/* The case's input, already on the device, is part of what it needs but no longer free. */
static void counts_the_input_already_held(void **state) {
    (void)state;
    char why[128] = "";
    assert_true(pb_device_memory_fits(10 * GIB, 2 * GIB, 8 * GIB, why, sizeof why));
    assert_false(pb_device_memory_fits(10 * GIB, 1 * GIB, 8 * GIB, why, sizeof why));
    assert_string_equal(why, "needs 10.00 GiB, 9.00 GiB free");
    assert_true(pb_device_memory_fits(4 * GIB, 0, 8 * GIB, why, sizeof why));
}

static void huge_values_do_not_wrap(void **state) {
    (void)state;
    char why[128] = "";
    assert_false(pb_device_memory_fits(SIZE_MAX, SIZE_MAX - 1, 0, why, sizeof why));
    assert_true(pb_device_memory_fits(SIZE_MAX, SIZE_MAX / 2 + 1, SIZE_MAX / 2, why, sizeof why));
    assert_true(pb_device_memory_fits(SIZE_MAX - 1, SIZE_MAX, SIZE_MAX, why, sizeof why));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fits_when_free_memory_suffices),
        cmocka_unit_test(skips_with_the_amounts_when_not),
        cmocka_unit_test(counts_the_input_already_held),
        cmocka_unit_test(huge_values_do_not_wrap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
