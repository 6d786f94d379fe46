/* The value split's tiles over every input the generator makes, on the CPU: for each
 * distribution and key type, the keys are drawn as `bench run` draws them, sorted (the merged
 * order), cut into tiles of about kTarget keys (four cuttings), each tile bucketed and walked
 * as sort_tile does (value_split.cuh's own bucket map and walk; each bucket's keys in a
 * shuffled order, as the scatter's atomics leave them). No tile may give up: one that does
 * sends the whole input to CUB's radix sort after the attempt (with session 45's walk, one
 * tile of 258 did: f64 keys with 1 in 8 zero; tools/dev-test-variant merge_split_inputs
 * -DPB_SPLIT_RUN_WALK=0). Nor may a walk, each bucket in its worst order, pass kMovesThread
 * moves: one thread's serial work (without edge buckets, -DPB_SPLIT_EDGE_BUCKETS=0, one tile
 * each of i32, f32 and f64 keys with 1 in 8 zero and of u64 skewed keys does). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <random>
#include <vector>

/* before cmocka.h, whose fail() macro CUB's standard headers would meet */
#include "value_split.cuh"

extern "C" {
#include <cmocka.h>

#include "datagen.h"
}

#include "split_tile_model.h"

using namespace pb::merge;
using namespace pb::merge::split;

/* Keys a case draws: 64 tiles' worth, so a run an eighth of the input spans eight tiles. */
constexpr uint64_t kKeys = 64ull * kTarget;

struct Census {
    uint32_t tiles = 0, gave_up = 0, first_given_up = 0, slow = 0;
};

/* What sort_tile's walks would do with tile `bits` (ordered keys, ascending). */
enum class TileWalk { kSorts, kSlow, kGivesUp };

/* Whether sort_tile's walks would sort tile `bits`, each bucket in a shuffled order (rng), or
 * give up; and whether, each bucket in its worst order (descending: atomics may leave any),
 * some thread's walk would move more than kMovesThread keys, serial work while the block
 * waits (session 47: a run of zeros at a tile's edge with a tiny positive key in its bucket,
 * 7600 moves, which edge buckets avoid). */
template <class K>
static TileWalk tile_walk(const ordered_t<K> *bits, uint32_t D, std::mt19937_64 &rng) {
    using B = ordered_t<K>;
    const B lo = bits[0], hi = bits[D - 1];
    if (TileRange<B>::one_value(lo, hi)) return TileWalk::kSorts;
    const tile_range_t<K> range(lo, hi);
    if (range.by_value) return TileWalk::kSorts; /* a bucket a value: written out, no walk */
    const bool edges = edge_buckets_wanted(edge_measure(range, bits, D));
    const auto bucket_of = [&](B x) { return tile_bucket(range, lo, hi, x, edges); };
    BucketedTile<B> t = bucket_tile(bits, D, bucket_of,
                                    [&](auto first, auto last) { std::shuffle(first, last, rng); });
    if (most_walk_moves(t) == kGaveUp) return TileWalk::kGivesUp;
    BucketedTile<B> worst = bucket_tile(bits, D, bucket_of, [](auto first, auto last) {
        std::sort(first, last, std::greater<>());
    });
    const uint32_t moves = most_walk_moves(worst);
    return moves == kGaveUp || moves > kMovesThread ? TileWalk::kSlow : TileWalk::kSorts;
}

template <class K> static Census census(enum pb_dtype dtype, enum pb_dist dist) {
    using B = ordered_t<K>;
    std::vector<K> keys(kKeys);
    const struct pb_gen_spec spec = {dtype, dist, kKeys,
                                     46,    0,    16}; /* 16: the merge's few-unique */
    pb_generate_host(&spec, keys.data());
    std::vector<B> bits(kKeys);
    for (uint64_t i = 0; i < kKeys; i++) bits[i] = ordered_bits(keys[i]);
    std::sort(bits.begin(), bits.end());
    std::mt19937_64 rng(46);
    Census c;
    /* The samples cut runs of equal keys anywhere: tiles of kTarget keys give or take a
     * sixth, cut four times over. */
    std::uniform_int_distribution<uint32_t> size(kTarget - kTarget / 6, kTarget + kTarget / 6);
    for (int cutting = 0; cutting < 4; cutting++) {
        for (uint64_t at = 0; at < kKeys; c.tiles++) {
            const uint32_t D = (uint32_t)std::min<uint64_t>(size(rng), kKeys - at);
            const TileWalk w = tile_walk<K>(bits.data() + at, D, rng);
            if (w == TileWalk::kGivesUp && c.gave_up++ == 0) c.first_given_up = c.tiles;
            c.slow += w == TileWalk::kSlow;
            at += D;
        }
    }
    return c;
}

template <class K> static uint32_t check_type(enum pb_dtype dtype) {
    uint32_t failed = 0;
    for (int d = 0; d < PB_DIST_COUNT; d++) {
        const Census c = census<K>(dtype, (enum pb_dist)d);
        if (c.gave_up != 0)
            print_error("%s %s: %u of %u tiles give up (the first: tile %u)\n",
                        pb_dtype_name(dtype), pb_dist_names[d], c.gave_up, c.tiles,
                        c.first_given_up);
        if (c.slow != 0)
            print_error("%s %s: %u of %u tiles, each bucket in its worst order, have a walk of "
                        "over %u moves\n",
                        pb_dtype_name(dtype), pb_dist_names[d], c.slow, c.tiles, kMovesThread);
        failed += c.gave_up != 0 || c.slow != 0;
    }
    return failed;
}

static void no_generated_input_gives_up_or_walks_long(void **state) {
    (void)state;
    const uint32_t failed = check_type<uint32_t>(PB_U32) + check_type<int32_t>(PB_I32) +
                            check_type<float>(PB_F32) + check_type<uint64_t>(PB_U64) +
                            check_type<double>(PB_F64);
    assert_int_equal(failed, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_generated_input_gives_up_or_walks_long),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
