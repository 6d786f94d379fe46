/* What the sort kernels share: keys mapped to order-preserving unsigned bits (so one
 * network sorts every dtype, ascending or descending, with +inf-like padding), the items
 * the networks move (a key, or a key with its value), and Batcher's odd-even merge sort
 * network on registers. */
#pragma once

#include <cuda_runtime.h>
#include <stdint.h>

#include <type_traits>
#include <utility>

#include "dtype_dispatch.cuh"
#include "sort_gpu.h"

namespace pb_sort {

/* Order-preserving bits of a key (the CPU's pb_sort_ordered_bits, same rules):
 * integers by value, floats by value with -0.0 before +0.0, descending: bits inverted. */
template <class T> struct Ordered;
template <> struct Ordered<uint32_t> {
    using U = uint32_t;
    __device__ static U to(uint32_t k) { return k; }
    __device__ static uint32_t from(U o) { return o; }
};
template <> struct Ordered<int32_t> {
    using U = uint32_t;
    __device__ static U to(int32_t k) { return (uint32_t)k ^ 0x80000000u; }
    __device__ static int32_t from(U o) { return (int32_t)(o ^ 0x80000000u); }
};
template <> struct Ordered<float> {
    using U = uint32_t;
    __device__ static U to(float k) {
        uint32_t b = __float_as_uint(k);
        return (b & 0x80000000u) ? ~b : b | 0x80000000u;
    }
    __device__ static float from(U o) {
        return __uint_as_float((o & 0x80000000u) ? o & 0x7fffffffu : ~o);
    }
};
template <> struct Ordered<uint64_t> {
    using U = uint64_t;
    __device__ static U to(uint64_t k) { return k; }
    __device__ static uint64_t from(U o) { return o; }
};
template <> struct Ordered<double> {
    using U = uint64_t;
    __device__ static U to(double k) {
        uint64_t b = (uint64_t)__double_as_longlong(k);
        return (b >> 63) ? ~b : b | 0x8000000000000000ull;
    }
    __device__ static double from(U o) {
        return __longlong_as_double((long long)((o >> 63) ? o & 0x7fffffffffffffffull : ~o));
    }
};

/* A 64-bit key with its value, ordered by key then value (so that padding, the largest
 * item, never passes a real one). */
struct WideKeyValue {
    uint64_t k;
    uint32_t v;
};

/* Items of keys of type T, with values when Pairs. Item is what the networks move;
 * max() is the padding, which sorts after (or equal to, and identical with) every item.
 *  - keys only: the ordered bits;
 *  - 32-bit keys with values: ordered bits << 32 | value, one 64-bit compare;
 *  - 64-bit keys with values: WideKeyValue. */
template <class T, bool Pairs, class U = typename Ordered<T>::U, bool Wide = (sizeof(U) == 8)>
struct Items;

template <class T, class U, bool Wide> struct Items<T, false, U, Wide> {
    using Item = U;
    __device__ static Item max() { return ~(U)0; }
    __device__ static Item make(T key, bool desc) {
        U o = Ordered<T>::to(key);
        return desc ? ~o : o;
    }
    __device__ static void set_value(Item &, uint32_t) {}
    __device__ static T key(Item it, bool desc) { return Ordered<T>::from(desc ? ~it : it); }
    __device__ static uint32_t value(Item) { return 0; }
    __device__ static void order(Item &a, Item &b) {
        Item lo = a < b ? a : b, hi = a < b ? b : a;
        a = lo;
        b = hi;
    }
};

template <class T, class U> struct Items<T, true, U, false> {
    using Item = uint64_t;
    __device__ static Item max() { return ~0ull; }
    __device__ static Item make(T key, bool desc) {
        U o = Ordered<T>::to(key);
        return (uint64_t)(desc ? ~o : o) << 32;
    }
    __device__ static void set_value(Item &it, uint32_t v) { it |= v; }
    __device__ static T key(Item it, bool desc) {
        U o = (U)(it >> 32);
        return Ordered<T>::from(desc ? ~o : o);
    }
    __device__ static uint32_t value(Item it) { return (uint32_t)it; }
    __device__ static void order(Item &a, Item &b) {
        Item lo = a < b ? a : b, hi = a < b ? b : a;
        a = lo;
        b = hi;
    }
};

template <class T, class U> struct Items<T, true, U, true> {
    using Item = WideKeyValue;
    __device__ static Item max() { return {~0ull, ~0u}; }
    __device__ static Item make(T key, bool desc) {
        U o = Ordered<T>::to(key);
        return {desc ? ~o : o, 0u};
    }
    __device__ static void set_value(Item &it, uint32_t v) { it.v = v; }
    __device__ static T key(Item it, bool desc) { return Ordered<T>::from(desc ? ~it.k : it.k); }
    __device__ static uint32_t value(Item it) { return it.v; }
    __device__ static void order(Item &a, Item &b) {
        bool swap = b.k < a.k || (b.k == a.k && b.v < a.v);
        Item lo = swap ? b : a, hi = swap ? a : b;
        a = lo;
        b = hi;
    }
};

/* Batcher's odd-even merge sort: in merge level p (runs of p sorted into runs of 2p), step
 * k = p compares x with x + p for x without bit p; each later step k < p compares x with
 * x + k for x with bit k, when both lie in the same run of 2p (the "odd" and "even"
 * subsequences merged). */
__host__ __device__ constexpr bool oem_is_lower(int x, int p, int k) {
    return k == p ? (x & p) == 0 : (x & k) != 0 && x / (2 * p) == (x + k) / (2 * p);
}

/* One step (p = 2^Lp, k = 2^Lk) of the network on registers, then the rest of the network
 * after it. Expanded by templates rather than loops: with a few thousand comparators the
 * compiler stops unrolling loops and moves the array to local memory. */
template <class I, int Real, int P, int K, class Item, int... X>
__device__ __forceinline__ void oem_step_registers(Item *r, std::integer_sequence<int, X...>) {
    auto one = [&](auto x) {
        constexpr int lo = decltype(x)::value;
        if constexpr (lo + K < Real && oem_is_lower(lo, P, K)) I::order(r[lo], r[lo + K]);
    };
    (one(std::integral_constant<int, X>()), ...);
}

template <class I, int Log, int Real, int Lp, int Lk, class Item>
__device__ __forceinline__ void oem_network_from(Item *r) {
    if constexpr (Lp < Log) {
        oem_step_registers<I, Real, 1 << Lp, 1 << Lk>(r, std::make_integer_sequence<int, Real>());
        if constexpr (Lk > 0)
            oem_network_from<I, Log, Real, Lp, Lk - 1>(r);
        else
            oem_network_from<I, Log, Real, Lp + 1, Lp + 1>(r);
    }
}

/* The whole network on P items in registers (P a power of two; every index is a
 * compile-time constant, so r stays in registers). When items Real.. P - 1 are padding
 * (the largest item), every comparator reaching them is left out: a comparator keeps the
 * larger item above, so padding never moves and those comparators are no-ops (Batcher's
 * network pruned to Real items; r[Real..] is never touched). */
template <class I, int Log, int Real = (1 << Log), class Item>
__device__ __forceinline__ void oem_sort_registers(Item (&r)[1 << Log]) {
    static_assert(Real <= (1 << Log), "Real items fit in the padded network");
    oem_network_from<I, Log, Real, 0, 0>(r);
}

/* The lower element of comparator slot c (of P/2) in step (p, k), or -1 when the slot is
 * idle (the steps k < p have p - k comparators per run of 2p, not p). */
template <class Index> __device__ __forceinline__ Index oem_slot_lower(Index c, int lp, int lk) {
    const Index p = (Index)1 << lp, k = (Index)1 << lk;
    Index run = (c >> lp) << (lp + 1), within = c & (p - 1);
    if (lk == lp) return run + within;
    /* shifted by k, the partners differ in bit k */
    Index y = ((within >> lk) << (lk + 1)) | (within & (k - 1));
    return y < 2 * p - 2 * k ? run + y + k : (Index)-1;
}

/* Length of segment s (0 past the last). */
__device__ __forceinline__ uint32_t segment_length(uint64_t s, uint64_t n, uint64_t length) {
    uint64_t b = s * length;
    if (b >= n) return 0;
    return (uint32_t)(n - b < length ? n - b : length);
}

} // namespace pb_sort
