/* The value split's key arithmetic (algorithms/merge/value_split.cuh, merge_keys.cuh) on the
 * CPU, for 4-byte and 8-byte keys: a tile's buckets stay below kBuckets and in key order
 * over any range (a span of 2^64 - 1 included), its one-value test, ordered bits undone
 * bit for bit (f64: -0.0 comes back as +0.0, which is why a tile holding -0.0 gives up),
 * the (key, place) words ordered as their pairs, the samples' windows kept in key order,
 * and the marked walk of a heavy tile's threads sorting each range. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

/* before cmocka.h, whose fail() macro CUB's standard headers would meet */
#include "value_split.cuh"

extern "C" {
#include <cmocka.h>
}

#include "split_tile_model.h"

using namespace pb::merge;
using namespace pb::merge::split;

/* Over [lo, lo + span]: the ends and the middle, their neighbours, and random offsets,
 * ascending. */
template <class B> static std::vector<B> offsets_in(B span, std::mt19937_64 &rng) {
    std::vector<B> d = {0, 1, span / 2, span / 2 + 1, span - 1, span};
    for (int i = 0; i < 200; i++) d.push_back((B)(rng() % ((unsigned __int128)span + 1)));
    for (B &x : d) x = x > span ? span : x;
    std::sort(d.begin(), d.end());
    return d;
}

template <class B> static void check_range(B lo, B span, std::mt19937_64 &rng) {
    const B hi = (B)(lo + span);
    assert_int_equal(TileRange<B>::one_value(lo, hi), span == 0);
    if (span == 0) return;
    const TileRange<B> r(lo, hi);
    assert_int_equal(r.by_value, span < (B)kBuckets);
    uint32_t before = 0;
    for (B d : offsets_in<B>(span, rng)) {
        const uint32_t b = r.bucket((B)(lo + d));
        if (b >= (uint32_t)kBuckets)
            fail_msg("span %llu: offset %llu in bucket %u of %d", (unsigned long long)span,
                     (unsigned long long)d, b, kBuckets);
        if (b < before) fail_msg("span %llu: buckets out of order", (unsigned long long)span);
        if (r.by_value) assert_int_equal(b, (uint32_t)d);
        before = b;
    }
    assert_int_equal(r.bucket(lo), 0);
    /* the range fills its buckets: the last key lands in the top few */
    if (!r.by_value) assert_true(r.bucket(hi) >= (uint32_t)kBuckets - 2);
}

static void buckets_stay_in_range_and_order(void **state) {
    (void)state;
    std::mt19937_64 rng(7);
    const uint64_t spans[] = {0, 1, 2, 16383, 16384, 16385, 100000, 1ull << 31, 0xffffffffull};
    for (uint64_t s : spans) {
        check_range<uint32_t>(0, (uint32_t)s, rng);
        check_range<uint32_t>((uint32_t)(0xffffffffull - s), (uint32_t)s, rng);
    }
    const uint64_t wide_spans[] = {0,          1,          16383,      16384,
                                   16385,      1ull << 32, 1ull << 52, (1ull << 63) - 1,
                                   1ull << 63, ~0ull - 1,  ~0ull};
    for (uint64_t s : wide_spans) {
        const uint64_t room = ~0ull - s; /* lo may be 0 .. room */
        check_range<uint64_t>(0, s, rng);
        check_range<uint64_t>(room, s, rng);
        for (int i = 0; i < 20; i++)
            check_range<uint64_t>(room == ~0ull ? rng() : rng() % (room + 1), s, rng);
    }
}

static uint64_t bits_of_double(double x) {
    uint64_t u;
    memcpy(&u, &x, 8);
    return u;
}

