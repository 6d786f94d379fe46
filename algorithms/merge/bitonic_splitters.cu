/* merge/bitonic-splitters: the seed's k-way merge (seed 000), on the GPU.
 *
 *  1. Splitters. The output is cut into p parts (p a multiple of the SM count when the
 *     input is large enough), part j holding the elements of stable ranks
 *     [j * (n / p), (j + 1) * (n / p)), the last part the rest. One block per boundary
 *     finds, for every list, how many of its elements lie below that rank, as the seed
 *     does: a random pivot from the unpartitioned windows; every thread (lists strided
 *     over threads) binary-searches its lists' windows for the counts below and up to
 *     the pivot; a block reduction sums both; if the target rank lies between the two
 *     sums the pivot is found and the elements equal to it are taken list by list, in
 *     list order (which is what makes the cut stable), else every window shrinks to one
 *     side of the pivot and the search repeats. The pivot is a uniformly random element
 *     of the windows (a list picked with probability proportional to its window, then a
 *     position in it), from a hash of boundary, iteration and list, so runs repeat
 *     exactly. Each boundary block ends by writing a row of the table P: P[j][i] = how
 *     many elements of lists 0..i-1 lie below boundary j. That one table gives every
 *     sublist's place in the input and in its part.
 *  2. Merging. Within every part the k sublists are merged pairwise, 0 with 1, 2 with 3
 *     and so on, round after round until one remains (ceil(log2 k) rounds, an odd last
 *     sublist carried over). A merged pair stays where its two halves were, so round r's
 *     sublists are the lists grouped 2^r at a time and their bounds come straight from P.
 *     A pair is merged by a bitonic network over a buffer of G elements from each side
 *     (G threads, one pair per group): the buffer is merged, its lower G go out, and the
 *     upper G stay while G new elements come in from the side whose next element is
 *     smaller. G is chosen per round: one warp per pair while pairs are many (the network
 *     then runs in registers and shuffles), up to a block of 512 when few long pairs
 *     remain (stride G within a thread, G/2 .. 32 in shared memory, the last five through
 *     warp shuffles). The network is not stable, so elements carry their input index and
 *     compare as (key, index): the input is list-major, so that order is the stable one.
 *     Rounds ping-pong between a scratch buffer and the output buffers, arranged so the
 *     last round lands in the output; values are gathered by index in the last round. */
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

#include <type_traits>

#include "int_math.cuh"
#include "merge_gpu.h"
#include "merge_keys.cuh"

