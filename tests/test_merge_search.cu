/* merge/path's partition searches (algorithms/merge/merge_search.cuh) on the CPU: on
 * sorted runs with many ties, empty runs and runs of 2^24, every diagonal's split equals
 * the count of A's keys among the first d outputs of std::stable_merge-like merging (ties
 * to A). Also the search for the pair or group that holds a position, the g-lane search
 * multisplit's bin offsets run, and the predicate search first_not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <vector>

extern "C" {
#include <cmocka.h>
}

#include "int_math.cuh"
#include "merge_search.cuh"

using pb::merge::merge_path_split;

using Run = std::vector<uint32_t>;

/* Every diagonal's split of merging A with B, from the merge itself: split[d] is how many
 * of the first d outputs came from A, ties taken from A first. */
static std::vector<uint32_t> splits_by_merging(const Run &A, const Run &B) {
    std::vector<uint32_t> split(1, 0);
    size_t i = 0, j = 0;
    while (i < A.size() || j < B.size()) {
        if (j == B.size() || (i < A.size() && A[i] <= B[j]))
            i++;
        else
            j++;
        split.push_back((uint32_t)i);
    }
    return split;
}

static uint32_t split(const Run &A, const Run &B, uint32_t d) {
    return merge_path_split(A.data(), (uint32_t)A.size(), B.data(), (uint32_t)B.size(), d);
}

static Run sorted_run(uint32_t n, uint32_t range) {
    Run r(n);
    for (auto &x : r) x = (uint32_t)rand() % range;
    std::sort(r.begin(), r.end());
    return r;
}

static void every_diagonal_of_random_runs(void **state) {
    (void)state;
    srand(7);
    for (int trial = 0; trial < 600; trial++) {
        const uint32_t na = (uint32_t)rand() % (trial % 3 == 0 ? 5 : 2000);
        const uint32_t nb = (uint32_t)rand() % (trial % 5 == 0 ? 3 : 2000);
        const uint32_t range = 1 + (uint32_t)rand() % (trial % 4 == 0 ? 3 : 100000);
        const Run A = sorted_run(na, range), B = sorted_run(nb, range);
        const std::vector<uint32_t> want = splits_by_merging(A, B);
        for (uint32_t d = 0; d <= na + nb; d++) {
            assert_int_equal(split(A, B, d), want[d]);
            /* with int indices, as merge_items searches a tile */
            assert_int_equal(merge_path_split(A.data(), (int)na, B.data(), (int)nb, (int)d),
                             want[d]);
        }
    }
}

static void long_interleaved_runs(void **state) {
    (void)state;
    const uint32_t n = 1u << 24;
    Run A(n), B(n);
    for (uint32_t i = 0; i < n; i++) {
        A[i] = 2 * i;
        B[i] = 2 * i + 1;
    }
    /* the first d outputs alternate A, B, A, ...: ceil(d / 2) from A; then B's rest */
    const uint32_t ds[] = {0, 1, 12345, n, n + 7, 2 * n - 1, 2 * n};
    for (uint32_t d : ds) assert_int_equal(split(A, B, d), (d + 1) / 2);
    /* all of B below all of A: A's keys come only after B's */
    Run low(n);
    for (uint32_t i = 0; i < n; i++) low[i] = i;
    for (auto &x : A) x += n;
    for (uint32_t d : ds) assert_int_equal(split(A, low, d), d > n ? d - n : 0);
    /* equal keys: A's first */
    const Run same_a(n, 5), same_b(n, 5);
    for (uint32_t d : ds) assert_int_equal(split(same_a, same_b, d), d < n ? d : n);
}

/* The g-lane search (pb::kary_*) over [0, n], its lanes in a loop: the lanes that find
 * below(i) form a prefix and every round narrows the range; *rounds counts them. */
template <class Below>
static uint64_t kary_on_cpu(uint64_t n, uint32_t g, Below below, int *rounds) {
    uint64_t lo = 0, hi = n;
    *rounds = 0;
    while (lo < hi) {
        const uint64_t step = pb::kary_step(lo, hi, g);
        uint32_t f = 0;
        bool held = false;
        for (uint32_t j = 0; j < g; j++) {
            const uint64_t i = pb::kary_probe(lo, step, j);
            const bool is_below = i < hi && below(i);
            if (is_below) {
                assert_false(held); /* the lanes below form a prefix */
                f++;
            }
            held = held || !is_below;
        }
        const uint64_t before = hi - lo;
        pb::kary_narrow(lo, hi, step, f, g);
        assert_true(hi - lo < before);
        ++*rounds;
    }
    return lo;
}

