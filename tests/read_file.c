#include "read_file.h"

#include <stdio.h>
#include <stdlib.h>

char *read_whole_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    char *bytes = size >= 0 ? malloc((size_t)size + 1) : NULL;
    if (bytes) {
        rewind(f);
        if (fread(bytes, 1, (size_t)size, f) == (size_t)size) {
            bytes[size] = '\0';
            if (len) *len = (size_t)size;
        } else {
            free(bytes);
            bytes = NULL;
        }
    }
    fclose(f);
    return bytes;
}
