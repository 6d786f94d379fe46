/* Suites: a config whose "parts" are ordinary configs run in order into one output. The
 * loader (settings inherited and overridden, problems named under parts[i], nested suites
 * and part-only or suite-only keys refused, the case limit on the whole suite), the
 * sweep (every part's cases, in order, each with its part), and the output's columns
 * (the union of the parts' axes, blank where a row's primitive has none). */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "columns.h"
#include "config.h"
#include "results.h"
#include "sweep.h"

#define PATH "configs/s.json"

static int count_lines(const char *s) {
    int n = 0;
    for (; s && *s; s++) n += *s == '\n';
    return n;
}

/* Parses text that must fail with exactly the given lines (each a whole line's start,
 * "configs/s.json: " left out); the config is left empty. */
static void expect_errors(const char *text, int nlines, const char *const *lines) {
    struct pb_config cfg;
    char *errors = NULL;
    assert_int_equal(pb_config_parse(PATH, text, strlen(text), &cfg, &errors), 2);
    assert_non_null(errors);
    if (count_lines(errors) != nlines) fail_msg("expected %d lines, got:\n%s", nlines, errors);
    for (int i = 0; i < nlines; i++) {
        char want[512];
        snprintf(want, sizeof want, "%s: %s", PATH, lines[i]);
        bool found = false;
        for (const char *line = errors; *line && !found;) {
            const char *end = strchr(line, '\n');
            found = strncmp(line, want, strlen(want)) == 0;
            line = end + 1;
        }
        if (!found) fail_msg("no line starting '%s' in:\n%s", want, errors);
    }
    assert_int_equal(cfg.nparts, 0);
    assert_null(cfg.parts);
    assert_null(cfg.primitive);
    assert_null(cfg.text);
    free(errors);
}

#define expect(text, ...)                                                                          \
    do {                                                                                           \
        const char *const lines_[] = {__VA_ARGS__};                                                \
        expect_errors(text, (int)(sizeof lines_ / sizeof lines_[0]), lines_);                      \
    } while (0)

static void parse_ok(const char *text, struct pb_config *cfg) {
    char *errors = NULL;
    int rc = pb_config_parse(PATH, text, strlen(text), cfg, &errors);
    if (rc != 0) fail_msg("unexpected errors:\n%s", errors ? errors : "(none)");
    assert_null(errors);
}

static const char good[] =
    "{\n"
    "  \"name\": \"gate\", \"description\": \"every primitive\",\n"
    "  \"reps\": 20, \"warmup\": 3, \"seed\": 7, \"cpu_budget_s\": 0.25,\n"
    "  \"output\": \"out/gate.csv\",\n"
    "  \"parts\": [\n"
    "    {\"description\": \"sums\", \"primitive\": \"reduce\", \"backends\": \"cpu\",\n"
    "     \"sweep\": {\"n\": [1024, 4096], \"dtype\": \"u32\", \"op\": [\"sum\", \"min\"]}},\n"
    "    {\"primitive\": \"sort\", \"backends\": [\"cpu\", \"cub-radix\"], \"reps\": 5,\n"
    "     \"cache\": \"hot\", \"sweep\": {\"n\": 1024, \"segment\": [32, 0]}},\n"
    "    {\"primitive\": \"sssp\", \"backends\": \"all\", \"seed\": \"3\", \"verify\": false,\n"
    "     \"sweep\": {\"graph\": \"grid\", \"vertices\": 256}}\n"
    "  ]\n"
    "}\n";

static void good_suite_is_read(void **state) {
    (void)state;
    struct pb_config cfg;
    parse_ok(good, &cfg);
    assert_string_equal(cfg.name, "gate");
    assert_string_equal(cfg.description, "every primitive");
    assert_string_equal(cfg.output, "out/gate.csv");
    assert_string_equal(cfg.text, good);
    assert_null(cfg.primitive);
    assert_int_equal(cfg.nbackends, 0);
    assert_int_equal(cfg.nparts, 3);
    assert_int_equal(pb_config_part_count(&cfg), 3);

    const struct pb_config *reduce = pb_config_part(&cfg, 0);
    const struct pb_config *sort = pb_config_part(&cfg, 1);
    const struct pb_config *sssp = pb_config_part(&cfg, 2);
    assert_string_equal(reduce->primitive->name, "reduce");
    assert_string_equal(reduce->description, "sums");
    assert_string_equal(reduce->path, PATH);
    assert_null(reduce->output);
    assert_int_equal(reduce->nbackends, 1);
    assert_string_equal(reduce->backends[0]->name, "reduce/cpu");
    /* the suite's settings are the parts' defaults ... */
    assert_int_equal(reduce->reps, 20);
    assert_int_equal(reduce->warmup, 3);
    assert_true(reduce->cold);
    assert_true(reduce->seed == 7);
    assert_true(reduce->verify);
    assert_float_equal(reduce->cpu_budget_s, 0.25, 0);
    /* ... which a part's own override, for that part alone */
    assert_string_equal(sort->primitive->name, "sort");
    assert_null(sort->description);
    assert_int_equal(sort->nbackends, 2);
    assert_int_equal(sort->reps, 5);
    assert_false(sort->cold);
    assert_int_equal(sort->warmup, 3);
    assert_true(sort->seed == 7);
    assert_true(sssp->seed == 3);
    assert_false(sssp->verify);
    assert_int_equal(sssp->reps, 20);
    assert_true(sssp->nbackends >= 2);

    char what[256];
    pb_config_describe(&cfg, what, sizeof what);
    assert_string_equal(what, "suite gate (reduce, sort, sssp)");
    pb_config_describe(reduce, what, sizeof what);
    assert_string_equal(what, "primitive reduce");
    pb_config_free(&cfg);
    assert_int_equal(cfg.nparts, 0);
    assert_null(cfg.parts);
}

