/* "did you mean" for unknown names. */
#ifndef PB_SUGGEST_H
#define PB_SUGGEST_H

#include <stddef.h>

/* Levenshtein distance between two strings. */
size_t pb_edit_distance(const char *a, const char *b);
/* The closest candidate to word when it is close enough to be a likely typo
 * (distance <= max(2, strlen(word) / 3)); NULL otherwise. */
const char *pb_suggest(const char *word, const char *const *candidates, size_t count);

#endif
