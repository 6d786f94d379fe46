/* reduce/butterfly: the seed's XOR butterfly, made bandwidth-bound.
 *
 * One launch does the whole reduction:
 *   1. each thread accumulates a grid-stride slice with 16-byte loads, several in
 *      flight, into a register (one pass over the input, nothing re-read);
 *   2. each warp combines its lanes with the seed's butterfly (__shfl_xor_sync over
 *      offsets 16, 8, 4, 2, 1), which leaves the result in every lane;
 *   3. warp results meet in shared memory and warp 0 butterflies them again;
 *   4. each block stores its partial; the last block to finish (atomic ticket)
 *      butterflies the partials and writes the answer, so no second launch and no
 *      host round trip. It also re-arms the ticket for the next launch. Inputs small
 *      enough for one block skip this step. */
#include <cuda_runtime.h>

#include "butterfly.cuh"
#include "reduce_types.cuh"

namespace pb_reduce {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
using pb_butterfly::shfl_xor;
using pb_butterfly::warp_butterfly;

/* Butterfly across the block; the result is valid in every thread of warp 0. */
template <class Op>
__device__ typename Op::Acc block_butterfly(typename Op::Acc acc,
                                            typename Op::Acc (&warp_results)[kWarps]) {
    return pb_butterfly::block_butterfly<Op, kWarps>(acc, warp_results);
}
constexpr int kUnroll = 4; /* 16-byte loads in flight per thread per iteration */

/* ---- the four ops as (lift, combine, identity) over an accumulator ---------- */

template <class T> struct SumOp {
    using Acc = sum_t<T>;
    __device__ static Acc identity() { return Acc(0); }
    __device__ static Acc lift(T x, uint64_t) { return Acc(x); }
    __device__ static Acc combine(Acc a, Acc b) { return a + b; }
    __device__ static void store(const Acc &a, void *result) { *(Acc *)result = a; }
};

template <class T> struct MinOp {
    using Acc = T;
    __device__ static Acc identity() { return cuda::std::numeric_limits<T>::max(); }
    __device__ static Acc lift(T x, uint64_t) { return x; }
    __device__ static Acc combine(Acc a, Acc b) { return b < a ? b : a; }
    __device__ static void store(const Acc &a, void *result) { *(T *)result = a; }
};

template <class T> struct MaxOp {
    using Acc = T;
    __device__ static Acc identity() { return cuda::std::numeric_limits<T>::lowest(); }
    __device__ static Acc lift(T x, uint64_t) { return x; }
    __device__ static Acc combine(Acc a, Acc b) { return b > a ? b : a; }
    __device__ static void store(const Acc &a, void *result) { *(T *)result = a; }
};

template <class T> struct ArgMinAcc {
    T value;
    int64_t index;
};

/* The first minimum: ties go to the smaller index, so the combine is associative and
 * commutative and any reduction order gives the same answer. */
template <class T> struct ArgMinOp {
    using Acc = ArgMinAcc<T>;
    __device__ static Acc identity() {
        T top = cuda::std::numeric_limits<T>::has_infinity
                    ? cuda::std::numeric_limits<T>::infinity()
                    : cuda::std::numeric_limits<T>::max();
        return {top, INT64_MAX};
    }
    __device__ static Acc lift(T x, uint64_t i) { return {x, (int64_t)i}; }
    __device__ static Acc combine(Acc a, Acc b) {
        return (b.value < a.value || (b.value == a.value && b.index < a.index)) ? b : a;
    }
    __device__ static void store(const Acc &a, void *result) {
        *(T *)result = a.value;
        *(int64_t *)((char *)result + 8) = a.index;
    }
};

/* Sixteen bytes of keys, loaded as one vector. */
template <class T> struct alignas(16) KeyVector {
    static constexpr int kCount = 16 / sizeof(T);
    T key[kCount];
};

/* A read-only 16-byte load (LDG.E.128 through the non-coherent path). */
template <class T> __device__ KeyVector<T> load_vector(const KeyVector<T> *p) {
    union {
        uint4 raw;
        KeyVector<T> keys;
    } v;
    v.raw = __ldg(reinterpret_cast<const uint4 *>(p));
    return v.keys;
}

template <class T, class Op>
__device__ typename Op::Acc accumulate_vector(typename Op::Acc acc, const KeyVector<T> &v,
                                              uint64_t first_index) {
#pragma unroll
    for (int j = 0; j < KeyVector<T>::kCount; j++)
        acc = Op::combine(acc, Op::lift(v.key[j], first_index + j));
    return acc;
}

/* Loads another block's partial past L1 (which may hold a stale line): __ldcg word by
 * word, since it has no overload for our accumulator types. */
template <class V> __device__ V load_uncached(const V *p) {
    constexpr int kWords = sizeof(V) / 4;
    union {
        V value;
        unsigned int word[kWords];
    } out;
    const unsigned int *words = reinterpret_cast<const unsigned int *>(p);
#pragma unroll
    for (int w = 0; w < kWords; w++) out.word[w] = __ldcg(words + w);
    return out.value;
}

struct Scratch {
    unsigned int *ticket; /* blocks finished in this launch; the last block re-arms it */
    void *partials;       /* one accumulator per block */
};

template <class T, class Op>
__global__ void __launch_bounds__(kThreads)
    butterfly_reduce_kernel(const T *__restrict__ in, uint64_t n, Scratch scratch, void *result) {
    using Acc = typename Op::Acc;
    using Vec = KeyVector<T>;
    __shared__ Acc warp_results[kWarps];
    __shared__ bool is_last_block;

    const uint64_t threads = (uint64_t)gridDim.x * kThreads;
    const uint64_t tid = (uint64_t)blockIdx.x * kThreads + threadIdx.x;
    /* The input comes from cudaMalloc (256-byte aligned), so the vector body starts at 0. */
    const Vec *vec = reinterpret_cast<const Vec *>(in);
    const uint64_t nvec = n / Vec::kCount;

    Acc acc = Op::identity();
    uint64_t v = tid;
    /* Unguarded body: kUnroll independent loads issued before any is used. */
    for (; v + (kUnroll - 1) * threads < nvec; v += kUnroll * threads) {
        Vec chunk[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++) chunk[u] = load_vector(&vec[v + u * threads]);
#pragma unroll
        for (int u = 0; u < kUnroll; u++)
            acc = accumulate_vector<T, Op>(acc, chunk[u], (v + u * threads) * Vec::kCount);
    }
    for (; v < nvec; v += threads)
        acc = accumulate_vector<T, Op>(acc, load_vector(&vec[v]), v * Vec::kCount);
    for (uint64_t i = nvec * Vec::kCount + tid; i < n; i += threads)
        acc = Op::combine(acc, Op::lift(in[i], i));

    acc = block_butterfly<Op>(acc, warp_results);

    /* A grid of one block (small inputs) has the answer already: no ticket, no fence,
     * no second pass. */
    if (gridDim.x == 1) {
        if (threadIdx.x == 0) Op::store(acc, result);
        return;
    }

    Acc *partials = static_cast<Acc *>(scratch.partials);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = acc;
        __threadfence(); /* the partial is visible before the ticket says so */
        unsigned int ticket = atomicAdd(scratch.ticket, 1u);
        is_last_block = ticket == gridDim.x - 1;
    }
    __syncthreads();
    if (!is_last_block) return;

