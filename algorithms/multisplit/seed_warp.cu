/* multisplit/bpw and multisplit/large: the seed's two methods (001).
 *
 * Both: local histograms per tile, an exclusive scan, then each tile places its keys.
 * Here a tile is one warp's contiguous slice (blocks of one warp), which the warp walks
 * 32 keys at a time in input order; lanes with the same bin take consecutive places in
 * lane order (__match_any_sync), so the output is stable, as the primitive requires.
 *   bpw:   each bin's keys are staged in a 32-slot shared-memory buffer and written by the
 *          whole warp, coalesced, when the buffer fills (and at the end).
 *   large: each key is written straight to its place in global memory; for bin counts
 *          whose buffers do not fit in shared memory (the seed: up to 12288 bins). */
#include "multisplit_common.cuh"

namespace pb_ms {
namespace {

constexpr unsigned kFull = 0xffffffffu;
constexpr uint32_t kLargeMaxBins = PB_MULTISPLIT_LARGE_MAX_BINS;

__device__ __forceinline__ unsigned lanes_below() {
    unsigned mask;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
    return mask;
}

struct WarpSlice {
    uint64_t begin, end;
};

__device__ __forceinline__ WarpSlice warp_slice(uint64_t n, uint64_t span) {
    uint64_t begin = (uint64_t)blockIdx.x * span;
    return {begin, begin + span < n ? begin + span : n};
}

/* Shared memory of a bpw block: running write position and fill of every bin, then the
 * bins' 32-slot buffers of keys (and values). */
template <class T, bool kPairs> __host__ __device__ constexpr size_t bpw_smem_bytes(uint32_t bins) {
    return (size_t)bins *
           (2 * sizeof(uint32_t) + 32 * sizeof(T) + (kPairs ? 32 * sizeof(uint32_t) : 0));
}

template <class T, bool kPairs>
__global__ void __launch_bounds__(32)
    bpw_scatter_kernel(const T *__restrict__ keys, const uint32_t *__restrict__ values, uint64_t n,
                       uint64_t span, pb_bucket bucket, const uint32_t *__restrict__ offsets,
                       const uint32_t *__restrict__ counts, T *__restrict__ out_keys,
                       uint32_t *__restrict__ out_values) {
    extern __shared__ __align__(16) unsigned char smem[];
    const uint32_t bins = bucket.bins;
    T *buf_keys = reinterpret_cast<T *>(smem);
    uint32_t *buf_values = reinterpret_cast<uint32_t *>(buf_keys + (size_t)bins * 32);
    uint32_t *runs = buf_values + (kPairs ? (size_t)bins * 32 : 0);
    uint32_t *fill = runs + bins;
    const unsigned lane = threadIdx.x;
    const uint32_t *my_counts = counts + (uint64_t)blockIdx.x * bins;
    for (uint32_t b = lane; b < bins; b += 32) {
        runs[b] = offsets[b] + my_counts[b];
        fill[b] = 0;
    }
    __syncwarp();
    const WarpSlice s = warp_slice(n, span);
    for (uint64_t base = s.begin; base < s.end; base += 32) {
        const uint64_t i = base + lane;
        const bool valid = i < s.end;
        T k{};
        uint32_t v = 0, bin = 0xffffffffu;
        if (valid) {
            k = keys[i];
            if (kPairs) v = values[i];
            bin = bin_of(bucket, k);
        }
        const unsigned peers = __match_any_sync(kFull, bin);
        const uint32_t pos = valid ? fill[bin] + __popc(peers & lanes_below()) : 0;
        __syncwarp();
        if (valid && __ffs(peers) - 1 == (int)lane) fill[bin] += __popc(peers);
        if (valid && pos < 32) {
            buf_keys[bin * 32 + pos] = k;
            if (kPairs) buf_values[bin * 32 + pos] = v;
        }
        __syncwarp();
        /* A bin whose buffer filled this round: the lane that took slot 31 names it, and
         * the whole warp writes the 32 keys out at once. At most one flush per bin per
         * round, as a round adds at most 32 keys to a bin. */
        unsigned filled = __ballot_sync(kFull, valid && pos == 31);
        while (filled) {
            const int src = __ffs(filled) - 1;
            filled &= filled - 1;
            const uint32_t fb = __shfl_sync(kFull, bin, src);
            const uint32_t at = runs[fb];
            out_keys[at + lane] = buf_keys[fb * 32 + lane];
            if (kPairs) out_values[at + lane] = buf_values[fb * 32 + lane];
            __syncwarp();
            if (lane == 0) {
                runs[fb] = at + 32;
                fill[fb] -= 32;
            }
            __syncwarp();
        }
        if (valid && pos >= 32) {
            buf_keys[bin * 32 + pos - 32] = k;
            if (kPairs) buf_values[bin * 32 + pos - 32] = v;
        }
        __syncwarp();
    }
    /* What is left in the buffers. */
    for (uint32_t b = 0; b < bins; b++) {
        if (lane < fill[b]) {
            out_keys[runs[b] + lane] = buf_keys[b * 32 + lane];
            if (kPairs) out_values[runs[b] + lane] = buf_values[b * 32 + lane];
        }
    }
}

template <class T, bool kPairs>
__global__ void __launch_bounds__(32)
    large_scatter_kernel(const T *__restrict__ keys, const uint32_t *__restrict__ values,
                         uint64_t n, uint64_t span, pb_bucket bucket,
                         const uint32_t *__restrict__ offsets, const uint32_t *__restrict__ counts,
                         T *__restrict__ out_keys, uint32_t *__restrict__ out_values) {
    extern __shared__ uint32_t runs[];
    const uint32_t bins = bucket.bins;
    const unsigned lane = threadIdx.x;
    const uint32_t *my_counts = counts + (uint64_t)blockIdx.x * bins;
    for (uint32_t b = lane; b < bins; b += 32) runs[b] = offsets[b] + my_counts[b];
    __syncwarp();
    const WarpSlice s = warp_slice(n, span);
    for (uint64_t base = s.begin; base < s.end; base += 32) {
        const uint64_t i = base + lane;
        const bool valid = i < s.end;
        T k{};
        uint32_t bin = 0xffffffffu;
        if (valid) {
            k = keys[i];
            bin = bin_of(bucket, k);
        }
        const unsigned peers = __match_any_sync(kFull, bin);
        const uint32_t dest = valid ? runs[bin] + __popc(peers & lanes_below()) : 0;
        __syncwarp();
        if (valid && __ffs(peers) - 1 == (int)lane) runs[bin] += __popc(peers);
        if (valid) {
            out_keys[dest] = k;
            if (kPairs) out_values[dest] = values[i];
        }
        __syncwarp();
    }
}

enum class Method { bpw, large };

struct Plan {
    int tiles;
    uint64_t span;
    size_t smem;
};

template <class T, bool kPairs> auto scatter_kernel_for(Method m) {
    return m == Method::bpw ? bpw_scatter_kernel<T, kPairs> : large_scatter_kernel<T, kPairs>;
}

/* One wave of one-warp blocks: as many as fit on every SM at once. */
template <class T, bool kPairs>
cudaError_t make_plan(Method m, const pb_multisplit_args *a, Plan *p) {
    const uint32_t bins = a->bucket.bins;
    p->smem = m == Method::bpw ? bpw_smem_bytes<T, kPairs>(bins) : (size_t)bins * sizeof(uint32_t);
    auto kernel = scatter_kernel_for<T, kPairs>(m);
    cudaError_t e = allow_smem(kernel, p->smem);
    int per_sm = 0;
    if (e == cudaSuccess)
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 32, p->smem);
    if (e != cudaSuccess) return e;
    if (per_sm < 1) return cudaErrorInvalidConfiguration;
    const uint64_t rounds = (a->n + 31) / 32;
    const uint64_t wave = (uint64_t)per_sm * (uint64_t)device_sms();
    p->tiles = (int)(rounds < wave ? rounds : wave);
    if (p->tiles < 1) p->tiles = 1;
    p->span = (rounds + p->tiles - 1) / p->tiles * 32;
    return cudaSuccess;
}

template <class T, bool kPairs> int plan_for(Method m, const pb_multisplit_args *a, size_t *bytes) {
    Plan p;
    cudaError_t e = make_plan<T, kPairs>(m, a, &p);
    if (e != cudaSuccess) return (int)e;
    carve_counts(nullptr, p.tiles, a->bucket.bins, bytes);
    return (int)cudaSuccess;
}

template <class T, bool kPairs>
int launch_for(Method m, const pb_multisplit_args *a, cudaStream_t stream) {
    Plan p;
    cudaError_t e = make_plan<T, kPairs>(m, a, &p);
    if (e != cudaSuccess) return (int)e;
    size_t bytes;
    const CountScratch s = carve_counts(a->scratch, p.tiles, a->bucket.bins, &bytes);
    const uint32_t bins = a->bucket.bins;
    auto count = count_kernel<T, 32>;
    e = allow_smem(count, bins * sizeof(uint32_t));
    if (e != cudaSuccess) return (int)e;
    count<<<p.tiles, 32, bins * sizeof(uint32_t), stream>>>(static_cast<const T *>(a->keys), a->n,
                                                            p.span, a->bucket, 0, bins, s.counts);
    e = scan_counts(s.counts, p.tiles, bins, s.totals, a->offsets, stream);
    if (e != cudaSuccess) return (int)e;
    scatter_kernel_for<T, kPairs>(m)<<<p.tiles, 32, p.smem, stream>>>(
        static_cast<const T *>(a->keys), a->values, a->n, p.span, a->bucket, a->offsets, s.counts,
        static_cast<T *>(a->out_keys), a->out_values);
    return (int)cudaGetLastError();
}

template <class F> int dispatch(const pb_multisplit_args *a, F &&f) {
    return with_key_type(a->bucket.dtype, [&](auto key) {
        using T = decltype(key);
        return a->values ? f.template operator()<T, true>() : f.template operator()<T, false>();
    });
}

struct Planner {
    Method m;
    const pb_multisplit_args *a;
    size_t *bytes;
    template <class T, bool kPairs> int operator()() const {
        return plan_for<T, kPairs>(m, a, bytes);
    }
};

struct Launcher {
    Method m;
    const pb_multisplit_args *a;
    cudaStream_t stream;
    template <class T, bool kPairs> int operator()() const {
        return launch_for<T, kPairs>(m, a, stream);
    }
};

} // namespace
} // namespace pb_ms