/* The g-lane search as multisplit's bin offsets run it with g = 32 and 1: on sorted keys
 * with runs of equal keys, for every target from below the least to past the greatest, the
 * rounds are at most ceil(log(g + 1) (n + 1)) and the answer is std::lower_bound's. */
static void kary_search_is_lower_bound(void **state) {
    (void)state;
    srand(11);
    const uint32_t lanes[] = {1, 2, 16, 32};
    for (int trial = 0; trial < 300; trial++) {
        const Run keys = sorted_run((uint32_t)rand() % (trial % 7 == 0 ? 4 : 3000),
                                    1 + (uint32_t)rand() % (trial % 3 == 0 ? 5 : 5000));
        const uint64_t n = keys.size();
        for (uint32_t g : lanes) {
            int bound = 0; /* ceil(log(g + 1) (n + 1)) */
            for (uint64_t reach = 1; reach < n + 1; reach *= g + 1) bound++;
            for (uint32_t target = 0; target <= (keys.empty() ? 1 : keys.back() + 1); target++) {
                int rounds;
                const uint64_t lo = kary_on_cpu(
                    n, g, [&](uint64_t i) { return keys[i] < target; }, &rounds);
                assert_true(rounds <= bound);
                assert_int_equal(lo,
                                 std::lower_bound(keys.begin(), keys.end(), target) - keys.begin());
            }
        }
    }
}

/* pb::last_at_or_below_warp (the value split's list and splitter-rank searches, multisplit's
 * two-pass block search): 32 lanes' first place whose entry is above x, less one, is
 * last_at_or_below's answer, on 64-bit starts with runs of equal entries (empty lists). */
static void kary_upper_bound_is_last_at_or_below(void **state) {
    (void)state;
    srand(17);
    for (int trial = 0; trial < 200; trial++) {
        std::vector<uint64_t> starts(1 + rand() % 3000);
        uint64_t at = ((uint64_t)1 << 36) + (uint64_t)(rand() % 5);
        for (auto &x : starts) {
            x = at;
            at += rand() % 3 == 0 ? 0 : (uint64_t)(rand() % 9);
        }
        const uint32_t n = (uint32_t)starts.size();
        for (uint64_t x = starts[0]; x <= at + 2; x += 1 + (uint64_t)(rand() % 4)) {
            int rounds;
            const uint64_t first_above = kary_on_cpu(
                n, 32, [&](uint64_t i) { return starts[i] <= x; }, &rounds);
            assert_true(rounds <= 3); /* 33^3 > 3000 + 1 */
            assert_int_equal(first_above - 1, pb::last_at_or_below(starts.data(), n, x));
        }
    }
}

/* ceil_log2 against its definition: the least l with 2^l >= v. */
static void ceil_log2_is_least_power(void **state) {
    (void)state;
    assert_int_equal(pb::ceil_log2(0), 0);
    assert_int_equal(pb::ceil_log2(1), 0);
    for (int l = 1; l < 64; l++) {
        const uint64_t p = (uint64_t)1 << l;
        assert_int_equal(pb::ceil_log2(p), l);
        assert_int_equal(pb::ceil_log2(p - 1), l == 1 ? 0 : l);
        assert_int_equal(pb::ceil_log2(p + 1), l + 1);
    }
}

/* Every query (keys, lo, hi, v) of 100 trials: sorted keys (up to `longest`, with runs of
 * equal keys), every sub-range [lo, hi) and every v from below the first key to past the
 * last. */
template <class Check> static void every_sorted_query(unsigned seed, int longest, Check check) {
    srand(seed);
    for (int trial = 0; trial < 100; trial++) {
        std::vector<uint32_t> keys(rand() % longest);
        uint32_t at = (uint32_t)(rand() % 5);
        for (auto &x : keys) {
            x = at;
            at += rand() % 3 == 0 ? 0 : (uint32_t)(rand() % 6);
        }
        const uint32_t n = (uint32_t)keys.size();
        for (uint32_t lo = 0; lo <= n; lo++)
            for (uint32_t hi = lo; hi <= n; hi++)
                for (uint32_t v = 0; v <= at + 2; v++) check(keys, lo, hi, v);
    }
}

