/* CSV: quoting on write, parsing of quoted and unquoted fields, round trips, malformed input. */
#define _POSIX_C_SOURCE 200809L /* dup, fdopen: a second view of a tmpfile */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "csv.h"

/* Everything written to f since it was opened, as a string the caller frees. */
static char *contents(FILE *f) {
    long size = ftell(f);
    assert_true(size >= 0);
    rewind(f);
    char *text = calloc((size_t)size + 1, 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)size, f), (size_t)size);
    return text;
}

static void assert_field_written(const char *field, const char *expected) {
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(pb_csv_write_field(f, field), 0);
    char *text = contents(f);
    assert_string_equal(text, expected);
    free(text);
    fclose(f);
}

static void fields_are_quoted_only_when_needed(void **state) {
    (void)state;
    assert_field_written("plain", "plain");
    assert_field_written("1.5e-3 ms", "1.5e-3 ms");
    assert_field_written("a,b", "\"a,b\"");
    assert_field_written("say \"hi\"", "\"say \"\"hi\"\"\"");
    assert_field_written("\"", "\"\"\"\"");
    assert_field_written("two\nlines", "\"two\nlines\"");
    assert_field_written("cr\r", "\"cr\r\"");
    assert_field_written("", "");
    assert_field_written(NULL, "");
}

static void rows_end_with_crlf(void **state) {
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    const char *const row[] = {"a", "b,c", NULL, "d\"e", ""};
    assert_int_equal(pb_csv_write_row(f, row, 5), 0);
    const char *const lone_empty[] = {""};
    assert_int_equal(pb_csv_write_row(f, lone_empty, 1), 0);
    assert_int_equal(pb_csv_write_row(f, NULL, 0), 0);
    char *text = contents(f);
    /* a lone empty field is quoted so that it is not a blank line */
    assert_string_equal(text, "a,\"b,c\",,\"d\"\"e\",\r\n\"\"\r\n\r\n");
    free(text);
    fclose(f);
}

static void rows_are_flushed_as_written(void **state) {
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    /* A large buffer would hold the row back unless the writer flushes it. */
    static char buffer[1 << 16];
    assert_int_equal(setvbuf(f, buffer, _IOFBF, sizeof buffer), 0);
    const char *const row[] = {"x", "y"};
    assert_int_equal(pb_csv_write_row(f, row, 2), 0);
    /* A second descriptor on the same file sees only what reached the OS. */
    FILE *reader = fdopen(dup(fileno(f)), "r");
    assert_non_null(reader);
    rewind(reader);
    char line[16] = {0};
    assert_non_null(fgets(line, sizeof line, reader));
    assert_string_equal(line, "x,y\r\n");
    fclose(reader);
    fclose(f);
}

static void write_errors_are_reported(void **state) {
    (void)state;
    const char *const row[] = {"a", "b"};
    /* a stream open only for reading refuses every write */
    FILE *f = tmpfile();
    assert_non_null(f);
    FILE *read_only = fdopen(dup(fileno(f)), "r");
    assert_non_null(read_only);
    assert_int_equal(pb_csv_write_row(read_only, row, 2), -1);
    assert_int_equal(pb_csv_write_field(read_only, "a"), -1);
    fclose(read_only);
    fclose(f);
    /* /dev/full accepts buffered writes and fails the flush */
    FILE *full = fopen("/dev/full", "w");
    if (!full) skip();
    assert_int_equal(pb_csv_write_row(full, row, 2), -1);
    fclose(full);
}

/* A stream holding text, positioned at its start. */
static FILE *stream_of(const char *text) {
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    rewind(f);
    return f;
}

/* Reads one record and checks its fields; expected is NULL-terminated. */
static void assert_record(FILE *f, const char *const *expected) {
    struct pb_csv_record rec;
    char err[128] = "";
    int rc = pb_csv_read_record(f, &rec, err, sizeof err);
    if (rc != 1) fail_msg("read returned %d: %s", rc, err);
    int count = 0;
    while (expected[count]) count++;
    assert_int_equal(rec.count, count);
    for (int i = 0; i < count; i++) assert_string_equal(rec.fields[i], expected[i]);
    pb_csv_record_free(&rec);
    assert_int_equal(rec.count, 0);
    assert_null(rec.fields);
}

static void assert_end(FILE *f) {
    struct pb_csv_record rec;
    char err[128] = "";
    assert_int_equal(pb_csv_read_record(f, &rec, err, sizeof err), 0);
    assert_int_equal(rec.count, 0);
    assert_null(rec.fields);
}

