/* Splitter buckets' cell index (bucket_rules.h): a key's bin in one lookup when its cell
 * holds no splitter, instead of a binary search over every splitter. On the GPU each of
 * that search's steps is a gather that scatters a warp over up to 32 cache lines. */
#include <stdlib.h>
#include <string.h>

#include "bucket_rules.h"
#include "multisplit.h"

/* Enough cells that most hold no splitter, few enough that the index stays in cache. */
enum { CELLS_PER_BIN = 16, MOST_CELLS = 16384 };

uint32_t *pb_splitter_cells_new(struct pb_bucket *b, const struct pb_key_range *r) {
    const uint64_t wanted = (uint64_t)b->bins * CELLS_PER_BIN;
    const uint32_t cells = wanted < MOST_CELLS ? (uint32_t)wanted : MOST_CELLS;
    uint32_t *table = calloc(cells, sizeof *table);
    if (!table) return NULL;
    pb_bucket_range_rule((enum pb_dtype)b->dtype, cells, r, b);
    b->cells = cells;
    for (uint32_t i = 0; i + 1 < b->bins; i++) table[pb_splitter_cell_at(b, i)] += 1u << 16;
    /* the cells rise with the splitters, so each cell's splitters follow the ones before */
    uint32_t first = 0;
    for (uint32_t c = 0; c < cells; c++) {
        table[c] |= first;
        first += table[c] >> 16;
    }
    b->cell_splitters = table;
    return table;
}
