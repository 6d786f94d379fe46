/* merge/path: our k-way merge, designed to approach one read and one write of every key.
 *
 * A tile is what one block merges in shared memory at once; its lists' segments must be
 * known exactly. Finding them for every tile by searching whole lists would cost (tiles x
 * k) searches, at k = 1024 as many cache-line reads as the data itself, so the output is
 * cut in two steps, and only the first searches whole lists:
 *
 *  1. coarse_kernel cuts the output into `parts` super-tiles, about one per block the GPU
 *     holds at once. Block b finds, for every list, how many of its keys come before
 *     output rank ~b * n / parts (within 1/64 of a super-tile; exact inside a run of equal
 *     keys). The search is on a key value v: count(< v), summed over the lists, comes from
 *     binary searches of every list (groups of lanes per list when lists are few); v moves
 *     by interpolation between the brackets found so far, alternating with bisection so
 *     that any distribution converges, and each list's window shrinks to what lies between
 *     the brackets. A target inside a run of equal keys takes the equal keys list by list,
 *     in list order. A cut "all keys below v" (or such a run split by list order) is a
 *     prefix of the stable order, and that is all the next step needs.
 *
 *  2. merge_kernel: block b walks its super-tile tile by tile, with a cursor per list in
 *     shared memory. A tile is again "all remaining keys below v", v chosen from the last
 *     tile's key density to hold about 3/4 of the tile's capacity; the counts come from
 *     searches that start at the cursors and gallop forward, through lines the tile is
 *     about to read anyway. Any count from 1/3 of the capacity to all of it is taken (on
 *     random keys the first v nearly always is); otherwise v moves as in step 1. Tiles
 *     need no table of cuts, and every key is read from DRAM once.
 *     The tile's segments go into shared memory in list order (each warp copies runs of
 *     128 tile positions, coalesced) and are merged pairwise, ceil(log2(non-empty
 *     segments)) rounds: each thread owns `kItems` consecutive outputs, finds its pair of
 *     runs and its start in them (merge path), merges serially into registers with ties
 *     to the left run (the lower lists), and writes back after a barrier; values go
 *     straight to a second buffer instead (they ping-pong). The tile goes out coalesced.
 *
 * k = 1 is a copy. Beyond kMaxStreamLists lists (every tile costs a search per list) the
 * merge is CUB's radix sort of the concatenation by key, which is stable, so the same
 * order. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>

#include "merge_gpu.h"
#include "merge_keys.cuh"

namespace pb_merge_path {
namespace {

using pb::merge::ordered_bits;

/* #pragma unroll in code the host compiler sees too */
#ifdef __CUDA_ARCH__
#define PB_UNROLL _Pragma("unroll")
#else
#define PB_UNROLL
#endif

constexpr unsigned FULL = 0xffffffffu;
constexpr int kThreads = 512; /* both kernels */
constexpr int kWarps = kThreads / 32;
constexpr uint32_t kMaxStreamLists = 4096;
constexpr uint32_t kChunk = 128;          /* tile positions a warp loads at once */
constexpr uint64_t kMaxN = 0xffffffffull; /* positions are u32 */

/* Tile capacity: threads x items, items odd so that the blocked write-back of each round
 * hits distinct banks. 8-byte keys take fewer items, for registers. */
template <class K> struct Tile {
    static constexpr int kItems = sizeof(K) == 4 ? 15 : 9;
    static constexpr uint32_t kSize = (uint32_t)kThreads * kItems;
    static constexpr uint32_t kTarget = kSize / 4 * 3; /* what a tile aims at */
    static constexpr uint32_t kMin = kSize / 3;        /* the least a tile accepts */
};

/* ---- keys as ordered integers, and back ------------------------------------------------ */

template <class K> __host__ __device__ inline uint64_t okey(K x) {
    return (uint64_t)ordered_bits(x);
}
template <class K> __host__ __device__ constexpr uint64_t max_ordered() {
    return sizeof(K) == 4 ? 0xffffffffull : ~0ull;
}

