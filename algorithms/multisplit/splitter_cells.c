/* Splitter buckets' cell index (bucket_rules.h): a key's bin in one lookup when its cell
 * holds no splitter, instead of a binary search over every splitter. On the GPU each of
 * that search's steps is a gather that scatters a warp over up to 32 cache lines. */
#include <stdlib.h>
#include <string.h>

#include "bucket_rules.h"
#include "multisplit.h"

/* Enough cells that most hold no splitter, few enough that the index stays in cache. */
enum { MOST_CELLS = 16384 };

static uint32_t cell_count(uint32_t bins, uint32_t cells_per_bin) {
    const uint64_t wanted = (uint64_t)bins * cells_per_bin;
    return wanted == 0 ? 1 : wanted < MOST_CELLS ? (uint32_t)wanted : MOST_CELLS;
}

size_t pb_splitter_cells_bytes(const struct pb_bucket *b) {
    return (size_t)pb_splitter_entry_words(b->cells) * sizeof(uint32_t) +
           (size_t)(b->bins - 1) * pb_dtype_size((enum pb_dtype)b->dtype);
}

uint32_t *pb_splitter_cells_new(struct pb_bucket *b, const struct pb_key_range *r,
                                uint32_t cells_per_bin) {
    const uint32_t cells = cell_count(b->bins, cells_per_bin);
    const size_t key_size = pb_dtype_size((enum pb_dtype)b->dtype);
    const uint32_t entry_words = pb_splitter_entry_words(cells);
    uint32_t *table = calloc(1, (size_t)entry_words * sizeof *table + (size_t)b->bins * key_size);
    if (!table) return NULL;
    pb_bucket_range_rule((enum pb_dtype)b->dtype, cells, r, b);
    b->cells = cells;
    char *splitters = (char *)(table + entry_words);
    for (uint32_t i = 0; i + 1 < b->bins; i++) {
        char *splitter = splitters + (size_t)i * key_size;
        memcpy(splitter,
               (const char *)b->sample +
                   (size_t)pb_splitter_index(i, b->samples, b->bins) * key_size,
               key_size);
        table[pb_splitter_cell_of(b, splitter)] += 1u << 16;
    }
    /* the cells rise with the splitters, so each cell's splitters follow the ones before */
    uint32_t first = 0;
    for (uint32_t c = 0; c < cells; c++) {
        table[c] |= first;
        first += table[c] >> 16;
    }
    b->cell_splitters = table;
    return table;
}
