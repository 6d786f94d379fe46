/* "did you mean": edit distances and the choice of a suggestion. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "suggest.h"

static void edit_distances(void **state) {
    (void)state;
    assert_int_equal(pb_edit_distance("", ""), 0);
    assert_int_equal(pb_edit_distance("reduce", "reduce"), 0);
    assert_int_equal(pb_edit_distance("", "scan"), 4);
    assert_int_equal(pb_edit_distance("scan", ""), 4);
    assert_int_equal(pb_edit_distance("kitten", "sitting"), 3);
    assert_int_equal(pb_edit_distance("sitting", "kitten"), 3);
    assert_int_equal(pb_edit_distance("flaw", "lawn"), 2);
    assert_int_equal(pb_edit_distance("reduce", "reudce"), 2); /* a swap is two edits */
    assert_int_equal(pb_edit_distance("u32", "u64"), 2);
    assert_int_equal(pb_edit_distance("Reduce", "reduce"), 1); /* case counts */
    assert_int_equal(pb_edit_distance("abc", "xyz"), 3);
}

static void edit_distance_of_long_strings(void **state) {
    (void)state;
    /* longer than any on-stack row, so the heap path is taken */
    char a[301], b[301];
    memset(a, 'a', 300);
    a[300] = '\0';
    memcpy(b, a, sizeof b);
    b[0] = 'b';
    b[150] = 'b';
    b[299] = 'b';
    assert_int_equal(pb_edit_distance(a, b), 3);
    assert_int_equal(pb_edit_distance(a, "aaa"), 297);
    assert_int_equal(pb_edit_distance("aaa", a), 297);
}

static const char *const commands[] = {"run", "list", "info", "validate"};
static const char *const distributions[] = {"uniform", "sorted", "reverse_sorted", "all_equal"};

static void suggests_the_closest_candidate(void **state) {
    (void)state;
    assert_string_equal(pb_suggest("rnu", commands, 4), "run");
    assert_string_equal(pb_suggest("lsit", commands, 4), "list");
    assert_string_equal(pb_suggest("valdate", commands, 4), "validate");
    assert_string_equal(pb_suggest("sortd", distributions, 4), "sorted");
    assert_string_equal(pb_suggest("reverse-sorted", distributions, 4), "reverse_sorted");
    /* an exact match is its own closest candidate */
    assert_string_equal(pb_suggest("info", commands, 4), "info");
}

static void distance_limit_grows_with_the_word(void **state) {
    (void)state;
    /* up to 2 edits for short words */
    assert_string_equal(pb_suggest("rxx", (const char *const[]){"run"}, 1), "run");
    assert_null(pb_suggest("xxx", (const char *const[]){"run"}, 1));
    /* strlen / 3 edits for longer ones: 4 edits of a 12-letter word suggest, 5 do not */
    const char *const candidates[] = {"distribution"};
    assert_string_equal(pb_suggest("distrXXXXion", candidates, 1), "distribution");
    assert_null(pb_suggest("diXXXXXution", candidates, 1));
}

static void no_suggestion_when_too_far(void **state) {
    (void)state;
    assert_null(pb_suggest("benchmark", commands, 4));
    assert_null(pb_suggest("zzzzzz", distributions, 4));
    assert_null(pb_suggest("run", NULL, 0));
}

static void ties_go_to_the_first_candidate(void **state) {
    (void)state;
    const char *const sizes[] = {"u16", "u32", "u64"};
    /* "u8" is two edits from each */
    assert_string_equal(pb_suggest("u8", sizes, 3), "u16");
    const char *const reversed[] = {"u64", "u32", "u16"};
    assert_string_equal(pb_suggest("u8", reversed, 3), "u64");
    /* a closer later candidate still wins */
    const char *const with_closer[] = {"u16", "u32", "i8"};
    assert_string_equal(pb_suggest("u8", with_closer, 3), "i8");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(edit_distances),
        cmocka_unit_test(edit_distance_of_long_strings),
        cmocka_unit_test(suggests_the_closest_candidate),
        cmocka_unit_test(distance_limit_grows_with_the_word),
        cmocka_unit_test(no_suggestion_when_too_far),
        cmocka_unit_test(ties_go_to_the_first_candidate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
