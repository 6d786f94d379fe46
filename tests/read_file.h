/* The whole of a file, for tests that check what a command wrote. */
#ifndef PB_TEST_READ_FILE_H
#define PB_TEST_READ_FILE_H

#include <stddef.h>

/* The file's bytes with a '\0' after them (the caller frees), their count in *len when len
 * is not NULL; NULL when it cannot be opened or read. */
char *read_whole_file(const char *path, size_t *len);

#endif