extern "C" bool pb_multisplit_bpw_fits(int dtype, bool pairs, uint32_t bins, size_t *needed,
                                       size_t *available) {
    *available = (size_t)pb_ms::device_smem_optin();
    *needed = 0;
    pb_ms::with_key_type(dtype, [&](auto key) {
        using T = decltype(key);
        *needed =
            pairs ? pb_ms::bpw_smem_bytes<T, true>(bins) : pb_ms::bpw_smem_bytes<T, false>(bins);
        return 0;
    });
    return *needed > 0 && *needed <= *available;
}

extern "C" int pb_multisplit_bpw_plan(const struct pb_multisplit_args *a, size_t *scratch_bytes) {
    return pb_ms::dispatch(a, pb_ms::Planner{pb_ms::Method::bpw, a, scratch_bytes});
}

extern "C" int pb_multisplit_bpw_launch(const struct pb_multisplit_args *a, cudaStream_t stream) {
    return pb_ms::dispatch(a, pb_ms::Launcher{pb_ms::Method::bpw, a, stream});
}

extern "C" int pb_multisplit_large_plan(const struct pb_multisplit_args *a, size_t *scratch_bytes) {
    if (a->bucket.bins > pb_ms::kLargeMaxBins) return (int)cudaErrorInvalidValue;
    return pb_ms::dispatch(a, pb_ms::Planner{pb_ms::Method::large, a, scratch_bytes});
}

extern "C" int pb_multisplit_large_launch(const struct pb_multisplit_args *a, cudaStream_t stream) {
    return pb_ms::dispatch(a, pb_ms::Launcher{pb_ms::Method::large, a, stream});
}