namespace pb_merge_bitonic {
namespace {

using pb::merge::ordered_bits;
using pb::merge::ordered_t;

constexpr unsigned FULL = 0xffffffffu;

/* ---- tuning ------------------------------------------------------------------------- */

constexpr uint64_t PART_MIN = 2048;     /* fewest elements a part should get */
constexpr uint32_t PARTS_PER_SM = 4;    /* the most parts per SM (a wave of search blocks) */
constexpr uint32_t LISTS_PER_BATCH = 4; /* binary searches a thread runs side by side */
constexpr uint32_t REG_THREADS = 256;   /* up to REG_THREADS * 4 lists: state in registers */
constexpr uint32_t REG_MAX_K = REG_THREADS * LISTS_PER_BATCH;
constexpr uint32_t GLOBAL_THREADS = 1024;         /* more lists: state in scratch */
constexpr uint32_t WARP_BLOCK = 256;              /* the one-warp-per-pair kernel's block */
constexpr int MAX_GROUP = 512;                    /* the widest pair network (2 x 512 elements) */
constexpr uint64_t MAX_N = 0xffffffffull - 65536; /* u32 positions, plus a group's overrun */

/* ---- keys ----------------------------------------------------------------------------- */

/* Back from ordered bits to the key (a float zero comes back +0.0; see store_item). */
__device__ inline uint32_t decode(uint32_t o, uint32_t) { return o; }
__device__ inline int32_t decode(uint32_t o, int32_t) { return (int32_t)(o ^ 0x80000000u); }
__device__ inline float decode(uint32_t o, float) {
    return __uint_as_float((o & 0x80000000u) ? (o & 0x7fffffffu) : ~o);
}
__device__ inline uint64_t decode(uint64_t o, uint64_t) { return o; }
__device__ inline double decode(uint64_t o, double) {
    return __longlong_as_double((long long)((o >> 63) ? (o & 0x7fffffffffffffffull) : ~o));
}

template <class T> constexpr bool is_float = std::is_floating_point<T>::value;

/* What the networks move: a key's ordered bits, and its input index when ties must be
 * ordered (values to carry, or floats whose -0.0 and +0.0 are equal but not the same). The
 * padding max() sorts after every real item: indices stay below 2^32 - 1. */
struct Wide {
    uint64_t k;
    uint32_t i;
};

template <class Item, int N> struct Shared {
    Item s[N];
    __device__ Item get(int i) const { return s[i]; }
    __device__ void set(int i, Item v) { s[i] = v; }
};
/* Wide items as two arrays, so that neighbours stay in neighbouring banks. */
template <int N> struct Shared<Wide, N> {
    uint64_t k[N];
    uint32_t i[N];
    __device__ Wide get(int x) const { return Wide{k[x], i[x]}; }
    __device__ void set(int x, Wide v) {
        k[x] = v.k;
        i[x] = v.i;
    }
};

template <class U, bool Indexed> struct Items;

template <class U> struct Items<U, false> { /* keys only: equal keys are identical */
    using Item = U;
    static constexpr bool indexed = false;
    __device__ static Item make(U key, uint32_t) { return key; }
    __device__ static U key(Item it) { return it; }
    __device__ static uint32_t idx(Item) { return 0; }
    __device__ static Item max() { return ~(U)0; }
    __device__ static bool less(Item a, Item b) { return a < b; }
    __device__ static Item shfl_xor(Item x, int d) { return __shfl_xor_sync(FULL, x, d); }
};

template <> struct Items<uint32_t, true> { /* (key, index) in one 64-bit word */
    using Item = uint64_t;
    static constexpr bool indexed = true;
    __device__ static Item make(uint32_t key, uint32_t idx) { return (uint64_t)key << 32 | idx; }
    __device__ static uint32_t key(Item it) { return (uint32_t)(it >> 32); }
    __device__ static uint32_t idx(Item it) { return (uint32_t)it; }
    __device__ static Item max() { return ~0ull; }
    __device__ static bool less(Item a, Item b) { return a < b; }
    __device__ static Item shfl_xor(Item x, int d) { return __shfl_xor_sync(FULL, x, d); }
};

template <> struct Items<uint64_t, true> {
    using Item = Wide;
    static constexpr bool indexed = true;
    __device__ static Item make(uint64_t key, uint32_t idx) { return Wide{key, idx}; }
    __device__ static uint64_t key(Item it) { return it.k; }
    __device__ static uint32_t idx(Item it) { return it.i; }
    __device__ static Item max() { return Wide{~0ull, ~0u}; }
    __device__ static bool less(Item a, Item b) { return a.k < b.k || (a.k == b.k && a.i < b.i); }
    __device__ static Item shfl_xor(Item x, int d) {
        return Wide{__shfl_xor_sync(FULL, x.k, d), __shfl_xor_sync(FULL, x.i, d)};
    }
};

/* ---- the table P ---------------------------------------------------------------------
 * Row j (0..p) has k + 1 entries: P[j][i] = elements of lists 0..i-1 below boundary j.
 * Row 0 is zeros, row p the list offsets, P[j][k] the boundary's rank. */

struct PairMeta {
    uint32_t a, b;   /* where the two sides start in the round's source */
    uint32_t la, lb; /* their lengths */
    uint32_t dst;    /* where the merged pair starts in the round's destination */
};

struct RoundArgs {
    const void *src_keys; /* round 0: the input keys (T); later: ordered bits (U) */
    const uint32_t *src_idx;
    void *dst_keys; /* last round: out_keys (T); before: ordered bits (U) */
    uint32_t *dst_idx;
    const void *in_keys;    /* the input, for float zeros in the last round */
    const uint32_t *values; /* gathered by index in the last round, or NULL */
    uint32_t *out_values;
    const uint32_t *table;
    uint64_t npairs; /* p * pairs per part */
    uint32_t k, p, r, per_part;
    bool from_input, final_round;
};

/* Pair g of part j in round r: groups of 2^r lists 2g and 2g + 1 (the second may be
 * empty: the odd one out, carried over by a copy). */
__device__ PairMeta pair_meta(const RoundArgs &ra, uint64_t pair) {
    const uint32_t k = ra.k;
    const uint32_t j = (uint32_t)(pair / ra.per_part), g = (uint32_t)(pair % ra.per_part);
    const uint32_t *pj = ra.table + (uint64_t)j * (k + 1);
    const uint32_t *pj1 = pj + (k + 1);
    const uint64_t a64 = (uint64_t)g << (ra.r + 1);
    const uint32_t a = (uint32_t)a64;
    const uint32_t m = (uint32_t)(a64 + (1ull << ra.r) < k ? a64 + (1ull << ra.r) : k);
    const uint32_t b = (uint32_t)(a64 + (2ull << ra.r) < k ? a64 + (2ull << ra.r) : k);
    const uint32_t start = pj[k];
    const uint32_t qa = pj1[a] - pj[a], qm = pj1[m] - pj[m], qb = pj1[b] - pj[b];
    PairMeta out;
    out.la = qm - qa;
    out.lb = qb - qm;
    out.dst = start + qa;
    if (ra.from_input) { /* list i's piece starts at offsets[i] + its cut at boundary j */
        const uint32_t *pn = ra.table + (uint64_t)ra.p * (k + 1);
        out.a = pn[a] + (pj[a + 1] - pj[a]);
        out.b = m < k ? pn[m] + (pj[m + 1] - pj[m]) : 0;
    } else {
        out.a = start + qa;
        out.b = start + qm;
    }
    return out;
}

template <class T, class I>
__device__ typename I::Item load_item(const RoundArgs &ra, uint32_t pos) {
    using U = ordered_t<T>;
    U key;
    uint32_t idx = 0;
    if (ra.from_input) {
        key = ordered_bits(static_cast<const T *>(ra.src_keys)[pos]);
        idx = pos; /* the input is the concatenation: its position is the index */
    } else {
        key = static_cast<const U *>(ra.src_keys)[pos];
        if (I::indexed) idx = ra.src_idx[pos];
    }
    return I::make(key, idx);
}

template <class T, class I>
__device__ void store_item(const RoundArgs &ra, uint32_t pos, typename I::Item it) {
    using U = ordered_t<T>;
    if (ra.final_round) {
        T key = decode(I::key(it), T{});
        /* ordered bits made -0.0 equal +0.0; the input knows which one it was */
        if constexpr (is_float<T>)
            if (key == (T)0) key = static_cast<const T *>(ra.in_keys)[I::idx(it)];
        static_cast<T *>(ra.dst_keys)[pos] = key;
        if (I::indexed && ra.values) ra.out_values[pos] = ra.values[I::idx(it)];
    } else {
        static_cast<U *>(ra.dst_keys)[pos] = I::key(it);
        if (I::indexed) ra.dst_idx[pos] = I::idx(it);
    }
}

/* ---- the pair merge ------------------------------------------------------------------- */

/* Sorts the bitonic sequence of 2G items held as x0 = position t, x1 = position G + t
 * (t the thread's rank in its group): half-cleaners at strides G, G/2, ..., 1. */
template <class I, int G>
__device__ void bitonic_merge(typename I::Item &x0, typename I::Item &x1,
                              Shared<typename I::Item, 2 * G> *sh, uint32_t t) {
    using Item = typename I::Item;
    if (I::less(x1, x0)) { /* stride G: both ends in this thread */
        Item y = x0;
        x0 = x1;
        x1 = y;
    }
    if constexpr (G > 32) { /* strides G/2 .. 32 cross warps: shared memory */
        sh->set(t, x0);
        sh->set(G + t, x1);
        __syncthreads();
#pragma unroll
        for (int d = G / 2; d >= 32; d >>= 1) {
            const int i = ((int)t & ~(d - 1)) * 2 + ((int)t & (d - 1));
            Item a = sh->get(i), b = sh->get(i + d);
            if (I::less(b, a)) {
                sh->set(i, b);
                sh->set(i + d, a);
            }
            __syncthreads();
        }
        /* each thread reads back only the slots it writes next time: no barrier needed */
        x0 = sh->get(t);
        x1 = sh->get(G + t);
    }
    const int lane = (int)(t & 31);
#pragma unroll
    for (int d = 16; d >= 1; d >>= 1) { /* the lower lane of a pair keeps the smaller */
        Item y0 = I::shfl_xor(x0, d), y1 = I::shfl_xor(x1, d);
        const bool upper = lane & d;
        if (upper ? I::less(x0, y0) : I::less(y0, x0)) x0 = y0;
        if (upper ? I::less(x1, y1) : I::less(y1, x1)) x1 = y1;
    }
}

/* Merges sides A and B of m into the destination with G threads (t = rank in the group).
 * Every branch depends only on values the whole group holds alike. */
template <class T, class I, int G>
__device__ void merge_pair(const RoundArgs &ra, const PairMeta &m,
                           Shared<typename I::Item, 2 * G> *sh, uint32_t t) {
    using Item = typename I::Item;
    const uint32_t la = m.la, lb = m.lb, total = la + lb;
    if (la == 0 || lb == 0) { /* one side only: merging it with nothing is a copy */
        const uint32_t src = la ? m.a : m.b;
        for (uint32_t i = t; i < total; i += G)
            store_item<T, I>(ra, m.dst + i, load_item<T, I>(ra, src + i));
        return;
    }
    const uint32_t rt = G - 1 - t; /* chunks other than A's first go in reversed */
    /* A's first G ascending, B's first G descending: one bitonic sequence */
    Item x0 = t < la ? load_item<T, I>(ra, m.a + t) : I::max();
    Item x1 = rt < lb ? load_item<T, I>(ra, m.b + rt) : I::max();
    uint32_t ia = la < G ? la : G, ib = lb < G ? lb : G;
    /* each side's next chunk and head element, loaded a step ahead of their use */
    Item na = rt < la - ia ? load_item<T, I>(ra, m.a + ia + rt) : I::max();
    Item ha = ia < la ? load_item<T, I>(ra, m.a + ia) : I::max();
    Item nb = rt < lb - ib ? load_item<T, I>(ra, m.b + ib + rt) : I::max();
    Item hb = ib < lb ? load_item<T, I>(ra, m.b + ib) : I::max();
    uint32_t o = 0;
    for (;;) {
        bitonic_merge<I, G>(x0, x1, sh, t);
        if (t < total - o) store_item<T, I>(ra, m.dst + o + t, x0);
        o += G;
        if (o >= total) break;
        const bool more_a = ia < la, more_b = ib < lb;
        if (!more_a && !more_b) { /* all loaded: the upper half is the sorted rest */
            if (t < total - o) store_item<T, I>(ra, m.dst + o + t, x1);
            break;
        }
        /* the side whose next element is smaller refills the lower half, reversed, so
         * that it and the kept upper half (ascending) form a bitonic sequence again */
        if (more_a && (!more_b || !I::less(hb, ha))) {
            x0 = na;
            ia += la - ia < G ? la - ia : G;
            na = rt < la - ia ? load_item<T, I>(ra, m.a + ia + rt) : I::max();
            ha = ia < la ? load_item<T, I>(ra, m.a + ia) : I::max();
        } else {
            x0 = nb;
            ib += lb - ib < G ? lb - ib : G;
            nb = rt < lb - ib ? load_item<T, I>(ra, m.b + ib + rt) : I::max();
            hb = ib < lb ? load_item<T, I>(ra, m.b + ib) : I::max();
        }
    }
}

/* One warp per pair; a warp takes `batch` consecutive pairs, reads their bounds a lane
 * each and merges the non-empty ones (the early rounds of a large k are mostly empty). */
template <class T, class I>
__global__ __launch_bounds__(WARP_BLOCK, 4) void merge_round_warps(RoundArgs ra, uint32_t batch) {
    const uint32_t lane = threadIdx.x & 31;
    const uint64_t warp = (uint64_t)blockIdx.x * (WARP_BLOCK / 32) + threadIdx.x / 32;
    const uint64_t first = warp * batch;
    if (first >= ra.npairs) return;
    PairMeta mine{0, 0, 0, 0, 0};
    if (lane < batch && first + lane < ra.npairs) mine = pair_meta(ra, first + lane);
    unsigned live = __ballot_sync(FULL, mine.la + mine.lb > 0);
    while (live) {
        const int src = __ffs(live) - 1;
        live &= live - 1;
        PairMeta m;
        m.a = __shfl_sync(FULL, mine.a, src);
        m.b = __shfl_sync(FULL, mine.b, src);
        m.la = __shfl_sync(FULL, mine.la, src);
        m.lb = __shfl_sync(FULL, mine.lb, src);
        m.dst = __shfl_sync(FULL, mine.dst, src);
        merge_pair<T, I, 32>(ra, m, nullptr, lane);
    }
}

/* One block of G threads per pair, for the late rounds' few long pairs. */
template <class T, class I, int G>
__global__ __launch_bounds__(G) void merge_round_blocks(RoundArgs ra) {
    __shared__ Shared<typename I::Item, 2 * G> sh;
    const PairMeta m = pair_meta(ra, blockIdx.x);
    if (m.la + m.lb == 0) return;
    merge_pair<T, I, G>(ra, m, &sh, threadIdx.x);
}

/* ---- splitters ------------------------------------------------------------------------ */

struct SearchArgs {
    const void *keys;
    const uint64_t *offsets;
    uint32_t *table;
    uint32_t *state; /* 4 k words per interior boundary, when the state is not in registers */
    uint32_t k, p, part;
};

__device__ inline uint64_t mix64(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Exclusive scan over the block (blockDim a multiple of 32); *total gets the sum. */
__device__ uint32_t block_exclusive_scan(uint32_t v, uint32_t *total, uint32_t *sm) {
    const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    uint32_t inc = v;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        uint32_t y = __shfl_up_sync(FULL, inc, d);
        if ((int)lane >= d) inc += y;
    }
    if (lane == 31) sm[warp] = inc;
    __syncthreads();
    if (warp == 0) {
        uint32_t w = lane < warps ? sm[lane] : 0, winc = w;
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            uint32_t y = __shfl_up_sync(FULL, winc, d);
            if ((int)lane >= d) winc += y;
        }
        sm[lane] = winc - w;
        if (lane == 31) sm[32] = winc;
    }
    __syncthreads();
    const uint32_t excl = sm[warp] + inc - v;
    *total = sm[32];
    __syncthreads(); /* sm is reused by the next collective */
    return excl;
}

__device__ uint64_t block_sum(uint64_t v, uint64_t *sm) {
    const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x / 32, warps = blockDim.x / 32;
#pragma unroll
    for (int d = 16; d >= 1; d >>= 1) v += __shfl_xor_sync(FULL, v, d);
    if (lane == 0) sm[warp] = v;
    __syncthreads();
    if (warp == 0) {
        uint64_t w = lane < warps ? sm[lane] : 0;
#pragma unroll
        for (int d = 16; d >= 1; d >>= 1) w += __shfl_xor_sync(FULL, w, d);
        if (lane == 0) sm[32] = w;
    }
    __syncthreads();
    const uint64_t s = sm[32];
    __syncthreads();
    return s;
}

/* For up to 4 lists side by side (their loads overlap): lt = first position in [lo, hi)
 * whose key is not below v, le = first position whose key is above v. */
template <class T>
__device__ void count_batch(const T *keys, ordered_t<T> v, const uint32_t (&base)[4],
                            const uint32_t (&lo)[4], const uint32_t (&hi)[4], uint32_t (&lt)[4],
                            uint32_t (&le)[4]) {
    uint32_t l[4], h[4];
#pragma unroll
    for (int q = 0; q < 4; q++) {
        l[q] = lo[q];
        h[q] = hi[q];
    }
    for (;;) {
        bool any = false;
#pragma unroll
        for (int q = 0; q < 4; q++)
            if (l[q] < h[q]) {
                any = true;
                const uint32_t mid = l[q] + (h[q] - l[q]) / 2;
                if (ordered_bits(keys[base[q] + mid]) < v)
                    l[q] = mid + 1;
                else
                    h[q] = mid;
            }
        if (!any) break;
    }
#pragma unroll
    for (int q = 0; q < 4; q++) {
        lt[q] = l[q];
        h[q] = hi[q];
        /* the element at lt is usually already above v: one look, no search */
        if (l[q] < h[q]) {
            if (ordered_bits(keys[base[q] + l[q]]) <= v)
                l[q]++;
            else
                h[q] = l[q];
        }
    }
    for (;;) {
        bool any = false;
#pragma unroll
        for (int q = 0; q < 4; q++)
            if (l[q] < h[q]) {
                any = true;
                const uint32_t mid = l[q] + (h[q] - l[q]) / 2;
                if (ordered_bits(keys[base[q] + mid]) <= v)
                    l[q] = mid + 1;
                else
                    h[q] = mid;
            }
        if (!any) break;
    }
#pragma unroll
    for (int q = 0; q < 4; q++) le[q] = l[q];
}

/* A thread's pick of the next pivot: reservoir sampling over its lists' windows, so the
 * pick is uniform over its window elements; the block then picks a thread in proportion
 * to its window total. */
struct Reservoir {
    uint32_t total = 0, pick = 0;
    __device__ void offer(uint32_t first, uint32_t w, uint64_t h) {
        if (w == 0) return;
        total += w;
        if ((((uint64_t)(uint32_t)h * total) >> 32) < w)
            pick = first + (uint32_t)(((h >> 32) * w) >> 32);
    }
};

/* The cut: list i keeps base_i plus, of its eq_i elements equal to the pivot, as many as
 * the lists before it left of `take` (list order: the stable order of equal keys). Writes
 * row j of P from the cuts. get(c, i) returns {base, eq} of list i = c * blockDim + t. */
template <class Get>
__device__ void write_cut(uint32_t *row, uint32_t k, uint32_t chunks, uint32_t take, Get get,
                          uint32_t *sm) {
    const uint32_t t = threadIdx.x;
    uint32_t eq_before = 0, below = 0;
    for (uint32_t c = 0; c < chunks; c++) {
        const uint32_t i = c * blockDim.x + t;
        uint32_t base = 0, eq = 0;
        if (i < k) get(c, i, base, eq);
        uint32_t cut = base;
        if (take) { /* uniform: some equal elements are taken */
            uint32_t eq_total;
            const uint32_t before = eq_before + block_exclusive_scan(eq, &eq_total, sm);
            const uint32_t left = take > before ? take - before : 0;
            cut += left < eq ? left : eq;
            eq_before += eq_total;
        }
        uint32_t cut_total;
        const uint32_t at = below + block_exclusive_scan(cut, &cut_total, sm);
        if (i < k) row[i] = at;
        below += cut_total;
    }
    if (t == 0) row[k] = below;
}

/* One block per boundary j (0..p). State per list: the window [lo, hi) where the cut
 * lies, and lt / le from the last count. REG: up to 4 lists a thread, in registers;
 * else 4 arrays of k words in scratch, whose roles swap instead of being copied. */
template <class T, bool REG>
__global__ __launch_bounds__(REG ? REG_THREADS
                                 : GLOBAL_THREADS) void splitters_kernel(SearchArgs sa) {
    using U = ordered_t<T>;
    __shared__ uint32_t sm[33];
    __shared__ uint64_t sm64[33];
    __shared__ uint32_t pivot_at;
    const T *keys = static_cast<const T *>(sa.keys);
    const uint32_t j = blockIdx.x, t = threadIdx.x, nt = blockDim.x, k = sa.k;
    uint32_t *row = sa.table + (uint64_t)j * (k + 1);
    if (j == 0 || j == sa.p) {
        for (uint32_t i = t; i <= k; i += nt) row[i] = j == 0 ? 0 : (uint32_t)sa.offsets[i];
        return;
    }
    const uint32_t target = j * sa.part;
    const uint32_t chunks = (k + nt - 1) / nt;
    const uint64_t seed = mix64(0x5eed0000ull + j);

    /* REG state */
    uint32_t rbase[4], rlo[4], rhi[4], rlt[4], rle[4];
    /* global state */
    uint32_t *glo = nullptr, *ghi = nullptr, *glt = nullptr, *gle = nullptr;
    if (!REG) {
        glo = sa.state + (uint64_t)(j - 1) * 4 * k;
        ghi = glo + k;
        glt = ghi + k;
        gle = glt + k;
    }

    /* windows start as whole lists */
    Reservoir res;
    {
        const uint64_t hseed = mix64(seed);
        if (REG) {
#pragma unroll
            for (int q = 0; q < 4; q++) {
                const uint32_t i = q * nt + t;
                rbase[q] = rlo[q] = rhi[q] = rlt[q] = rle[q] = 0;
                if (i < k) {
                    rbase[q] = (uint32_t)sa.offsets[i];
                    rhi[q] = (uint32_t)sa.offsets[i + 1] - rbase[q];
                    res.offer(rbase[q], rhi[q], mix64(hseed + 2 * i));
                }
            }
        } else {
            for (uint32_t i = t; i < k; i += nt) {
                const uint32_t base = (uint32_t)sa.offsets[i];
                const uint32_t len = (uint32_t)sa.offsets[i + 1] - base;
                glo[i] = 0;
                ghi[i] = len;
                res.offer(base, len, mix64(hseed + 2 * i));
            }
        }
    }
    uint32_t below = 0; /* elements left of every window */
    uint32_t window = (uint32_t)block_sum(res.total, sm64);
    uint32_t mine = res.total, pick = res.pick;

    for (uint32_t iter = 1;; iter++) {
        if (below == target || below + window == target) { /* the windows' edges are the cut */
            const bool at_hi = below != target;
            if (REG) {
                write_cut(
                    row, k, chunks, 0,
                    [&](uint32_t c, uint32_t, uint32_t &base, uint32_t &eq) {
#pragma unroll
                        for (int q = 0; q < 4; q++)
                            if ((uint32_t)q == c) base = at_hi ? rhi[q] : rlo[q];
                        eq = 0;
                    },
                    sm);
            } else {
                const uint32_t *edge = at_hi ? ghi : glo;
                write_cut(
                    row, k, chunks, 0,
                    [&](uint32_t, uint32_t i, uint32_t &base, uint32_t &eq) {
                        base = edge[i];
                        eq = 0;
                    },
                    sm);
            }
            return;
        }
        /* the pivot: a uniformly random window element */
        {
            const uint64_t h = mix64(seed ^ ((uint64_t)iter << 40));
            const uint32_t r = (uint32_t)(((uint64_t)(uint32_t)h * window) >> 32);
            uint32_t unused;
            const uint32_t from = block_exclusive_scan(mine, &unused, sm);
            if (mine && r >= from && r - from < mine) pivot_at = pick;
            __syncthreads();
        }
        const U v = ordered_bits(keys[pivot_at]);
        /* counts below and up to the pivot; next picks for either outcome */
        const uint64_t hseed = mix64(seed + iter);
        Reservoir low, high;
        uint64_t sums = 0; /* lt total << 32 | le total (each at most n < 2^32) */
        if (REG) {
            count_batch<T>(keys, v, rbase, rlo, rhi, rlt, rle);
#pragma unroll
            for (int q = 0; q < 4; q++) {
                const uint32_t i = q * nt + t;
                sums += ((uint64_t)rlt[q] << 32) + rle[q];
                low.offer(rbase[q] + rlo[q], rlt[q] - rlo[q], mix64(hseed + 2 * i));
                high.offer(rbase[q] + rle[q], rhi[q] - rle[q], mix64(hseed + 2 * i + 1));
            }
        } else {
            for (uint32_t c0 = 0; c0 < chunks; c0 += 4) {
                uint32_t base[4], lo[4], hi[4], lt[4], le[4];
#pragma unroll
                for (int q = 0; q < 4; q++) {
                    const uint32_t i = (c0 + q) * nt + t;
                    base[q] = lo[q] = hi[q] = 0;
                    if (i < k) {
                        lo[q] = glo[i];
                        hi[q] = ghi[i];
                        if (lo[q] < hi[q]) base[q] = (uint32_t)sa.offsets[i];
                    }
                }
                count_batch<T>(keys, v, base, lo, hi, lt, le);
#pragma unroll
                for (int q = 0; q < 4; q++) {
                    const uint32_t i = (c0 + q) * nt + t;
                    if (i >= k) continue;
                    glt[i] = lt[q];
                    gle[i] = le[q];
                    sums += ((uint64_t)lt[q] << 32) + le[q];
                    low.offer(base[q] + lo[q], lt[q] - lo[q], mix64(hseed + 2 * i));
                    high.offer(base[q] + le[q], hi[q] - le[q], mix64(hseed + 2 * i + 1));
                }
            }
        }
        sums = block_sum(sums, sm64);
        const uint32_t lt_total = (uint32_t)(sums >> 32), le_total = (uint32_t)sums;
        if (target < lt_total) { /* the cut is below the pivot: windows end at lt */
            window = lt_total - below;
            mine = low.total;
            pick = low.pick;
            if (REG) {
#pragma unroll
                for (int q = 0; q < 4; q++) rhi[q] = rlt[q];
            } else {
                uint32_t *x = ghi;
                ghi = glt;
                glt = x;
            }
        } else if (target > le_total) { /* above: windows start at le */
            window = below + window - le_total;
            below = le_total;
            mine = high.total;
            pick = high.pick;
            if (REG) {
#pragma unroll
                for (int q = 0; q < 4; q++) rlo[q] = rle[q];
            } else {
                uint32_t *x = glo;
                glo = gle;
                gle = x;
            }
        } else { /* found: everything below the pivot, then equal ones in list order */
            const uint32_t take = target - lt_total;
            if (REG) {
                write_cut(
                    row, k, chunks, take,
                    [&](uint32_t c, uint32_t, uint32_t &base, uint32_t &eq) {
#pragma unroll
                        for (int q = 0; q < 4; q++)
                            if ((uint32_t)q == c) {
                                base = rlt[q];
                                eq = rle[q] - rlt[q];
                            }
                    },
                    sm);
            } else {
                write_cut(
                    row, k, chunks, take,
                    [&](uint32_t, uint32_t i, uint32_t &base, uint32_t &eq) {
                        base = glt[i];
                        eq = gle[i] - glt[i];
                    },
                    sm);
            }
            return;
        }
    }
}

/* ---- host side ------------------------------------------------------------------------ */

size_t align256(size_t x) { return (x + 255) & ~(size_t)255; }

bool dtype_is_float(int dtype) { return dtype == PB_F32 || dtype == PB_F64; }

size_t key_size(int dtype) { return dtype == PB_U64 || dtype == PB_F64 ? 8 : 4; }

/* The part count: a multiple of the SM count, parts of at least PART_MIN elements, the
 * table (and search state) within a memory budget. Up to PARTS_PER_SM per SM: that many
 * search blocks run in about one wave, and the last round's pairs, p of them with up to
 * MAX_GROUP threads each, about fill the GPU. A boundary's search costs about k / threads
 * per iteration, so for large k one part per SM. Fewer parts than SMs only when the input
 * is too small or k too large for one per SM. */
uint32_t part_count(uint64_t n, uint32_t k, int sm_count) {
    const uint64_t sms = sm_count > 0 ? (uint64_t)sm_count : 1;
    const uint64_t per_boundary = ((uint64_t)k + 1) * 4 + (k > REG_MAX_K ? (uint64_t)k * 16 : 0);
    const uint64_t budget = n * 16 > (512ull << 20) ? n * 16 : (512ull << 20);
    uint64_t cap = budget / per_boundary;
    cap = cap > 1 ? cap - 1 : 1;
    if (n / PART_MIN < cap) cap = n / PART_MIN;
    if (cap < 1) return 1;
    if (cap < sms) return (uint32_t)cap;
    const uint64_t most = k <= 4096 ? PARTS_PER_SM : k <= 16384 ? 2 : 1;
    const uint64_t m = cap / sms < most ? cap / sms : most;
    return (uint32_t)(sms * m);
}

struct Layout {
    uint32_t p;
    int rounds;
    size_t table, state, keys, idx, idx2, total; /* byte offsets into scratch */
};

/* Scratch: the table P; the search state for large k; one ping-pong side's keys and
 * indices (the other side is out_keys and out_values, or idx2 for floats without values).
 * Sized by the dtype alone, for values or none: plan need not see the pointers. */
Layout layout_for(uint64_t n, uint32_t k, int dtype, int sm_count) {
    Layout l{};
    l.p = part_count(n, k, sm_count);
    l.rounds = pb::ceil_log2(k);
    size_t at = 0;
    l.table = at;
    at += align256(((size_t)l.p + 1) * ((size_t)k + 1) * 4);
    l.state = at;
    if (k > REG_MAX_K && l.p > 1) at += align256(((size_t)l.p - 1) * 4 * k * 4);
    l.keys = at;
    if (l.rounds >= 2) at += align256(n * key_size(dtype));
    l.idx = at;
    if (l.rounds >= 2) at += align256(n * 4);
    l.idx2 = at;
    if (l.rounds >= 3 && dtype_is_float(dtype)) at += align256(n * 4);
    l.total = at;
    return l;
}

/* Per round: one warp per pair while there are many pairs, wider groups (up to a block of
 * MAX_GROUP) when few long pairs would leave the GPU idle. */
int group_for(uint64_t npairs, uint64_t n, int sm_count) {
    const uint64_t threads = (uint64_t)(sm_count > 0 ? sm_count : 1) * 2048;
    const uint64_t avg = n / (npairs ? npairs : 1);
    int g = 32;
    while (g < MAX_GROUP && npairs * 2 * g <= threads && avg >= (uint64_t)g * 16) g *= 2;
    return g;
}

template <class T, class I>
cudaError_t launch_round(const RoundArgs &ra, int sm_count, uint64_t n, cudaStream_t st) {
    const int g = group_for(ra.npairs, n, sm_count);
    switch (g) {
    case 64:
        merge_round_blocks<T, I, 64><<<(unsigned)ra.npairs, 64, 0, st>>>(ra);
        break;
    case 128:
        merge_round_blocks<T, I, 128><<<(unsigned)ra.npairs, 128, 0, st>>>(ra);
        break;
    case 256:
        merge_round_blocks<T, I, 256><<<(unsigned)ra.npairs, 256, 0, st>>>(ra);
        break;
    case 512:
        merge_round_blocks<T, I, 512><<<(unsigned)ra.npairs, 512, 0, st>>>(ra);
        break;
    default: {
        /* batches of pairs per warp when there are many more pairs than warps */
        const uint64_t warps_wanted = (uint64_t)(sm_count > 0 ? sm_count : 1) * 256;
        uint64_t batch = ra.npairs / warps_wanted;
        batch = batch < 1 ? 1 : batch > 32 ? 32 : batch;
        const uint64_t warps = (ra.npairs + batch - 1) / batch;
        const uint64_t blocks = (warps + WARP_BLOCK / 32 - 1) / (WARP_BLOCK / 32);
        merge_round_warps<T, I><<<(unsigned)blocks, WARP_BLOCK, 0, st>>>(ra, (uint32_t)batch);
    }
    }
    return cudaGetLastError();
}

template <class T, bool Indexed>
cudaError_t launch_typed(const pb_merge_args *a, const Layout &l, cudaStream_t st) {
    using U = ordered_t<T>;
    using I = Items<U, Indexed>;
    unsigned char *scratch = static_cast<unsigned char *>(a->scratch);
    uint32_t *table = reinterpret_cast<uint32_t *>(scratch + l.table);

    SearchArgs sa;
    sa.keys = a->keys;
    sa.offsets = a->offsets;
    sa.table = table;
    sa.state = reinterpret_cast<uint32_t *>(scratch + l.state);
    sa.k = a->k;
    sa.p = l.p;
    sa.part = (uint32_t)(a->n / l.p);
    if (a->k <= REG_MAX_K) {
        uint32_t nt = (a->k + LISTS_PER_BATCH - 1) / LISTS_PER_BATCH;
        nt = (nt + 31) / 32 * 32;
        nt = nt < 32 ? 32 : nt > REG_THREADS ? REG_THREADS : nt;
        splitters_kernel<T, true><<<l.p + 1, nt, 0, st>>>(sa);
    } else {
        splitters_kernel<T, false><<<l.p + 1, GLOBAL_THREADS, 0, st>>>(sa);
    }
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;

    /* The two sides the rounds alternate between, the last round writing the output. */
    void *scratch_keys = scratch + l.keys;
    uint32_t *scratch_idx = reinterpret_cast<uint32_t *>(scratch + l.idx);
    uint32_t *out_side_idx =
        a->values ? a->out_values : reinterpret_cast<uint32_t *>(scratch + l.idx2);
    const void *src_keys = a->keys;
    const uint32_t *src_idx = nullptr;
    for (int r = 0; r < l.rounds; r++) {
        RoundArgs ra;
        const bool to_out_side = (l.rounds - 1 - r) % 2 == 0;
        ra.src_keys = src_keys;
        ra.src_idx = src_idx;
        ra.dst_keys = to_out_side ? a->out_keys : scratch_keys;
        ra.dst_idx = to_out_side ? out_side_idx : scratch_idx;
        ra.in_keys = a->keys;
        ra.values = a->values;
        ra.out_values = a->out_values;
        ra.table = table;
        ra.k = a->k;
        ra.p = l.p;
        ra.r = (uint32_t)r;
        const uint64_t sublists = ((uint64_t)a->k + (1ull << r) - 1) >> r;
        ra.per_part = (uint32_t)((sublists + 1) / 2);
        ra.npairs = (uint64_t)l.p * ra.per_part;
        ra.from_input = r == 0;
        ra.final_round = r == l.rounds - 1;
        e = launch_round<T, I>(ra, a->sm_count, a->n, st);
        if (e != cudaSuccess) return e;
        src_keys = ra.dst_keys;
        src_idx = ra.dst_idx;
    }
    return cudaSuccess;
}

} // namespace
} // namespace pb_merge_bitonic