static void suite_sweep_is_every_part_in_order(void **state) {
    (void)state;
    struct pb_config cfg;
    parse_ok(good, &cfg);
    /* reduce 2 x 2, sort 2, sssp 1 */
    assert_int_equal(pb_sweep_count(&cfg), 7);
    struct pb_sweep sw;
    assert_int_equal(pb_sweep_expand(&cfg, &sw), 0);
    assert_int_equal(sw.count, 7);
    assert_non_null(sw.part);
    const int parts[] = {0, 0, 0, 0, 1, 1, 2};
    for (size_t i = 0; i < sw.count; i++) {
        const struct pb_config *part = pb_config_part(&cfg, parts[i]);
        assert_int_equal(pb_sweep_part(&sw, i), parts[i]);
        assert_ptr_equal(sw.cases[i].axes, part->primitive->axes);
        assert_true(sw.cases[i].seed == part->seed);
    }
    assert_int_equal(pb_case_int(&sw.cases[1], "n"), 1024);
    assert_string_equal(pb_case_choice(&sw.cases[1], "op"), "min");
    assert_int_equal(pb_case_int(&sw.cases[5], "segment"), 0);
    assert_int_equal(pb_case_int(&sw.cases[6], "vertices"), 256);
    pb_sweep_free(&sw);
    assert_null(sw.part);
    pb_config_free(&cfg);
}

static void columns_are_the_union_of_the_parts_axes(void **state) {
    (void)state;
    struct pb_config cfg;
    parse_ok(good, &cfg);
    struct pb_columns cols;
    assert_int_equal(pb_columns_from_config(&cfg, &cols), 0);
    /* reduce's axes, then sort's new ones, then sssp's: first appearance, each once */
    const char *const want[] = {"n",     "dtype", "distribution", "op",      "values",  "segment",
                                "order", "graph", "vertices",     "density", "weights", "source"};
    assert_int_equal(cols.count, (int)(sizeof want / sizeof want[0]));
    for (int j = 0; j < cols.count; j++) assert_string_equal(cols.name[j], want[j]);
    assert_int_equal(cols.nprimitives, 3);
    assert_ptr_equal(pb_columns_primitive(&cols, "sort"), cfg.parts[1].primitive);
    assert_null(pb_columns_primitive(&cols, "merge"));

    /* The header: the union, then the fixed columns, primitive first. */
    const char *names[PB_RESULTS_MAX_FIELDS];
    int n = pb_results_header_columns(&cols, names);
    assert_int_equal(n, cols.count + pb_result_column_count);
    assert_string_equal(names[cols.count], "primitive");

    /* A sort row fills its own axes and leaves reduce's op and sssp's axes blank. */
    struct pb_sweep sw;
    assert_int_equal(pb_sweep_expand(&cfg, &sw), 0);
    const struct pb_case *sort_case = &sw.cases[4];
    char buf[32];
    assert_string_equal(pb_columns_case_text(&cols, sort_case, 0, buf, sizeof buf), "1024");
    assert_string_equal(pb_columns_case_text(&cols, sort_case, 3, buf, sizeof buf), "");
    assert_string_equal(pb_columns_case_text(&cols, sort_case, 5, buf, sizeof buf), "32");
    assert_string_equal(pb_columns_case_text(&cols, sort_case, 7, buf, sizeof buf), "");
    struct pb_row row = {.c = sort_case,
                         .backend = cfg.parts[1].backends[0],
                         .device = -1,
                         .status = PB_STATUS_SKIPPED,
                         .columns = &cols};
    snprintf(row.reason, sizeof row.reason, "test");
    struct pb_row_fields fields;
    pb_results_row_fields(&row, &fields);
    assert_int_equal(fields.count, n);
    for (int j = 0; j < fields.count; j++) assert_string_equal(fields.name[j], names[j]);
    assert_string_equal(fields.text[1], "u32");
    assert_string_equal(fields.text[3], ""); /* op */
    assert_true(fields.is_number[3]);        /* so JSON Lines writes null */
    assert_string_equal(fields.text[8], ""); /* vertices */
    assert_string_equal(fields.text[cols.count], "sort");
    /* An ordinary row (no columns) keeps its own axes, as before suites. */
    row.columns = NULL;
    pb_results_row_fields(&row, &fields);
    assert_int_equal(fields.count, sort_case->naxes + pb_result_column_count);
    assert_string_equal(fields.name[4], "segment");
    pb_sweep_free(&sw);
    pb_config_free(&cfg);
}