__host__ __device__ inline uint32_t decode(uint64_t o, uint32_t) { return (uint32_t)o; }
__host__ __device__ inline int32_t decode(uint64_t o, int32_t) {
    return (int32_t)((uint32_t)o ^ 0x80000000u);
}
__host__ __device__ inline float decode(uint64_t o, float) {
    uint32_t u = (uint32_t)o;
    u = (u & 0x80000000u) ? (u & 0x7fffffffu) : ~u;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
__host__ __device__ inline uint64_t decode(uint64_t o, uint64_t) { return o; }
__host__ __device__ inline double decode(uint64_t o, double) {
    uint64_t u = (o >> 63) ? (o & 0x7fffffffffffffffull) : ~o;
    double d;
    memcpy(&d, &u, 8);
    return d;
}

/* A key near the double v (clamped into the key's range; v is finite). */
__host__ __device__ inline uint32_t encode(double v, uint32_t) {
    return v <= 0.0 ? 0u : v >= 4294967295.0 ? 0xffffffffu : (uint32_t)v;
}
__host__ __device__ inline int32_t encode(double v, int32_t) {
    return v <= -2147483648.0  ? (int32_t)(-2147483647 - 1)
           : v >= 2147483647.0 ? 2147483647
                               : (int32_t)v;
}
__host__ __device__ inline float encode(double v, float) {
    const double big = 3.4028234663852886e38;
    return (float)(v < -big ? -big : v > big ? big : v);
}
__host__ __device__ inline uint64_t encode(double v, uint64_t) {
    return v <= 0.0 ? 0ull : v >= 18446744073709551616.0 ? ~0ull : (uint64_t)v;
}
__host__ __device__ inline double encode(double v, double) { return v; }

/* x / y for estimates, without the double division's slow path (a call, and registers). */
__host__ __device__ inline double ratio(double x, double y) {
#ifdef __CUDA_ARCH__
    return (double)__fdividef((float)x, (float)y);
#else
    return x / y;
#endif
}

/* The ordered value a fraction f of the way from a to b, by key value (floats are
 * spaced unevenly in their bits), clamped to [lo, hi] (lo <= hi). */
template <class K>
__host__ __device__ uint64_t interp(uint64_t a, uint64_t b, double f, uint64_t lo, uint64_t hi) {
    const double av = (double)decode(a, K{}), bv = (double)decode(b, K{});
    const double mv = av * (1.0 - f) + bv * f; /* no overflow where b - a would */
    uint64_t m = lo + (hi - lo) / 2;
    if (isfinite(mv)) m = okey(encode(mv, K{}));
    return m < lo ? lo : m > hi ? hi : m;
}

/* ---- choosing a cut: the value search both kernels run --------------------------------- */

enum : int { kProbe, kAccept, kTie, kSnap };

/* Counts are of keys below a value (ordered), from the cursors. The bracket: a with da <
 * lo_t below, b (once known) with db > hi_t above; m is the value being probed. Three
 * count arrays of k entries each hold the per-list counts at a, b and m; ra, rb, rm say
 * which is which, so moving a bracket is a swap of roles. Thread 0 owns the state. */
struct Sel {
    uint64_t a, b, m, v_hi; /* v_hi: the largest key, stands in for b = infinity */
    uint64_t da, db, dm;
    uint64_t target, lo_t, hi_t;
    uint64_t grow, grow_floor; /* m = a + grow while no upper bracket is known */
    int ra, rb, rm, steps, action;
    bool b_known, b_inf, m_inf;
};

/* The next value to probe, or kTie when a and b are adjacent: then every key counted by
 * b and not by a equals a, and the cut is made inside that run, by list order. */
template <class K> __host__ __device__ void sel_next(Sel &s) {
    constexpr uint64_t kMax = max_ordered<K>();
    if (s.b_known && (s.b_inf ? s.a == kMax : s.b == s.a + 1)) {
        s.action = kTie;
        return;
    }
    s.action = kProbe;
    s.m_inf = false;
    if (!s.b_known) { /* gallop up */
        s.m_inf = s.a > kMax - s.grow;
        s.m = s.m_inf ? kMax : s.a + s.grow;
        return;
    }
    const uint64_t lo = s.a + 1, hi = s.b_inf ? kMax : s.b - 1;
    uint64_t m = lo + (hi - lo) / 2;
    if (!(s.steps & 1)) { /* interpolate every other step, bisect between */
        const double f = ratio((double)(s.target - s.da), (double)(s.db - s.da));
        m = interp<K>(s.a, s.b_inf ? s.v_hi : s.b, f, lo, hi);
    }
    s.steps++;
    s.m = m;
}

/* Thread 0, after a probe counted dm keys below m: accept, or move a bracket and go on
 * (after snapping the brackets to keys that exist). */
template <class K> __host__ __device__ void sel_decide(Sel &s, uint64_t dm) {
    constexpr uint64_t kMax = max_ordered<K>();
    s.dm = dm;
    if (dm >= s.lo_t && dm <= s.hi_t) {
        s.action = kAccept;
        return;
    }
    int t;
    if (dm < s.lo_t) { /* (m is finite: all keys count more than hi_t) */
        s.a = s.m;
        s.da = dm;
        t = s.ra, s.ra = s.rm, s.rm = t;
        if (!s.b_known) {
            const uint64_t g2 = s.grow > (~0ull >> 2) ? s.grow : s.grow * 2;
            s.grow = g2 > s.grow_floor ? g2 : s.grow_floor;
        }
    } else {
        s.b = s.m;
        s.b_inf = s.m_inf;
        s.db = dm;
        s.b_known = true;
        t = s.rb, s.rb = s.rm, s.rm = t;
    }
    if (s.b_known && (s.b_inf ? s.a == kMax : s.b == s.a + 1))
        sel_next<K>(s); /* a tie */
    else
        s.action = kSnap;
}

/* Thread 0, with lo and hi the smallest and largest keys of the windows: a moves up to lo;
 * once b is known (the windows then hold exactly the keys in [a, b)), b moves down to hi +
 * 1. No count changes (no key lies in between), but a run of equal keys is then found at
 * once (a + 1 == b), a gallop skips empty stretches of values, and interpolation works
 * between keys that exist. Then the next probe. */
template <class K> __host__ __device__ void sel_snap(Sel &s, uint64_t lo, uint64_t hi) {
    constexpr uint64_t kMax = max_ordered<K>();
    if (lo > s.a) s.a = lo;
    if (s.b_known && hi < kMax && (s.b_inf || hi + 1 < s.b)) {
        s.b = hi + 1;
        s.b_inf = false;
    }
    sel_next<K>(s);
}

/* One list's search for the first position whose key is not below m, in [lo, hi], by a
 * group of g lanes. Each round lane j tests position lo + (j + 1) * step - 1 (positions
 * from hi on count as "not below"); the lanes that find a key below m form a prefix of
 * the group, and c is their number. While no upper end is known the search gallops
 * (step grows (g + 1)-fold while every lane finds a key below m); then it bisects, step
 * about (hi - lo) / (g + 1). inv = 2^32 / (g + 1), rounded up, so no division is needed. */
struct Search {
    uint32_t lo, hi, step;
    bool gallop;
};

__host__ __device__ inline uint32_t search_step(uint32_t w, uint32_t inv) {
    return (uint32_t)(((uint64_t)w * inv) >> 32) + 1;
}
/* The offset from lo that lane j tests; at or past hi - lo means "not below". */
__host__ __device__ inline uint32_t search_off(const Search &s, int j) {
    return (uint32_t)(j + 1) * s.step - 1;
}

__host__ __device__ inline void search_advance(Search &s, uint32_t c, int g, uint32_t inv) {
    const uint32_t w = s.hi - s.lo;
    if (s.gallop && c == (uint32_t)g && (uint32_t)g * s.step < w) {
        s.lo += (uint32_t)g * s.step;
        s.step = s.step < (1u << 25) / 33 ? s.step * (uint32_t)(g + 1) : (1u << 25);
        return;
    }
    const uint32_t nlo = s.lo + c * s.step;
    const uint32_t top = (c + 1) * s.step - 1; /* lane c found no key below m there */
    s.hi = c < (uint32_t)g && top < w ? s.lo + top : s.hi;
    s.lo = nlo;
    s.gallop = false;
    if (s.lo < s.hi) s.step = search_step(s.hi - s.lo, inv);
}

/* How the lists are searched: 2^lg lanes per list (as many as the block has to spare, up
 * to a warp), L lists per group of lanes, and inv for search_step. */
struct Groups {
    int lg, L;
    uint32_t inv;
};
inline Groups groups_for(uint32_t k) {
    Groups x{0, 0, 0};
    while (x.lg < 5 && (2ull << x.lg) * k <= (uint64_t)kThreads) x.lg++;
    const uint64_t g = 1ull << x.lg, groups = (uint64_t)kThreads >> x.lg;
    x.L = (int)((k + groups - 1) / groups);
    x.inv = (uint32_t)((0x100000000ull + g) / (g + 1));
    return x;
}

/* Counts are u32 (n < 2^32); keys' min and max, and a tile's packed scan, u64. */
using BlockReduce = cub::BlockReduce<uint64_t, kThreads>;
using BlockReduce32 = cub::BlockReduce<uint32_t, kThreads>;
using BlockScan = cub::BlockScan<uint64_t, kThreads>;
using BlockScan32 = cub::BlockScan<uint32_t, kThreads>;

struct Shared {
    union {
        typename BlockReduce::TempStorage reduce;
        typename BlockReduce32::TempStorage reduce32;
        typename BlockScan::TempStorage scan;
        typename BlockScan32::TempStorage scan32;
    } cub;
    Sel sel;
    /* merge kernel, from tile to tile (thread 0): where the next cut's search starts
     * (nothing remains below it), how far up its first probe goes, the super-tile's
     * typical step, this tile's start, and whether the last tile cut a run of equal keys */
    uint64_t next_a, next_grow, grow_all, tile_a;
    bool after_tie;
    uint32_t at[2];             /* where tile j's output starts: at[j % 2] */
    uint32_t tile_segs, tile_n; /* the tile's non-empty segments and its keys */
};

struct MinOp {
    __device__ uint64_t operator()(uint64_t x, uint64_t y) const { return x < y ? x : y; }
};
struct MaxOp {
    __device__ uint64_t operator()(uint64_t x, uint64_t y) const { return x > y ? x : y; }
};

/* Counts below m for every list, into cnt[rm]: list i's window is [cur + cnt[ra], cur +
 * cnt[rb]] when b is known, else [cur + cnt[ra], min(end, cur + cap)] with a gallop. A
 * group walks its lists kBatch at a time side by side, so their loads overlap (kBatch is
 * what the registers allow). Returns this thread's part of the total. */
template <class K, class Count, int kBatch>
__device__ uint32_t probe_lists(const K *__restrict__ keys, const uint32_t *cur,
                                const uint32_t *end, Count *cnt, uint32_t k, int ra, int rb, int rm,
                                bool b_known, uint64_t m, bool m_inf, uint64_t cap, Groups gr) {
    const int t = threadIdx.x, lane = t & 31;
    const int g = 1 << gr.lg, L = gr.L;
    const uint32_t inv = gr.inv;
    const int gl = t & (g - 1);
    const uint32_t group = (uint32_t)t >> gr.lg, groups = (uint32_t)kThreads >> gr.lg;
    const unsigned gmask = g == 32 ? FULL : ((1u << g) - 1) << (lane & ~(g - 1));
    uint32_t sum = 0;
    for (int l0 = 0; l0 < L; l0 += kBatch) { /* L is the same for the whole block */
        Search st[kBatch];
        bool live = false;
#pragma unroll
        for (int l = 0; l < kBatch; l++) {
            st[l] = Search{0, 0, 8, false};
            const uint32_t i = group + (uint32_t)(l0 + l) * groups;
            if (l0 + l < L && i < k) {
                const uint32_t c = cur[i];
                st[l].lo = c + (uint32_t)cnt[(size_t)ra * k + i];
                if (b_known) {
                    st[l].hi = c + (uint32_t)cnt[(size_t)rb * k + i];
                    if (st[l].lo < st[l].hi) st[l].step = search_step(st[l].hi - st[l].lo, inv);
                } else {
                    const uint32_t e = end[i];
                    st[l].hi = cap < e - c ? c + (uint32_t)cap : e;
                    st[l].gallop = true;
                }
                live |= st[l].lo < st[l].hi;
            }
        }
        while (__any_sync(FULL, live)) {
            live = false;
#pragma unroll
            for (int l = 0; l < kBatch; l++) {
                if (l0 + l < L) {
                    const bool open = st[l].lo < st[l].hi;
                    bool below = false;
                    if (open) {
                        const uint32_t off = search_off(st[l], gl);
                        below =
                            off < st[l].hi - st[l].lo && (m_inf || okey(keys[st[l].lo + off]) < m);
                    }
                    const uint32_t c = (uint32_t)__popc(__ballot_sync(FULL, below) & gmask);
                    if (open) {
                        search_advance(st[l], c, g, inv);
                        live |= st[l].lo < st[l].hi;
                    }
                }
            }
        }
#pragma unroll
        for (int l = 0; l < kBatch; l++) {
            const uint32_t i = group + (uint32_t)(l0 + l) * groups;
            if (l0 + l < L && i < k && gl == 0) {
                const uint32_t c = st[l].lo - cur[i];
                cnt[(size_t)rm * k + i] = (Count)c;
                sum += c;
            }
        }
    }
    return sum;
}

/* The cut inside a run of equal keys (value a): the keys below a, then the equal ones
 * list by list, in list order, until target. Into cnt[rm]. */
template <class Count> __device__ void tie_split(Shared &sh, Count *cnt, uint32_t k) {
    const Count *ca = cnt + (size_t)sh.sel.ra * k;
    const Count *cb = cnt + (size_t)sh.sel.rb * k;
    Count *cm = cnt + (size_t)sh.sel.rm * k;
    const uint32_t need = (uint32_t)(sh.sel.target - sh.sel.da);
    const uint32_t per = (k + kThreads - 1) / kThreads;
    const uint32_t i0 = min(k, threadIdx.x * per), i1 = min(k, i0 + per);
    uint32_t local = 0;
    for (uint32_t i = i0; i < i1; i++) local += (uint32_t)(cb[i] - ca[i]);
    uint32_t prefix;
    BlockScan32(sh.cub.scan32).ExclusiveSum(local, prefix);
    for (uint32_t i = i0; i < i1; i++) {
        const uint32_t ties = (uint32_t)(cb[i] - ca[i]);
        const uint32_t take = prefix >= need ? 0 : (need - prefix < ties ? need - prefix : ties);
        cm[i] = (Count)(ca[i] + take);
        prefix += ties;
    }
}

/* The smallest and largest keys of every list's window, for sel_snap: [cur + cnt[ra], cur +
 * cnt[rb]) once b is known, else [cur + cnt[ra], min(end, cur + cap)). */
template <class K, class Count>
__device__ void snap_bracket(Shared &sh, const K *__restrict__ keys, const uint32_t *cur,
                             const uint32_t *end, const Count *cnt, uint32_t k, uint64_t cap) {
    const Count *ca = cnt + (size_t)sh.sel.ra * k;
    const Count *cb = cnt + (size_t)sh.sel.rb * k;
    const bool b_known = sh.sel.b_known;
    uint64_t lo = ~0ull, hi = 0;
    for (uint32_t i = threadIdx.x; i < k; i += kThreads) {
        const uint32_t c = cur[i], from = c + (uint32_t)ca[i];
        uint32_t to;
        if (b_known) {
            to = c + (uint32_t)cb[i];
        } else {
            const uint32_t e = end[i];
            to = cap < e - c ? c + (uint32_t)cap : e;
        }
        if (from < to) {
            const uint64_t x = okey(keys[from]), y = okey(keys[to - 1]);
            lo = x < lo ? x : lo;
            hi = y > hi ? y : hi;
        }
    }
    lo = BlockReduce(sh.cub.reduce).Reduce(lo, MinOp());
    __syncthreads();
    hi = BlockReduce(sh.cub.reduce).Reduce(hi, MaxOp());
    if (threadIdx.x == 0) sel_snap<K>(sh.sel, lo, hi);
    __syncthreads();
}

/* Runs the search from the state thread 0 left in sh.sel (after a barrier) to a cut in
 * cnt[sh.sel.rm]; ends with a barrier. */
template <class K, class Count, int kBatch>
__device__ void select_cut(Shared &sh, const K *__restrict__ keys, const uint32_t *cur,
                           const uint32_t *end, Count *cnt, uint32_t k, uint64_t cap, Groups gr) {
    for (;;) {
        const int action = sh.sel.action;
        if (action == kSnap) {
            snap_bracket<K, Count>(sh, keys, cur, end, cnt, k, cap);
            continue;
        }
        if (action != kProbe) break;
        const uint32_t part =
            probe_lists<K, Count, kBatch>(keys, cur, end, cnt, k, sh.sel.ra, sh.sel.rb, sh.sel.rm,
                                          sh.sel.b_known, sh.sel.m, sh.sel.m_inf, cap, gr);
        const uint32_t dm = BlockReduce32(sh.cub.reduce32).Sum(part);
        __syncthreads(); /* everyone has read sh.sel */
        if (threadIdx.x == 0) sel_decide<K>(sh.sel, dm);
        __syncthreads();
    }
    if (sh.sel.action == kTie) {
        tie_split<Count>(sh, cnt, k);
        __syncthreads();
    }
}

/* ---- 1. super-tile cuts ------------------------------------------------------------------ */

/* Block b (0 < b < parts) writes rows[b][i] = where super-tile b starts in list i (an
 * absolute position) and ranks[b] = its first output rank; blocks 0 and parts write the
 * list starts and ends. Dynamic shared memory: 20 bytes a list. */
template <class K>
__global__ void __launch_bounds__(kThreads)
    coarse_kernel(const K *__restrict__ keys, const uint64_t *__restrict__ offsets, uint64_t n,
                  uint32_t k, uint32_t parts, Groups gr, uint32_t *__restrict__ rows,
                  uint64_t *__restrict__ ranks) {
    __shared__ Shared sh;
    extern __shared__ __align__(16) unsigned char dyn[];
    const uint32_t b = blockIdx.x;
    uint32_t *row = rows + (size_t)b * k;
    if (b == 0 || b == parts) {
        for (uint32_t i = threadIdx.x; i < k; i += kThreads)
            row[i] = (uint32_t)offsets[b == 0 ? i : i + 1];
        if (threadIdx.x == 0) ranks[b] = b == 0 ? 0 : n;
        return;
    }
    uint32_t *cur = reinterpret_cast<uint32_t *>(dyn);
    uint32_t *end = cur + k;
    uint32_t *cnt = end + k; /* 3 x k */
    uint64_t vmin = ~0ull, vmax = 0;
    for (uint32_t i = threadIdx.x; i < k; i += kThreads) {
        const uint32_t c = (uint32_t)offsets[i], e = (uint32_t)offsets[i + 1];
        cur[i] = c;
        end[i] = e;
        cnt[i] = 0;
        cnt[k + i] = e - c;
        if (c < e) {
            const uint64_t lo = okey(keys[c]), hi = okey(keys[e - 1]);
            vmin = lo < vmin ? lo : vmin;
            vmax = hi > vmax ? hi : vmax;
        }
    }
    vmin = BlockReduce(sh.cub.reduce).Reduce(vmin, MinOp());
    __syncthreads();
    vmax = BlockReduce(sh.cub.reduce).Reduce(vmax, MaxOp());
    if (threadIdx.x == 0) {
        Sel &s = sh.sel;
        /* b * n / parts, in 32-bit divisions (n < 2^32; parts and b < 2^16) */
        const uint32_t q = (uint32_t)n / parts, r = (uint32_t)n % parts;
        const uint64_t tol = q / 64;
        s.target = (uint64_t)b * q + (b * r) / parts;
        s.lo_t = s.target - tol;
        s.hi_t = s.target + tol;
        s.a = vmin; /* nothing lies below the smallest key */
        s.da = 0;
        s.b = 0;
        s.b_known = true; /* b = infinity: everything lies below */
        s.b_inf = true;
        s.db = n;
        s.v_hi = vmax;
        s.ra = 0;
        s.rb = 1;
        s.rm = 2;
        s.steps = 0;
        s.grow = 1;
        s.grow_floor = 0;
        sel_next<K>(s);
    }
    __syncthreads();
    select_cut<K, uint32_t, 8>(sh, keys, cur, end, cnt, k, ~0ull, gr);
    const uint32_t *res = cnt + (size_t)sh.sel.rm * k;
    for (uint32_t i = threadIdx.x; i < k; i += kThreads) row[i] = cur[i] + res[i];
    if (threadIdx.x == 0) ranks[b] = sh.sel.action == kAccept ? sh.sel.dm : sh.sel.target;
}

/* ---- 2. tiles ------------------------------------------------------------------------------ */

/* The merge kernel's dynamic shared memory: the tile, then per list its cursor and the
 * three count arrays, then per non-empty segment of a tile its source and start.
 * Values (when there are) have two buffers, for the merge rounds to ping-pong between.
 * Addresses are computed where used, so that none stays in a register across phases. */
template <class K, bool kPairs> struct MergeSmem {
    unsigned char *p;
    uint32_t k;

    __host__ __device__ static uint32_t segs(uint32_t k) {
        return k < Tile<K>::kSize ? k : Tile<K>::kSize;
    }
    __host__ __device__ static size_t bytes(uint32_t k) {
        const size_t s = segs(k);
        size_t b = (size_t)Tile<K>::kSize * sizeof(K) + (kPairs ? (size_t)Tile<K>::kSize * 8 : 0);
        b += (size_t)k * 4 + s * 4;
        b += (size_t)3 * k * 2 + (s + 1) * 2;
        return (b + 15) / 16 * 16;
    }
    static constexpr size_t kValsAt = (size_t)Tile<K>::kSize * sizeof(K);
    static constexpr size_t kCurAt = kValsAt + (kPairs ? (size_t)Tile<K>::kSize * 8 : 0);
    __device__ K *keys() const { return reinterpret_cast<K *>(p); }
    __device__ uint32_t *vals(int j = 0) const {
        return reinterpret_cast<uint32_t *>(p + kValsAt) + (size_t)j * Tile<K>::kSize;
    }
    __device__ uint32_t *cur() const { return reinterpret_cast<uint32_t *>(p + kCurAt); }
    __device__ uint32_t *seg_src() const { return cur() + k; }
    __device__ uint16_t *cnt() const { return reinterpret_cast<uint16_t *>(seg_src() + segs(k)); }
    __device__ uint16_t *seg_off() const { return cnt() + (size_t)3 * k; }
};

/* One thread's part of a merge round r (pairs of runs of 2^(r-1) segments): outputs
 * [o, o + I) of the tile (those below D) into rk, from the tile sk; with values, each
 * output's value goes from sv_in straight to sv_out[o + j] (the values ping-pong between
 * two buffers, so they need no registers). A thread whose outputs run past its pair's
 * end carries on in the next pair. */
template <class K, bool kPairs, int I>
__host__ __device__ inline void merge_items(const K *sk, const uint32_t *sv_in, uint32_t *sv_out,
                                            const uint16_t *seg_off, int S, int D, int r, int o,
                                            int last, K (&rk)[I]) {
    const int full = 1 << r, half = full >> 1;
    int lo = 0, hi = ((S + full - 1) >> r) - 1;
    while (lo < hi) { /* the pair holding output o */
        const int mid = (lo + hi + 1) >> 1;
        if ((int)seg_off[mid << r] <= o)
            lo = mid;
        else
            hi = mid - 1;
    }
    int q = lo;
    const int a0 = seg_off[q << r];
    int a1 = seg_off[(q << r) + half < S ? (q << r) + half : S];
    int b1 = seg_off[(q << r) + full < S ? (q << r) + full : S];
    const int d = o - a0;
    int ilo = d - (b1 - a1) > 0 ? d - (b1 - a1) : 0, ihi = d < a1 - a0 ? d : a1 - a0;
    while (ilo < ihi) { /* merge path: how many of the first d come from the left run */
        const int mid = (ilo + ihi) >> 1;
        if (sk[a1 + d - 1 - mid] < sk[a0 + mid])
            ihi = mid;
        else
            ilo = mid + 1;
    }
    int ap = a0 + ilo, bp = a1 + d - ilo;
    K ka = sk[ap < last ? ap : last], kb = sk[bp < last ? bp : last];
    PB_UNROLL
    for (int j = 0; j < I; j++) {
        if (o + j < D) {
            if (ap == a1 && bp == b1) { /* this pair is done: the next starts here */
                q++;
                ap = b1;
                a1 = seg_off[(q << r) + half < S ? (q << r) + half : S];
                b1 = seg_off[(q << r) + full < S ? (q << r) + full : S];
                bp = a1;
                ka = sk[ap < last ? ap : last];
                kb = sk[bp < last ? bp : last];
            }
            const bool take_b = bp < b1 && (ap >= a1 || kb < ka);
            rk[j] = take_b ? kb : ka;
            if (kPairs) sv_out[o + j] = sv_in[take_b ? bp : ap];
            if (take_b) {
                bp++;
                kb = sk[bp < last ? bp : last];
            } else {
                ap++;
                ka = sk[ap < last ? ap : last];
            }
        }
    }
}

/* Merges the tile's S sorted segments (in list order, bounds seg_off): keys in place,
 * values between sv[0] and sv[1]. Returns which of the two holds the values at the end. */
template <class K, bool kPairs>
__device__ int merge_tile(K *sk, uint32_t *sv0, uint32_t *sv1, const uint16_t *seg_off, int S,
                          int D) {
    constexpr int I = Tile<K>::kItems;
    const int o = threadIdx.x * I;
    int in = 0;
    for (int r = 1; (1 << (r - 1)) < S; r++, in ^= 1) {
        K rk[I];
        if (o < D)
            merge_items<K, kPairs, I>(sk, in ? sv1 : sv0, in ? sv0 : sv1, seg_off, S, D, r, o,
                                      (int)Tile<K>::kSize - 1, rk);
        __syncthreads();
        if (o < D) {
#pragma unroll
            for (int j = 0; j < I; j++)
                if (o + j < D) sk[o + j] = rk[j];
        }
        __syncthreads();
    }
    return in;
}

/* A list's tile count and its being non-empty, packed for one scan (both below 2^16). */
__device__ inline uint32_t seg_pack(uint32_t u) { return u | (u > 0 ? 1u << 16 : 0u); }

/* Block b merges super-tile b: output ranks [ranks[b], ranks[b + 1]), list i's keys
 * [rows[b][i], rows[b + 1][i]). */
template <class K, bool kPairs>
__global__ void __launch_bounds__(kThreads, 2)
    merge_kernel(const K *__restrict__ keys, const uint32_t *__restrict__ values, uint32_t k,
                 const uint32_t *__restrict__ rows, const uint64_t *__restrict__ ranks, Groups gr,
                 K *__restrict__ out_keys, uint32_t *__restrict__ out_values) {
    using T = Tile<K>;
    __shared__ Shared sh;
    extern __shared__ __align__(16) unsigned char dyn[];
    const uint32_t b = blockIdx.x;
    if (ranks[b + 1] == ranks[b]) return;
    const MergeSmem<K, kPairs> sm{dyn, k};
    /* (rows[b + 1], the super-tile's end, is re-derived where used: registers are short) */
    const int t = threadIdx.x;

    /* The super-tile's smallest and largest keys: the first cut's bracket and density. */
    uint64_t vlo = ~0ull, vhi = 0;
    for (uint32_t i = t; i < k; i += kThreads) {
        const uint32_t c = rows[(size_t)b * k + i], e = rows[(size_t)(b + 1) * k + i];
        sm.cur()[i] = c;
        if (c < e) {
            const uint64_t lo = okey(keys[c]), hi = okey(keys[e - 1]);
            vlo = lo < vlo ? lo : vlo;
            vhi = hi > vhi ? hi : vhi;
        }
    }
    vlo = BlockReduce(sh.cub.reduce).Reduce(vlo, MinOp());
    __syncthreads();
    vhi = BlockReduce(sh.cub.reduce).Reduce(vhi, MaxOp());
    if (t == 0) {
        const uint64_t total = ranks[b + 1] - ranks[b];
        const uint64_t m = interp<K>(vlo, vhi, ratio((double)T::kTarget, (double)total), vlo, vhi);
        sh.grow_all = m - vlo > 1 ? m - vlo : 1;
        sh.next_grow = sh.grow_all;
        sh.next_a = vlo;
        sh.after_tie = false;
        sh.sel.v_hi = vhi;
        sh.at[0] = (uint32_t)ranks[b];
    }
    __syncthreads();

    for (uint32_t tile = 0;; tile++) {
        const uint32_t at = sh.at[tile & 1], stop = (uint32_t)ranks[b + 1];
        if (at >= stop) break;
        const uint32_t rest = stop - at;
        const uint32_t *end = rows + (size_t)(b + 1) * k;
        int rm;
        uint32_t D;
        if (rest <= T::kSize) { /* the last tile: everything up to the next row */
            for (uint32_t i = t; i < k; i += kThreads)
                sm.cnt()[(size_t)2 * k + i] = (uint16_t)(end[i] - sm.cur()[i]);
            rm = 2;
            D = (uint32_t)rest;
            __syncthreads();
        } else {
            if (t == 0) {
                Sel &s = sh.sel;
                s.target = T::kTarget;
                s.lo_t = T::kMin;
                s.hi_t = T::kSize;
                s.a = sh.next_a;
                s.da = 0;
                s.b = 0;
                s.b_known = false;
                s.b_inf = false;
                s.ra = 0;
                s.rb = 1;
                s.rm = 2;
                s.steps = 0;
                s.grow = sh.next_grow;
                s.grow_floor = sh.after_tie ? sh.grow_all : 0;
                sh.tile_a = sh.next_a;
                sel_next<K>(s);
            }
            for (uint32_t i = t; i < k; i += kThreads) sm.cnt()[i] = 0;
            __syncthreads();
            select_cut<K, uint16_t, sizeof(K) == 4 ? 4 : 2>(sh, keys, sm.cur(), end, sm.cnt(), k,
                                                            T::kSize + 1, gr);
            rm = sh.sel.rm;
            D = (uint32_t)(sh.sel.action == kAccept ? sh.sel.dm : sh.sel.target);
            if (t == 0) {
                const Sel &s = sh.sel;
                if (s.action == kAccept) { /* the next tile, at this one's density */
                    const double grow =
                        (double)(s.m - sh.tile_a) * ratio((double)T::kTarget, (double)s.dm);
                    sh.next_grow = grow < 1.0 ? 1 : grow > 1.8e19 ? ~0ull >> 1 : (uint64_t)grow;
                    sh.next_a = s.m;
                    sh.after_tie = false;
                } else { /* first see whether the run of equal keys goes on */
                    sh.next_a = s.a;
                    sh.next_grow = 1;
                    sh.after_tie = true;
                }
            }
        }
        if (t == 0) {
            sh.at[(tile + 1) & 1] = at + D;
            sh.tile_n = D;
        }

        /* Segments: where each non-empty one starts in the tile and in the input; the
         * cursors move past the tile. */
        {
            const uint16_t *cm = sm.cnt() + (size_t)rm * k;
            const uint32_t per = (k + kThreads - 1) / kThreads;
            const uint32_t i0 = min(k, (uint32_t)t * per), i1 = min(k, i0 + per);
            uint32_t local = 0;
            for (uint32_t i = i0; i < i1; i++) local += seg_pack(cm[i]);
            uint32_t prefix, all;
            BlockScan32(sh.cub.scan32).ExclusiveSum(local, prefix, all);
            for (uint32_t i = i0; i < i1; i++) {
                const uint32_t u = cm[i];
                if (u) {
                    sm.seg_off()[prefix >> 16] = (uint16_t)(prefix & 0xffffu);
                    sm.seg_src()[prefix >> 16] = sm.cur()[i];
                }
                sm.cur()[i] += u;
                prefix += seg_pack(u);
            }
            if (t == 0) {
                sm.seg_off()[all >> 16] = (uint16_t)D;
                sh.tile_segs = all >> 16;
            }
            __syncthreads();
        }
        const int S = (int)sh.tile_segs;

        /* Load: warp w copies the tile's positions [c * kChunk, (c + 1) * kChunk) for c =
         * w, w + kWarps, ..., segment by segment, coalesced. */
        {
            const int warp = t >> 5, lane = t & 31;
            const uint32_t n_in = sh.tile_n;
            const uint16_t *so = sm.seg_off();
            for (uint32_t p0 = (uint32_t)warp * kChunk; p0 < n_in; p0 += kWarps * kChunk) {
                const uint32_t p1 = p0 + kChunk < n_in ? p0 + kChunk : n_in;
                int s = 0, hi = S - 1;
                while (s < hi) { /* the segment holding p0 */
                    const int mid = (s + hi + 1) >> 1;
                    if (so[mid] <= p0)
                        s = mid;
                    else
                        hi = mid - 1;
                }
                for (;; s++) {
                    const uint32_t off = so[s], next = so[s + 1];
                    const uint32_t lo = off > p0 ? off : p0, up = next < p1 ? next : p1;
                    const uint32_t src = sm.seg_src()[s] + (lo - off);
                    for (uint32_t p = lo + lane; p < up; p += 32) {
                        sm.keys()[p] = keys[src + (p - lo)];
                        if (kPairs) sm.vals()[p] = values[src + (p - lo)];
                    }
                    if (next >= p1) break;
                }
            }
            __syncthreads();
        }

        const int vin = merge_tile<K, kPairs>(sm.keys(), sm.vals(0), sm.vals(1), sm.seg_off(), S,
                                              (int)sh.tile_n);

        {
            const uint32_t to = sh.at[tile & 1];
            const uint32_t n_out = sh.tile_n;
            for (uint32_t p = t; p < n_out; p += kThreads) {
                out_keys[to + p] = sm.keys()[p];
                if (kPairs) out_values[to + p] = sm.vals(vin)[p];
            }
        }
        __syncthreads();
    }
}

/* ---- many lists: a stable radix sort of the concatenation ------------------------------- */

template <class K, class O>
__global__ void to_ordered_kernel(const K *__restrict__ keys, uint64_t n, O *__restrict__ ordered,
                                  uint32_t *__restrict__ index) {
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        ordered[i] = (O)ordered_bits(keys[i]);
        index[i] = (uint32_t)i;
    }
}

