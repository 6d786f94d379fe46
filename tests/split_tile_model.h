/* A value-split tile as sort_tile (algorithms/merge/value_split.cuh) scatters and walks it,
 * on the host, for the CPU tests of its walk and of its tiles over generated inputs. Include
 * after value_split.cuh and cmocka.h. */
#pragma once

#include <algorithm>
#include <numeric>
#include <vector>

/* A tile's keys in bucket order, each bucket as `arrange` left it (the scatter's atomics leave
 * any order), and where each thread's range of 2 kWordsThread buckets starts (the last entry:
 * the end). */
template <class B> struct BucketedTile {
    std::vector<B> sk;
    std::vector<uint32_t> starts;
};

template <class B, class BucketOf, class Arrange>
static BucketedTile<B> bucket_tile(const B *keys, size_t n, BucketOf bucket_of, Arrange arrange) {
    using namespace pb::merge::split;
    std::vector<uint32_t> bucket(n), start(kBuckets + 1, 0);
    for (size_t i = 0; i < n; i++) start[(bucket[i] = bucket_of(keys[i])) + 1]++;
    std::partial_sum(start.begin(), start.end(), start.begin());
    std::vector<uint32_t> next(start.begin(), start.end() - 1);
    BucketedTile<B> t;
    t.sk.resize(n);
    for (size_t i = 0; i < n; i++) t.sk[next[bucket[i]]++] = keys[i];
    for (int b = 0; b < kBuckets; b++) {
        if (b % (2 * kWordsThread) == 0) t.starts.push_back(start[b]);
        arrange(t.sk.begin() + start[b], t.sk.begin() + start[b + 1]);
    }
    t.starts.push_back((uint32_t)n);
    return t;
}

/* What sort_tile hands edge_buckets_wanted for a linear tile over range: the keys the linear
 * map puts in its first and last buckets. */
template <class Range, class B>
static uint32_t edge_measure(const Range &range, const B *bits, size_t n) {
    uint32_t keys = 0;
    for (size_t i = 0; i < n; i++) {
        const uint32_t b = range.bucket(bits[i]);
        keys += b == 0 || b == (uint32_t)pb::merge::split::kBuckets - 1;
    }
    return keys;
}

/* The most key moves any thread's walk (walk_buckets) makes over t, or kGaveUp where one
 * gives up; a walk that finishes must leave its range sorted. */
template <class B> static uint32_t most_walk_moves(BucketedTile<B> &t) {
    using namespace pb::merge::split;
    uint32_t most = 0;
    for (size_t r = 0; r + 1 < t.starts.size(); r++) {
        const uint32_t moves =
            walk_buckets<false>(t.sk.data(), nullptr, t.starts[r], t.starts[r + 1]);
        if (moves == kGaveUp) return kGaveUp;
        if (!std::is_sorted(t.sk.begin() + t.starts[r], t.sk.begin() + t.starts[r + 1]))
            fail_msg("a walk left its range [%u, %u) unsorted", t.starts[r], t.starts[r + 1]);
        most = std::max(most, moves);
    }
    return most;
}