static void ordered_bits_come_back(void **state) {
    (void)state;
    std::mt19937_64 rng(11);
    std::vector<double> xs = {0.0,
                              1.0,
                              -1.0,
                              std::numeric_limits<double>::min(),
                              -std::numeric_limits<double>::min(),
                              std::numeric_limits<double>::denorm_min(),
                              -std::numeric_limits<double>::denorm_min(),
                              std::numeric_limits<double>::max(),
                              -std::numeric_limits<double>::max(),
                              std::numeric_limits<double>::infinity(),
                              -std::numeric_limits<double>::infinity()};
    for (int i = 0; i < 2000; i++) {
        double x;
        const uint64_t u = rng();
        memcpy(&x, &u, 8);
        if (!std::isnan(x)) xs.push_back(x);
    }
    for (double x : xs) {
        const double y = from_ordered_bits<double>(ordered_bits(x));
        if (bits_of_double(y) != bits_of_double(x)) fail_msg("%a came back as %a", x, y);
    }
    /* -0.0 takes +0.0's bits, so it comes back as +0.0 */
    assert_true(ordered_bits(-0.0) == ordered_bits(0.0));
    assert_true(bits_of_double(from_ordered_bits<double>(ordered_bits(-0.0))) == 0);
    /* order kept: x < y exactly where their ordered bits are */
    std::sort(xs.begin(), xs.end());
    for (size_t i = 1; i < xs.size(); i++)
        assert_int_equal(xs[i - 1] < xs[i], ordered_bits(xs[i - 1]) < ordered_bits(xs[i]));
    /* f32 too: every float but NaN comes back, -0.0 as +0.0 */
    for (int i = 0; i < 2000; i++) {
        float f;
        const uint32_t w = (uint32_t)rng();
        memcpy(&f, &w, 4);
        if (std::isnan(f)) continue;
        uint32_t back;
        const float g = from_ordered_bits<float>(ordered_bits(f));
        memcpy(&back, &g, 4);
        assert_int_equal(back, f == 0.0f ? 0u : w);
    }
    for (int i = 0; i < 1000; i++) {
        const uint64_t u = rng();
        assert_true(from_ordered_bits<uint64_t>(ordered_bits(u)) == u);
        const uint32_t w = (uint32_t)u;
        assert_int_equal(from_ordered_bits<uint32_t>(ordered_bits(w)), w);
        assert_int_equal(from_ordered_bits<int32_t>(ordered_bits((int32_t)w)), (int32_t)w);
    }
}

/* Words compare as (key bits, place): 64-bit words for 4-byte keys, 128-bit for 8-byte ones,
 * whose top key bits a 64-bit word would lose. */
template <class K> static void check_words(std::mt19937_64 &rng) {
    using B = ordered_t<K>;
    for (int i = 0; i < 5000; i++) {
        /* few distinct keys and places, so that ties on each come up */
        const B a = (B)(rng() % 4) << (8 * sizeof(B) - 2), b = (B)(rng() % 4)
                                                               << (8 * sizeof(B) - 2);
        const uint64_t p = rng() % 3, q = rng() % 3;
        const B ka = (B)(a | (B)(rng() % 2)), kb = (B)(b | (B)(rng() % 2));
        const bool below = ka < kb || (ka == kb && p < q);
        assert_int_equal(key_word<K>(ka, p) < key_word<K>(kb, q), below);
        assert_int_equal(key_word<K>(ka, p) == key_word<K>(kb, q), ka == kb && p == q);
    }
    /* the largest place below 2^32 never reaches the key bits */
    assert_true(key_word<K>(0, 0xffffffffull) < key_word<K>(1, 0));
}

static void words_order_as_key_then_place(void **state) {
    (void)state;
    std::mt19937_64 rng(13);
    check_words<uint32_t>(rng);
    check_words<float>(rng);
    check_words<uint64_t>(rng);
    check_words<double>(rng);
}

/* Float tiles (f64 and f32): buckets in key order over any sorted keys of the range
 * (subnormals, spans past DBL_MAX and infinities included), and a tile of uniform keys around
 * zero spread over its buckets as evenly as over any other range, where its bits would crowd
 * them into a few. */
/* The bucket map of a tile holding xs (sorted). */
template <class K> static RealTileRange<K> real_range(const std::vector<K> &xs) {
    return RealTileRange<K>(ordered_bits(xs.front()), ordered_bits(xs.back()));
}

template <class K> static void check_real_range(std::vector<K> xs) {
    std::sort(xs.begin(), xs.end());
    if (TileRange<ordered_t<K>>::one_value(ordered_bits(xs.front()), ordered_bits(xs.back())))
        return;
    const RealTileRange<K> r = real_range(xs);
    uint32_t before = 0;
    for (K x : xs) {
        const uint32_t b = r.bucket(ordered_bits(x));
        if (b >= (uint32_t)kBuckets) fail_msg("%a in bucket %u of %d", (double)x, b, kBuckets);
        if (b < before)
            fail_msg("%a: buckets out of order over [%a, %a]", (double)x, (double)xs.front(),
                     (double)xs.back());
        before = b;
    }
    assert_int_equal(r.bucket(ordered_bits(xs.front())), 0);
}