/* Keys and values gathered by the sorted index: the keys' own bits (a -0.0 stays -0.0). */
template <class K>
__global__ void gather_kernel(const K *__restrict__ keys, const uint32_t *__restrict__ values,
                              const uint32_t *__restrict__ index, uint64_t n,
                              K *__restrict__ out_keys, uint32_t *__restrict__ out_values) {
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        const uint32_t j = index[i];
        out_keys[i] = keys[j];
        if (values) out_values[i] = values[j];
    }
}

/* ---- host side ---------------------------------------------------------------------------- */

enum Mode { kNothing, kCopy, kPath, kSort };

struct Plan {
    Mode mode;
    uint32_t parts;
    Groups gr;
    size_t merge_smem, coarse_smem;
    size_t sort_temp;
};

/* Scratch carved from one allocation, 256-byte aligned pieces. */
struct Carver {
    char *base;
    size_t used = 0;
    template <class P> P *take(size_t count) {
        const size_t bytes = (count * sizeof(P) + 255) / 256 * 256;
        P *p = base ? reinterpret_cast<P *>(base + used) : nullptr;
        used += bytes;
        return p;
    }
};

struct Scratch {
    uint32_t *rows;
    uint64_t *ranks;
    void *ordered_in, *ordered_out;
    uint32_t *index_in, *index_out;
    void *sort_temp;
};

