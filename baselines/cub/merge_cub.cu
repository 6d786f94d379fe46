/* merge/cub-sort and merge/cub-merge-tree: what users do today. A stable CUB radix sort
 * of the concatenation (its order is list-major, so stability gives the stable merge;
 * CUB orders -0.0 and +0.0 as equal), and ceil(log2 k) rounds of CUB DeviceMerge over
 * neighbouring runs, ping-ponging between two scratch buffers; the last round writes the
 * output. */
#include <cub/device/device_merge.cuh>
#include <cub/device/device_radix_sort.cuh>

#include <vector>

#include "dtype_dispatch.cuh"
#include "merge_gpu.h"
#include "merge_keys.cuh"

namespace {

constexpr size_t ALIGN = 256;

size_t aligned(size_t bytes) { return (bytes + ALIGN - 1) / ALIGN * ALIGN; }

template <class T>
cudaError_t radix(const pb_merge_args *a, void *temp, size_t &bytes, cudaStream_t st) {
    const T *in = (const T *)a->keys;
    T *out = (T *)a->out_keys;
    int64_t n = (int64_t)a->n;
    using R = cub::DeviceRadixSort;
    if (a->values)
        return R::SortPairs(temp, bytes, in, out, a->values, a->out_values, n, 0,
                            (int)sizeof(T) * 8, st);
    return R::SortKeys(temp, bytes, in, out, n, 0, (int)sizeof(T) * 8, st);
}

/* One DeviceMerge of runs a (na) and b (nb) into out (temp == nullptr: sizes it; the
 * pointers are then null, so `pairs` says which merge to size). */
template <class T>
cudaError_t merge_two(bool pairs, const T *a, const uint32_t *av, int64_t na, const T *b,
                      const uint32_t *bv, int64_t nb, T *out, uint32_t *ov, void *temp,
                      size_t &bytes, cudaStream_t st) {
    if (pairs)
        return cub::DeviceMerge::MergePairs(temp, bytes, a, av, na, b, bv, nb, out, ov, {}, st);
    return cub::DeviceMerge::MergeKeys(temp, bytes, a, na, b, nb, out, {}, st);
}

/* The rounds of the tree: neighbouring runs merged pairwise, a lone last run copied. With
 * temp == nullptr, only finds the largest temporary storage any merge needs. */
template <class T>
cudaError_t tree(const pb_merge_args *a, void *temp, size_t &temp_bytes, cudaStream_t st) {
    uint32_t k = a->k;
    std::vector<uint64_t> bounds(a->host_offsets, a->host_offsets + k + 1);
    uint32_t rounds = 0;
    for (uint32_t runs = k; runs > 1; runs = (runs + 1) / 2) rounds++;
    size_t kb = aligned(a->n * sizeof(T) + 1), vb = aligned(a->n * 4 + 4);
    char *scratch = (char *)a->scratch;
    bool sizing = temp == nullptr;
    T *ping = sizing ? nullptr : (T *)scratch, *pong = sizing ? nullptr : (T *)(scratch + kb);
    uint32_t *vping = nullptr, *vpong = nullptr;
    if (!sizing && a->values) {
        vping = (uint32_t *)(scratch + 2 * kb);
        vpong = (uint32_t *)(scratch + 2 * kb + vb);
    }
    const T *src = (const T *)a->keys;
    const uint32_t *vsrc = a->values;
    size_t need = 0;
    if (k == 1) {
        if (sizing) return cudaSuccess;
        cudaError_t e =
            cudaMemcpyAsync(a->out_keys, src, a->n * sizeof(T), cudaMemcpyDeviceToDevice, st);
        if (e == cudaSuccess && a->values)
            e = cudaMemcpyAsync(a->out_values, vsrc, a->n * 4, cudaMemcpyDeviceToDevice, st);
        return e;
    }
    for (uint32_t round = 0, runs = k; runs > 1; round++, runs = (runs + 1) / 2) {
        bool last = round + 1 == rounds;
        T *dst = last ? (T *)a->out_keys : (round % 2 ? pong : ping);
        uint32_t *vdst = last ? a->out_values : (round % 2 ? vpong : vping);
        for (uint32_t r = 0; r < runs; r += 2) {
            uint64_t b = bounds[r], m = bounds[r + 1], e = r + 2 <= runs ? bounds[r + 2] : m;
            if (e == m || m == b) { /* nothing to merge: copy the run */
                if (sizing || e == b) continue;
                cudaError_t err = cudaMemcpyAsync(dst + b, src + b, (e - b) * sizeof(T),
                                                  cudaMemcpyDeviceToDevice, st);
                if (err == cudaSuccess && vsrc)
                    err = cudaMemcpyAsync(vdst + b, vsrc + b, (e - b) * 4, cudaMemcpyDeviceToDevice,
                                          st);
                if (err != cudaSuccess) return err;
                continue;
            }
            size_t bytes = sizing ? 0 : temp_bytes;
            cudaError_t err = merge_two<T>(
                a->values != nullptr, sizing ? nullptr : src + b,
                vsrc ? (sizing ? nullptr : vsrc + b) : nullptr, (int64_t)(m - b),
                sizing ? nullptr : src + m, vsrc ? (sizing ? nullptr : vsrc + m) : nullptr,
                (int64_t)(e - m), sizing ? nullptr : dst + b, vdst && !sizing ? vdst + b : nullptr,
                sizing ? nullptr : temp, bytes, st);
            if (err != cudaSuccess) return err;
            if (bytes > need) need = bytes;
        }
        for (uint32_t r = 0; r < runs; r += 2)
            bounds[r / 2 + 1] = r + 2 <= runs ? bounds[r + 2] : bounds[r + 1];
        src = dst;
        vsrc = vdst;
    }
    if (sizing) temp_bytes = need;
    return cudaSuccess;
}

/* The tree's ping-pong buffers at the scratch's start: two of keys, two of values (pairs);
 * `tree` carves them in this layout, CUB's temporary storage follows. */
template <class T> size_t tree_buffers(const pb_merge_args *a) {
    return 2 * aligned(a->n * sizeof(T) + 1) + (a->values ? 2 * aligned(a->n * 4 + 4) : 0);
}

template <class F> int dispatch(const pb_merge_args *a, F &&f) {
    return pb::with_dtype<PB_MERGE_KEY_TYPES>(a->dtype, f);
}

} // namespace