template <class K> static uint32_t fullest_bucket(std::vector<K> xs) {
    std::sort(xs.begin(), xs.end());
    const RealTileRange<K> r = real_range(xs);
    std::vector<uint32_t> load(kBuckets);
    uint32_t most = 0;
    for (K x : xs) most = std::max(most, ++load[r.bucket(ordered_bits(x))]);
    return most;
}

/* ranges[i] = {low, high}, of K's finite or infinite values */
template <class K> static void check_real_buckets(const K (*ranges)[2], size_t count) {
    std::mt19937_64 rng(17);
    const double kmax = std::numeric_limits<K>::max();
    for (size_t i = 0; i < count; i++) {
        std::vector<K> xs = {ranges[i][0], ranges[i][1]};
        std::uniform_real_distribution<double> u(std::max((double)ranges[i][0], -kmax),
                                                 std::min((double)ranges[i][1], kmax));
        for (int j = 0; j < 3000; j++) {
            const K x = (K)u(rng);
            xs.push_back(std::isfinite(x) ? x : (K)0);
        }
        check_real_range(xs);
    }
    /* 12288 uniform keys across zero (the tile that gave up in session 42): a bucket holds
     * a handful, as uniform keys over [1, 2) do; over their bits, thousands */
    for (double a : {-7.5e-5, 1.0}) {
        std::uniform_real_distribution<double> u(a, a == 1.0 ? 2.0 : -a);
        std::vector<K> xs(12288);
        for (K &x : xs) x = (K)u(rng);
        const uint32_t most = fullest_bucket(xs);
        if (most > 12) fail_msg("uniform keys from %a: %u in one bucket", a, most);
    }
}

static void real_buckets_follow_values(void **state) {
    (void)state;
    const double inf = std::numeric_limits<double>::infinity();
    const double dmax = std::numeric_limits<double>::max();
    const double sub = std::numeric_limits<double>::denorm_min();
    const double ranges[][2] = {{-1.0, 1.0},      {0.0, 1.0},        {1.0, 2.0},  {-dmax, dmax},
                                {0.0, 1e4 * sub}, {sub, 1e-300},     {-inf, inf}, {1e-310, 1.0},
                                {-1e-5, 1e-5},    {0.5, 0.5 + 1e-12}};
    check_real_buckets<double>(ranges, sizeof ranges / sizeof ranges[0]);
    const float finf = std::numeric_limits<float>::infinity();
    const float fmax = std::numeric_limits<float>::max();
    const float fsub = std::numeric_limits<float>::denorm_min();
    const float franges[][2] = {
        {-1.0f, 1.0f},  {0.0f, 1.0f},  {1.0f, 2.0f},   {-fmax, fmax},   {0.0f, 1e4f * fsub},
        {fsub, 1e-30f}, {-finf, finf}, {1e-40f, 1.0f}, {-1e-5f, 1e-5f}, {0.5f, 0.5f + 1e-6f}};
    check_real_buckets<float>(franges, sizeof franges / sizeof franges[0]);
}

/* A tile after its scatter: buckets of ascending key ranges, each `distinct` values wide at
 * most and holding up to `most` keys in random order; with the marks the block's first pass
 * leaves (a bit a place whose key is below the one before it) and each thread's range
 * starting at a bucket. */
template <class B> struct ScatteredTile {
    std::vector<B> keys;
    std::vector<uint32_t> marks, range_starts;
    ScatteredTile(std::mt19937_64 &rng, int buckets, uint32_t most, uint32_t distinct) {
        B base = (B)rng() >> 8;
        for (int b = 0; b < buckets; b++) {
            if (b % 32 == 0) range_starts.push_back((uint32_t)keys.size());
            const size_t start = keys.size();
            const uint32_t n = (uint32_t)(rng() % (most + 1)),
                           wide = 1 + (uint32_t)(rng() % distinct);
            for (uint32_t i = 0; i < n; i++) keys.push_back(base + (B)(rng() % wide));
            std::shuffle(keys.begin() + (ptrdiff_t)start, keys.end(), rng);
            base += wide;
        }
        range_starts.push_back((uint32_t)keys.size());
        marks.assign(keys.size() / 32 + 1, 0);
        for (size_t q = 1; q < keys.size(); q++)
            if (keys[q] < keys[q - 1]) marks[q >> 5] |= 1u << (q & 31);
    }
};

/* Each range walked alone (its marks from before any walk, as on the GPU) comes out sorted,
 * or reports that it gave up (kGaveUp), with the same moves as the walk without marks
 * (which must sort it too); returns the most moves of a sorted range. */
