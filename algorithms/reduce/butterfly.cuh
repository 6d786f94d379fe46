/* The seed's XOR butterfly as device building blocks, shared by reduce/butterfly and
 * the shortest-paths kernels (sssp/dijkstra-butterfly). An Op supplies the accumulator
 * type Acc, combine(a, b) (associative and commutative) and identity(). */
#pragma once

#include <cuda_runtime.h>

namespace pb_butterfly {

/* __shfl_xor_sync for any trivially copyable accumulator, 4 bytes at a time. */
template <class V> __device__ __forceinline__ V shfl_xor(const V &v, int lane_mask) {
    static_assert(sizeof(V) % 4 == 0, "accumulators are whole words");
    constexpr int kWords = sizeof(V) / 4;
    union {
        V value;
        int word[kWords];
    } in, out;
    in.value = v;
#pragma unroll
    for (int w = 0; w < kWords; w++)
        out.word[w] = __shfl_xor_sync(0xffffffffu, in.word[w], lane_mask);
    return out.value;
}

/* The seed's butterfly across a warp: afterwards every lane holds the warp's result. */
template <class Op>
__device__ __forceinline__ typename Op::Acc warp_butterfly(typename Op::Acc acc) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) acc = Op::combine(acc, shfl_xor(acc, offset));
    return acc;
}

/* Butterfly across a block of kWarps warps; the result is valid in every thread of warp 0. */
template <class Op, int kWarps>
__device__ __forceinline__ typename Op::Acc
block_butterfly(typename Op::Acc acc, typename Op::Acc (&warp_results)[kWarps]) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    acc = warp_butterfly<Op>(acc);
    if (lane == 0) warp_results[warp] = acc;
    __syncthreads();
    if (warp == 0) {
        acc = lane < kWarps ? warp_results[lane] : Op::identity();
        acc = warp_butterfly<Op>(acc);
    }
    return acc;
}

/* Butterfly across a block of kWarps warps with the result in every thread: every warp
 * butterflies the warps' results itself, so one barrier suffices and nothing is
 * broadcast. Callers that call it in a loop alternate two warp_results buffers, so a
 * fast warp's next write cannot overwrite what a slow warp is still reading. */
template <class Op, int kWarps>
__device__ __forceinline__ typename Op::Acc block_butterfly_all(typename Op::Acc acc,
                                                                typename Op::Acc *warp_results) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    acc = warp_butterfly<Op>(acc);
    if (lane == 0) warp_results[warp] = acc;
    __syncwarp(); /* the barrier is an aligned one: the warp meets it whole */
    __syncthreads();
    acc = lane < kWarps ? warp_results[lane] : Op::identity();
    return warp_butterfly<Op>(acc);
}

} // namespace pb_butterfly