template <class K> Scratch carve(const pb_merge_args *a, const Plan &p, void *base, size_t *bytes) {
    using O = pb::merge::ordered_t<K>;
    Carver c{static_cast<char *>(base)};
    Scratch s{};
    if (p.mode == kPath) {
        s.rows = c.take<uint32_t>((size_t)(p.parts + 1) * a->k);
        s.ranks = c.take<uint64_t>((size_t)p.parts + 1);
    } else if (p.mode == kSort) {
        s.ordered_in = c.take<O>(a->n);
        s.ordered_out = c.take<O>(a->n);
        s.index_in = c.take<uint32_t>(a->n);
        s.index_out = c.take<uint32_t>(a->n);
        s.sort_temp = c.take<unsigned char>(p.sort_temp);
    }
    *bytes = c.used;
    return s;
}

template <class K, bool kPairs> cudaError_t path_kernels(Plan &p, const pb_merge_args *a) {
    p.merge_smem = MergeSmem<K, kPairs>::bytes(a->k);
    p.coarse_smem = (size_t)a->k * 20;
    cudaError_t e = cudaFuncSetAttribute(
        merge_kernel<K, kPairs>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)p.merge_smem);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(coarse_kernel<K>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int)p.coarse_smem);
    int per_sm = 0;
    if (e == cudaSuccess)
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, merge_kernel<K, kPairs>,
                                                          kThreads, p.merge_smem);
    if (e != cudaSuccess) return e;
    const uint64_t resident =
        (uint64_t)(per_sm > 0 ? per_sm : 1) * (a->sm_count > 0 ? a->sm_count : 1);
    /* super-tiles of at least two tiles; never more than the GPU holds at once */
    const uint64_t want =
        (a->n + 2 * (uint64_t)Tile<K>::kSize - 1) / (2 * (uint64_t)Tile<K>::kSize);
    const uint64_t parts = want < resident ? want : resident;
    p.parts = (uint32_t)(parts > 0 ? parts : 1);
    return cudaSuccess;
}

