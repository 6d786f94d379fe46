/* sort/odd-even-merge: Batcher's odd-even merge sort network, in three shapes.
 *  - short segments (up to 32 keys): a thread owns a whole segment, padded to the next
 *    power of two P with the largest item, and runs the network on P registers (fully
 *    unrolled); a block stages its 128 segments through shared memory so that global
 *    loads and stores are coalesced over the flat array.
 *  - segments of 33 to 128 four-byte keys without values: the same, a thread a segment,
 *    with the network pruned to the length rounded up to a multiple of 8 (the padding's
 *    comparators left out) and the staging moved in 16-byte pieces.
 *  - long segments (33 to 4096, the rest): a block holds a tile of 4096 items (4096 / P segments),
 *    32 (or 16 wide) consecutive items a thread in registers; steps within a thread run
 *    there, steps between threads by warp shuffles, and only the levels whose runs span
 *    more than a warp (segments past 1024 items) through shared memory (oem_blocked.cuh).
 *  - one whole array (up to PB_SORT_OEM_MAX_ARRAY): chunks of 4096 sorted as above into
 *    a padded copy, then one kernel per remaining network step over the whole array
 *    (O(n log^2 n) work: the comparison with radix sort is the point). */
#include <utility>

#include "int_math.cuh"
#include "oem_blocked.cuh"