/* first_not against std::lower_bound (the predicate "below v") on every sorted query. */
struct KeyBelow { /* a functor, not a host lambda: first_not is host and device code */
    const uint32_t *keys;
    uint32_t v;
    __host__ __device__ bool operator()(uint32_t i) const { return keys[i] < v; }
};
static void first_not_is_lower_bound(void **state) {
    (void)state;
    every_sorted_query(
        5, 40, [](const std::vector<uint32_t> &keys, uint32_t lo, uint32_t hi, uint32_t v) {
            const uint32_t want =
                (uint32_t)(std::lower_bound(keys.begin() + lo, keys.begin() + hi, v) -
                           keys.begin());
            assert_int_equal(pb::first_not(lo, hi, KeyBelow{keys.data(), v}), want);
        });
}

/* first_not_galloping against first_not on every sorted query, and within
 * 2 ceil(log2(distance + 1)) + 1 probes of the answer's distance from lo. */
struct CountedKeyBelow {
    const uint32_t *keys;
    uint32_t v;
    uint32_t *probes;
    __host__ __device__ bool operator()(uint32_t i) const {
        ++*probes;
        return keys[i] < v;
    }
};
static void galloping_is_first_not(void **state) {
    (void)state;
    every_sorted_query(
        7, 70, [](const std::vector<uint32_t> &keys, uint32_t lo, uint32_t hi, uint32_t v) {
            const uint32_t want = pb::first_not(lo, hi, KeyBelow{keys.data(), v});
            uint32_t probes = 0;
            assert_int_equal(
                pb::first_not_galloping(lo, hi, CountedKeyBelow{keys.data(), v, &probes}), want);
            const uint32_t most = 2 * (uint32_t)std::ceil(std::log2(want - lo + 1.0)) + 1;
            if (probes > most)
                fail_msg("[%u, %u) for %u: %u probes, answer %u", lo, hi, v, probes, want);
        });
}

/* last_at_or_below against std::upper_bound, on starts with runs of equal entries (empty
 * pairs or groups), for every x from the first start to past the last. */
static void last_start_at_or_below(void **state) {
    (void)state;
    srand(3);
    for (int trial = 0; trial < 200; trial++) {
        std::vector<uint32_t> starts(1 + rand() % 70);
        uint32_t at = (uint32_t)(rand() % 5);
        for (auto &x : starts) {
            x = at;
            at += rand() % 3 == 0 ? 0 : (uint32_t)(rand() % 40);
        }
        for (uint32_t x = starts[0]; x <= at + 3; x++) {
            const uint32_t want =
                (uint32_t)(std::upper_bound(starts.begin(), starts.end(), x) - starts.begin()) - 1;
            assert_int_equal(pb::merge::last_at_or_below(starts.data(), (uint32_t)starts.size(), x),
                             want);
        }
        /* the same starts as 64-bit words past 2^32 (list offsets, the value split's
         * splitters) */
        const uint64_t high = (uint64_t)1 << 40;
        std::vector<uint64_t> wide(starts.begin(), starts.end());
        for (auto &w : wide) w += high;
        for (uint32_t x = starts[0]; x <= at + 3; x++) {
            const uint32_t want =
                (uint32_t)(std::upper_bound(starts.begin(), starts.end(), x) - starts.begin()) - 1;
            assert_int_equal(pb::last_at_or_below(wide.data(), (uint32_t)wide.size(), high + x),
                             want);
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_diagonal_of_random_runs),
        cmocka_unit_test(long_interleaved_runs),
        cmocka_unit_test(last_start_at_or_below),
        cmocka_unit_test(ceil_log2_is_least_power),
        cmocka_unit_test(kary_search_is_lower_bound),
        cmocka_unit_test(first_not_is_lower_bound),
        cmocka_unit_test(galloping_is_first_not),
        cmocka_unit_test(kary_upper_bound_is_last_at_or_below),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
