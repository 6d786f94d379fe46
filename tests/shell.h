/* Runs a shell command for the tests that drive the bench binary. */
#ifndef PB_TEST_SHELL_H
#define PB_TEST_SHELL_H

/* Formats and runs a command with system(); returns its exit code, -1 if it did not exit. */
int run_shell(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