namespace pb_sort {
namespace {

constexpr int SHORT_THREADS = 128;
constexpr int LONG_ITEMS = 4096;
constexpr int LONG_LOG = 12;
constexpr int STEP_THREADS = 256;
static_assert(LONG_ITEMS == PB_SORT_MAX_NETWORK, "a long block holds the longest segment");

/* Where a short block stages its span. A thread reads its segment's items with a stride
 * of the segment length: odd lengths spread over the banks as they are; even ones get a
 * spare slot per 32 (at odd lengths that would put every thread of a 31-key segment on
 * one bank). Both loops are unrolled over j, so the slots are kept affine in j (a base
 * plus a constant) wherever the layout allows: the constant folds into the load. */
struct ShortStaging {
    static constexpr int threads = SHORT_THREADS, min_blocks = 1;
    uint32_t length, padded, segment_base, segment_in_one_row;
    __device__ ShortStaging(uint32_t length_, uint32_t tid, uint32_t /* span */)
        : length(length_), padded(~length & 1),
          /* segments of 2, 4, .., 32 keys never straddle a 32-slot row */
          segment_base(tid * length + (padded ? (tid * length) >> 5 : 0)),
          segment_in_one_row(!padded || (length & (length - 1)) == 0) {} /* no division */
    /* item tid + j * threads of the span */
    __device__ uint32_t flat(uint32_t tid, uint32_t j) const {
        return padded ? j * (threads + threads / 32) + tid + (tid >> 5) : j * threads + tid;
    }
    /* item j of the thread's segment, which starts at item tid * length of the span */
    __device__ uint32_t item(uint32_t tid, uint32_t j) const {
        if (segment_in_one_row) return segment_base + j;
        uint32_t i = tid * length + j;
        return i + (i >> 5);
    }
    template <int Count, class V, class Item, class Make>
    __device__ void segment_in(const V *s, uint32_t tid, uint32_t len, Item *r, Item pad_item,
                               Make make) const {
#pragma unroll
        for (int j = 0; j < Count; j++) r[j] = j < (int)len ? make(s[item(tid, j)]) : pad_item;
    }
    template <int Count, class V, class Item, class Key>
    __device__ void segment_out(V *s, uint32_t tid, uint32_t len, const Item *r, Key key) const {
#pragma unroll
        for (int j = 0; j < Count; j++)
            if (j < (int)len) s[item(tid, j)] = key(r[j]);
    }
    /* the span (Count * threads items at most), coalesced, into and out of shared memory */
    template <int Count, class V>
    __device__ void to_shared(const V *src, uint32_t span, V *s, uint32_t tid) const {
#pragma unroll
        for (int j = 0; j < Count; j++) {
            uint32_t i = j * threads + tid;
            if (i < span) s[flat(tid, j)] = src[i];
        }
    }
    template <int Count, class V>
    __device__ void from_shared(const V *s, uint32_t span, V *dst, uint32_t tid) const {
#pragma unroll
        for (int j = 0; j < Count; j++) {
            uint32_t i = j * threads + tid;
            if (i < span) dst[i] = s[flat(tid, j)];
        }
    }
};

/* Staging for segments of 33 to 128 four-byte keys, which do not fit a 32-slot row. The
 * span moves between global and shared memory in 16-byte pieces, all loads issued before
 * any store. Segments lie at a stride of length slots, or length + 4 when length is a
 * multiple of 8 (a quarter-warp's 16-byte reads would share banks); a thread reads its
 * segment in 16-byte pieces when length is a multiple of 4, else one key at a time (odd
 * lengths spread over the banks, the rest meet at most two to a bank). */
template <int Threads> struct MidStaging {
    static constexpr int threads = Threads, min_blocks = 1;
    uint32_t length, pad, stride, magic;
    bool whole; /* the block's span is Threads whole segments (all blocks but the last) */
    __device__ MidStaging(uint32_t length_, uint32_t /* tid */, uint32_t span)
        : length(length_), pad(length_ % 8 == 0 ? 4 : 0), stride(length_ + pad),
          magic(0xffffffffu / length_ + 1), whole(span == Threads * length_) {}
    /* shared slot of span item o, a multiple of 4 (o < 2^14: the multiply divides exactly;
     * with pad, length is a multiple of 4, so a piece never straddles two segments) */
    __device__ uint32_t piece(uint32_t o) const { return o + pad * __umulhi(o, magic); }
    __device__ uint32_t slot(uint32_t o) const { return pad ? piece(o & ~3u) + (o & 3) : o; }

    /* every 16-byte piece of a whole span: all loaded, then all stored */
    template <int Count, class Load, class Store>
    __device__ void in_pieces(uint32_t span, uint32_t tid, Load load, Store store) const {
        static_assert(Count % 4 == 0, "whole pieces");
        uint4 v[Count / 4];
#pragma unroll
        for (int j = 0; j < Count / 4; j++) {
            const uint32_t o = 4 * (j * Threads + tid);
            if (o < span) v[j] = load(o);
        }
#pragma unroll
        for (int j = 0; j < Count / 4; j++) {
            const uint32_t o = 4 * (j * Threads + tid);
            if (o < span) store(o, v[j]);
        }
    }
    template <int Count, class V>
    __device__ void to_shared(const V *src, uint32_t span, V *s, uint32_t tid) const {
        static_assert(sizeof(V) == 4, "four-byte items");
        if (!whole) {
            for (uint32_t o = tid; o < span; o += Threads) s[slot(o)] = src[o];
            return;
        }
        in_pieces<Count>(
            span, tid, [&](uint32_t o) { return reinterpret_cast<const uint4 *>(src)[o / 4]; },
            [&](uint32_t o, uint4 x) { *reinterpret_cast<uint4 *>(s + piece(o)) = x; });
    }
    template <int Count, class V>
    __device__ void from_shared(const V *s, uint32_t span, V *dst, uint32_t tid) const {
        if (!whole) {
            for (uint32_t o = tid; o < span; o += Threads) dst[o] = s[slot(o)];
            return;
        }
        in_pieces<Count>(
            span, tid, [&](uint32_t o) { return *reinterpret_cast<const uint4 *>(s + piece(o)); },
            [&](uint32_t o, uint4 x) { reinterpret_cast<uint4 *>(dst)[o / 4] = x; });
    }
    /* the thread's segment, len (<= length) keys, into Count registers padded with pad_item */
    template <int Count, class V, class Item, class Make>
    __device__ void segment_in(const V *s, uint32_t tid, uint32_t len, Item *r, Item pad_item,
                               Make make) const {
        const V *seg = s + tid * stride;
        if (length % 4 == 0) {
#pragma unroll
            for (int j = 0; j < Count; j += 4) {
                uint4 x = j < (int)len ? *reinterpret_cast<const uint4 *>(seg + j) : uint4{};
                const uint32_t k[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
                for (int q = 0; q < 4; q++)
                    r[j + q] =
                        j + q < (int)len ? make(reinterpret_cast<const V &>(k[q])) : pad_item;
            }
        } else {
#pragma unroll
            for (int j = 0; j < Count; j++) r[j] = j < (int)len ? make(seg[j]) : pad_item;
        }
    }
    template <int Count, class V, class Item, class Key>
    __device__ void segment_out(V *s, uint32_t tid, uint32_t len, const Item *r, Key key) const {
        V *seg = s + tid * stride;
        if (length % 4 == 0) {
#pragma unroll
            for (int j = 0; j < Count; j += 4) /* past len: slots past the span (last segment) */
                if (j < (int)len) {
                    V k[4] = {key(r[j]), key(r[j + 1]), key(r[j + 2]), key(r[j + 3])};
                    *reinterpret_cast<uint4 *>(seg + j) = *reinterpret_cast<const uint4 *>(k);
                }
        } else {
#pragma unroll
            for (int j = 0; j < Count; j++)
                if (j < (int)len) seg[j] = key(r[j]);
        }
    }
    /* slots the block needs: 16-byte pieces of the last segment may pass its end */
    static __host__ int shared_slots(uint32_t length) {
        return Threads * (length + (length % 8 == 0 ? 4 : 0)) + 4;
    }
};

template <class T, bool Pairs, int Log, int Real = (1 << Log), class Staging = ShortStaging>
__global__ __launch_bounds__(Staging::threads, Staging::min_blocks) void short_segments_kernel(
    const T *__restrict__ keys, const uint32_t *__restrict__ values, uint64_t n, uint32_t length,
    bool desc, T *__restrict__ out_keys, uint32_t *__restrict__ out_values) {
    using I = Items<T, Pairs>;
    using Item = typename I::Item;
    constexpr int P = 1 << Log, THREADS = Staging::threads;
    extern __shared__ __align__(16) unsigned char smem[];
    T *skeys = reinterpret_cast<T *>(smem);
    uint32_t *svalues = reinterpret_cast<uint32_t *>(smem); /* the same buffer, later */
    const uint32_t tid = threadIdx.x;
    const uint64_t first_segment = (uint64_t)blockIdx.x * THREADS;
    const uint64_t base = first_segment * length;
    const uint64_t left = n - base;
    const uint32_t span =
        (uint32_t)(left < (uint64_t)THREADS * length ? left : (uint64_t)THREADS * length);
    const uint32_t len = segment_length(first_segment + tid, n, length);
    const Staging at(length, tid, span);
    auto make = [desc](T k) { return I::make(k, desc); };
    auto key = [desc](Item it) { return I::key(it, desc); };

    at.template to_shared<Real>(keys + base, span, skeys, tid);
    __syncthreads();
    Item r[P];
    at.template segment_in<Real>(skeys, tid, len, r, I::max(), make);
    if constexpr (Pairs) {
        __syncthreads();
        at.template to_shared<Real>(values + base, span, svalues, tid);
        __syncthreads();
#pragma unroll
        for (int j = 0; j < Real; j++)
            if (j < (int)len) I::set_value(r[j], svalues[at.item(tid, j)]);
    }
    oem_sort_registers<I, Log, Real>(r);
    __syncthreads();
    at.template segment_out<Real>(skeys, tid, len, r, key);
    __syncthreads();
    at.template from_shared<Real>(skeys, span, out_keys + base, tid);
    if constexpr (Pairs) {
        __syncthreads();
        at.template segment_out<Real>(svalues, tid, len, r, [](Item it) { return I::value(it); });
        __syncthreads();
        at.template from_shared<Real>(svalues, span, out_values + base, tid);
    }
}

/* Items per thread in the blocked layout: 32 four-byte items (128 threads a tile), 16
 * wider ones (256 threads). */
template <class Item> __host__ __device__ constexpr int blocked_log_r() {
    return sizeof(Item) == 4 ? 5 : 4;
}
template <class Item> __host__ __device__ constexpr int blocked_threads() {
    return LONG_ITEMS >> blocked_log_r<Item>();
}

/* Segments of P = 2^log_p (64..4096) padded items, LONG_ITEMS / P per block, sorted in
 * registers (oem_blocked.cuh). With scratch_out, the block's items (padding included) go
 * there instead of the outputs. */
template <class T, bool Pairs>
__global__
__launch_bounds__(blocked_threads<typename Items<T, Pairs>::Item>()) void long_segments_kernel(
    const T *__restrict__ keys, const uint32_t *__restrict__ values, uint64_t n, uint32_t length,
    int log_p, bool desc, T *__restrict__ out_keys, uint32_t *__restrict__ out_values,
    typename Items<T, Pairs>::Item *__restrict__ scratch_out) {
    using I = Items<T, Pairs>;
    using Item = typename I::Item;
    constexpr int LOG_R = blocked_log_r<Item>(), R = 1 << LOG_R;
    constexpr int THREADS = blocked_threads<Item>();
    extern __shared__ __align__(16) unsigned char smem[];
    Item *s = reinterpret_cast<Item *>(smem);
    const uint32_t tid = threadIdx.x;
    const uint32_t p_mask = (1u << log_p) - 1;
    /* The tile's segments lie one after another in the input: one contiguous span, read
     * coalesced, each key's segment found by a multiply (exact for spans < 2^32 / length). */
    const uint64_t base = ((uint64_t)blockIdx.x << (LONG_LOG - log_p)) * length;
    const uint64_t whole = (uint64_t)length << (LONG_LOG - log_p);
    const uint32_t span = (uint32_t)(base >= n ? 0 : n - base < whole ? n - base : whole);
    const uint32_t magic = 0xffffffffu / length + 1;
    auto tile_index = [&](uint32_t o) {
        uint32_t segment = __umulhi(o, magic);
        return (segment << log_p) | (o - segment * length);
    };

    for (uint32_t o = tid; o < span; o += THREADS) {
        Item it = I::make(keys[base + o], desc);
        if (Pairs) I::set_value(it, values[base + o]);
        s[blocked_slot<R>(tile_index(o))] = it;
    }
    __syncthreads();
    Item r[R];
#pragma unroll
    for (int j = 0; j < R; j++) {
        const uint32_t x = tid * R + j, within = x & p_mask;
        const bool real = within < length && (x >> log_p) * length + within < span;
        r[j] = real ? s[blocked_slot<R>(x)] : I::max();
    }
    oem_sort_blocked<I, LOG_R>(r, s, log_p);
    __syncthreads(); /* a last shared-memory step may still be reading */
#pragma unroll
    for (int j = 0; j < R; j++) s[blocked_slot<R>(tid * R + j)] = r[j];
    __syncthreads();
    if (scratch_out) {
        for (uint32_t x = tid; x < LONG_ITEMS; x += THREADS)
            scratch_out[(uint64_t)blockIdx.x * LONG_ITEMS + x] = s[blocked_slot<R>(x)];
        return;
    }
    for (uint32_t o = tid; o < span; o += THREADS) {
        Item it = s[blocked_slot<R>(tile_index(o))];
        out_keys[base + o] = I::key(it, desc);
        if (Pairs) out_values[base + o] = I::value(it);
    }
}

/* One step (p = 2^lp, k = 2^lk) of the network over the whole padded array. */
template <class I>
__global__ __launch_bounds__(STEP_THREADS) void global_step_kernel(typename I::Item *a,
                                                                   int64_t slots, int lp, int lk) {
    for (int64_t c = blockIdx.x * (int64_t)STEP_THREADS + threadIdx.x; c < slots;
         c += (int64_t)gridDim.x * STEP_THREADS) {
        int64_t x = oem_slot_lower<int64_t>(c, lp, lk);
        if (x < 0) continue;
        typename I::Item lo = a[x], hi = a[x + ((int64_t)1 << lk)];
        I::order(lo, hi);
        a[x] = lo;
        a[x + ((int64_t)1 << lk)] = hi;
    }
}

template <class T, bool Pairs>
__global__ void unpack_kernel(const typename Items<T, Pairs>::Item *__restrict__ a, uint64_t n,
                              bool desc, T *__restrict__ out_keys,
                              uint32_t *__restrict__ out_values) {
    using I = Items<T, Pairs>;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        typename I::Item it = a[i];
        out_keys[i] = I::key(it, desc);
        if (Pairs) out_values[i] = I::value(it);
    }
}

bool whole_array_path(const pb_sort_args *a) { return a->length > PB_SORT_MAX_NETWORK; }

template <class T, bool Pairs> size_t item_size() { return sizeof(typename Items<T, Pairs>::Item); }

template <class T, bool Pairs, int Log>
cudaError_t launch_short(const pb_sort_args *a, cudaStream_t st) {
    size_t smem = ((SHORT_THREADS << Log) * 33 / 32 + 1) * (sizeof(T) > 4 ? sizeof(T) : 4);
    uint64_t blocks = (a->count + SHORT_THREADS - 1) / SHORT_THREADS;
    short_segments_kernel<T, Pairs, Log><<<(unsigned)blocks, SHORT_THREADS, smem, st>>>(
        (const T *)a->keys, a->values, a->n, (uint32_t)a->length, a->descending, (T *)a->out_keys,
        a->out_values);
    return cudaGetLastError();
}

/* Segments of 33..128 four-byte keys (no values): a thread a segment, as the short ones,
 * with the network pruned to Real = the length rounded up to a multiple of 8 (at 100 keys
 * 1157 comparators instead of the padded 128's 1471), in place of the blocked tile, whose
 * shuffles cost more than the network (1.7x faster at 100 keys on the H200). */
constexpr int MID_MIN = 33, MID_MAX = 128, MID_STEP = 8;
/* 64 threads a block: within 3% of 128 everywhere on the H200, ahead at 33..104 keys */
constexpr int MID_THREADS = 64;

template <class T, int Real, int Threads>
cudaError_t launch_mid(const pb_sort_args *a, cudaStream_t st) {
    constexpr int Log = Real <= 64 ? 6 : 7;
    auto kernel = short_segments_kernel<T, false, Log, Real, MidStaging<Threads>>;
    const int smem = MidStaging<Threads>::shared_slots((uint32_t)a->length) * (int)sizeof(T);
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    if (e != cudaSuccess) return e;
    uint64_t blocks = (a->count + Threads - 1) / Threads;
    kernel<<<(unsigned)blocks, Threads, smem, st>>>((const T *)a->keys, nullptr, a->n,
                                                    (uint32_t)a->length, a->descending,
                                                    (T *)a->out_keys, nullptr);
    return cudaGetLastError();
}

template <class T, size_t... Step>
cudaError_t launch_mid_rounded(const pb_sort_args *a, cudaStream_t st,
                               std::index_sequence<Step...>) {
    using Launch = cudaError_t (*)(const pb_sort_args *, cudaStream_t);
    constexpr int first = (MID_MIN + MID_STEP - 1) / MID_STEP * MID_STEP;
    static constexpr Launch by_step[] = {
        &launch_mid<T, first + (int)Step * MID_STEP, MID_THREADS>...};
    return by_step[(a->length + MID_STEP - 1) / MID_STEP - first / MID_STEP](a, st);
}

template <class T, bool Pairs>
cudaError_t launch_long(const pb_sort_args *a, uint32_t length, int log_p, uint64_t blocks,
                        typename Items<T, Pairs>::Item *scratch_out, cudaStream_t st) {
    using Item = typename Items<T, Pairs>::Item;
    auto kernel = long_segments_kernel<T, Pairs>;
    size_t smem = (LONG_ITEMS + (LONG_ITEMS >> blocked_log_r<Item>()) + 1) * sizeof(Item);
    cudaError_t e =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e != cudaSuccess) return e;
    kernel<<<(unsigned)blocks, blocked_threads<Item>(), smem, st>>>(
        (const T *)a->keys, a->values, a->n, length, log_p, a->descending, (T *)a->out_keys,
        a->out_values, scratch_out);
    return cudaGetLastError();
}

template <class T, bool Pairs>
cudaError_t launch_whole_array(const pb_sort_args *a, cudaStream_t st) {
    using I = Items<T, Pairs>;
    using Item = typename I::Item;
    const int log_p = pb::ceil_log2(a->n);
    const int64_t padded = (int64_t)1 << log_p;
    Item *items = (Item *)a->scratch;
    cudaError_t e = launch_long<T, Pairs>(a, LONG_ITEMS, LONG_LOG, padded / LONG_ITEMS, items, st);
    int device = 0, sms = 0;
    if (e == cudaSuccess) e = cudaGetDevice(&device);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    const int64_t slots = padded / 2;
    int64_t want = (slots + STEP_THREADS - 1) / STEP_THREADS, cap = (int64_t)sms * 16;
    unsigned grid = (unsigned)(want < cap ? want : cap);
    for (int lp = LONG_LOG; lp < log_p && e == cudaSuccess; lp++)
        for (int lk = lp; lk >= 0 && e == cudaSuccess; lk--) {
            global_step_kernel<I><<<grid, STEP_THREADS, 0, st>>>(items, slots, lp, lk);
            e = cudaGetLastError();
        }
    if (e != cudaSuccess) return e;
    unpack_kernel<T, Pairs><<<(unsigned)(sms * 8), 256, 0, st>>>(items, a->n, a->descending,
                                                                 (T *)a->out_keys, a->out_values);
    return cudaGetLastError();
}

template <class T, bool Pairs> cudaError_t launch_for(const pb_sort_args *a, cudaStream_t st) {
    if (whole_array_path(a)) return launch_whole_array<T, Pairs>(a, st);
    if constexpr (sizeof(typename Items<T, Pairs>::Item) == 4)
        if (a->length >= MID_MIN && a->length <= MID_MAX &&
            (((uintptr_t)a->keys | (uintptr_t)a->out_keys) & 15) == 0) /* 16-byte pieces */
            return launch_mid_rounded<T>(
                a, st, std::make_index_sequence<(MID_MAX - MID_MIN) / MID_STEP + 1>());
    int log_p = pb::ceil_log2(a->length);
    switch (log_p) {
    case 0:
        return launch_short<T, Pairs, 0>(a, st);
    case 1:
        return launch_short<T, Pairs, 1>(a, st);
    case 2:
        return launch_short<T, Pairs, 2>(a, st);
    case 3:
        return launch_short<T, Pairs, 3>(a, st);
    case 4:
        return launch_short<T, Pairs, 4>(a, st);
    case 5:
        return launch_short<T, Pairs, 5>(a, st);
    default: {
        uint64_t per_block = (uint64_t)1 << (LONG_LOG - log_p);
        return launch_long<T, Pairs>(a, (uint32_t)a->length, log_p,
                                     (a->count + per_block - 1) / per_block, nullptr, st);
    }
    }
}

} // namespace
} // namespace pb_sort

extern "C" int pb_sort_oem_plan(const pb_sort_args *a, size_t *scratch_bytes) {
    using namespace pb_sort;
    *scratch_bytes = 0;
    if (!whole_array_path(a)) return (int)cudaSuccess;
    if (a->count != 1 || a->n > (uint64_t)PB_SORT_OEM_MAX_ARRAY) return (int)cudaErrorInvalidValue;
    size_t padded = (size_t)1 << pb::ceil_log2(a->n);
    const bool pairs = a->values != nullptr;
    return pb::with_dtype<uint32_t, int32_t, float, uint64_t, double>(a->dtype, [&](auto t) {
        using T = decltype(t);
        *scratch_bytes = padded * (pairs ? item_size<T, true>() : item_size<T, false>());
        return (int)cudaSuccess;
    });
}

extern "C" int pb_sort_oem_launch(const pb_sort_args *a, cudaStream_t stream) {
    const bool pairs = a->values != nullptr;
    return pb::with_dtype<uint32_t, int32_t, float, uint64_t, double>(a->dtype, [&](auto t) {
        using T = decltype(t);
        return (int)(pairs ? pb_sort::launch_for<T, true>(a, stream)
                           : pb_sort::launch_for<T, false>(a, stream));
    });
}
