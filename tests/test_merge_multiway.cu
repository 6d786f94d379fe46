/* merge/path's multiway tiles (algorithms/merge/multiway_plan.cuh, merge_tile.cuh), run on
 * the CPU: a group of G sorted runs (ties, empty runs, runs shorter than a sample stride)
 * cut as split_kernel cuts it, from its samples merged stably. Every cut is monotone, no
 * tile holds more than a block's tile, and merging every tile's stretches as tile_kernel
 * does (merge_items, round by round, with empty stretches) and putting the tiles one after
 * another gives the stable merge. Also the pass shapes and sample strides for every k. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <algorithm>
#include <utility>
#include <vector>

extern "C" {
#include <cmocka.h>
}

#include "merge_tile.cuh"
#include "multiway_plan.cuh"

using namespace pb::merge;
using namespace pb::merge::multiway;

/* The stretches of one tile (keys sk, their input positions sv), merged as merge_tile
 * merges them: rounds of pairs, each "thread" taking I outputs, the round's keys written
 * back after all threads ran, the values ping-ponging. Returns (key, position) pairs. */
static std::vector<std::pair<uint32_t, uint32_t>>
merge_tile_on_cpu(std::vector<uint32_t> sk, std::vector<uint32_t> sv,
                  const std::vector<uint16_t> &seg_off) {
    constexpr int I = 15;
    const int S = (int)seg_off.size() - 1, D = seg_off[S];
    std::vector<uint32_t> other(sv.size());
    for (int r = 1; (1 << (r - 1)) < S; r++) {
        std::vector<uint32_t> next(sk);
        for (int o = 0; o < D; o += I) {
            merge_items<uint32_t, true, I>(sk.data(), sv.data(), other.data(), seg_off.data(), S, D,
                                           r, o, EmitTo<uint32_t>{next.data() + o});
        }
        sk = next;
        std::swap(sv, other);
    }
    std::vector<std::pair<uint32_t, uint32_t>> out;
    for (int o = 0; o < D; o++) out.emplace_back(sk[o], sv[o]);
    return out;
}

struct Item {
    uint32_t key, run, pos;
};