template <class B> static uint32_t walk_and_check(ScatteredTile<B> t, const char *what) {
    std::vector<B> want = t.keys, plain = t.keys;
    std::sort(want.begin(), want.end()); /* the buckets' ranges ascend */
    uint32_t most = 0;
    for (size_t r = 0; r + 1 < t.range_starts.size(); r++) {
        const uint32_t first = t.range_starts[r], end = t.range_starts[r + 1];
        const uint32_t moves = walk_buckets<true>(t.keys.data(), t.marks.data(), first, end);
        const uint32_t plain_moves = walk_buckets<false>(plain.data(), nullptr, first, end);
        if (moves == kGaveUp) continue; /* the tile gives up */
        if (plain_moves != moves)
            fail_msg("%s: range [%u, %u) %u moves with marks, %u without", what, first, end, moves,
                     plain_moves);
        most = std::max(most, moves);
        for (uint32_t q = first; q < end; q++)
            if (t.keys[q] != want[q] || plain[q] != want[q])
                fail_msg("%s: range [%u, %u) wrong at %u after %u moves", what, first, end, q,
                         moves);
    }
    return most;
}

template <class B> static void check_marked_walks(std::mt19937_64 &rng) {
    for (int i = 0; i < 20; i++) {
        /* copies of one value a bucket (normal keys): no marks, nothing moves */
        if (walk_and_check(ScatteredTile<B>(rng, 512, 1000, 1), "copies") != 0)
            fail_msg("copies of one value a bucket moved");
        /* a few values a bucket, up to 16 keys: keys inserted, then runs skipped */
        if (walk_and_check(ScatteredTile<B>(rng, 512, 16, 3), "few values") == 0)
            fail_msg("no range of a few values a bucket moved a key");
        /* uniform keys: about one a bucket, values far apart */
        walk_and_check(ScatteredTile<B>(rng, 16384, 3, 1000), "uniform");
    }
    /* one bucket of 100 distinct keys in descending order: 4950 moves, given up */
    ScatteredTile<B> t(rng, 0, 0, 1);
    for (B x = 100; x > 0; x--) t.keys.push_back(x);
    t.range_starts = {0, 100};
    t.marks.assign(4, 0);
    for (uint32_t q = 1; q < 100; q++) t.marks[q >> 5] |= 1u << (q & 31);
    assert_true(walk_buckets<true>(t.keys.data(), t.marks.data(), 0, 100) == kGaveUp);
}

static void marked_walks_sort_each_range(void **state) {
    (void)state;
    std::mt19937_64 rng(43);
    check_marked_walks<uint32_t>(rng);
    check_marked_walks<uint64_t>(rng);
}

/* Each bucket in descending order: the worst order a scatter by atomics may leave. */
static const auto descending = [](auto first, auto last) {
    std::sort(first, last, std::greater<>());
};

/* The most key moves any thread's walk makes over a tile of ordered keys bucketed by
 * bucket_of, each bucket in its worst order (kGaveUp where one gives up). */
template <class B, class BucketOf>
static uint32_t most_moves(const std::vector<B> &keys, BucketOf bucket_of) {
    BucketedTile<B> t = bucket_tile(keys.data(), keys.size(), bucket_of, descending);
    return most_walk_moves(t);
}

/* The moves a plain insertion sort (session 45's walk: a key past each larger one, copies
 * one by one) makes over the same worst-order buckets, the most of any thread's range. */
template <class B, class BucketOf>
static uint64_t plain_insertion_moves(const std::vector<B> &keys, BucketOf bucket_of) {
    BucketedTile<B> t = bucket_tile(keys.data(), keys.size(), bucket_of, descending);
    uint64_t most = 0;
    for (size_t r = 0; r + 1 < t.starts.size(); r++) {
        uint64_t moves = 0;
        for (uint32_t a = t.starts[r] + 1; a < t.starts[r + 1]; a++)
            for (uint32_t q = a; q > t.starts[r] && t.sk[q - 1] > t.sk[q]; q--)
                std::swap(t.sk[q - 1], t.sk[q]), moves++;
        most = std::max(most, moves);
    }
    return most;
}

/* A long run of equal keys is cut at tile edges, so its copies are a tile's lowest or highest
 * keys. Bucketed linearly, a few other keys share their bucket; moved past the copies one by
 * one they passed kMovesThread and the tile gave up (checked here by a plain insertion sort).
 * The walk moves the run as one (PB_SPLIT_RUN_WALK): about a move a key, and the tile sorts,
 * but one thread's serial moves took 1 ms on an H100 (session 47); edge_bucket gives the two
 * edge values a bucket each, in key order, few moves, and sort_tile takes it for such a tile
 * (edge_buckets_wanted). 6000 copies of the highest (or lowest) value and 6000 distinct
 * keys, one of them next to the copies. */