/* pairs: whether the launch carries values (values and out_values both set). */
template <class K> cudaError_t make_plan(const pb_merge_args *a, bool pairs, Plan &p) {
    using O = pb::merge::ordered_t<K>;
    p = Plan{};
    if (a->k == 0 || a->n > kMaxN) return cudaErrorInvalidValue;
    if (a->n == 0) {
        p.mode = kNothing;
        return cudaSuccess;
    }
    if (a->k == 1) {
        p.mode = kCopy;
        return cudaSuccess;
    }
    if (a->k > kMaxStreamLists) {
        p.mode = kSort;
        return cub::DeviceRadixSort::SortPairs(
            nullptr, p.sort_temp, (const O *)nullptr, (O *)nullptr, (const uint32_t *)nullptr,
            (uint32_t *)nullptr, (uint32_t)a->n, 0, (int)sizeof(O) * 8);
    }
    p.mode = kPath;
    p.gr = groups_for(a->k);
    return pairs ? path_kernels<K, true>(p, a) : path_kernels<K, false>(p, a);
}

template <class K> int launch_for(const pb_merge_args *a, cudaStream_t stream) {
    using O = pb::merge::ordered_t<K>;
    const bool pairs = a->values != nullptr && a->out_values != nullptr;
    Plan p;
    cudaError_t e = make_plan<K>(a, pairs, p);
    if (e != cudaSuccess) return (int)e;
    const K *keys = static_cast<const K *>(a->keys);
    K *out = static_cast<K *>(a->out_keys);
    size_t bytes = 0;
    Scratch s = carve<K>(a, p, a->scratch, &bytes);
    if (p.mode != kNothing && p.mode != kCopy && (bytes > a->scratch_bytes || !a->scratch))
        return (int)cudaErrorInvalidValue;
    switch (p.mode) {
    case kNothing:
        return (int)cudaSuccess;
    case kCopy:
        e = cudaMemcpyAsync(out, keys, a->n * sizeof(K), cudaMemcpyDeviceToDevice, stream);
        if (e == cudaSuccess && pairs)
            e = cudaMemcpyAsync(a->out_values, a->values, a->n * 4, cudaMemcpyDeviceToDevice,
                                stream);
        return (int)e;
    case kSort: {
        const int grid = (int)((a->n + 255) / 256 < 65536 ? (a->n + 255) / 256 : 65536);
        to_ordered_kernel<K, O>
            <<<grid, 256, 0, stream>>>(keys, a->n, static_cast<O *>(s.ordered_in), s.index_in);
        e = cudaGetLastError();
        size_t temp = p.sort_temp;
        if (e == cudaSuccess)
            e = cub::DeviceRadixSort::SortPairs(
                s.sort_temp, temp, static_cast<const O *>(s.ordered_in),
                static_cast<O *>(s.ordered_out), s.index_in, s.index_out, (uint32_t)a->n, 0,
                (int)sizeof(O) * 8, stream);
        if (e == cudaSuccess) {
            gather_kernel<K><<<grid, 256, 0, stream>>>(keys, pairs ? a->values : nullptr,
                                                       s.index_out, a->n, out,
                                                       pairs ? a->out_values : nullptr);
            e = cudaGetLastError();
        }
        return (int)e;
    }
    case kPath:
        break;
    }
    coarse_kernel<K><<<p.parts + 1, kThreads, p.coarse_smem, stream>>>(
        keys, a->offsets, a->n, a->k, p.parts, p.gr, s.rows, s.ranks);
    e = cudaGetLastError();
    if (e != cudaSuccess) return (int)e;
    if (pairs)
        merge_kernel<K, true><<<p.parts, kThreads, p.merge_smem, stream>>>(
            keys, a->values, a->k, s.rows, s.ranks, p.gr, out, a->out_values);
    else
        merge_kernel<K, false><<<p.parts, kThreads, p.merge_smem, stream>>>(
            keys, nullptr, a->k, s.rows, s.ranks, p.gr, out, nullptr);
    return (int)cudaGetLastError();
}

} // namespace
} // namespace pb_merge_path

/* The scratch holds either launch (with values or without: device pointers may not be set
 * yet), so it is the larger of the two. */
extern "C" int pb_merge_path_plan(const struct pb_merge_args *a, size_t *scratch_bytes) {
    *scratch_bytes = 0;
    return pb::with_dtype<PB_MERGE_KEY_TYPES>(a->dtype, [&](auto key) {
        using K = decltype(key);
        for (int pairs = 0; pairs < 2; pairs++) {
            pb_merge_path::Plan p;
            const cudaError_t e = pb_merge_path::make_plan<K>(a, pairs == 1, p);
            if (e != cudaSuccess) return (int)e;
            size_t bytes = 0;
            pb_merge_path::carve<K>(a, p, nullptr, &bytes);
            if (bytes > *scratch_bytes) *scratch_bytes = bytes;
        }
        return (int)cudaSuccess;
    });
}

extern "C" int pb_merge_path_launch(const struct pb_merge_args *a, cudaStream_t stream) {
    return pb::with_dtype<PB_MERGE_KEY_TYPES>(
        a->dtype, [&](auto key) { return pb_merge_path::launch_for<decltype(key)>(a, stream); });
}
