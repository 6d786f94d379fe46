/* merge/path's 16-lane partition search (algorithms/merge/merge_search.cuh), run on the CPU
 * with the lanes in a loop: on sorted runs with many ties, empty runs and a run of 2^24,
 * every diagonal's split equals a plain binary search's (ties to the left run), the lanes
 * that find the predicate false always form a prefix, and the search ends in at most
 * ceil(log17 of the range) + 1 steps. Also the search for the pair or group that holds a
 * position. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <algorithm>
#include <vector>

extern "C" {
#include <cmocka.h>
}

#include "merge_search.cuh"

using pb::merge::kary_narrow;
using pb::merge::kary_probe;
using pb::merge::kary_step;

using Run = std::vector<uint32_t>;

/* How many of the first d outputs of merging A with B come from A, ties to A. */
static uint32_t binary_split(const Run &A, const Run &B, uint32_t d) {
    const uint32_t na = (uint32_t)A.size(), nb = (uint32_t)B.size();
    uint32_t lo = d > nb ? d - nb : 0, hi = d < na ? d : na;
    while (lo < hi) {
        const uint32_t mid = (lo + hi) >> 1;
        if (B[d - 1 - mid] < A[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* The same by 16 lanes, as split_kernel's half-warp runs it; *steps counts the rounds. */
static uint32_t lane_split(const Run &A, const Run &B, uint32_t d, int *steps) {
    const uint32_t g = 16, na = (uint32_t)A.size(), nb = (uint32_t)B.size();
    uint32_t lo = d > nb ? d - nb : 0, hi = d < na ? d : na;
    *steps = 0;
    while (lo < hi) {
        const uint32_t step = kary_step(lo, hi, g);
        uint32_t f = 0;
        bool held = false;
        for (uint32_t j = 0; j < g; j++) {
            const uint64_t i = kary_probe(lo, step, j);
            const bool holds = i >= hi || B[d - 1 - (uint32_t)i] < A[(uint32_t)i];
            if (!holds) {
                assert_false(held); /* false lanes form a prefix */
                f++;
            }
            held = held || holds;
        }
        const uint32_t before = hi - lo;
        kary_narrow(lo, hi, step, f, g);
        assert_true(hi - lo < before);
        ++*steps;
    }
    return lo;
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
        for (uint32_t d = 0; d <= na + nb; d++) {
            int steps;
            assert_int_equal(lane_split(A, B, d, &steps), binary_split(A, B, d));
            assert_true(steps <= 4); /* ranges up to 2000: ceil(log17 2000) + 1 */
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
    const uint32_t ds[] = {0, 1, 12345, n, n + 7, 2 * n - 1, 2 * n};
    for (uint32_t d : ds) {
        int steps;
        assert_int_equal(lane_split(A, B, d, &steps), binary_split(A, B, d));
        assert_true(steps <= 7); /* ceil(log17 2^24) + 1 */
    }
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
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_diagonal_of_random_runs),
        cmocka_unit_test(long_interleaved_runs),
        cmocka_unit_test(last_start_at_or_below),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
