/* "did you mean": edit distance over bytes, so the comparison is exact and case-sensitive. */
#include "suggest.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t min3(size_t a, size_t b, size_t c) {
    size_t m = a < b ? a : b;
    return m < c ? m : c;
}

size_t pb_edit_distance(const char *a, const char *b) {
    size_t len_a = strlen(a), len_b = strlen(b);
    /* One row of the dynamic-programming table, over the shorter string. */
    if (len_b > len_a) {
        const char *swap = a;
        a = b;
        b = swap;
        size_t swap_len = len_a;
        len_a = len_b;
        len_b = swap_len;
    }
    size_t small[64];
    size_t *row = len_b < 64 ? small : malloc((len_b + 1) * sizeof *row);
    if (!row) return SIZE_MAX; /* too far to suggest, which is the safe answer */
    for (size_t j = 0; j <= len_b; j++) row[j] = j;
    for (size_t i = 1; i <= len_a; i++) {
        size_t diagonal = row[0]; /* the cell up and to the left */
        row[0] = i;
        for (size_t j = 1; j <= len_b; j++) {
            size_t up = row[j];
            size_t substitute = diagonal + (a[i - 1] != b[j - 1]);
            row[j] = min3(up + 1, row[j - 1] + 1, substitute);
            diagonal = up;
        }
    }
    size_t distance = row[len_b];
    if (row != small) free(row);
    return distance;
}

const char *pb_suggest(const char *word, const char *const *candidates, size_t count) {
    size_t limit = strlen(word) / 3;
    if (limit < 2) limit = 2;
    const char *best = NULL;
    size_t best_distance = SIZE_MAX;
    for (size_t i = 0; i < count; i++) {
        if (!candidates[i]) continue;
        size_t d = pb_edit_distance(word, candidates[i]);
        /* Strictly less: on a tie the earlier candidate wins, so the answer is stable. */
        if (d <= limit && d < best_distance) {
            best = candidates[i];
            best_distance = d;
        }
    }
    return best;
}