/* Rates at the interval's ends; a time interval reaching zero bounds no rate from above,
 * so that end is infinite (an empty field), never a negative throughput. */
static void rates_follow_the_time_interval(void **state) {
    (void)state;
    struct pb_row row = {.elements = 2e6, .bytes = 8e6};
    row.time_ms = (struct pb_summary){.count = 3, .mean = 1.0, .ci95_low = 0.5, .ci95_high = 2.0};
    struct pb_rates r;
    pb_row_rates(&row, &r);
    assert_true(r.gelem_per_s == 2.0 && r.gelem_low == 1.0 && r.gelem_high == 4.0);
    assert_true(r.gbytes_per_s == 8.0 && r.gbytes_low == 4.0 && r.gbytes_high == 16.0);
    row.time_ms.ci95_low = -0.25;
    pb_row_rates(&row, &r);
    assert_true(r.gelem_low == 1.0 && isinf(r.gelem_high) && r.gelem_high > 0);
    assert_true(isinf(r.gbytes_high) && r.gbytes_high > 0);
    row.time_ms.ci95_low = 0.0;
    pb_row_rates(&row, &r);
    assert_true(isinf(r.gelem_high) && r.gelem_high > 0);
    row.time_ms.ci95_low = row.time_ms.ci95_high = NAN; /* one repetition: no interval */
    pb_row_rates(&row, &r);
    assert_true(isnan(r.gelem_low) && isnan(r.gelem_high));
}

static void ordinary_config_is_its_own_single_part(void **state) {
    (void)state;
    const char *text = "{\"primitive\": \"reduce\", \"sweep\": {\"n\": [1024, 2048]}}";
    struct pb_config cfg;
    parse_ok(text, &cfg);
    assert_int_equal(cfg.nparts, 0);
    assert_int_equal(pb_config_part_count(&cfg), 1);
    assert_ptr_equal(pb_config_part(&cfg, 0), &cfg);
    struct pb_sweep sw;
    assert_int_equal(pb_sweep_expand(&cfg, &sw), 0);
    assert_null(sw.part);
    assert_int_equal(pb_sweep_part(&sw, 1), 0);
    struct pb_columns cols;
    assert_int_equal(pb_columns_from_config(&cfg, &cols), 0);
    assert_int_equal(cols.count, cfg.primitive->naxes);
    for (int j = 0; j < cols.count; j++)
        assert_string_equal(cols.name[j], cfg.primitive->axes[j].name);
    pb_sweep_free(&sw);
    pb_config_free(&cfg);
}

static void bad_parts_are_named_by_path(void **state) {
    (void)state;
    expect("{\"parts\": [\n"
           "  {\"primitive\": \"reduce\", \"sweep\": {\"n\": 1024}},\n"
           "  {\"primitive\": \"sort\", \"sweep\": {\"segment\": -1}, \"rep\": 3},\n"
           "  {\"primitive\": \"merge\", \"sweep\": {\"k\": 0}, \"backends\": [\"pth\"]},\n"
           "  {\"primitive\": \"reduc\"},\n"
           "  5\n"
           "]}",
           "parts[1].rep: unknown key 'rep' of a suite's part (did you mean 'reps'?)",
           "parts[1].sweep.segment: -1 is outside the valid range 0..1073741824",
           "parts[2].backends[0]: unknown backend 'pth' for primitive 'merge' (did you mean "
           "'path'?)",
           "parts[2].sweep.k: 0 is not a positive integer",
           "parts[3].primitive: unknown primitive 'reduc' (did you mean 'reduce'?)",
           "parts[4]: 5 is not an object");
    /* a part's run settings are checked as a config's */
    expect(
        "{\"reps\": 3, \"parts\": [{\"primitive\": \"reduce\", \"reps\": 0, \"cache\": \"warm\"}]}",
        "parts[0].reps: 0 is not a positive integer", "parts[0].cache: unknown cache mode 'warm'");
    /* a part needs its primitive like any config */
    expect("{\"parts\": [{\"sweep\": {\"n\": 4}}]}", "parts[0].primitive: missing (required;");
}