    __threadfence();
    acc = Op::identity();
    for (unsigned int b = threadIdx.x; b < gridDim.x; b += kThreads)
        acc = Op::combine(acc, load_uncached(&partials[b]));
    __syncthreads(); /* warp_results is reused */
    acc = block_butterfly<Op>(acc, warp_results);
    if (threadIdx.x == 0) {
        Op::store(acc, result);
        *scratch.ticket = 0;
    }
}

template <class T, template <class> class OpT> int plan_for(uint64_t n, pb_reduce_gpu_plan *plan) {
    using Op = OpT<T>;
    int device = 0, sms = 0, blocks_per_sm = 0;
    cudaError_t err = cudaGetDevice(&device);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (err == cudaSuccess)
        err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &blocks_per_sm, butterfly_reduce_kernel<T, Op>, kThreads, 0);
    if (err != cudaSuccess) return (int)err;
    /* Enough blocks to fill every SM, but no block with less than kUnroll vectors per
     * thread: small inputs get few blocks and a short final combine. */
    const uint64_t per_block = (uint64_t)kThreads * kUnroll * KeyVector<T>::kCount;
    uint64_t wanted = (n + per_block - 1) / per_block;
    uint64_t full = (uint64_t)sms * (uint64_t)blocks_per_sm;
    plan->grid = (int)(wanted < 1 ? 1 : wanted > full ? full : wanted);
    /* ticket word, padded, then one accumulator per block */
    plan->scratch_bytes = 256 + (size_t)plan->grid * sizeof(typename Op::Acc);
    return (int)cudaSuccess;
}