static void reads_lf_and_crlf_line_ends(void **state) {
    (void)state;
    FILE *f = stream_of("a,b\r\nc,d\ne,f");
    assert_record(f, (const char *const[]){"a", "b", NULL});
    assert_record(f, (const char *const[]){"c", "d", NULL});
    /* the last record needs no line end */
    assert_record(f, (const char *const[]){"e", "f", NULL});
    assert_end(f);
    assert_end(f);
    fclose(f);
}

static void reads_quoted_fields(void **state) {
    (void)state;
    FILE *f = stream_of("\"a,b\",\"say \"\"hi\"\"\",\"two\r\nlines\",\"\",plain\n"
                        "\"lf\nonly\",\"\"\"\"\r\n");
    assert_record(f, (const char *const[]){"a,b", "say \"hi\"", "two\r\nlines", "", "plain", NULL});
    assert_record(f, (const char *const[]){"lf\nonly", "\"", NULL});
    assert_end(f);
    fclose(f);
}

static void reads_empty_fields_and_blank_lines(void **state) {
    (void)state;
    FILE *f = stream_of(",a,\r\n\r\n\"\"\n,\n");
    assert_record(f, (const char *const[]){"", "a", "", NULL});
    assert_record(f, (const char *const[]){NULL}); /* a blank line has no fields */
    assert_record(f, (const char *const[]){"", NULL});
    assert_record(f, (const char *const[]){"", "", NULL});
    assert_end(f);
    fclose(f);
}

static void empty_stream_has_no_records(void **state) {
    (void)state;
    FILE *f = stream_of("");
    assert_end(f);
    fclose(f);
}

static void assert_malformed(const char *text, const char *message_part) {
    FILE *f = stream_of(text);
    struct pb_csv_record rec;
    char err[128] = "";
    assert_int_equal(pb_csv_read_record(f, &rec, err, sizeof err), -1);
    assert_int_equal(rec.count, 0);
    assert_null(rec.fields);
    if (!strstr(err, message_part)) fail_msg("error '%s' does not mention '%s'", err, message_part);
    fclose(f);
}

static void malformed_records_are_rejected(void **state) {
    (void)state;
    assert_malformed("a,\"unterminated\r\n", "unterminated");
    assert_malformed("\"", "unterminated");
    assert_malformed("a,b\"c,d\r\n", "quote inside an unquoted field");
    assert_malformed("\"ab\"c,d\r\n", "after the closing quote");
    assert_malformed("\"ab\" ,d\r\n", "after the closing quote");
    assert_malformed("a\rb\r\n", "carriage return");
    /* the field number points at the problem */
    assert_malformed("x,y,z\"\n", "field 3");
}

static void round_trip_through_a_file(void **state) {
    (void)state;
    const char *const rows[][4] = {
        {"n", "dtype", "reason", "mean_ms"},
        {"1024", "u32", "", "0.125"},
        {"7", "f64", "mismatch at 3: got \"1,5\"\r\nexpected 2", NULL},
        {",", "\"", "\n", "\r"},
        {" lead", "trail ", "\"\"", ",,\"\","},
    };
    const int nrows = (int)(sizeof rows / sizeof rows[0]);
    FILE *f = tmpfile();
    assert_non_null(f);
    for (int r = 0; r < nrows; r++) assert_int_equal(pb_csv_write_row(f, rows[r], 4), 0);
    const char *const lone_empty[] = {""};
    assert_int_equal(pb_csv_write_row(f, lone_empty, 1), 0);
    rewind(f);
    for (int r = 0; r < nrows; r++) {
        const char *expected[5];
        for (int i = 0; i < 4; i++) expected[i] = rows[r][i] ? rows[r][i] : "";
        expected[4] = NULL;
        assert_record(f, expected);
    }
    assert_record(f, (const char *const[]){"", NULL});
    assert_end(f);
    fclose(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fields_are_quoted_only_when_needed),
        cmocka_unit_test(rows_end_with_crlf),
        cmocka_unit_test(rows_are_flushed_as_written),
        cmocka_unit_test(write_errors_are_reported),
        cmocka_unit_test(reads_lf_and_crlf_line_ends),
        cmocka_unit_test(reads_quoted_fields),
        cmocka_unit_test(reads_empty_fields_and_blank_lines),
        cmocka_unit_test(empty_stream_has_no_records),
        cmocka_unit_test(malformed_records_are_rejected),
        cmocka_unit_test(round_trip_through_a_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