extern "C" int pb_merge_cub_sort_plan(const pb_merge_args *a, size_t *scratch_bytes) {
    return dispatch(a, [&](auto t) {
        size_t temp = 0;
        cudaError_t e = radix<decltype(t)>(a, nullptr, temp, 0);
        *scratch_bytes = temp;
        return (int)e;
    });
}

extern "C" int pb_merge_cub_sort_launch(const pb_merge_args *a, cudaStream_t stream) {
    return dispatch(a, [&](auto t) {
        size_t temp = a->scratch_bytes;
        return (int)radix<decltype(t)>(a, a->scratch, temp, stream);
    });
}

/* Scratch: two key buffers, two value buffers (pairs), then CUB's temporary storage. */
extern "C" int pb_merge_cub_tree_plan(const pb_merge_args *a, size_t *scratch_bytes) {
    return dispatch(a, [&](auto t) {
        using T = decltype(t);
        size_t temp = 0;
        cudaError_t e = tree<T>(a, nullptr, temp, 0);
        *scratch_bytes = tree_buffers<T>(a) + temp;
        return (int)e;
    });
}

extern "C" int pb_merge_cub_tree_launch(const pb_merge_args *a, cudaStream_t stream) {
    return dispatch(a, [&](auto t) {
        using T = decltype(t);
        const size_t buffers = tree_buffers<T>(a);
        size_t temp = a->scratch_bytes - buffers;
        return (int)tree<T>(a, (char *)a->scratch + buffers, temp, stream);
    });
}