template <class T, template <class> class OpT>
int launch_for(const void *d_in, uint64_t n, const pb_reduce_gpu_plan *plan, void *d_scratch,
               void *d_result, cudaStream_t stream) {
    /* The vector body reads 16 bytes at a time from the start of the input. */
    if (reinterpret_cast<uintptr_t>(d_in) % 16 != 0) return (int)cudaErrorMisalignedAddress;
    Scratch scratch{static_cast<unsigned int *>(d_scratch), static_cast<char *>(d_scratch) + 256};
    butterfly_reduce_kernel<T, OpT<T>>
        <<<plan->grid, kThreads, 0, stream>>>(static_cast<const T *>(d_in), n, scratch, d_result);
    return (int)cudaGetLastError();
}

template <class F> int with_op(enum pb_reduce_op op, enum pb_dtype t, F &&f) {
    return with_key_type(t, [&](auto key) {
        using T = decltype(key);
        switch (op) {
        case PB_REDUCE_SUM:
            return f.template operator()<T, SumOp>();
        case PB_REDUCE_MIN:
            return f.template operator()<T, MinOp>();
        case PB_REDUCE_MAX:
            return f.template operator()<T, MaxOp>();
        case PB_REDUCE_ARGMIN:
            return f.template operator()<T, ArgMinOp>();
        }
        return (int)cudaErrorInvalidValue;
    });
}

} // namespace
} // namespace pb_reduce

namespace pb_reduce {
namespace {

struct Planner {
    uint64_t n;
    pb_reduce_gpu_plan *plan;
    template <class T, template <class> class OpT> int operator()() const {
        return plan_for<T, OpT>(n, plan);
    }
};

struct Launcher {
    const void *in;
    uint64_t n;
    const pb_reduce_gpu_plan *plan;
    void *scratch, *result;
    cudaStream_t stream;
    template <class T, template <class> class OpT> int operator()() const {
        return launch_for<T, OpT>(in, n, plan, scratch, result, stream);
    }
};

} // namespace
} // namespace pb_reduce

extern "C" int pb_reduce_butterfly_plan(enum pb_reduce_op op, enum pb_dtype t, uint64_t n,
                                        struct pb_reduce_gpu_plan *plan) {
    return pb_reduce::with_op(op, t, pb_reduce::Planner{n, plan});
}

extern "C" int pb_reduce_butterfly_launch(enum pb_reduce_op op, enum pb_dtype t, const void *d_in,
                                          uint64_t n, const struct pb_reduce_gpu_plan *plan,
                                          void *d_scratch, void *d_result, cudaStream_t stream) {
    return pb_reduce::with_op(op, t,
                              pb_reduce::Launcher{d_in, n, plan, d_scratch, d_result, stream});
}