/* One group of runs (lengths lens, keys below range) cut and merged; tile: the block's. */
static void check_group(const std::vector<uint32_t> &lens, uint32_t range, uint32_t tile) {
    const uint32_t G = (uint32_t)lens.size();
    std::vector<uint32_t> keys, run_off(1, 0);
    for (uint32_t i = 0; i < G; i++) {
        std::vector<uint32_t> r(lens[i]);
        for (auto &x : r) x = (uint32_t)rand() % range;
        std::sort(r.begin(), r.end());
        keys.insert(keys.end(), r.begin(), r.end());
        run_off.push_back((uint32_t)keys.size());
    }
    const uint32_t S = sample_stride(tile, G), m = samples_per_tile(tile, G, S);
    assert_true((m + G) * S <= tile);
    /* samples, per run, then merged stably (what the level below produces) */
    std::vector<uint32_t> smp, smp_off(1, 0);
    std::vector<Item> merged;
    for (uint32_t i = 0; i < G; i++) {
        for (uint32_t at = run_off[i]; at < run_off[i + 1]; at += S) {
            smp.push_back(keys[at]);
            merged.push_back(Item{keys[at], i, at});
        }
        smp_off.push_back((uint32_t)smp.size());
    }
    std::stable_sort(merged.begin(), merged.end(),
                     [](const Item &a, const Item &b) { return a.key < b.key; });
    const uint32_t tiles = ceil_div(merged.size(), m);
    /* the cuts, as split_kernel makes them */
    std::vector<std::vector<uint32_t>> rows(tiles + 1, std::vector<uint32_t>(G));
    for (uint32_t b = 0; b <= tiles; b++)
        for (uint32_t i = 0; i < G; i++) {
            const uint32_t rs = run_off[i], re = run_off[i + 1];
            if (b == 0 || b == tiles) {
                rows[b][i] = b == 0 ? rs : re;
                continue;
            }
            const Item &sp = merged[b * m];
            rows[b][i] = i == sp.run ? sp.pos
                                     : cut_run(keys.data(), rs, re, smp.data() + smp_off[i], S,
                                               sp.key, i < sp.run);
        }
    /* the reference: a stable sort of (key, input position) */
    std::vector<std::pair<uint32_t, uint32_t>> want, got;
    for (uint32_t at = 0; at < keys.size(); at++) want.emplace_back(keys[at], at);
    std::stable_sort(want.begin(), want.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    for (uint32_t b = 0; b < tiles; b++) {
        std::vector<uint32_t> sk(tile + 1, 0), sv(tile, 0); /* + the spare slot */
        std::vector<uint16_t> seg_off(1, 0);
        uint32_t fill = 0;
        for (uint32_t i = 0; i < G; i++) {
            assert_true(rows[b][i] <= rows[b + 1][i]);
            for (uint32_t at = rows[b][i]; at < rows[b + 1][i]; at++, fill++) {
                assert_true(fill < tile);
                sk[fill] = keys[at];
                sv[fill] = at;
            }
            seg_off.push_back((uint16_t)fill);
        }
        const auto out = merge_tile_on_cpu(sk, sv, seg_off);
        got.insert(got.end(), out.begin(), out.end());
    }
    assert_int_equal(got.size(), want.size());
    assert_true(got == want);
}

static void random_groups_cut_into_stable_tiles(void **state) {
    (void)state;
    srand(11);
    const uint32_t groups[] = {2, 3, 5, 16, 31, 32, 33, 64};
    for (uint32_t G : groups)
        for (int trial = 0; trial < 12; trial++) {
            std::vector<uint32_t> lens(G);
            for (auto &l : lens) {
                const int kind = rand() % 6;
                l = kind == 0 ? 0 : kind == 1 ? 1 + rand() % 7 : (uint32_t)(rand() % 20000);
            }
            const uint32_t range = trial % 3 == 0 ? 2 : trial % 3 == 1 ? 1000 : 1u << 30;
            check_group(lens, range, trial % 2 ? 7680 : 4608);
        }
}

static void all_keys_equal(void **state) {
    (void)state;
    srand(5);
    check_group(std::vector<uint32_t>(32, 5000), 1, 7680);
    check_group(std::vector<uint32_t>(64, 3000), 1, 4608);
}

/* The cut search against std::lower_bound (a run after the splitter's) and upper_bound
 * (before it), on every sub-range of sorted arrays with runs of equal keys, for every key. */
static void first_not_below_is_a_bound(void **state) {
    (void)state;
    srand(11);
    for (uint32_t n = 0; n <= 70; n++) {
        std::vector<double> a(n);
        for (auto &x : a) x = (double)(rand() % 9);
        std::sort(a.begin(), a.end());
        for (uint32_t lo = 0; lo <= n; lo++)
            for (uint32_t hi = lo; hi <= n; hi += 1 + hi / 8)
                for (int v = -1; v <= 9; v++) {
                    const double *b = a.data() + lo, *e = a.data() + hi;
                    assert_int_equal(first_not_below(a.data(), lo, hi, (double)v, false),
                                     lo + (std::lower_bound(b, e, (double)v) - b));
                    assert_int_equal(first_not_below(a.data(), lo, hi, (double)v, true),
                                     lo + (std::upper_bound(b, e, (double)v) - b));
                }
    }
}

static void pass_shapes(void **state) {
    (void)state;
    for (uint32_t most : {kOnePassMost, kMaxGroup})
        for (uint32_t k = 2; k <= 4096; k++) {
            Passes p;
            assert_true(plan_passes(k, p, most));
            assert_int_equal(p.count, k <= most ? 1 : 2);
            uint64_t lists = 1;
            for (int i = 0; i < p.count; i++) {
                assert_true(p.group[i] >= 2 && p.group[i] <= kMaxGroup);
                assert_int_equal(p.stride[i], lists);
                lists *= p.group[i];
            }
            assert_true(lists >= k); /* the last pass holds them all */
            if (p.count == 2) assert_true(p.stride[1] * (p.group[1] - 1) < k); /* none idle */
            for (int i = 0; i < p.count; i++) {
                const uint32_t tiles[] = {7680, 4608};
                for (uint32_t t : tiles) {
                    const uint32_t S = sample_stride(t, p.group[i]);
                    assert_true(samples_per_tile(t, p.group[i], S) >= 3 * p.group[i] || S == 8);
                    assert_true((samples_per_tile(t, p.group[i], S) + p.group[i]) * S <= t);
                }
            }
        }
    Passes p;
    assert_false(plan_passes(4097, p));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_groups_cut_into_stable_tiles),
        cmocka_unit_test(all_keys_equal),
        cmocka_unit_test(first_not_below_is_a_bound),
        cmocka_unit_test(pass_shapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