template <class Range, class B> static void check_edge_run(std::vector<B> keys, bool at_top) {
    std::sort(keys.begin(), keys.end());
    const B lo = keys.front(), hi = keys.back();
    const Range range(lo, hi);
    assert_false(range.by_value);
    const auto linear = [&](B x) { return range.bucket(x); };
    const auto edges = [&](B x) { return edge_bucket(range, lo, hi, x); };
    const char *where = at_top ? "top" : "bottom";
    if (plain_insertion_moves(keys, linear) <= kMovesThread)
        fail_msg("run at the %s: a plain insertion sort would not give up", where);
    const uint32_t run_moves = most_moves(keys, linear);
    if (PB_SPLIT_RUN_WALK && (run_moves == kGaveUp || run_moves > keys.size()))
        fail_msg("run at the %s: linear buckets, %u moves", where, run_moves);
    const uint32_t moves = most_moves(keys, edges);
    if (moves == kGaveUp || moves > kEdgeCopies)
        fail_msg("run at the %s: edge buckets, %u moves", where, moves);
    /* sort_tile's rule gives this tile edge buckets (its copies of lo and hi), and a tile of
     * distinct keys none */
    if (!edge_buckets_wanted(edge_measure(range, keys.data(), keys.size())) ||
        edge_buckets_wanted(2))
        fail_msg("run at the %s: edge buckets not chosen by the rule", where);
    uint32_t before = 0;
    for (B x : keys) {
        const uint32_t b = edges(x);
        if (b < before || b >= (uint32_t)kBuckets) fail_msg("edge buckets out of order");
        if ((x == lo) != (b == 0) || (x == hi) != (b == (uint32_t)kBuckets - 1))
            fail_msg("an edge bucket shared");
        before = b;
    }
}

static void long_runs_at_tile_edges_sort(void **state) {
    (void)state;
    std::mt19937_64 rng(45);
    for (bool at_top : {true, false}) {
        /* u32: distinct keys spread over 2^30 values, the run at 2^30 (or 0) */
        std::vector<uint32_t> u(6000, at_top ? 1u << 30 : 0u);
        u.push_back(at_top ? (1u << 30) - 1 : 1u);
        for (int i = 0; i < 5999; i++) u.push_back(1 + (uint32_t)(rng() % ((1u << 30) - 1)));
        check_edge_run<TileRange<uint32_t>>(u, at_top);
        /* f64: the run of zeros that signed-zeros keys make, beside uniform keys below (or
         * above) zero, one of them the nearest double to zero */
        const double side = at_top ? -1.0 : 1.0;
        std::vector<uint64_t> d(6000, ordered_bits(0.0));
        d.push_back(ordered_bits(side * std::numeric_limits<double>::denorm_min()));
        std::uniform_real_distribution<double> v(0.0, 1.0);
        for (int i = 0; i < 5999; i++) d.push_back(ordered_bits(side * (v(rng) + 1e-300)));
        check_edge_run<RealTileRange<double>>(d, at_top);
    }
}

/* The bounds walk's search (last_row_at_or_below): from any row whose splitter lies at or
 * below a word, the last such row, as a walk a row at a time finds it, in about 2 log2 of
 * the rows crossed probes; splitters as bounds_kernel has them (0 at row 0, strictly rising
 * sampled words, the largest word at row `tiles`), 64- and 128-bit. */
/* Splitter r for last_row_at_or_below, counting the probes and any outside (lo, tiles]. (A
 * __host__ __device__ functor: the search is compiled for both sides, which a host lambda
 * is not.) */
template <class Word> struct ProbedSplitters {
    const Word *spl;
    int64_t lo;
    uint32_t tiles;
    uint32_t *probes;
    bool *outside;
    __host__ __device__ Word operator()(int64_t r) const {
        ++*probes;
        if (r <= lo || r > (int64_t)tiles) *outside = true;
        return spl[r];
    }
};