static void nested_suites_are_refused(void **state) {
    (void)state;
    expect("{\"parts\": [{\"primitive\": \"reduce\", \"parts\": [{\"primitive\": \"sort\"}]}]}",
           "parts[0].parts: a part cannot itself be a suite (suites do not nest)");
    expect("{\"parts\": [{\"parts\": []}]}",
           "parts[0].parts: a part cannot itself be a suite (suites do not nest)",
           "parts[0].primitive: missing");
}

static void suite_and_part_keys_stay_in_their_place(void **state) {
    (void)state;
    /* what to run belongs in the parts; the name and output to the suite */
    expect("{\"primitive\": \"reduce\", \"backends\": \"all\", \"sweep\": {}, \"zip\": [],\n"
           " \"parts\": [{\"primitive\": \"reduce\", \"name\": \"x\", \"output\": \"y.csv\"}]}",
           "primitive: a suite (a config with \"parts\") has no primitive of its own",
           "backends: a suite (a config with \"parts\") has no backends of its own",
           "sweep: a suite (a config with \"parts\") has no sweep of its own",
           "zip: a suite (a config with \"parts\") has no zip of its own",
           "parts[0].name: belongs to the suite, not to a part",
           "parts[0].output: belongs to the suite, not to a part");
    expect("{\"nme\": \"x\", \"parts\": [{\"primitive\": \"reduce\"}]}",
           "nme: unknown key 'nme' of a suite (did you mean 'name'?)");
    expect("{\"parts\": []}", "parts: an empty list (a suite needs at least one part)");
    expect("{\"parts\": {\"primitive\": \"reduce\"}}", "parts: {...} is not a list of configs");
    expect("{\"parts\": null}", "parts: null is not a list of configs");
    expect("{\"parts\": [{\"primitive\": \"reduce\"}], \"parts\": []}", "parts: duplicate key");
}

/* Each part under the limit, the whole over it: refused, unless the options allow it. */
static void whole_suite_is_held_to_the_case_limit(void **state) {
    (void)state;
    char text[1024];
    const char *part = "{\"primitive\": \"reduce\", \"sweep\": {\"n\": {\"from\": 1, \"to\": "
                       "100000, \"scale\": \"linear\", \"step\": 1}, \"op\": \"all\", \"dtype\": "
                       "\"%s\"}}";
    char p0[256], p1[256], p2[256];
    snprintf(p0, sizeof p0, part, "u32");
    snprintf(p1, sizeof p1, part, "u64");
    snprintf(p2, sizeof p2, part, "f32");
    snprintf(text, sizeof text, "{\"parts\": [%s, %s, %s]}", p0, p1, p2);
    expect(text, "parts: the parts expand to 1200000 cases in all (over the limit of 1000000; "
                 "use --force to run it anyway)");
    struct pb_config_options huge = {.allow_huge_sweep = true};
    struct pb_config cfg;
    char *errors = NULL;
    assert_int_equal(pb_config_parse_with(PATH, text, strlen(text), &huge, &cfg, &errors), 0);
    assert_null(errors);
    assert_int_equal(pb_sweep_count(&cfg), 1200000);
    pb_config_free(&cfg);
    /* two of them are within it */
    snprintf(text, sizeof text, "{\"parts\": [%s, %s]}", p0, p1);
    parse_ok(text, &cfg);
    assert_int_equal(pb_sweep_count(&cfg), 800000);
    pb_config_free(&cfg);
}

static void too_many_parts_are_refused(void **state) {
    (void)state;
    size_t cap = 64 * 1024;
    char *text = malloc(cap);
    assert_non_null(text);
    size_t at = (size_t)snprintf(text, cap, "{\"parts\": [");
    for (int i = 0; i <= PB_CONFIG_MAX_PARTS; i++)
        at += (size_t)snprintf(text + at, cap - at, "%s{\"primitive\": \"reduce\"}", i ? "," : "");
    snprintf(text + at, cap - at, "]}");
    expect(text, "parts: 65 parts (at most 64)");
    free(text);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(good_suite_is_read),
        cmocka_unit_test(suite_sweep_is_every_part_in_order),
        cmocka_unit_test(columns_are_the_union_of_the_parts_axes),
        cmocka_unit_test(rates_follow_the_time_interval),
        cmocka_unit_test(ordinary_config_is_its_own_single_part),
        cmocka_unit_test(bad_parts_are_named_by_path),
        cmocka_unit_test(nested_suites_are_refused),
        cmocka_unit_test(suite_and_part_keys_stay_in_their_place),
        cmocka_unit_test(whole_suite_is_held_to_the_case_limit),
        cmocka_unit_test(too_many_parts_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