extern "C" int pb_merge_bitonic_plan(const pb_merge_args *a, size_t *scratch_bytes) {
    using namespace pb_merge_bitonic;
    *scratch_bytes = 0;
    /* positions and indices are u32 (~0u pads): n must stay below 2^32, with room */
    if (a->k == 0 || a->n > MAX_N) return (int)cudaErrorInvalidValue;
    if (a->host_offsets && (a->host_offsets[0] != 0 || a->host_offsets[a->k] != a->n))
        return (int)cudaErrorInvalidValue;
    if (a->n == 0 || a->k == 1) return (int)cudaSuccess; /* a copy, no scratch */
    *scratch_bytes = layout_for(a->n, a->k, a->dtype, a->sm_count).total;
    return (int)cudaSuccess;
}

extern "C" int pb_merge_bitonic_launch(const pb_merge_args *a, cudaStream_t stream) {
    using namespace pb_merge_bitonic;
    if (a->k == 0 || a->n > MAX_N) return (int)cudaErrorInvalidValue;
    if (a->n == 0) return (int)cudaSuccess;
    if (a->k == 1) { /* one list is already merged */
        cudaError_t e = cudaMemcpyAsync(a->out_keys, a->keys, a->n * key_size(a->dtype),
                                        cudaMemcpyDeviceToDevice, stream);
        if (e == cudaSuccess && a->values && a->out_values)
            e = cudaMemcpyAsync(a->out_values, a->values, a->n * 4, cudaMemcpyDeviceToDevice,
                                stream);
        return (int)e;
    }
    const Layout l = layout_for(a->n, a->k, a->dtype, a->sm_count);
    if (a->scratch_bytes < l.total || (l.total && !a->scratch)) return (int)cudaErrorInvalidValue;
    const bool pairs = a->values != nullptr;
    return pb::with_dtype<PB_MERGE_KEY_TYPES>(a->dtype, [&](auto key) {
        using T = decltype(key);
        /* ties need the index when values travel or floats may hold -0.0 and +0.0 */
        if constexpr (is_float<T>)
            return (int)launch_typed<T, true>(a, l, stream);
        else
            return (int)(pairs ? launch_typed<T, true>(a, l, stream)
                               : launch_typed<T, false>(a, l, stream));
    });
}