template <class Word> static void check_row_search(std::mt19937_64 &rng) {
    for (uint32_t tiles : {2u, 3u, 17u, 1000u, 8222u}) {
        std::vector<Word> spl(tiles + 1);
        spl[0] = 0;
        for (uint32_t r = 1; r < tiles; r++)
            spl[r] = spl[r - 1] + 1 + (Word)(rng() % 1000) * ((Word)1 << (8 * sizeof(Word) - 32));
        spl[tiles] = ~(Word)0;
        for (int i = 0; i < 300; i++) {
            const int64_t lo = (int64_t)(rng() % tiles);
            /* a word from splitter lo to just below the next, or one far above (many rows) */
            const int64_t upto = i % 3 ? lo : lo + (int64_t)(rng() % (tiles - lo));
            const Word gap = spl[upto + 1] - spl[upto];
            const Word word = spl[upto] + (Word)(rng() % 2 ? 0 : (uint64_t)(gap - 1));
            int64_t walked = lo;
            while (spl[walked + 1] <= word) walked++;
            uint32_t probes = 0;
            bool outside = false;
            const int64_t found = last_row_at_or_below(
                lo, tiles, word, ProbedSplitters<Word>{spl.data(), lo, tiles, &probes, &outside});
            if (outside)
                fail_msg("tiles %u, from row %lld: a probe outside its rows", tiles, (long long)lo);
            if (found != walked)
                fail_msg("tiles %u, from row %lld: row %lld, walking finds %lld", tiles,
                         (long long)lo, (long long)found, (long long)walked);
            const uint32_t rows = (uint32_t)(walked - lo) + 1;
            if (probes > 2 * (uint32_t)std::ceil(std::log2(rows + 1.0)) + 1)
                fail_msg("%u probes for %u rows", probes, rows);
        }
    }
}

static void row_search_finds_what_the_walk_finds(void **state) {
    (void)state;
    std::mt19937_64 rng(47);
    check_row_search<unsigned long long>(rng);
    check_row_search<unsigned __int128>(rng);
}

/* The samples' windows (window_shift, key_window): over keys in [lo, hi] a window orders
 * keys as their bits do (never the other way), keeps every differing bit where they fit in
 * `bits` (equal windows then mean equal keys), and otherwise keeps the top `bits` of them. */
static void check_windows(unsigned long long lo, unsigned long long hi, uint32_t bits,
                          std::mt19937_64 &rng) {
    const uint32_t shift = window_shift(lo, hi, bits);
    const unsigned long long differ = lo ^ hi;
    uint32_t top = 0;
    while (top < 64 && (differ >> top) != 0) top++;
    assert_int_equal(shift, top > bits ? top - bits : 0);
    std::vector<unsigned long long> xs = offsets_in<unsigned long long>(hi - lo, rng);
    for (unsigned long long &x : xs) x += lo;
    for (size_t i = 1; i < xs.size(); i++) {
        const uint32_t a = key_window(xs[i - 1], shift), b = key_window(xs[i], shift);
        if (a > b)
            fail_msg("windows out of order: %llx %llx over [%llx, %llx], %u bits", xs[i - 1], xs[i],
                     lo, hi, bits);
        if (shift == 0 && xs[i - 1] != xs[i] && a == b)
            fail_msg("unequal keys %llx %llx share a whole window", xs[i - 1], xs[i]);
    }
}

static void sample_windows_keep_key_order(void **state) {
    (void)state;
    std::mt19937_64 rng(53);
    const unsigned long long ranges[][2] = {
        {0, ~0ull},
        {0, 0xffffffffull},
        {1ull << 40, (1ull << 40) + 999},
        {5, 5},
        {0x8000000000000000ull, 0xbfefffffffffffffull},
        {123, 1ull << 33},
        {~0ull - 70000, ~0ull},
    };
    for (const auto &r : ranges)
        for (uint32_t bits : {8u, 24u, 32u}) check_windows(r[0], r[1], bits, rng);
    /* a window of 32 over 64 differing bits is the top word; over 20, the whole keys */
    assert_int_equal(window_shift(0, ~0ull, 32), 32);
    assert_int_equal(window_shift(1ull << 40, (1ull << 40) + 999, 32), 0);
    assert_int_equal(window_shift(7, 7, 32), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sample_windows_keep_key_order),
        cmocka_unit_test(marked_walks_sort_each_range),
        cmocka_unit_test(long_runs_at_tile_edges_sort),
        cmocka_unit_test(buckets_stay_in_range_and_order),
        cmocka_unit_test(ordered_bits_come_back),
        cmocka_unit_test(words_order_as_key_then_place),
        cmocka_unit_test(real_buckets_follow_values),
        cmocka_unit_test(row_search_finds_what_the_walk_finds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
