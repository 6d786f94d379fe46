/* What the shortest-paths kernels share: distance arithmetic on 32-bit words (unsigned
 * integers, saturating; or non-negative float bits, IEEE single addition, as the CPU). */
#pragma once

#include <cuda_runtime.h>
#include <stdint.h>

#include "sssp.h"

namespace pb_sssp {

struct IntDist {
    static constexpr uint32_t kInf = SSSP_INF_INT;
    __device__ static uint32_t add(uint32_t d, uint32_t w) {
        uint32_t s = d + w;
        return s < d ? kInf : s;
    }
};

struct FloatDist {
    static constexpr uint32_t kInf = SSSP_INF_FLOAT;
    __device__ static uint32_t add(uint32_t d, uint32_t w) {
        return __float_as_uint(__fadd_rn(__uint_as_float(d), __uint_as_float(w)));
    }
};

/* Calls f.template operator()<Dist>() for the weights' type. */
template <class F> int with_dist(bool is_float, F &&f) {
    return is_float ? f.template operator()<FloatDist>() : f.template operator()<IntDist>();
}

/* (distance << 32 | vertex): the smaller distance, ties to the smaller vertex. */
struct MinKeyOp {
    using Acc = unsigned long long;
    __device__ static Acc identity() { return ~0ull; }
    __device__ static Acc combine(Acc a, Acc b) { return b < a ? b : a; }
};

} // namespace pb_sssp
